"""Shared test configuration.

Hypothesis profiles: ``default`` keeps the property tests to seconds (no
per-example deadline, because the first call of a numba kernel compiles or
loads it from cache); ``thorough`` (``HYPOTHESIS_PROFILE=thorough``) runs many
more examples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
