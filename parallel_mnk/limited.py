"""Depth-limited search with a heuristic evaluation, for any board up to 26x26.

Where the exact solver cannot go (boards over 64 cells, or positions out of
reach in the time given) this module finds a strong move: iterative deepening
alpha-beta over :mod:`parallel_mnk.kernels.limited`, with an open-line
evaluation, threat detection (a win in one is never missed, an opponent's win in
one never ignored, a double threat is seen as lost) and a search for wins by
continuous fours before the main search.

    >>> from parallel_mnk import GameSpec, Position
    >>> from parallel_mnk.limited import best_move
    >>> best_move(Position(GameSpec(15, 15, 5)), depth=2).move   # the centre
    112

The same kernel, with features switched off by flags, gives the plain minimax
and plain alpha-beta of the seed experiments (:func:`count_search`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

import numpy as np

from .geometry import line_masks
from .kernels import grid as G
from .kernels.limited import (
    F_FAST, F_NEAR, F_ORDER, F_PRUNE, F_THREATS, F_TT, INF, MATE_ZONE, WIN, forced_win_by_fours, negamax_limited,
)
from .position import Position
from .rules import GameSpec, MnkError

__all__ = ["LimitedResult", "best_move", "count_search", "FULL", "PLAIN_MINIMAX", "ALPHA_BETA"]

PLAIN_MINIMAX = 0
ALPHA_BETA = F_PRUNE
FULL = F_PRUNE | F_ORDER | F_TT | F_THREATS | F_FAST
MAX_DEPTH = 64
DEFAULT_TT_BITS = 20
FOURS_MOVES = 12          # attacker moves tried by the search for a win by continuous fours
BIG_BOARD_WIDTH = 14      # on boards over 64 cells, moves tried per node (forced moves excepted)


@dataclass
class LimitedResult:
    """A move chosen by depth-limited search.

    ``move`` is a column with gravity, a cell otherwise (as :class:`Position`
    uses them). ``score`` is the heuristic value from the side to move
    (``win_in``/``loss_in``: plies to a forced end, when the search proved one).
    ``depth`` is the last depth searched to the end.
    """

    move: int
    score: int
    depth: int
    nodes: int
    evals: int
    time_s: float
    forced_fours: bool = False
    depths: list = field(default_factory=list)
    per_worker: list = field(default_factory=list)   # [index, tasks, nodes, cpu_s] per pool worker

    @property
    def win_in(self) -> Optional[int]:
        """Plies (own moves included) to a proven win, or None."""
        return WIN - self.score if self.score > WIN - MATE_ZONE else None

    @property
    def loss_in(self) -> Optional[int]:
        """Plies to a proven loss, or None."""
        return WIN + self.score if self.score < -WIN + MATE_ZONE else None

    def describe(self) -> str:
        """A short human reading of the score."""
        if self.win_in is not None:
            return f"wins in {(self.win_in + 1) // 2} move(s)"
        if self.loss_in is not None:
            return f"loses in {(self.loss_in + 1) // 2} move(s) against best play"
        return f"heuristic score {self.score:+d} at depth {self.depth}"


def _weights(k: int) -> list[int]:
    # W[j]: a line with j stones of one side and none of the other. 8x per stone,
    # capped so that a full board's sum stays far below WIN.
    return [0] + [min(8 ** (j - 1), 1 << 24) for j in range(1, k + 2)]


@lru_cache(maxsize=32)
def build_geometry(spec: GameSpec) -> np.ndarray:
    """The read-only ``geo`` array of :mod:`parallel_mnk.kernels.grid` for ``spec``."""
    cells, cols, rows, k = spec.cells, spec.cols, spec.rows, spec.k
    lines = [[c for c in range(cells) if m >> c & 1] for m in line_masks(spec)]
    through = [[] for _ in range(cells)]
    for i, line in enumerate(lines):
        for c in line:
            through[c].append(i)
    max_ply = min(cells, MAX_DEPTH) + 2
    off = G.G_HEADER
    parts = {}
    for name, size in (("lines", len(lines) * k), ("cstart", cells + 1), ("clines", sum(map(len, through))),
                       ("w", k + 2), ("centre", cells), ("zob", 2 * cells + 1)):
        parts[name] = off
        off += size
    geo = np.zeros(off + 8, dtype=np.int64)
    geo[G.G_COLS], geo[G.G_ROWS], geo[G.G_K], geo[G.G_GRAVITY] = cols, rows, k, int(spec.gravity)
    geo[G.G_CELLS], geo[G.G_NLINES], geo[G.G_MAX_PLY] = cells, len(lines), max_ply
    geo[G.G_OFF_LINES], geo[G.G_OFF_CSTART], geo[G.G_OFF_CLINES] = parts["lines"], parts["cstart"], parts["clines"]
    geo[G.G_OFF_W], geo[G.G_OFF_CENTRE], geo[G.G_OFF_ZOB] = parts["w"], parts["centre"], parts["zob"]
    for i, line in enumerate(lines):
        geo[parts["lines"] + i * k: parts["lines"] + (i + 1) * k] = line
    pos = 0
    for c in range(cells):
        geo[parts["cstart"] + c] = pos
        for i in through[c]:
            geo[parts["clines"] + pos] = i
            pos += 1
    geo[parts["cstart"] + cells] = pos
    geo[parts["w"]: parts["w"] + k + 2] = _weights(k)
    for c in range(cells):
        r, q = divmod(c, cols)
        # 0..2: nearer the centre is better (breaks ties in ordering and evaluation)
        dist = abs(2 * r - (rows - 1)) + abs(2 * q - (cols - 1))
        geo[parts["centre"] + c] = max(0, 2 - dist * 3 // (rows + cols))
    rng = np.random.default_rng(0x6D6E6B)
    geo[parts["zob"]: parts["zob"] + 2 * cells + 1] = rng.integers(1, 1 << 62, size=2 * cells + 1)
    st_off = G.S_HEADER
    for slot, size in ((G.G_S_BOARD, cells), (G.G_S_CNT, 2 * len(lines)), (G.G_S_HEIGHT, cols),
                       (G.G_S_NEAR, cells), (G.G_S_MOVES, max_ply * cells), (G.G_S_MSCORE, max_ply * cells)):
        geo[slot] = st_off
        st_off += size
    geo[G.G_S_SIZE] = st_off
    geo.setflags(write=False)
    return geo


def new_state(spec: GameSpec, cells_x: list[int], cells_o: list[int], turn: int) -> np.ndarray:
    """The kernel state ``st`` of a board: stones of each player and the side to move (1 or 2)."""
    geo = build_geometry(spec)
    st = np.zeros(int(geo[G.G_S_SIZE]), dtype=np.int64)
    if spec.k == 1:   # every line is one stone short of a win before anything is played
        st[G.S_THREAT + 1] = st[G.S_THREAT + 2] = geo[G.G_NLINES]
    for player, cells in ((1, cells_x), (2, cells_o)):
        for c in cells:
            G.set_stone(geo, st, c, player)
    st[G.S_TURN] = turn
    if turn == 2:
        st[G.S_HASH] ^= geo[geo[G.G_OFF_ZOB] + 2 * spec.cells]
    return st


def state_of(position: Position) -> np.ndarray:
    """Kernel state of a :class:`Position`."""
    spec = position.spec
    xs = [c for c in range(spec.cells) if position.x >> c & 1]
    os_ = [c for c in range(spec.cells) if position.o >> c & 1]
    return new_state(spec, xs, os_, position.turn)


class _Table:
    """A per-process transposition table for the limited search (kept between calls)."""

    def __init__(self, bits: int) -> None:
        self.keys = np.zeros(1 << bits, dtype=np.int64)
        self.data = np.zeros(2 << bits, dtype=np.int64)

    def clear(self) -> None:
        self.keys[:] = 0


_tables: dict[int, _Table] = {}


def table(bits: int) -> _Table:
    """This process's limited-search table of ``2**bits`` entries (made once, reused)."""
    if bits not in _tables:
        _tables[bits] = _Table(bits)
    return _tables[bits]


def count_search(spec: GameSpec, st: np.ndarray, depth: int, flags: int, tt_bits: int = DEFAULT_TT_BITS,
                 width: int = 0, ctl: Optional[np.ndarray] = None) -> tuple[int, int, int, int]:
    """One depth-limited search of ``st`` (not modified) with ``flags``.

    Returns ``(score, best_cell, nodes, evals)`` where ``nodes`` counts the
    positions visited below the root and ``evals`` the leaves scored. A fresh
    table is used when ``F_TT`` is in ``flags``, so counts are reproducible.
    """
    geo = build_geometry(spec)
    work = st.copy()
    work[G.S_NODES] = work[G.S_EVALS] = work[G.S_ABORTED] = 0
    work[G.S_BEST] = -1
    if flags & F_TT:
        tt = table(tt_bits)
        tt.clear()
        keys, data = tt.keys, tt.data
    else:
        keys, data = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
    ctl = np.zeros(8, dtype=np.int64) if ctl is None else ctl
    score = negamax_limited(geo, work, keys, data, ctl, np.int64(depth), np.int64(-INF), np.int64(INF),
                            np.int64(flags), np.int64(width), np.int64(0))
    if work[G.S_ABORTED]:
        raise TimeoutError("search aborted")
    return int(score), int(work[G.S_BEST]), int(work[G.S_NODES]), int(work[G.S_EVALS])


def root_moves(spec: GameSpec, st: np.ndarray, flags: int, width: int) -> list[int]:
    """The root cells the search tries, best-ordered and cut to ``width`` (0: all);
    only the winning cell when there is a win in one, else only the block when
    the opponent threatens one."""
    geo = build_geometry(spec)
    turn = int(st[G.S_TURN])
    pair = np.zeros(2, dtype=np.int64)
    if G.winning_cells(geo, st, turn, pair) > 0 or G.winning_cells(geo, st, 3 - turn, pair) > 0:
        return [int(pair[0])]   # win at once, or the block
    out = np.zeros(spec.cells, dtype=np.int64)
    n = G.candidate_moves(geo, st, bool(flags & F_NEAR), out)
    cells = [int(c) for c in out[:n]]
    cells.sort(key=lambda c: -G.move_score(geo, st, c, turn))
    return cells[:width] if width > 0 else cells


_kernels_ready = False


def load_kernels() -> None:
    """Compile or load this engine's kernels once per process, so that a time
    limit never pays for it."""
    global _kernels_ready
    if not _kernels_ready:
        spec = GameSpec(3, 3, 3)
        geo = build_geometry(spec)
        st = new_state(spec, [], [], 1)
        count_search(spec, st, 2, FULL)
        forced_win_by_fours(geo, st.copy(), np.zeros(8, dtype=np.int64), np.int64(1), False, np.int64(0))
        _kernels_ready = True


def best_move(position: Position, depth: Optional[int] = None, time_limit: Optional[float] = None,
              width: Optional[int] = None, tt_bits: int = DEFAULT_TT_BITS, fours: bool = True,
              workers: int = 1) -> LimitedResult:
    """A strong move for the side to move by iterative deepening.

    Searches depth 1, 2, ... up to ``depth`` (default: until ``time_limit``, or
    depth 4 when neither is given); a depth cut short by ``time_limit`` is thrown
    away, except that depth 1 always completes so a move is always returned.
    ``width``: moves tried per node (default: all on boards of at most 64
    cells, 14 best-ordered beyond, with only cells near stones). ``fours``: first
    look for a win by continuous fours. ``workers`` > 1: the root moves are
    searched on the process pool (:mod:`parallel_mnk.parallel.heuristic`).
    Raises :class:`MnkError` if the game is over.
    """
    from .search import _run_abortable

    if position.is_game_over():
        raise MnkError("the game is over: there is no move to choose")
    if workers is None or workers < 1:
        raise MnkError(f"workers must be at least 1, got {workers}")
    if depth is not None and not 1 <= depth <= MAX_DEPTH:
        raise MnkError(f"--depth must be between 1 and {MAX_DEPTH}, got {depth}")
    if time_limit is not None and time_limit <= 0:
        raise MnkError(f"the time limit must be positive, got {time_limit}")
    load_kernels()
    spec = position.spec
    big = spec.cells > 64
    if width is None:
        width = BIG_BOARD_WIDTH if big else 0
    flags = FULL | (F_NEAR if big and not spec.gravity else 0)
    max_depth = depth if depth is not None else (MAX_DEPTH if time_limit is not None else 4)
    max_depth = min(max_depth, spec.cells - position.ply)
    geo = build_geometry(spec)
    st = state_of(position)
    tt = table(tt_bits)
    tt.clear()
    ctl = np.zeros(8, dtype=np.int64)
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    nodes = evals = 0

    if fours:
        # shortest first: m fours then the win, so the win comes on ply 2m + 1 (m = 0: a win in one)
        for m in range(FOURS_MOVES + 1):
            work = st.copy()
            found = forced_win_by_fours(geo, work, ctl, np.int64(m), bool(flags & F_NEAR), np.int64(0))
            nodes += int(work[G.S_NODES])
            if found:
                return LimitedResult(position.move_of_cell(int(work[G.S_BEST])), WIN - (2 * m + 1), 0, nodes,
                                     evals, time.perf_counter() - started, forced_fours=m > 0)
            if m > 0 and int(work[G.S_NODES]) == 0:
                break   # no four to make at all: longer searches find nothing either

    if workers > 1:
        from .parallel.heuristic import best_move_parallel

        best, total, per_worker = best_move_parallel(position, workers, root_moves(spec, st, flags, width), flags,
                                                     width, max_depth, deadline)
        score, cell, d = best
        return LimitedResult(position.move_of_cell(cell), score, d, nodes + total, evals,
                             time.perf_counter() - started, per_worker=per_worker)

    result = None
    depths = []
    for d in range(1, max_depth + 1):
        work = st.copy()
        work[G.S_BEST] = -1

        def run(work=work, d=d):
            return negamax_limited(geo, work, tt.keys, tt.data, ctl, np.int64(d), np.int64(-INF),
                                   np.int64(INF), np.int64(flags), np.int64(width), np.int64(0))

        remaining = None if deadline is None or d == 1 else max(1e-3, deadline - time.perf_counter())
        score, _ = _run_abortable(run, ctl, remaining)
        nodes += int(work[G.S_NODES])
        evals += int(work[G.S_EVALS])
        if work[G.S_ABORTED]:
            break
        result = (int(score), int(work[G.S_BEST]), d)
        depths.append({"depth": d, "score": int(score), "move": position.move_of_cell(int(work[G.S_BEST])),
                       "nodes": int(work[G.S_NODES]), "time_s": time.perf_counter() - started})
        if abs(score) > WIN - MATE_ZONE:
            break   # a proven win or loss does not change with more depth
        if deadline is not None and time.perf_counter() >= deadline:
            break
    score, cell, d = result
    return LimitedResult(position.move_of_cell(cell), score, d, nodes, evals, time.perf_counter() - started,
                         depths=depths)
