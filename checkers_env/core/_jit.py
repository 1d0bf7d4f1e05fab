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

Cache freshness: numba keys a function's disk cache on its own source file
only, but kernels inline and call kernels of other files (the MCTS inlines
``vector.step_game``, which inlines the move generator), so editing one file
left stale machine code behind in the caches of the others. Importing this
module puts a locator in front of numba's own for functions of this project:
their caches are keyed on the contents of every source file of
``checkers_env`` and of the function's own top-level package, so any edit
recompiles what depends on it.
"""

from __future__ import annotations

import functools
import hashlib
import os

from numba import njit

__all__ = ["kernel", "project_source_stamp"]

_CHECKERS_ENV_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PROJECT_ROOT = os.path.dirname(_CHECKERS_ENV_DIR)


def kernel(func=None, **options):
    """``numba.njit(cache=True, _nrt=False, **options)``; use as ``@kernel`` or ``@kernel(inline="always")``."""
    decorator = njit(cache=True, _nrt=False, **options)
    return decorator if func is None else decorator(func)


# The project's top-level packages (installed side by side): only their functions get the project stamp.
PROJECT_PACKAGES = ("checkers_env", "agents", "train", "play")


def _package_dir(py_file: str) -> str | None:
    """The project package folder (one of PROJECT_PACKAGES, beside checkers_env) holding ``py_file``, or None."""
    path = os.path.abspath(py_file)
    if not path.startswith(_PROJECT_ROOT + os.sep):
        return None
    top = path[len(_PROJECT_ROOT) + 1 :].split(os.sep)[0]
    if top not in PROJECT_PACKAGES or top == os.path.basename(path):
        return None
    return os.path.join(_PROJECT_ROOT, top)


def _source_files(folder: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
    return found


@functools.cache
def _file_digest(path: str, mtime: float, size: int) -> bytes:
    # mtime and size are in the key so that an edited file is read again
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).digest()


def project_source_stamp(py_file: str) -> str:
    """A digest of the contents of every source file a kernel in ``py_file`` may depend on:
    all of ``checkers_env`` and the rest of ``py_file``'s top-level package."""
    folders = [_CHECKERS_ENV_DIR]
    own = _package_dir(py_file)
    if own is not None and own != _CHECKERS_ENV_DIR:
        folders.append(own)
    digest = hashlib.sha256()
    for folder in folders:
        for path in _source_files(folder):
            st = os.stat(path)
            digest.update(os.path.relpath(path, _PROJECT_ROOT).encode())
            digest.update(_file_digest(path, st.st_mtime, st.st_size))
    return digest.hexdigest()


def _install_project_locators() -> None:
    from numba.core import caching

    def project_locator(base):
        class Locator(base):
            """A numba locator with :func:`project_source_stamp` as the source stamp, for this project's files."""

            def get_source_stamp(self):
                return project_source_stamp(self._py_file)

            @classmethod
            def from_function(cls, py_func, py_file):
                if _package_dir(py_file) is None:
                    return None
                return super().from_function(py_func, py_file)

        Locator.__name__ = Locator.__qualname__ = f"Project{base.__name__}"
        return Locator

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # public from numba 0.61
    classes = impl._locator_classes
    if any(c.__name__.startswith("Project") for c in classes):
        return
    # NUMBA_CACHE_DIR first, then __pycache__, as numba orders its own
    classes[0:0] = [project_locator(caching.UserProvidedCacheLocator), project_locator(caching.InTreeCacheLocator)]


_install_project_locators()
