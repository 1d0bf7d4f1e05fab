"""The test suite: a package, so that the test folder ``tests/play`` is ``tests.play`` and never shadows the ``play`` package under test."""
