"""The exact search of one position: a :class:`Search` (kernel context, table,
control array) with its score, window and best-move questions, and the perfect
line for a known score (:func:`answer_with_line`). The serial solve that drives
it is :mod:`parallel_mnk.engines.serial`.

:class:`Search` is also what a parallel worker runs a task with
(:meth:`Search.run_task`) and what the coordinator expands split nodes with
(:meth:`Search.expand`); scheduling lives in :mod:`parallel_mnk.parallel`.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ...api.results import SolveResult
from ...game.geometry import board_mask, build_context, winning_cells
from ...game.moves import Move
from ...game.position import Position
from ...game.rules import GameSpec, generic_bounds, terminal_score, value_of_score
from ...kernels.core import layout as L
from ...kernels.proofs import layout as PL
from ...runtime import families
from ...runtime.ttable import new_salt, stored_move
from .probes import narrowed, probe_score, weak_value


class Search:
    """One search context: the kernel context of ``spec``, a table ``tt``, a
    control array ``ctl`` (its abort word stops the search) and the node count.

    Used by :func:`solve_serial`, analysis, the protocol, the parallel workers
    and the coordinator; not thread-safe. ``salt`` None draws a new one (a
    table cleared for this search). Loads the family of kernels that solves
    ``spec`` (:mod:`parallel_mnk.runtime.families`); the root's loops (the probes, the best move) run
    here, each search in one call of the family's entry point.
    """

    def __init__(self, spec: GameSpec, tt: np.ndarray, ctl: Optional[np.ndarray] = None,
                 salt: Optional[np.uint64] = None) -> None:
        spec.require_exact()
        self.kernels = families.exact_kernels(spec)
        built_for = getattr(self.kernels, "BOARD", None)
        if built_for is not None and built_for != (spec.cols, spec.rows, spec.k, spec.gravity):
            raise RuntimeError(f"kernels built for {built_for} asked to search {spec}")   # a wrong answer otherwise
        self.spec = spec
        self.ctx = build_context(spec)
        self.ctx[L.C_SALT] = new_salt() if salt is None else salt
        self.tt = tt
        self.ctl = np.zeros(L.CTL_SIZE, dtype=np.int64) if ctl is None else ctl
        self._board = board_mask(spec)
        self._bottom = sum(1 << ((spec.rows - 1) * spec.cols + c) for c in range(spec.cols))
        self.bounds = (-spec.cells, spec.cells)   # what the last :meth:`score` proved

    @property
    def nodes(self) -> int:
        """Nodes searched since the context was made (or :meth:`reset`)."""
        return int(self.ctx[L.C_NODES])

    @property
    def proof_counts(self) -> tuple[int, int]:
        """Nodes closed by pairing certificates and by VCF wins since the context was made."""
        ctx = self.ctx
        return int(ctx[PL.P_FOUND]) + int(ctx[PL.P_REUSED]), int(ctx[PL.P_VCF_WINS])

    @property
    def aborted(self) -> bool:
        """True when the last search was stopped (its result means nothing)."""
        return bool(self.ctx[L.C_ABORTED])

    def reset(self, node_limit: int = 0) -> None:
        """Clear the node count and the abort flag; ``node_limit`` nodes (0: none)
        stop the next searches."""
        self.ctx[L.C_NODES] = 0
        self.ctx[L.C_ABORTED] = 0
        self.ctx[L.C_NODE_LIMIT] = node_limit

    def set_node_limit(self, nodes: Optional[int]) -> None:
        """Stop the searches once the node count reaches ``nodes`` (None: no limit);
        the abort flag is cleared."""
        self.ctx[L.C_NODE_LIMIT] = nodes or 0
        self.ctx[L.C_ABORTED] = 0

    def window(self, own: int, opp: int, ply: int, alpha: int, beta: int, cell: int = -1,
               live_slot: int = -1) -> int:
        """Fail-soft value for the side to move of a position that is not over, or
        with ``cell`` >= 0 of its move to ``cell``, in the window ``(alpha, beta)``
        (``v <= alpha``: an upper bound, ``v >= beta``: a lower bound, else exact;
        the kind in ``ctx[C_RESULT_KIND]``); meaningless when :attr:`aborted`."""
        if cell < -1:   # (below -1: the kernels' own recursion, where nothing is set up)
            raise ValueError(f"cell must be -1 or a cell, not {cell}")
        return int(self.kernels.search(self.ctx, self.tt, self.ctl, np.uint64(own), np.uint64(opp), ply, cell, alpha,
                                       beta, live_slot))

    def score(self, own: int, opp: int, ply: int, weak: bool) -> int:
        """Exact score (or weak -1/0/1) of a position that is not over, by
        null-window probes (:func:`next_probe`) that narrow the interval of
        possible scores; meaningless when :attr:`aborted`, when :attr:`bounds`
        holds what the finished probes proved (``(lo, hi)``, weak: of -1/0/1)."""
        self.bounds = (-1, 1) if weak else generic_bounds(self.spec.cells, ply)

        def window(alpha: int, beta: int) -> Optional[int]:
            r = self.window(own, opp, ply, alpha, beta)
            if self.aborted:
                return None
            self.bounds = narrowed(self.bounds, alpha, beta, r, weak)
            return r

        if weak:
            value = weak_value(window)
            return 0 if value is None else value
        score = probe_score(*generic_bounds(self.spec.cells, ply), lambda lo, hi, med: window(med, med + 1))
        return 0 if score is None else score

    def move_so_far(self, own: int, opp: int, ply: int) -> int:
        """The best move so far of a search stopped before it proved one (not proved):
        the table's move for the position (the best of the last search that stored
        it), else a move that wins at once, else one that blocks the opponent's win
        in one, else the first of the static order (where the search begins) after
        which the opponent cannot win at once, else the first; -1 when no move is
        legal."""
        legal = self.legal_mask(own, opp)
        cell = stored_move(self.ctx, self.tt, *((own, opp) if ply % 2 == 0 else (opp, own)))
        if cell >= 0 and legal >> cell & 1:
            return cell
        spec = self.spec
        for stones in (own, opp):   # a win at once, else a block of the opponent's
            wins = winning_cells(stones, legal, spec.rows, spec.cols, spec.k)
            if wins:
                return (wins & -wins).bit_length() - 1
        order = self.legal_cells(own, opp)
        safe = [c for c in order if not winning_cells(opp, self.legal_mask(opp, own | 1 << c), spec.rows, spec.cols,
                                                      spec.k)]
        return (safe or order or [-1])[0]

    def legal_cells(self, own: int, opp: int) -> list[int]:
        """The cells the side to move may play, in the static order (centre first;
        ties by cell index)."""
        legal = self.legal_mask(own, opp)
        static = self.ctx[L.OFF_STATIC:L.OFF_STATIC + self.spec.cells]
        return sorted((c for c in range(self.spec.cells) if legal >> c & 1), key=lambda c: -int(static[c]))

    def best_cell(self, own: int, opp: int, ply: int, score: int, weak: bool) -> int:
        """A cell that keeps the position's ``score`` (exact, or weak -1/0/1), tried
        in the static order after the table's move (the search that found the score
        usually stored it: then its check costs a node or two); with a weak loss
        every move is equal and one that does not lose at once is preferred. -1
        when aborted."""
        hint = stored_move(self.ctx, self.tt, *((own, opp) if ply % 2 == 0 else (opp, own)))
        order = sorted(self.legal_cells(own, opp), key=lambda c: c != hint)   # stable: the rest keep their order
        spec = self.spec
        for cell in order:
            if weak and score < 0:
                child_own, child_opp = opp, own | 1 << cell
                if ply + 1 < spec.cells and not winning_cells(child_own, self.legal_mask(child_own, child_opp),
                                                              spec.rows, spec.cols, spec.k):
                    return cell
                continue
            # the move's value (weak: the sign of its score, the same search) is at least score
            if self.window(own, opp, ply, score - 1, score, cell=cell) >= score:
                return cell
            if self.aborted:
                return -1
        return order[0] if order else -1

    def legal_mask(self, own: int, opp: int) -> int:
        """The bitboard of the cells the side to move may play."""
        mask = own | opp
        legal = self._board & ~mask
        return legal & ((mask >> self.spec.cols) | self._bottom) if self.spec.gravity else legal

    def expand(self, own: int, opp: int, ply: int) -> tuple[int, int, int, list[int]]:
        """``(n, lo, hi, cells)`` of a position that is not over: proven bounds and
        the ``n`` moves worth searching, best first (``kernels.expand.expansion.expand``;
        the ``expand`` family)."""
        out = np.zeros(L.MAX_CELLS, dtype=np.int64)
        n, lo, hi = families.expand_kernels().expand(self.ctx, self.tt, np.uint64(own), np.uint64(opp), ply, out)
        return int(n), int(lo), int(hi), [int(c) for c in out[:max(int(n), 1)]]

    def seed_bound(self, own: int, opp: int, ply: int, value: int, kind: int) -> None:
        """Store a bound of a position that is not over, proven earlier (``kind`` 1
        lower, 2 upper, 3 exact), in the table, where the search will find it
        (``kernels.expand.expansion.seed_bound``; the ``expand`` family)."""
        families.expand_kernels().seed_bound(self.ctx, self.tt, np.uint64(own), np.uint64(opp), ply, kind, value)

    def settled_at_once(self, own: int, opp: int, ply: int, alpha: int, beta: int) -> Optional[tuple[int, int]]:
        """What the table and the static rules alone prove of a position that is not
        over for the window ``(alpha, beta)``: ``(value, kind)`` as :meth:`window`
        gives them when a search of one node decides it (its entry, its forced
        line, its children's entries), else None. Costs at most two nodes, counted
        in :attr:`nodes`; the node limit and the abort flag are as before."""
        ctx = self.ctx
        before, limit = int(ctx[L.C_NODES]), int(ctx[L.C_NODE_LIMIT])
        # the kernels test the node limit when the count passes a multiple of 1024:
        # start two nodes short of one, so that the second node stops the search
        stop_at = ((before >> 10) + 2) << 10
        ctx[L.C_NODES] = stop_at - 2
        ctx[L.C_NODE_LIMIT] = stop_at
        ctx[L.C_ABORTED] = 0
        try:
            value = self.window(own, opp, ply, alpha, beta)
            decided = not self.aborted
            kind = int(ctx[L.C_RESULT_KIND])
        finally:
            ctx[L.C_NODES] = before + int(ctx[L.C_NODES]) - (stop_at - 2)
            ctx[L.C_NODE_LIMIT] = limit
            ctx[L.C_ABORTED] = 0
        return (value, kind) if decided else None

    def run_task(self, own: int, opp: int, ply: int, alpha: int, beta: int, task_id: int, salt: int,
                 slot: int, defer_min_empty: int) -> tuple[int, int, bool]:
        """Search one task of a parallel split with the table salt of its solve,
        the control words at ``ctl[slot]`` (task abort, live window, the path words
        its line is published in) and ABDADA deferral at nodes with
        ``defer_min_empty`` empty cells (0: off).

        Returns ``(value, kind, abandoned)``: the fail-soft value and what it
        proves (1 lower bound, 2 upper bound, 3 exact), meaningless when abandoned.
        Nodes are counted from 0 for each task."""
        ctx = self.ctx
        ctx[L.C_SALT] = np.uint64(salt)
        ctx[L.C_DEFER_MIN_EMPTY] = defer_min_empty
        ctx[L.C_TASK_ID] = np.uint64(task_id)
        ctx[L.C_CTL_SLOT] = np.uint64(slot)
        ctx[L.C_PATH_SLOT] = np.uint64(slot + L.CTL_PATH)
        ctx[L.C_PATH_ROOT] = np.uint64(ply)
        self.reset()
        try:
            value = self.window(own, opp, ply, alpha, beta, live_slot=slot + L.CTL_LIVE_WINDOW)
        finally:
            ctx[L.C_PATH_SLOT] = 0   # (the next use of this context may be no task)
        return value, int(ctx[L.C_RESULT_KIND]), self.aborted


def terminal_result(position: Position, started: float) -> SolveResult:
    """The result for a position whose game is over (no search)."""
    out = position.outcome()
    assert out is not None
    score = terminal_score(position.spec, out.ply, won=out.winner is not None)
    return SolveResult(position.spec, value_of_score(score), score, None, [], 0,
                       time.perf_counter() - started, [], terminal=True)


def principal_variation(search: Search, position: Position, score: int, weak: bool, first_cell: int) -> list[Move]:
    """Moves of a perfect game from ``position`` (first move ``first_cell``); stops
    early (a shorter line) when the search is aborted."""
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


def answer_with_line(search: Search, position: Position, score: int, weak: bool, pv: bool,
                     first_cell: Optional[int] = None) -> Optional[list[Move]]:
    """The best move and (with ``pv``) the perfect line for a known ``score``, or
    None when the search was aborted meanwhile. ``first_cell``: a best move
    already known (found by the caller's search)."""
    own, opp = position.stones()
    cell = search.best_cell(own, opp, position.ply, score, weak) if first_cell is None else first_cell
    if search.aborted or cell < 0:
        return None
    line = principal_variation(search, position, score, weak, cell) if pv else [position.move_of_cell(cell)]
    return None if search.aborted else line
