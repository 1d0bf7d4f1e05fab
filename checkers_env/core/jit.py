"""``kernel``: the numba decorator of every compiled function of the project.

numba counts references to arrays (its runtime, NRT): a compiled function
that receives arrays increments their counts on entry and decrements them on
exit, each an atomic read-modify-write behind a call, and it often does the
same around a helper it inlines. Kernels here only read and write arrays
their caller owns and never allocate or return one, so those counts buy
nothing; on the hot paths they cost more than the work itself (the mask of a
quiet american position took 88 ns with them and 36 ns without).
``kernel`` compiles without the runtime (numba's ``_nrt=False`` option) and
caches the machine code on disk, as ``njit(cache=True)`` does. A function
that allocates (``np.empty`` and the like) fails to compile without the
runtime: it is declared ``@kernel(allocates=True)``.

Cache freshness: numba keys a function's disk cache on its own source file
only, but kernels inline and call kernels of other files (the MCTS inlines
the leg-level game's ``step_game``, which inlines the move generator), so
editing one file left stale machine code behind in the caches of the others.
Every package that declares a kernel is noted, and for functions of such a
package a locator put in front of numba's own keys the cache on the contents
of every source file of that package and of the package holding this module
(the rules core every kernel builds on), so any edit recompiles what depends
on it.

Process settings are not made here: an entry point that runs parallel
kernels calls :func:`use_workqueue_threading` before compiling them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys

from numba import njit

__all__ = ["kernel", "project_source_stamp", "use_workqueue_threading"]

# the top-level package holding this module (``checkers_env``): every kernel may inline its kernels
_BASE_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_KERNEL_PACKAGE_DIRS: set[str] = {_BASE_PACKAGE_DIR}
"""Top-level package folders that declared a kernel; only their functions get the project stamp."""


def _top_package_dir(py_file: str) -> str | None:
    """The folder of the top-level package holding ``py_file`` (the highest folder with an
    ``__init__.py`` above it), or None for a file outside any package."""
    folder = os.path.dirname(os.path.abspath(py_file))
    top = None
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        top = folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return top


def _note_kernel_package(func) -> None:
    top = _top_package_dir(func.__code__.co_filename)
    if top is not None:
        _KERNEL_PACKAGE_DIRS.add(top)


def kernel(func=None, *, allocates: bool = False, **options):
    """``numba.njit(cache=True, _nrt=False, **options)``; use as ``@kernel`` or ``@kernel(inline="always")``.

    ``allocates=True`` keeps numba's runtime, for the few functions that allocate arrays.
    """

    def decorate(f):
        _note_kernel_package(f)  # before njit: numba picks the cache locator when it wraps the function
        if allocates:
            return njit(cache=True, **options)(f)
        return njit(cache=True, _nrt=False, **options)(f)

    return decorate if func is None else decorate(func)


def _kernel_package_dir(py_file: str) -> str | None:
    """The folder of the kernel-declaring package holding ``py_file``, or None."""
    top = _top_package_dir(py_file)
    return top if top in _KERNEL_PACKAGE_DIRS else None


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
    the rules core's whole package and the rest of ``py_file``'s top-level package."""
    folders = [_BASE_PACKAGE_DIR]
    own = _top_package_dir(py_file)
    if own is not None and own != _BASE_PACKAGE_DIR:
        folders.append(own)
    root = os.path.dirname(_BASE_PACKAGE_DIR)
    digest = hashlib.sha256()
    for folder in folders:
        for path in _source_files(folder):
            st = os.stat(path)
            digest.update(os.path.relpath(path, root).encode())
            digest.update(_file_digest(path, st.st_mtime, st.st_size))
    return digest.hexdigest()


def _install_project_locators() -> None:
    from numba.core import caching

    def project_locator(base):
        class Locator(base):
            """A numba locator with :func:`project_source_stamp` as the source stamp, for kernel packages."""

            def get_source_stamp(self):
                return project_source_stamp(self._py_file)

            @classmethod
            def from_function(cls, py_func, py_file):
                if _kernel_package_dir(py_file) is None:
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


def use_workqueue_threading() -> None:
    """Make numba's parallel kernels use the workqueue threading layer (unless the user chose one).

    Idle worker threads of the OpenMP and TBB layers spin while waiting for
    work, which on a shared 2-core machine takes the core another process
    needs. numba reads ``NUMBA_THREADING_LAYER`` when it is first imported, so
    its config is set too. For entry points (command lines, servers), called
    before the first parallel kernel runs; importing a module never calls it.
    """
    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    os.environ["NUMBA_THREADING_LAYER"] = "workqueue"
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.THREADING_LAYER = "workqueue"
