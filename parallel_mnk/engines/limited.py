"""The serial depth-limited engine: a strong move with a heuristic evaluation, for
any board up to 26x26.

Where the exact solver cannot go (boards over 64 cells, or positions out of
reach in the time given) this module finds a strong move: iterative deepening
alpha-beta over :mod:`parallel_mnk.kernels.grid.search`, with an open-line
evaluation, threat detection (a win in one is never missed, an opponent's win in
one never ignored, a double threat is seen as lost) and a search for wins by
continuous fours before the main search.

    >>> from parallel_mnk import GameSpec, Position, Limit
    >>> from parallel_mnk.engines.limited import choose_move
    >>> str(choose_move(Position(GameSpec(15, 15, 5)), Limit(depth=2)).move)   # the centre
    'h8'

:class:`LimitedSearch` holds one such search; the root moves of an iteration
can also be searched on a worker pool (:mod:`parallel_mnk.parallel.uses.limited`,
through :func:`parallel_mnk.best_move`). The same kernel, with features switched
off by flags, gives the plain minimax and plain alpha-beta of the seed
experiments (:func:`count_search`).
"""
from __future__ import annotations

import time
from typing import Callable, Optional

import numpy as np

from ..api.options import Limit, Watch
from ..api.results import LimitedResult
from ..api.settings import current
from ..game.geometry import MAX_LIMITED_DEPTH, build_grid_geometry, empty_grid_state
from ..game.position import Position
from ..game.rules import GameSpec, MnkError
from ..kernels.core.layout import CTL_ABORT, CTL_SIZE
from ..kernels.grid import stones as G
from ..kernels.grid import layout as GL
from ..kernels.grid.layout import F_FAST, F_NEAR, F_ORDER, F_PRUNE, F_THREATS, F_TT, INF, MATE_ZONE, WIN
from ..kernels.grid.search import forced_win_by_fours, negamax_limited
from ..kernels.grid.tss import MAX_FOURS, scratch_size, vct
from ..runtime import families, running
from ..runtime.ttable import limited_table

__all__ = ["LimitedSearch", "LimitedResult", "best_move", "count_search", "FULL", "PLAIN_MINIMAX", "ALPHA_BETA"]

PLAIN_MINIMAX = 0
ALPHA_BETA = F_PRUNE
FULL = F_PRUNE | F_ORDER | F_TT | F_THREATS | F_FAST
MAX_DEPTH = MAX_LIMITED_DEPTH


def new_state(spec: GameSpec, cells_x: list[int], cells_o: list[int], turn: int) -> np.ndarray:
    """The kernel state ``st`` of a board: stones of each player and the side to move (1 or 2)."""
    families.load("grid")
    geo = build_grid_geometry(spec)
    st = empty_grid_state(geo, turn)
    for player, cells in ((1, cells_x), (2, cells_o)):
        for c in cells:
            G.set_stone(geo, st, c, player)
    return st


def state_of(position: Position) -> np.ndarray:
    """Kernel state of a :class:`Position`."""
    spec = position.spec
    xs = [c for c in range(spec.cells) if position.x >> c & 1]
    os_ = [c for c in range(spec.cells) if position.o >> c & 1]
    return new_state(spec, xs, os_, int(position.turn))


def count_search(spec: GameSpec, st: np.ndarray, depth: int, flags: int, tt_bits: Optional[int] = None,
                 width: int = 0, ctl: Optional[np.ndarray] = None) -> tuple[int, int, int, int]:
    """One depth-limited search of ``st`` (not modified) with ``flags``.

    Returns ``(score, best_cell, nodes, evals)`` where ``nodes`` counts the
    positions visited below the root and ``evals`` the leaves scored. A fresh
    table is used when ``F_TT`` is in ``flags``, so counts are reproducible
    (``tt_bits`` None: the setting ``LIMITED_TT_BITS``).
    """
    families.load("grid")
    geo = build_grid_geometry(spec)
    work = st.copy()
    work[GL.S_NODES] = work[GL.S_EVALS] = work[GL.S_ABORTED] = 0
    work[GL.S_BEST] = -1
    if flags & F_TT:
        tt = limited_table(tt_bits)
        tt.clear()
        keys, data = tt.keys, tt.data
    else:
        keys, data = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
    ctl = np.zeros(CTL_SIZE, dtype=np.int64) if ctl is None else ctl
    score = negamax_limited(geo, work, keys, data, ctl, np.int64(depth), np.int64(-INF), np.int64(INF),
                            np.int64(flags), np.int64(width), np.int64(0))
    if work[GL.S_ABORTED]:
        raise TimeoutError("search aborted")
    return int(score), int(work[GL.S_BEST]), int(work[GL.S_NODES]), int(work[GL.S_EVALS])


def search_root_move(spec: GameSpec, x: int, o: int, turn: int, cell: int, depth: int, alpha: int, beta: int,
                     flags: int, width: int, ctl: np.ndarray,
                     tt_bits: Optional[int] = None) -> tuple[int, bool, int]:
    """The value of root move ``cell`` of the board ``x``/``o`` (``turn`` to move)
    from the root's view, searched ``depth`` plies in all with the root's window
    ``(alpha, beta)`` (fail-soft), on this process's table; ``ctl[0]`` aborts.
    Returns ``(value, aborted, nodes)`` (a worker's share of a parallel iteration)."""
    cells = range(spec.cells)
    st = new_state(spec, [c for c in cells if x >> c & 1], [c for c in cells if o >> c & 1], turn)
    geo = build_grid_geometry(spec)
    tt = limited_table(tt_bits)
    if G.play(geo, st, cell):
        value = WIN - 1
    elif st[GL.S_PLY] == spec.cells:
        value = 0
    else:
        value = -negamax_limited(geo, st, tt.keys, tt.data, ctl, np.int64(depth - 1), np.int64(-beta),
                                 np.int64(-alpha), np.int64(flags), np.int64(width), np.int64(1))
    return int(value), bool(st[GL.S_ABORTED]), int(st[GL.S_NODES]) + 1


def check_search(position: Position, limit: Optional[Limit], width: Optional[int]) -> None:
    """Refuse (:class:`MnkError`, one line) what :class:`LimitedSearch` cannot take: a
    position whose game is over, a depth past ``MAX_DEPTH``, a negative width."""
    if position.is_game_over():
        raise MnkError("the game is over: there is no move to choose")
    if limit is not None and limit.depth is not None and limit.depth > MAX_DEPTH:
        raise MnkError(f"--depth must be between 1 and {MAX_DEPTH}, got {limit.depth}")
    if width is not None and width < 0:
        raise MnkError(f"--width must be 0 (all moves) or more, got {width}")


class LimitedSearch:
    """One depth-limited search of ``position`` for the side to move.

    ``limit``: the deepest iteration (``depth``, default the setting ``DEFAULT_DEPTH``,
    4 plies, unless a time is given), the seconds (``time``) and nodes (``nodes``) it may use; an iteration
    cut short by them is thrown away, except that depth 1 always completes, so a
    move is always returned. ``width``: moves tried per node (default: all on
    boards of at most 64 cells, ``BIG_BOARD_WIDTH`` (14) best-ordered beyond, with only
    cells near stones); ``tt_bits`` None: the setting ``LIMITED_TT_BITS``. Raises
    :class:`MnkError` if the game is over.
    """

    def __init__(self, position: Position, limit: Optional[Limit] = None, width: Optional[int] = None,
                 tt_bits: Optional[int] = None, watch: Optional[Watch] = None) -> None:
        check_search(position, limit, width)
        limit = limit or Limit()
        families.load("grid")
        spec = self.spec = position.spec
        self.position = position
        self.limit = limit
        big = spec.cells > 64
        self.width = (current().BIG_BOARD_WIDTH if big else 0) if width is None else width
        self.flags = FULL | (F_NEAR if big and not spec.gravity else 0)
        deepest = limit.depth if limit.depth is not None else \
            (MAX_DEPTH if limit.time is not None else current().DEFAULT_DEPTH)
        self.max_depth = min(deepest, spec.cells - position.ply)
        self.geo = build_grid_geometry(spec)
        self.st = state_of(position)
        self.tt_bits = tt_bits
        self.watch = watch
        self.ctl = np.zeros(CTL_SIZE, dtype=np.int64)
        self.started = time.perf_counter()
        self.deadline = None if limit.time is None else self.started + limit.time
        self.nodes = 0
        self.evals = 0

    def _result(self, cell: int, score: int, depth: int, **extra) -> LimitedResult:
        return LimitedResult(self.position.move_of_cell(cell), score, depth, self.nodes, self.evals,
                             time.perf_counter() - self.started, **extra)

    def forced_fours(self) -> Optional[LimitedResult]:
        """A win by continuous fours (shortest first: m fours then the win, on ply
        2m + 1; m = 0 is a win in one), or None."""
        near = bool(self.flags & F_NEAR)
        for m in range(current().FOURS_MOVES + 1):
            work = self.st.copy()
            found = forced_win_by_fours(self.geo, work, self.ctl, np.int64(m), near, np.int64(0))
            self.nodes += int(work[GL.S_NODES])
            if found:
                return self._result(int(work[GL.S_BEST]), WIN - (2 * m + 1), 0, forced_fours=m > 0)
            if m > 0 and int(work[GL.S_NODES]) == 0:
                break   # no four to make at all: longer searches find nothing either
        return None

    def forcing_win(self) -> Optional[LimitedResult]:
        """A win by continuous fours (:meth:`forced_fours`), else by fours and threes
        (:meth:`threat_space`), or None."""
        return self.forced_fours() or self.threat_space()

    def threat_space(self, threes: Optional[int] = None) -> Optional[LimitedResult]:
        """A win by fours and threes proven by threat-space search (:mod:`parallel_mnk.kernels.grid.tss`;
        free placement), with at most ``threes`` three-moves (None: the setting
        ``LIMITED_THREES``), fewest first, within a share of the time and node limits;
        None when none is found."""
        settings = current()
        threes = settings.LIMITED_THREES if threes is None else threes
        if self.spec.gravity:
            return None
        families.load("grid")
        turn = int(self.st[GL.S_TURN])
        scratch = np.zeros(scratch_size(self.spec.cells), dtype=np.int64)
        fail = np.zeros(2 << settings.THREAT_TABLE_BITS, dtype=np.int64)
        budget = settings.LIMITED_THREAT_NODES if self.limit.nodes is None else max(1, self.limit.nodes // 4)
        share = None if self.limit.time is None else self.limit.time * settings.THREAT_TIME_SHARE
        for t in range(1, threes + 1):
            work = self.st.copy()
            work[GL.S_NODES] = work[GL.S_ABORTED] = 0
            work[GL.S_NODE_LIMIT] = max(1, budget - self.nodes)
            left = None if share is None else share - (time.perf_counter() - self.started)
            if left is not None and left <= 0:
                break

            def run(work: np.ndarray = work, t: int = t) -> int:
                return vct(self.geo, work, self.ctl, np.int64(turn), np.int64(t), np.int64(MAX_FOURS), scratch,
                           fail, np.int64(0))

            plies, _ = running.run_abortable(run, self.ctl, left, self._counter(work), self.watch)
            self.ctl[CTL_ABORT] = 0   # a share of the time ran out: the search itself goes on
            self.nodes += int(work[GL.S_NODES])
            if plies and not work[GL.S_ABORTED]:
                return self._result(int(work[GL.S_BEST]), WIN - int(plies), 0, threat_space=True)
            if work[GL.S_ABORTED] or self.nodes >= budget or self.out_of_budget():
                break
        return None

    def root_moves(self) -> list[int]:
        """The root cells the search tries, best-ordered and cut to the width; only
        the winning cell when there is a win in one, else only the block when the
        opponent threatens one."""
        geo, st = self.geo, self.st
        turn = int(st[GL.S_TURN])
        pair = np.zeros(2, dtype=np.int64)
        if G.winning_cells(geo, st, turn, pair) > 0 or G.winning_cells(geo, st, 3 - turn, pair) > 0:
            return [int(pair[0])]   # win at once, or the block
        out = np.zeros(self.spec.cells, dtype=np.int64)
        n = G.candidate_moves(geo, st, bool(self.flags & F_NEAR), out)
        cells = [int(c) for c in out[:n]]
        cells.sort(key=lambda c: -G.move_score(geo, st, c, turn))
        return cells[:self.width] if self.width > 0 else cells

    def out_of_budget(self) -> bool:
        """True once the time or the node budget is spent (or the watch is stopped)."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return True
        if self.watch is not None and self.watch.stopped:
            return True
        return self.limit.nodes is not None and self.nodes >= self.limit.nodes

    def _counter(self, work: np.ndarray) -> Optional[Callable[[], None]]:
        """What tells the watch the nodes of the iteration running on ``work`` (None without a watch)."""
        watch = self.watch
        if watch is None:
            return None
        return lambda: watch.count(self.nodes + int(work[GL.S_NODES]))

    def iterate(self) -> LimitedResult:
        """Iterative deepening in this process: depth 1, 2, ... up to the limit."""
        tt = limited_table(self.tt_bits)
        tt.clear()
        best = None
        depths = []
        for d in range(1, self.max_depth + 1):
            work = self.st.copy()
            work[GL.S_BEST] = -1
            if self.limit.nodes is not None and d > 1:
                work[GL.S_NODE_LIMIT] = max(1, self.limit.nodes - self.nodes)

            def run(work: np.ndarray = work, d: int = d) -> int:
                return negamax_limited(self.geo, work, tt.keys, tt.data, self.ctl, np.int64(d), np.int64(-INF),
                                       np.int64(INF), np.int64(self.flags), np.int64(self.width), np.int64(0))

            remaining = None if self.deadline is None or d == 1 else max(1e-3, self.deadline - time.perf_counter())
            score, _ = running.run_abortable(run, self.ctl, remaining, self._counter(work),
                                             None if d == 1 else self.watch)
            self.nodes += int(work[GL.S_NODES])
            self.evals += int(work[GL.S_EVALS])
            if work[GL.S_ABORTED] or score is None:
                break
            best = (int(score), int(work[GL.S_BEST]), d)
            depths.append({"depth": d, "score": int(score), "move": self.position.move_of_cell(best[1]),
                           "nodes": int(work[GL.S_NODES]), "time_s": time.perf_counter() - self.started})
            if abs(best[0]) > WIN - MATE_ZONE or self.out_of_budget():
                break   # a proven win or loss does not change with more depth
        assert best is not None, "depth 1 always completes"
        score, cell, depth = best
        return self._result(cell, score, depth, depths=depths)


def choose_move(position: Position, limit: Optional[Limit] = None, *, width: Optional[int] = None,
                fours: bool = True, tt_bits: Optional[int] = None) -> LimitedResult:
    """A strong move for the side to move, in this process (see :class:`LimitedSearch`
    for ``limit`` and ``width``). ``fours``: first look for a forced win by fours
    (and threes); without, the iterations alone (the tests' way to check them).
    :func:`parallel_mnk.best_move` is the library's call, with options."""
    search = LimitedSearch(position, limit, width, tt_bits)
    return (search.forcing_win() if fours else None) or search.iterate()
