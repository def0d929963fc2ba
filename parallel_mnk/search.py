"""solve(position) -> SolveResult: value, exact score, best move and principal variation.

This is the serial path (one process); ``workers > 1`` goes to
:mod:`parallel_mnk.parallel`. The numba kernels run without the GIL in a helper
thread so that a time limit or Ctrl-C can stop them through the control array.
"""
from __future__ import annotations

import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .geometry import build_context
from .kernels import layout as L
from .kernels.root import best_move as _best_move_kernel
from .kernels.root import solve_score as _solve_score_kernel
from .position import Position
from .rules import GameSpec, MnkError, format_move, value_of_score

DEFAULT_TT_BITS = 22  # a fixed small table (32 MiB) for callers that want one; solve() defaults to default_tt_bits()


@dataclass
class WorkerStats:
    """What one worker did: tasks run, nodes searched, CPU seconds, peak memory (bytes)."""

    worker: int
    tasks: int
    nodes: int
    cpu_s: float
    peak_rss: int = 0

    def to_dict(self) -> dict:
        return {"worker": self.worker, "tasks": self.tasks, "nodes": self.nodes,
                "cpu_s": round(self.cpu_s, 6), "peak_rss": self.peak_rss}


@dataclass
class SolveResult:
    """The answer for one position, from the side to move.

    ``value`` is ``win``/``draw``/``loss`` (``unknown`` when a time limit stopped
    the search); ``score`` the exact DESIGN.md score (None when weak or unknown);
    ``best_move`` and ``pv`` are moves (column index with gravity, cell index
    otherwise; None/empty when the game is over); ``nodes`` counts every node
    searched, also those of the best-move and variation searches.
    """

    spec: GameSpec
    value: str
    score: Optional[int]
    best_move: Optional[int]
    pv: list[int]
    nodes: int
    time_s: float
    workers: list[WorkerStats] = field(default_factory=list)
    terminal: bool = False
    checkpoint: Optional[dict] = None  # journal figures of a solve with a checkpoint

    def to_dict(self) -> dict:
        """The JSON form of DESIGN.md (moves in the input's notation)."""
        return {
            "value": self.value,
            "score": self.score,
            "best_move": None if self.best_move is None else format_move(self.spec, self.best_move),
            "pv": [format_move(self.spec, m) for m in self.pv],
            "nodes": self.nodes,
            "workers": [w.to_dict() for w in self.workers],
            "time_s": round(self.time_s, 6),
            **({} if self.checkpoint is None else {"checkpoint": self.checkpoint}),
        }


# ------------------------------------------------------------------ tables
_tables: dict[int, np.ndarray] = {}

MIN_TT_BITS, MAX_TT_BITS = 10, 34
DEFAULT_TT_CAP = 256 << 20  # bytes; see default_tt_bits


def parse_size(text: str) -> int:
    """Bytes of a size such as ``512M``, ``2G``, ``1.5g``, ``64KiB`` or ``1048576``
    (binary units: K = 1024; a B or iB suffix is allowed)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*", str(text).lower())
    if m is None or (m.group(3) == "ib" and not m.group(2)):
        raise MnkError(f"bad size {text!r}: give bytes or a number with K, M, G or T (binary units), "
                       "like 512M or 2G")
    value = float(m.group(1)) * (1 << (10 * "_kmgt".index(m.group(2) or "_")))
    if not 0 < value < 2**62:
        raise MnkError(f"bad size {text!r}: it must be positive")
    return int(value)


def check_table_memory(bits: int, what: str = "a table") -> None:
    """Refuse (MnkError) a table of ``2**bits`` entries that is out of range or
    bigger than the memory available now."""
    if not MIN_TT_BITS <= bits <= MAX_TT_BITS:
        raise MnkError(f"table size 2**{bits} is out of range (2**{MIN_TT_BITS} .. 2**{MAX_TT_BITS} entries)")
    import psutil

    need, avail = 8 << bits, psutil.virtual_memory().available
    if need > avail:
        raise MnkError(f"{what} of 2**{bits} entries needs {need / 2**30:.1f} GiB, "
                       f"only {avail / 2**30:.1f} GiB is available")


def tt_bits_for_size(size) -> int:
    """Table bits for ``size`` (bytes, or a string for :func:`parse_size`): the
    largest power-of-two count of 8-byte entries that fits in it (at most
    2**MAX_TT_BITS). Asking for more than the available memory is refused."""
    import psutil

    nbytes = parse_size(size) if isinstance(size, str) else int(size)
    if nbytes < 8 << MIN_TT_BITS:
        raise MnkError(f"table size {nbytes} bytes is too small (at least {(8 << MIN_TT_BITS) // 1024} KiB)")
    avail = psutil.virtual_memory().available
    if nbytes > avail:
        raise MnkError(f"a table of {nbytes / 2**30:.2f} GiB was asked for, only {avail / 2**30:.1f} GiB "
                       "of memory is available")
    return min(MAX_TT_BITS, (nbytes // 8).bit_length() - 1)


def default_tt_bits() -> int:
    """The default table: the largest power of two fitting in a quarter of the
    available memory, at most ``DEFAULT_TT_CAP`` (256 MiB, 2**25 entries).

    Not bigger because first touches of a table's pages cost (about 15 us per
    4 KiB page here): a medium search touching most pages of a 1 GiB table
    spends seconds in page faults, while long searches gain from size (give
    ``--tt-size``)."""
    import psutil

    budget = min(psutil.virtual_memory().available // 4, DEFAULT_TT_CAP)
    return max(MIN_TT_BITS, min(MAX_TT_BITS, (budget // 8).bit_length() - 1))


def resolve_tt_bits(tt_bits: Optional[int] = None, tt_size=None) -> int:
    """The table bits of a solve: ``tt_bits``, or from ``tt_size``, or the default."""
    if tt_bits is not None and tt_size is not None:
        raise MnkError("give the table size either as tt_bits or as tt_size, not both")
    if tt_size is not None:
        return tt_bits_for_size(tt_size)
    return default_tt_bits() if tt_bits is None else tt_bits


def transposition_table(bits: int) -> np.ndarray:
    """The process's table of ``2**bits`` entries (allocated once per size, reused).

    Each solve salts its keys afresh, which is as good as clearing the table.
    """
    if bits not in _tables:
        check_table_memory(bits)
        _tables[bits] = np.zeros(1 << bits, dtype=np.uint64)
    return _tables[bits]


def new_salt() -> np.uint64:
    """A random 64-bit salt for table keys."""
    return np.uint64(int.from_bytes(os.urandom(8), "little"))


class Search:
    """One search context: kernel context, table, control array and node count.

    Used by :func:`solve` and by the parallel workers; not thread-safe.
    """

    def __init__(self, spec: GameSpec, tt: np.ndarray, ctl: Optional[np.ndarray] = None,
                 salt: Optional[np.uint64] = None) -> None:
        spec.require_exact()
        self.spec = spec
        self.ctx = build_context(spec)
        self.ctx[L.C_SALT] = new_salt() if salt is None else salt
        self.tt = tt
        self.ctl = np.zeros(L.CTL_SIZE, dtype=np.int64) if ctl is None else ctl

    @property
    def nodes(self) -> int:
        return int(self.ctx[L.C_NODES])

    @property
    def aborted(self) -> bool:
        return bool(self.ctx[L.C_ABORTED])

    def score(self, own: int, opp: int, ply: int, weak: bool) -> int:
        """Exact score (or weak -1/0/1) of a position that is not over."""
        return int(_solve_score_kernel(self.ctx, self.tt, self.ctl, np.uint64(own), np.uint64(opp), ply, weak))

    def best_cell(self, own: int, opp: int, ply: int, score: int, weak: bool) -> int:
        """A cell that keeps ``score``; -1 when aborted."""
        return int(_best_move_kernel(self.ctx, self.tt, self.ctl, np.uint64(own), np.uint64(opp), ply, score, weak))


def terminal_result(position: Position, started: float) -> SolveResult:
    """The result for a position whose game is over (no search)."""
    out = position.outcome()
    assert out is not None
    if out.winner is None:
        score = 0
    else:
        score = -((position.spec.cells + 2 - out.ply) // 2)  # the last mover won
    return SolveResult(position.spec, value_of_score(score), score, None, [], 0,
                       time.perf_counter() - started, [], terminal=True)


def principal_variation(search: Search, position: Position, score: int, weak: bool, first_cell: int) -> list[int]:
    """Moves of a perfect game from ``position`` (first move ``first_cell``)."""
    pos = position.copy()
    pv = []
    cell = first_cell
    while cell >= 0:
        move = pos.move_of_cell(cell)
        pv.append(move)
        pos.push(move)
        score = -score
        if pos.is_game_over():
            break
        own, opp = pos.stones()
        cell = search.best_cell(own, opp, pos.ply, score, weak)
    return pv


def _run_abortable(fn, ctl: np.ndarray, time_limit: Optional[float], progress=None):
    """Run ``fn()`` (kernels without the GIL) in a thread; abort via ``ctl`` on
    time-out or Ctrl-C. ``progress()`` is called about twice a second while it
    runs. Returns ``(result, timed_out)``; re-raises Ctrl-C."""
    box: dict = {}

    def target():
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
            wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - time.monotonic()))
            thread.join(wait)
            if progress is not None and thread.is_alive():
                progress()
            if deadline is not None and thread.is_alive() and time.monotonic() >= deadline:
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


def run_with_status(fn, ctl: np.ndarray, time_limit: Optional[float], progress: Optional[bool], status):
    """:func:`_run_abortable` with a status line ``status()`` on stderr, redrawn at
    most twice a second and wiped at the end; shown when ``progress`` is True, or
    when it is None and stderr is a terminal. Returns ``(result, timed_out)``."""
    show = sys.stderr.isatty() if progress is None else progress
    report = None
    if show:
        last = [time.monotonic()]

        def report():
            now = time.monotonic()
            if now - last[0] >= 0.5:
                last[0] = now
                sys.stderr.write("\r" + status() + "   ")
                sys.stderr.flush()
    try:
        return _run_abortable(fn, ctl, time_limit, report)
    finally:
        if show:
            sys.stderr.write("\r" + " " * 70 + "\r")
            sys.stderr.flush()


def default_workers() -> int:
    """Physical cores (psutil), bounded by the CPUs this process may use; at least 1."""
    import psutil

    physical = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    try:
        usable = len(psutil.Process().cpu_affinity())
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this OS
        usable = physical
    return max(1, min(physical, usable))


_kernels_ready = False


def load_kernels() -> float:
    """Compile the kernels, or load them from numba's cache, once per process.

    Returns the seconds it took (0 once done), so that solve times never
    include it.
    """
    global _kernels_ready
    if _kernels_ready:
        return 0.0
    t = time.perf_counter()
    search = Search(GameSpec(3, 3, 3), np.zeros(1 << 10, dtype=np.uint64))
    score = search.score(0, 0, 0, False)
    search.best_cell(0, 0, 0, score, False)
    _kernels_ready = True
    return time.perf_counter() - t


def solve(position: Position, workers: int = 1, weak: bool = False, time_limit: Optional[float] = None,
          tt_bits: Optional[int] = None, pv: bool = True, split_depth: Optional[int] = None,
          progress: Optional[bool] = None, serial_budget: Optional[int] = None, tt_size=None,
          backend: str = "process", address: Optional[str] = None, checkpoint=None) -> SolveResult:
    """Solve ``position`` for the side to move.

    ``workers``: 1 is this serial path; more uses the process pool. ``weak``:
    only win/draw/loss (faster). ``time_limit`` (seconds): past it the answer is
    ``unknown``, never a guess. ``tt_bits``: log2 of the table's entry count, or
    ``tt_size``: bytes (or a string like ``"2G"``), the largest power of two of
    8-byte entries that fits; default :func:`default_tt_bits`.
    ``pv``: also compute the principal variation (best move is always computed).
    ``split_depth`` (parallel only): plies of the split tree (1 = plain root
    splitting); default adaptive. ``progress``: a status line on stderr (default:
    when stderr is a terminal). ``serial_budget`` (parallel only):
    nodes the coordinator tries alone before splitting (0: always split; default
    ``parallel.pool.SERIAL_BUDGET``), so that easy positions pay no parallel overhead.
    ``backend``: ``"process"`` (forked workers on this machine) or ``"ray"``
    (the same tasks as Ray tasks, :mod:`parallel_mnk.parallel.cluster`;
    ``address`` of a running cluster, default a local Ray with ``workers`` CPUs;
    always the parallel path, even with one worker). ``checkpoint``: a file
    (SQLite journal, :mod:`parallel_mnk.parallel.checkpoint`) of finished tasks;
    the same solve run again resumes from it (always the parallel path).
    """
    position.spec.require_exact()
    load_kernels()
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    if workers is None or workers < 1:
        raise MnkError(f"workers must be at least 1, got {workers}")
    if backend not in ("process", "ray"):
        raise MnkError(f"unknown backend {backend!r} (process or ray)")
    if address is not None and backend != "ray":
        raise MnkError("an address is only for the ray backend")
    tt_bits = resolve_tt_bits(tt_bits, tt_size)
    if workers > 1 or backend != "process" or checkpoint is not None:
        from .parallel.pool import SERIAL_BUDGET, solve_parallel
        return solve_parallel(position, workers=workers, weak=weak, time_limit=time_limit, tt_bits=tt_bits, pv=pv,
                              split_depth=split_depth, progress=progress,
                              serial_budget=SERIAL_BUDGET if serial_budget is None else serial_budget,
                              backend=backend, address=address, checkpoint=checkpoint)

    search = Search(position.spec, transposition_table(tt_bits))
    own, opp = position.stones()
    cpu0 = time.process_time()

    def run():
        score = search.score(own, opp, position.ply, weak)
        if search.aborted:
            return None
        cell = search.best_cell(own, opp, position.ply, score, weak)
        if search.aborted:
            return None
        line = principal_variation(search, position, score, weak, cell) if pv else [position.move_of_cell(cell)]
        if search.aborted:
            return None
        return score, line

    def status() -> str:
        elapsed = time.perf_counter() - started
        return (f"solving: {search.nodes / 1e6:.1f} M nodes, "
                f"{search.nodes / max(elapsed, 1e-9) / 1e6:.1f} M nodes/s, {elapsed:.1f} s")

    result, timed_out = run_with_status(run, search.ctl, time_limit, progress, status)
    elapsed = time.perf_counter() - started
    stats = [WorkerStats(0, 1, search.nodes, time.process_time() - cpu0)]
    if result is None:
        return SolveResult(position.spec, "unknown", None, None, [], search.nodes, elapsed, stats)
    score, line = result
    return SolveResult(position.spec, value_of_score(score), None if weak else score, line[0], line,
                       search.nodes, elapsed, stats)
