"""Writing files so that a reader never sees half of one: the project's one atomic-write helper.

Every file the project writes (PDN, checkpoints, training state, logs'
summaries, JSON results, plots) goes through :func:`atomic_write`: the data
is written to a temporary file in the destination's folder, flushed to disk,
and renamed over the destination, which on POSIX replaces it in one step. A
crash or a kill at any moment leaves either the old file or the new one,
never a mix, and no temporary file behind (except after SIGKILL, which no
code can catch: :func:`remove_stale_temporaries` clears those).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from typing import IO

__all__ = ["atomic_write", "remove_stale_temporaries", "TEMP_PREFIX"]

TEMP_PREFIX = ".tmp-"
"""Name prefix of the temporary files :func:`atomic_write` makes (and :func:`remove_stale_temporaries` removes)."""


def atomic_write(
    path: str | os.PathLike,
    data: bytes | str | Callable[[IO[bytes]], None],
    *,
    fsync: bool = True,
    make_folder: bool = True,
) -> None:
    """Write ``data`` to ``path`` atomically.

    Args:
        path: the destination; its folder is created when ``make_folder``.
        data: bytes, text (written as UTF-8), or a function that writes to the
            binary file object it is given (``torch.save``, ``fig.savefig``...).
        fsync: flush the file to the disk before the rename, so that the new
            contents survive a power cut once this returns. Logs rewritten
            often may skip it; the rename stays atomic either way.
        make_folder: create the destination's folder if it is missing.

    On any error (including ``KeyboardInterrupt``) the temporary file is
    removed and the destination is left as it was. A file that is replaced
    keeps its permissions; a new one gets ``0o666`` less the umask.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if make_folder:
        os.makedirs(folder, exist_ok=True)
    suffix = os.path.splitext(path)[1]
    while True:
        tmp = os.path.join(folder, f"{TEMP_PREFIX}{secrets.token_hex(6)}{suffix}")
        try:
            # mode 0o666 less the umask, as a plain open() gives (tempfile's would be 0o600)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        try:
            # a replaced file keeps its permissions
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, str):
                fh.write(data.encode("utf-8"))
            elif isinstance(data, (bytes, bytearray, memoryview)):
                fh.write(data)
            else:
                data(fh)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def remove_stale_temporaries(folder: str | os.PathLike) -> list[str]:
    """Delete the temporary files :func:`atomic_write` left in ``folder`` when its process was
    killed (SIGKILL) mid-write; returns their paths. Only call it when no other process is
    writing to ``folder``."""
    folder = os.fspath(folder)
    removed = []
    if not os.path.isdir(folder):
        return removed
    for name in sorted(os.listdir(folder)):
        if name.startswith(TEMP_PREFIX):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                os.unlink(path)
                removed.append(path)
    return removed
