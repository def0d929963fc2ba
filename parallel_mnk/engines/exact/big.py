"""The exact search of boards past 64 cells (up to 26x26, free placement and
gravity): a :class:`BigSearch` asks the big-board kernel (:mod:`parallel_mnk.kernels.big.prove`)
for values, windows and best moves, and :func:`solve_big` is the serial solve
:func:`parallel_mnk.solve` runs on such boards.

The board is the depth-limited engine's array board (per-line stone counts:
:mod:`parallel_mnk.kernels.grid.layout`), where a node costs the same on 9x8 as on
26x26 lines; the bitboard families stay the ones for boards of at most 64 cells.
A weak solve of a free-placement position asks threat-space search first
(:func:`parallel_mnk.kernels.grid.tss.vct`: fours and threes, every defence
accounted for), then the search, which looks for a win by continuous fours at
each of its nodes. A table entry costs 24 bytes (key, score, flags and move).
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ...api.options import Limit, SolveOptions
from ...api.results import SolveResult, WorkerStats
from ...game.moves import Move, moves_of
from ...game.geometry import build_grid_geometry, empty_grid_state
from ...game.position import Position
from ...game.rules import GameSpec, Value, value_of_score
from ...kernels.core.layout import CTL_SIZE, TT_EXACT, TT_LOWER, TT_UPPER
from ...kernels.grid import layout as GL
from ...kernels.grid.tss import LINE_MAX, scratch_size
from ...runtime import families, running
from ...runtime.ttable import LimitedTable
from .search import terminal_result
from ...api.settings import current

ENTRY_BYTES = 24          # a table entry: key, score, flags and move (int64 each)


def table_bits(tt_bits: int) -> int:
    """Entries (log2) of the big-board table in the bytes of ``2**tt_bits`` 8-byte
    entries (the exact engine's unit, :func:`parallel_mnk.runtime.ttable.resolve_tt_bits`):
    a quarter as many, each :data:`ENTRY_BYTES` bytes."""
    return max(10, tt_bits - 2)


class BigSearch:
    """One exact search of ``spec`` (past 64 cells, or any board: the array board
    takes all) with a table of ``2**bits`` entries per kind of score (weak, exact)
    and a control array ``ctl`` whose abort word stops it. Positions are given as
    ``x``/``o`` cell sets (Python ints, bit ``cell`` set), the side to move by their
    counts. Not thread-safe."""

    def __init__(self, spec: GameSpec, bits: int, ctl: Optional[np.ndarray] = None) -> None:
        self.kernels = families.big_kernels()
        self.board = families.entries("grid")
        self.spec = spec
        self.geo = build_grid_geometry(spec, whole_game=True)
        self.bits = bits
        self.tables: dict[bool, LimitedTable] = {}
        self.ctl = np.zeros(CTL_SIZE, dtype=np.int64) if ctl is None else ctl
        self.fours_scratch = np.zeros(LINE_MAX, dtype=np.int64)   # the kernel's VCF line
        self.threat_scratch = np.zeros(scratch_size(spec.cells), dtype=np.int64)
        self.fail = np.zeros(2 << current().BIG_FAIL_BITS, dtype=np.int64)
        self.nodes = 0
        self.node_limit: Optional[int] = None
        self.aborted = False
        self.threat_wins = 0
        self.root_best = -1   # the root's best move of the last :meth:`score` (-1: none finished)

    def table(self, weak: bool) -> LimitedTable:
        """The table of ``weak`` (or exact) scores, made on first use."""
        if weak not in self.tables:
            self.tables[weak] = LimitedTable(self.bits)
        return self.tables[weak]

    def state(self, x: int, o: int, turn: Optional[int] = None) -> np.ndarray:
        """The kernel state of the position ``x``/``o``, ``turn`` (1: x, 2: o) to move
        (None: by the counts)."""
        geo, board = self.geo, self.board
        if turn is None:
            turn = 1 if x.bit_count() == o.bit_count() else 2
        st = empty_grid_state(geo, turn)
        for player, stones in ((1, x), (2, o)):
            while stones:
                low = stones & -stones
                board.set_stone(geo, st, low.bit_length() - 1, player)
                stones ^= low
        st[GL.S_BEST] = -1
        return st

    def _run(self, st: np.ndarray, alpha: int, beta: int, weak: bool) -> int:
        """One kernel search of ``st`` within the node limit; counts its nodes."""
        if self.node_limit is not None:
            st[GL.S_NODE_LIMIT] = max(1, self.node_limit - self.nodes)
        tt = self.table(weak)
        fours = current().BIG_FOURS if not self.spec.gravity else 0
        score = self.kernels.prove(self.geo, st, tt.keys, tt.data, self.ctl, np.int64(alpha), np.int64(beta),
                                   weak, np.int64(fours), self.fours_scratch, self.fail, np.int64(0))
        self.nodes += int(st[GL.S_NODES])
        if st[GL.S_ABORTED]:
            self.aborted = True
        return int(score)

    def window(self, x: int, o: int, alpha: int, beta: int, weak: bool, cell: Optional[int] = None) -> int:
        """The value of ``x``/``o`` for the side to move, fail-soft in ``(alpha, beta)``;
        with ``cell``, of the move ``cell`` from the mover's view (the position after
        it searched with the window negated). 0 with :attr:`aborted` set when stopped."""
        if cell is None:
            return self._run(self.state(x, o), alpha, beta, weak)
        st = self.state(x, o)
        ply = int(st[GL.S_PLY])
        self.nodes += 1
        if self.board.play(self.geo, st, cell):
            return 1 if weak else (self.spec.cells + 1 - ply) // 2
        if ply + 1 == self.spec.cells:
            return 0
        st[GL.S_NODES] = 0
        return -self._run(st, -beta, -alpha, weak)

    def bounds(self, x: int, o: int, weak: bool) -> tuple[int, int]:
        """The widest window of the position's score: weak -1..1, exact the scores
        of a loss on the opponent's next stone and a win on the mover's."""
        if weak:
            return -1, 1
        ply = bin(x).count("1") + bin(o).count("1")
        return -((self.spec.cells - ply) // 2), (self.spec.cells + 1 - ply) // 2

    def score(self, x: int, o: int, weak: bool, turn: Optional[int] = None) -> int:
        """The position's score (weak -1/0/1, or exact) for the side to move (``turn``,
        1 or 2; None: by the counts); :attr:`root_best` is the root's best move the
        search found (-1: it finished no root move)."""
        lo, hi = self.bounds(x, o, weak)
        st = self.state(x, o, turn)
        score = self._run(st, lo - 1, hi + 1, weak)
        self.root_best = int(st[GL.S_BEST])
        return score

    def so_far(self, x: int, o: int, weak: bool) -> tuple[tuple[int, int], int]:
        """What a stopped search of ``x``/``o`` (not over) proved: the bounds of its
        score that the table's entries of its children give (a child's upper bound is
        a lower bound of the move, every child's lower bound an upper bound of the
        position), and its best move so far (not proved): the move of the best proven
        bound, else the root's best move of the search (:attr:`root_best`), else a
        win at once, a block of the opponent's, the first move of the search's order
        after which the opponent cannot win at once, or the first."""
        lo, hi = self.bounds(x, o, weak)
        best, best_cell, highest = lo, -1, lo
        ply = bin(x).count("1") + bin(o).count("1")
        tt = self.table(weak)
        order = self._order(x, o)
        for cell in order:
            st = self.state(x, o)
            if self.board.play(self.geo, st, cell):
                move_lo = move_hi = 1 if weak else (self.spec.cells + 1 - ply) // 2
            elif ply + 1 == self.spec.cells:
                move_lo = move_hi = 0
            else:
                key = int(st[GL.S_HASH])
                slot = key & ((1 << self.bits) - 1)
                move_lo, move_hi = lo, hi
                if tt.keys[slot] == key:   # the child's bound, from the opponent's side
                    child, flag = int(tt.data[2 * slot]), int(tt.data[2 * slot + 1]) & 3
                    if flag in (TT_UPPER, TT_EXACT):
                        move_lo = max(lo, -child)
                    if flag in (TT_LOWER, TT_EXACT):
                        move_hi = min(hi, -child)
            highest = max(highest, move_hi)
            if move_lo > best:
                best, best_cell = move_lo, cell
        if best_cell < 0:
            best_cell = self.root_best if self.root_best >= 0 else self.first_choice(x, o, order)
        return (best, min(hi, highest)), best_cell

    def _order(self, x: int, o: int) -> list[int]:
        """The legal cells in the search's static order (its move scores), ties broken by
        the distance to the board's centre (the empty board: its centre first)."""
        st = self.state(x, o)
        turn = int(st[GL.S_TURN])
        cols, rows = self.spec.cols, self.spec.rows

        def off_centre(c: int) -> float:
            return abs(c % cols - (cols - 1) / 2) + abs(c // cols - (rows - 1) / 2)

        return sorted(self.legal_cells(x, o),
                      key=lambda c: (-int(self.board.move_score(self.geo, st, c, turn)), off_centre(c), c))

    def first_choice(self, x: int, o: int, order: Optional[list[int]] = None) -> int:
        """A win at once, else a block of the opponent's win in one, else the first of
        ``order`` (None: the search's static order, nearest the centre among equals) that
        does not let the opponent win at once, else the first (-1: none)."""
        order = self._order(x, o) if order is None else order
        st = self.state(x, o)
        turn = int(st[GL.S_TURN])
        pair = np.zeros(2, dtype=np.int64)
        for side in (turn, 3 - turn):
            if self.board.winning_cells(self.geo, st, side, pair) > 0:
                return int(pair[0])
        safe = [c for c in order if not self.loses_at_once(x, o, c)]
        return (safe or order or [-1])[0]

    def legal_cells(self, x: int, o: int) -> list[int]:
        """The cells the side to move may play, in natural order."""
        st = self.state(x, o)
        out = np.zeros(self.spec.cells, dtype=np.int64)
        n = self.board.candidate_moves(self.geo, st, False, out)
        return [int(c) for c in out[:n]]

    def best_cell(self, x: int, o: int, score: int, weak: bool) -> int:
        """A cell that keeps the position's known ``score``: with a weak win, the first
        move of a threat-space win if there is one; else the one a null-window search
        of the position proves (its order: the table's move, then the static order),
        else the first legal cell a null-window search of it proves; with a weak loss
        every move keeps it, and one after which the opponent has no win in one is
        preferred. -1 when stopped."""
        hint = self.stored_move(x, o, weak)
        order = sorted(self.legal_cells(x, o), key=lambda c: c != hint)
        if weak and score < 0:
            return next((c for c in order if not self.loses_at_once(x, o, c)), order[0])
        if weak and score > 0:   # a win threat-space search finds needs no search of the tree
            first = self.threat_win(x, o, current().BIG_THREAT_NODES)
            if first is not None:
                return first
        st = self.state(x, o)
        if self._run(st, score - 1, score, weak) >= score and st[GL.S_BEST] >= 0:
            return int(st[GL.S_BEST])   # the move the root search proved (its order: table, then static)
        if self.aborted:
            return -1
        for cell in order:
            if self.window(x, o, score - 1, score, weak, cell=cell) >= score:
                return cell
            if self.aborted:
                return -1
        raise RuntimeError("no move keeps the score: the solved value was wrong")

    def loses_at_once(self, x: int, o: int, cell: int) -> bool:
        """Whether the side to move, taking ``cell``, lets the opponent complete a line next."""
        st = self.state(x, o)
        turn = int(st[GL.S_TURN])
        if self.board.play(self.geo, st, cell):
            return False
        return self.board.winning_cells(self.geo, st, 3 - turn, np.zeros(2, dtype=np.int64)) > 0

    def stored_move(self, x: int, o: int, weak: bool) -> int:
        """The table's move of ``x``/``o`` (-1: none)."""
        key = int(self.state(x, o)[GL.S_HASH])
        tt = self.table(weak)
        slot = key & ((1 << self.bits) - 1)
        return int((tt.data[2 * slot + 1] >> 8) - 1) if tt.keys[slot] == key else -1

    def threat_win(self, x: int, o: int, node_budget: int) -> Optional[int]:
        """The first move of a win of the side to move by fours and at most
        ``BIG_THREES`` threes (threat-space search, free placement), within
        ``node_budget`` nodes; None when none was found."""
        if self.spec.gravity:
            return None
        settings = current()
        fail = np.zeros(2 << settings.BIG_FAIL_BITS, dtype=np.int64)
        spent = 0
        for threes in range(settings.BIG_THREES + 1):
            st = self.state(x, o)
            st[GL.S_NODE_LIMIT] = max(1, node_budget - spent)
            plies = self.board.vct(self.geo, st, self.ctl, np.int64(st[GL.S_TURN]), np.int64(threes),
                                   np.int64(settings.BIG_FOURS), self.threat_scratch, fail, np.int64(0))
            spent += int(st[GL.S_NODES])
            self.nodes += int(st[GL.S_NODES])
            if plies > 0 and not st[GL.S_ABORTED]:
                self.threat_wins += 1
                return int(st[GL.S_BEST])
            if st[GL.S_ABORTED] or spent >= node_budget:
                return None
        return None

    def fours_line(self, x: int, o: int) -> Optional[list[int]]:
        """A win of the side to move by continuous fours (free placement): its moves
        and the forced replies alternating, the winning stone last; None when there
        is none (or on a gravity board)."""
        if self.spec.gravity:
            return None
        st = self.state(x, o)
        plies = self.board.vct(self.geo, st, self.ctl, np.int64(st[GL.S_TURN]), np.int64(0),
                               np.int64(current().BIG_FOURS), self.threat_scratch, self.fail, np.int64(0))
        self.nodes += int(st[GL.S_NODES])
        return None if plies <= 0 or st[GL.S_ABORTED] else [int(c) for c in self.threat_scratch[:plies]]

    def line(self, position: Position, score: int, weak: bool, first: int, pv: bool) -> Optional[list[int]]:
        """The moves of a perfect game from ``position`` whose ``score`` is known,
        ``first`` its first cell (only that move without ``pv``); None when stopped.
        Where the winner of a weak score has a win by continuous fours, the line
        ends with it (the loser's replies forced)."""
        walk = position.copy()
        moves: list[int] = []
        cell = first
        while True:
            fours = self.fours_line(walk.x, walk.o) if pv and weak and score > 0 and moves else None
            if fours is not None:
                return moves + [walk.move_of_cell(c) for c in fours]
            move = walk.move_of_cell(cell)
            moves.append(move)
            walk.push(move)
            score = -score
            if not pv or walk.is_game_over():
                return moves
            cell = self.best_cell(walk.x, walk.o, score, weak)
            if cell < 0:
                return None


def threat_budget(limit: Limit) -> int:
    """Nodes of the threat-space search that a weak solve asks first: a share of the
    node limit (``BIG_THREAT_SHARE``), else ``BIG_THREAT_NODES``."""
    settings = current()
    return settings.BIG_THREAT_NODES if limit.nodes is None else max(1, int(limit.nodes * settings.BIG_THREAT_SHARE))


def solve_big(position: Position, opts: SolveOptions) -> SolveResult:
    """:func:`parallel_mnk.solve` of a position of a board past 64 cells (see there):
    its value within ``opts.limit`` (else ``unknown``, never a guess), the exact
    score unless ``opts.weak``, the best move and (``opts.pv``) a perfect line."""
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    search = BigSearch(position.spec, table_bits(opts.tt_bits))
    limit = opts.limit
    search.node_limit = limit.nodes
    cpu0 = time.process_time()
    x, o = position.x, position.o

    def run() -> Optional[tuple[int, list[int]]]:
        first = None
        if opts.weak:
            first = search.threat_win(x, o, threat_budget(limit))   # its own node budget never stops the search below
        if first is not None:
            score = 1
        else:
            score = search.score(x, o, opts.weak)
            if search.aborted:
                return None
            first = search.best_cell(x, o, score, opts.weak)
        line = None if search.aborted else search.line(position, score, opts.weak, first, opts.pv)
        return None if line is None else (score, line)

    def status() -> str:
        elapsed = time.perf_counter() - started
        return f"solving {position.spec.describe()}: {search.nodes / 1e6:.1f} M nodes, {elapsed:.1f} s"

    result, _ = running.run_with_status(run, search.ctl, limit.time, opts.progress, status, opts.watch,
                                        lambda: search.nodes)
    elapsed = time.perf_counter() - started
    stats = [WorkerStats(0, 1, search.nodes, time.process_time() - cpu0, 0, 0, search.threat_wins)]
    if result is None:
        bounds, cell = search.so_far(x, o, opts.weak)
        return SolveResult(position.spec, Value.UNKNOWN, None, None if cell < 0 else position.move_of_cell(cell), [],
                           search.nodes, elapsed, stats, bounds=bounds)
    score, line = result
    value = value_of_score(score)
    proof = "threats" if search.threat_wins and value is Value.WIN else "search"
    return SolveResult(position.spec, value, None if opts.weak else score, Move(position.spec, line[0]),
                       moves_of(position.spec, line), search.nodes, elapsed,
                       stats, proof=proof)
