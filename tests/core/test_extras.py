"""A missing optional library says which extra installs it, wherever it is first needed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from checkers_env.core.extras import EXTRA_OF, MissingDependencyError, missing, require


def _run_without(module: str, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter where importing ``module`` fails."""
    prelude = f"import sys; sys.modules[{module!r}] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True)


@pytest.mark.parametrize(
    ("module", "code", "extra"),
    [
        ("pettingzoo", "import checkers_env; checkers_env.env('american')", "env"),
        ("gymnasium", "import checkers_env; checkers_env.SingleAgentEnv('american')", "env"),
        ("torch", "import agents.networks", "train"),
        ("torch", "from agents import make_agent; make_agent('x.pt')", "train"),
        ("tyro", "from train.selfplay import main; raise SystemExit(main(['--minutes', '1']))", "train"),
        ("flask", "from play.__main__ import main; raise SystemExit(main(['--port', '0']))", "play"),
    ],
)
def test_a_missing_library_names_its_extra(module, code, extra, tmp_path):
    if "x.pt" in code:
        (tmp_path / "x.pt").write_bytes(b"")
        code = code.replace("'x.pt'", repr(str(tmp_path / "x.pt")))
    out = _run_without(module, code)
    assert out.returncode != 0
    assert f"checkers-env[{extra}]" in out.stderr, out.stderr[-2000:]
    assert "ModuleNotFoundError" not in out.stderr.splitlines()[-1]


def test_require_and_missing():
    assert require("numpy", "arrays").__name__ == "numpy"
    with pytest.raises(MissingDependencyError, match=r"needs PyTorch.*checkers-env\[train\]"):
        require("torch.__not_a_module__", "a test")
    error = missing("ray", "the Ray backend")
    assert isinstance(error, ImportError) and "checkers-env[distributed]" in str(error)
    assert all(len(v) == 2 for v in EXTRA_OF.values())
