"""``kernel``: the numba decorator of every compiled function that allocates nothing.

numba counts references to arrays (its runtime, NRT): a compiled function
that receives arrays increments their counts on entry and decrements them on
exit, each an atomic read-modify-write behind a call, and it often does the
same around a helper it inlines. Kernels here only read and write arrays
their caller owns and never allocate or return one, so those counts buy
nothing; on the hot paths they cost more than the work itself (the mask of a
quiet american position took 88 ns with them and 36 ns without).
``kernel`` compiles without the runtime (numba's ``_nrt=False`` option) and
caches the machine code on disk, as ``njit(cache=True)`` does.

A function that allocates (``np.empty`` and the like) must use plain
``njit(cache=True)``: without the runtime it fails to compile.
"""

from __future__ import annotations

from numba import njit

__all__ = ["kernel"]


def kernel(func=None, **options):
    """``numba.njit(cache=True, _nrt=False, **options)``; use as ``@kernel`` or ``@kernel(inline="always")``."""
    decorator = njit(cache=True, _nrt=False, **options)
    return decorator if func is None else decorator(func)
