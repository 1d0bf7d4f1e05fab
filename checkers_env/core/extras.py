"""Optional dependencies: import one, or say which extra of the package installs it.

The rules core needs only numpy and numba; everything else is an extra
(``pip install -e '.[env]'`` and so on, see ``pyproject.toml``). A feature
whose library is missing raises :class:`MissingDependencyError` naming the
extra to install, as Gymnasium's ``DependencyNotInstalled`` does, instead of
a bare ``ModuleNotFoundError`` from deep inside an import.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingDependencyError", "require", "missing", "EXTRA_OF"]

EXTRA_OF = {
    "pettingzoo": ("env", "PettingZoo"),
    "gymnasium": ("env", "Gymnasium"),
    "PIL": ("render", "Pillow"),
    "pygame": ("render", "pygame"),
    "torch": ("train", "PyTorch"),
    "tqdm": ("train", "tqdm"),
    "matplotlib": ("train", "matplotlib"),
    "tyro": ("train", "tyro"),
    "flask": ("play", "Flask"),
    "pyspiel": ("openspiel", "OpenSpiel (open-spiel)"),
    "stable_baselines3": ("sb3", "Stable-Baselines3"),
    "sb3_contrib": ("sb3", "sb3-contrib"),
    "ray": ("distributed", "Ray"),
}
"""For each optional top-level module: the package extra that installs it and the library's name."""


class MissingDependencyError(ImportError):
    """An optional library is not installed; the message says which extra installs it."""


def missing(module: str, purpose: str, cause: BaseException | None = None) -> MissingDependencyError:
    """The error to raise when ``purpose`` cannot import ``module`` (a top-level name of :data:`EXTRA_OF`)::

        try:
            import torch
        except ImportError as exc:
            raise missing("torch", "the learned agents", exc) from exc
    """
    extra, library = EXTRA_OF.get(module.split(".")[0], (None, module))
    how = f"pip install 'checkers-env[{extra}]' (from a clone: pip install -e '.[{extra}]')" if extra else (
        f"pip install {module}"
    )
    detail = f" ({cause})" if cause is not None else ""
    return MissingDependencyError(f"{purpose} needs {library}, which is not installed{detail}; install it with: {how}")


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :func:`missing`'s error saying what needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing(module, purpose, exc) from exc
