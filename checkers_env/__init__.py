"""checkers_env: draughts and checkers rules for reinforcement learning.

The rules core lives in :mod:`checkers_env.core` (re-exported here).
"""

from __future__ import annotations

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all

__version__ = "0.1.0"
__all__ = list(_core_all)
