"""What running the kernels needs around them: loading them once per process
(after checking numba's cache), running them so that a time limit or Ctrl-C can
stop them, the one status line of long searches, and process facts.

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

from .geometry import build_context, build_grid_geometry
from .kernels import (
    bounds, cache_guard, common, dfpn, gravity, gravity_search, grid, limited, lines, negamax, pairing, ready,
    root, sharing, table, threats, tss,
)
from .kernels import grid_layout as GL
from .kernels import layout as L
from .options import Watch
from .rules import GameSpec

T = TypeVar("T")
KERNEL_MODULES = [bounds, common, dfpn, gravity, gravity_search, grid, limited, lines, negamax, pairing, ready,
                  root, sharing, table, threats, tss]

_loaded: set[str] = set()


# ------------------------------------------------------------------ loading the kernels
def _check_cache() -> None:
    """Drop numba's cached kernels if any kernel source changed (once per process,
    before any kernel runs; see :mod:`parallel_mnk.kernels.cache_guard`)."""
    if "cache" not in _loaded:
        cache_guard.drop_stale_cache(KERNEL_MODULES)
        _loaded.add("cache")


def load_kernels(parallel: bool = False) -> float:
    """Compile the exact engine's kernels, or load them from numba's cache, once per
    process; with ``parallel`` also those the workers and the coordinator of a
    parallel solve use. Returns the seconds it took (0 once done), so that solve
    times never include it."""
    want = "parallel" if parallel else "exact"
    if want in _loaded:
        return 0.0
    t = time.perf_counter()
    _check_cache()
    ctx = build_context(GameSpec(3, 3, 3))
    tt = np.zeros(1 << 10, dtype=np.uint64)
    ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
    zero = np.uint64(0)
    if "exact" not in _loaded:
        score = root.solve_score(ctx, tt, ctl, zero, zero, 0, False)
        root.best_move(ctx, tt, ctl, zero, zero, 0, score, False)
        _loaded.add("exact")
    if parallel:
        root.expand(ctx, tt, zero, zero, 0, np.zeros(L.MAX_CELLS, dtype=np.int64))
        root.run_task(ctx, tt, ctl, zero, zero, 0, -1, 1, L.CTL_WORKERS + L.CTL_LIVE_WINDOW)
        ready.claim(ctl, 0, 0, 1)
        ready.take_back(ctl, 0, 0)
        ready.publish(ctl, 0, 0)
        _loaded.add("parallel")
    return time.perf_counter() - t


def load_proof_kernels() -> float:
    """Compile or load the proof machinery's kernels (pairing certificates, VCF, df-pn) once
    per process; returns the seconds it took (0 once done)."""
    if "proofs" in _loaded:
        return 0.0
    t = time.perf_counter()
    _check_cache()
    ctx = build_context(GameSpec(3, 3, 3))
    zero = np.uint64(0)
    pairing.search_certificate(ctx, zero, zero, np.int64(1))
    pairing.defender_has_certificate(ctx, zero, zero, np.int64(0), True)
    threats.vcf_win(ctx, zero, zero, np.int64(1), np.int64(1))
    dfpn.dfpn_prove(ctx, np.zeros(64, dtype=np.uint64), np.zeros(L.CTL_SIZE, dtype=np.int64), zero, zero, np.int64(0),
                    np.int64(1))
    _loaded.add("proofs")
    return time.perf_counter() - t


def load_limited_kernels() -> float:
    """Compile or load the depth-limited engine's kernels once per process (so that
    a time limit never pays for it); returns the seconds it took (0 once done)."""
    if "limited" in _loaded:
        return 0.0
    t = time.perf_counter()
    _check_cache()
    spec = GameSpec(3, 3, 3)
    geo = build_grid_geometry(spec)
    st = np.zeros(int(geo[GL.G_S_SIZE]), dtype=np.int64)
    st[GL.S_TURN] = 1
    ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
    keys, data = np.zeros(1 << 4, dtype=np.int64), np.zeros(2 << 4, dtype=np.int64)
    flags = GL.F_PRUNE | GL.F_ORDER | GL.F_TT | GL.F_THREATS | GL.F_FAST
    limited.negamax_limited(geo, st, keys, data, ctl, np.int64(2), np.int64(-GL.INF), np.int64(GL.INF),
                            np.int64(flags), np.int64(0), np.int64(0))
    limited.forced_win_by_fours(geo, st, ctl, np.int64(1), False, np.int64(0))
    tss.vct(geo, st, ctl, np.int64(1), np.int64(1), np.int64(1), np.zeros(tss.scratch_size(9), dtype=np.int64),
            np.zeros(4, dtype=np.int64), np.int64(0))
    grid.set_stone(geo, st, 4, 1)
    grid.clear_stone(geo, st, 4)
    _loaded.add("limited")
    return time.perf_counter() - t


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
