"""Progress reports for long work: tqdm bars on a terminal, plain periodic lines in a log file.

A bar redraws itself with carriage returns, which a terminal shows as one
moving line but a log file (``> run.log``, a CI job) keeps as thousands of
fragments. When standard error is not a terminal, :func:`progress_bar`
writes a plain line instead: when the work starts, at most every
``PLAIN_EVERY_SECONDS`` while it runs, and when it ends.
"""

from __future__ import annotations

import sys
import time

__all__ = ["progress_bar", "say", "PLAIN_EVERY_SECONDS"]

PLAIN_EVERY_SECONDS = 30.0


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def close(self) -> None:
        pass


class _PlainLines(_Silent):
    """A progress report as occasional whole lines on standard error."""

    def __init__(self, total: int | None, desc: str, unit: str):
        self.total = total
        self.desc = desc
        self.unit = unit
        self.count = 0
        self.postfix = ""
        self.started = time.monotonic()
        self.last = self.started
        self._closed = False

    def _line(self, final: bool = False) -> None:
        elapsed = time.monotonic() - self.started
        of = f"/{self.total}" if self.total else ""
        post = f", {self.postfix}" if self.postfix else ""
        state = "done" if final else "..."
        print(f"{self.desc}: {self.count}{of} {self.unit}s{post} ({elapsed:.0f} s) {state}", file=sys.stderr,
              flush=True)  # fmt: skip

    def update(self, n: int = 1) -> None:
        self.count += n
        now = time.monotonic()
        if now - self.last >= PLAIN_EVERY_SECONDS:
            self.last = now
            self._line()

    def set_postfix_str(self, text: str) -> None:
        self.postfix = text

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._line(final=True)

    def __exit__(self, *exc) -> None:
        self.close()


def progress_bar(total: int | None, desc: str, enabled: bool = True, unit: str = "it"):
    """A context manager with ``update(n)`` and ``set_postfix_str(text)``: a tqdm bar on a terminal,
    plain periodic lines otherwise, nothing when ``enabled`` is False."""
    if not enabled:
        return _Silent()
    if sys.stderr.isatty():
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, leave=False, unit=unit, dynamic_ncols=True)
    return _PlainLines(total, desc, unit)


def say(text: str) -> None:
    """A line for the person watching (standard error), written so that a tqdm bar is not broken."""
    if sys.stderr.isatty():
        from tqdm.auto import tqdm

        tqdm.write(text, file=sys.stderr)
    else:
        print(text, file=sys.stderr, flush=True)
