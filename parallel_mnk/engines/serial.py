"""A serial exact solve: value, exact score, best move and perfect line of a
position in this process (:func:`solve_serial`), by the ladder of null-window
probes of :class:`~.exact.search.Search`, or by df-pn first (:func:`solve_dfpn`)
where the options ask it (:meth:`~parallel_mnk.api.options.SolveOptions.dfpn_first`);
the line of a proof-number answer (:func:`pn_line`) and a losing side's move
(:func:`loss_move`), for the proof-number prover (:mod:`parallel_mnk.parallel.uses.pn_jobs`).

It drives the exact search and the proofs, so it sits above both.
"""
from __future__ import annotations

import time
from typing import Optional

from ..api.options import SolveOptions
from ..api.results import SolveResult, WorkerStats, prover_of
from ..game.moves import Move, moves_of
from ..game.geometry import line_masks
from ..game.position import Position
from ..game.rules import Value, value_of_score
from ..kernels.core import layout as L
from ..runtime import running
from ..runtime.ttable import transposition_table
from .exact.search import Search, answer_with_line, terminal_result
from .provers.dfpn import Dfpn, DfpnResult, weak_value
from ..api.settings import current

# df-pn's budget a question under prover="auto": past it alpha-beta answers (df-pn's table has the
# bytes of alpha-beta's, half the entries: a bigger budget re-expands more than it saves)


def solve_serial(position: Position, opts: SolveOptions) -> SolveResult:
    """:func:`parallel_mnk.solve` in this process (``opts.workers == 1``); see there.
    Where ``opts.dfpn_first(position)``, df-pn answers first
    (:func:`solve_dfpn`), and alpha-beta after it when its budget stopped it
    (``prover="auto"``)."""
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    search = Search(position.spec, transposition_table(opts.tt_bits))
    if opts.dfpn_first(position):
        settled = solve_dfpn(position, opts, search, started)
        if settled.value.known or opts.prover == "dfpn":
            return settled
        return _alpha_beta(position, opts, search, started, settled.nodes)
    return _alpha_beta(position, opts, search, started, 0)


def _alpha_beta(position: Position, opts: SolveOptions, search: Search, started: float,
                earlier: int) -> SolveResult:
    """The alpha-beta solve of :func:`solve_serial` (``earlier``: nodes df-pn
    spent first, counted in the result; the limits hold for both)."""
    left = None if opts.limit.time is None else max(1e-3, opts.limit.time - (time.perf_counter() - started))
    search.set_node_limit(None if opts.limit.nodes is None else max(1, opts.limit.nodes - earlier))
    own, opp = position.stones()
    cpu0 = time.process_time()

    def run() -> Optional[tuple[int, list[Move]]]:
        score = search.score(own, opp, position.ply, opts.weak)
        if search.aborted:
            return None
        line = answer_with_line(search, position, score, opts.weak, opts.pv)
        return None if line is None else (score, line)

    def status() -> str:
        elapsed = time.perf_counter() - started
        return (f"solving: {search.nodes / 1e6:.1f} M nodes, "
                f"{search.nodes / max(elapsed, 1e-9) / 1e6:.1f} M nodes/s, {elapsed:.1f} s")

    result, _ = running.run_with_status(run, search.ctl, left, opts.progress, status, opts.watch,
                                        lambda: earlier + search.nodes)
    elapsed = time.perf_counter() - started
    nodes = earlier + search.nodes
    stats = [WorkerStats(0, 1, nodes, time.process_time() - cpu0, 0, *search.proof_counts)]
    if result is None:
        cell = search.move_so_far(own, opp, position.ply)
        return SolveResult(position.spec, Value.UNKNOWN, None, None if cell < 0 else position.move_of_cell(cell), [],
                           nodes, elapsed, stats, bounds=search.bounds)
    score, line = result
    value = value_of_score(score)
    return SolveResult(position.spec, value, None if opts.weak else score, Move(position.spec, line[0]),
                       moves_of(position.spec, line),
                       nodes, elapsed, stats, proof=prover_of(value, stats))


def solve_dfpn(position: Position, opts: SolveOptions, search: Search, started: float) -> SolveResult:
    """The weak value by df-pn (:func:`.proofs.dfpn.weak_value`) within the time
    limit and the node limit (each question; ``prover="auto"``: at most
    ``DFPN_AUTO_BUDGET``), ``proof`` ``"dfpn"``; the best move and the line from
    its table, completed by ``search`` (alpha-beta from the known value) where
    the table holds none or (with ``opts.pv``) only part of one. ``unknown`` when
    a limit stopped it, with the weak bounds its answered question proved (the
    mover cannot win: at most a draw; the empty board is never lost) and the best
    move so far (:meth:`Search.move_so_far`). Precondition: the game is not over."""
    auto = opts.prover == "auto"
    limit = opts.limit.nodes or 0
    if auto:
        budget = current().DFPN_AUTO_BUDGET
        limit = min(limit or budget, budget)
    proofs = Dfpn(position, max(4, opts.tt_bits - 1), node_limit=limit)
    proofs.ctl = search.ctl   # one abort word stops both searches
    done = [0]                # nodes of the questions already answered
    bounds = [-1, 1]          # what the answered questions proved of the weak value
    if position.ply == 0:
        bounds[0] = 0         # the empty board is never lost (strategy stealing)
    cpu0 = time.process_time()

    def ask(mover_attacks: bool) -> DfpnResult:
        found = proofs.ask_here(mover_attacks)
        done[0] += int(proofs.ctx[L.C_NODES])
        if found is False:    # the mover cannot win (at most a draw), or cannot lose (at least one)
            bounds[1 if mover_attacks else 0] = 0
        return DfpnResult(found, int(proofs.ctx[L.C_NODES]))

    def run() -> Optional[tuple[Value, list[Move]]]:
        found = weak_value(proofs, ask)
        if not found.value.known:
            return None
        line = _dfpn_line(search, position, found.value, found.line, opts.pv)
        return None if line is None else (found.value, line)

    def nodes() -> int:
        return done[0] + int(proofs.ctx[L.C_NODES]) + search.nodes

    def status() -> str:
        elapsed = time.perf_counter() - started
        return f"df-pn: {nodes() / 1e6:.1f} M nodes, {elapsed:.1f} s"

    result, _ = running.run_with_status(run, search.ctl, opts.limit.time, opts.progress, status, opts.watch, nodes)
    search.ctl[L.CTL_ABORT] = 0
    total = done[0] + search.nodes
    stats = [WorkerStats(0, 1, total, time.process_time() - cpu0, 0, *search.proof_counts)]
    elapsed = time.perf_counter() - started
    if result is None:
        own, opp = position.stones()
        cell = search.move_so_far(own, opp, position.ply)
        return SolveResult(position.spec, Value.UNKNOWN, None, None if cell < 0 else position.move_of_cell(cell), [],
                           total, elapsed, stats, bounds=(bounds[0], bounds[1]))
    value, line = result
    return SolveResult(position.spec, value, None, Move(position.spec, line[0]), moves_of(position.spec, line),
                       total, elapsed, stats, proof="dfpn")


def _dfpn_line(search: Search, position: Position, value: Value, cells: list[int], pv: bool) -> Optional[list[Move]]:
    """Moves from df-pn's line ``cells`` that keep the weak ``value`` of
    ``position``, completed by alpha-beta (:func:`answer_with_line`) when empty,
    or with ``pv`` when the game is not over at its end; None when aborted."""
    pos = position.copy()
    moves = []
    for cell in cells:
        moves.append(pos.move_of_cell(cell))
        pos.push(moves[-1])
    if moves and (not pv or pos.is_game_over()):
        return moves
    score = {Value.WIN: 1, Value.DRAW: 0, Value.LOSS: -1}[value] * (-1 if len(cells) % 2 else 1)
    rest = answer_with_line(search, pos, score, True, pv)
    return None if rest is None else moves + rest


def pn_line(position: Position, value: Value, cell: int, opts: SolveOptions) -> tuple[list[int], int]:
    """The line of a proof-number answer that plays ``cell`` (its cells) and the nodes
    it took: the move, completed by alpha-beta when ``opts.pv`` and at most
    ``PN_LINE_MAX_EMPTY`` cells are left after it (beyond, the line is the move:
    completing it would be another solve)."""
    after = position.copy()
    after.push(position.move_of_cell(cell))
    if not opts.pv or after.is_game_over() or position.spec.cells - after.ply > current().PN_LINE_MAX_EMPTY:
        return [cell], 0
    search = Search(position.spec, transposition_table(min(opts.tt_bits, 20)))
    score = {Value.WIN: -1, Value.DRAW: 0, Value.LOSS: 1}[value]
    rest = answer_with_line(search, after, score, True, True)
    return [cell] + [int(m) for m in rest or []], search.nodes


def loss_move(position: Position) -> int:
    """A cell for a side that loses whatever it plays: the block of one of the
    opponent's completion cells if it has one, else the first empty cell."""
    own, opp = position.stones()
    empty = [c for c in range(position.spec.cells) if not (own | opp) >> c & 1]
    for line in line_masks(position.spec):
        gap = line & ~opp
        if line & own == 0 and gap & (gap - 1) == 0 and gap:
            return gap.bit_length() - 1
    return empty[0]
