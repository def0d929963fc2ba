"""What running the kernels needs around them: running them so that a time limit
or Ctrl-C can stop them, the one status line of long searches, and process facts
(loading them: :mod:`.families`).

The kernels release the GIL (``nogil``), so :func:`run_abortable` runs them in a
helper thread while the calling thread watches the clock and the keyboard, and
stops them through the control array's abort word.
"""
from __future__ import annotations

import resource
import sys
import threading
import time
from typing import Any, Callable, Optional, TextIO, TypeVar

import numpy as np
import psutil

from ..api.options import Watch
from ..kernels.core import layout as L

T = TypeVar("T")


# ------------------------------------------------------------------ running them
def run_abortable(fn: Callable[[], T], ctl: np.ndarray, time_limit: Optional[float],
                  progress: Optional[Callable[[], None]] = None,
                  watch: Optional[Watch] = None) -> tuple[Optional[T], bool]:
    """Run ``fn()`` (kernels without the GIL) in a helper thread; on time-out,
    Ctrl-C or a stopped ``watch`` set ``ctl[CTL_ABORT]`` (the kernels stop within
    about a millisecond) and wait for it. ``progress()`` is called about ten times
    a second while it runs. Returns ``(result, stopped)`` (by the time limit or
    the watch); Ctrl-C is re-raised after the stop."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as e:  # pragma: no cover - re-raised below
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    timed_out = False
    try:
        while thread.is_alive():
            period = 0.1 if watch is None else 0.05
            wait = period if deadline is None else max(0.0, min(period, deadline - time.monotonic()))
            thread.join(wait)
            if progress is not None and thread.is_alive():
                progress()
            late = deadline is not None and time.monotonic() >= deadline
            if thread.is_alive() and (late or (watch is not None and watch.stopped)):
                ctl[L.CTL_ABORT] = 1
                timed_out = True
                thread.join()
    except KeyboardInterrupt:
        ctl[L.CTL_ABORT] = 1
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return box.get("result"), timed_out


class StatusLine:
    """The one status line of a long search, on stderr: redrawn at most every
    ``period`` seconds and wiped by :meth:`finish`. Shown when ``show`` is True,
    or when it is None and the stream is a terminal; otherwise it does nothing."""

    def __init__(self, show: Optional[bool] = None, stream: Optional[TextIO] = None, period: float = 0.5) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.show = self.stream.isatty() if show is None else show
        self.period = period
        self.started = time.monotonic()
        self._last = 0.0
        self._width = 0

    def update(self, text: Callable[[], str], force: bool = False) -> None:
        """Redraw with ``text()`` if the period has passed (or ``force``)."""
        if not self.show:
            return
        now = time.monotonic()
        if not force and now - self._last < self.period:
            return
        self._last = now
        line = text()
        self._width = max(self._width, len(line))
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()

    def finish(self) -> None:
        """Wipe the line."""
        if self.show and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def elapsed(self) -> float:
        """Seconds since the line was made."""
        return time.monotonic() - self.started


def run_with_status(fn: Callable[[], T], ctl: np.ndarray, time_limit: Optional[float], progress: Optional[bool],
                    status: Callable[[], str], watch: Optional[Watch] = None,
                    nodes: Callable[[], int] = lambda: 0) -> tuple[Optional[T], bool]:
    """:func:`run_abortable` with a :class:`StatusLine` showing ``status()`` (see
    there for ``progress``), telling ``watch`` the count ``nodes()`` as it runs.
    Returns ``(result, stopped)``."""
    line = StatusLine(progress)

    def tick() -> None:
        line.update(status)
        if watch is not None:
            watch.count(nodes())

    try:
        return run_abortable(fn, ctl, time_limit, tick, watch)
    finally:
        line.finish()


# ------------------------------------------------------------------ process facts
def default_workers() -> int:
    """Physical cores (psutil), bounded by the CPUs this process may use; at least 1."""
    physical = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    try:
        usable = len(psutil.Process().cpu_affinity())
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this OS
        usable = physical
    return max(1, min(physical, usable))


def peak_rss() -> int:
    """This process's peak resident memory in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
