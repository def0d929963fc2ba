"""A serial exact solve: value, exact score, best move and perfect line of a
position in this process (:func:`solve_serial`), by the ladder of null-window
probes of :class:`~.exact.search.Search`, or by df-pn first (:func:`solve_dfpn`)
where the options ask it (:meth:`~parallel_mnk.api.options.SolveOptions.dfpn_first`).

It drives the exact search and the proofs, so it sits above both.
"""
from __future__ import annotations

import time
from pathlib import Path
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
from .provers.pns import PnProver, pn_value
from ..settings import DFPN_AUTO_BUDGET, PN_LINE_MAX_EMPTY, PN_STORE_MAX_BITS

# df-pn's budget a question under prover="auto": past it alpha-beta answers (df-pn's table has the
# bytes of alpha-beta's, half the entries: a bigger budget re-expands more than it saves)


def solve_serial(position: Position, opts: SolveOptions, certificate: Optional[Path] = None) -> SolveResult:
    """:func:`parallel_mnk.solve` in this process (``opts.workers == 1``); see there.
    Where ``opts.pn_first(position)``, the proof-number prover answers
    (:func:`solve_pn`; with ``certificate``, a folder, its certificates are written
    there as it proves); where ``opts.dfpn_first(position)``, df-pn answers first
    (:func:`solve_dfpn`), and alpha-beta after it when its budget stopped it
    (``prover="auto"``)."""
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    if opts.pn_first(position):
        return solve_pn(position, opts, started, certificate)
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
        limit = min(limit or DFPN_AUTO_BUDGET, DFPN_AUTO_BUDGET)
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


def solve_pn(position: Position, opts: SolveOptions, started: float,
             certificate: Optional[Path] = None) -> SolveResult:
    """The weak value by the proof-number prover (:func:`.provers.pns.pn_value`), within
    the limits, ``proof`` ``"pn"``; its table takes ``opts.tt_bits`` of 8-byte entries'
    bytes, its store as much again. The best move is the prover's (a win's winning
    move; a draw's drawing move, from the question of the other side's win; a
    loss's: the forced block if any, else the first legal move); with ``opts.pv`` the
    line is completed by alpha-beta when at most ``PN_LINE_MAX_EMPTY`` cells are
    left after it (beyond, the line is the move: completing it would be another
    solve). With ``certificate`` the value's certificates are written there as
    found (mnk-proof/2). ``unknown`` when a limit stopped it, with the bounds proved."""
    bits = max(4, opts.tt_bits - 2)   # (32-byte entries: the bytes of alpha-beta's table)
    prover = PnProver(position.spec, bits, max(4, min(PN_STORE_MAX_BITS, opts.tt_bits - 2)))
    cpu0 = time.process_time()
    found = pn_value(prover, position, node_limit=opts.limit.nodes, time_limit=opts.limit.time,
                     certificate=certificate, progress=opts.progress, watch=opts.watch,
                     need_move=True)
    stats = [WorkerStats(0, 1, found.nodes, time.process_time() - cpu0, 0,
                         sum(a.stats.get("pairings", 0) for a in found.answers),
                         sum(a.stats.get("vcf_proofs", 0) + a.stats.get("vcf_disproofs", 0) for a in found.answers))]
    if not found.value.known:
        elapsed = time.perf_counter() - started
        first = found.answers[0].wins if found.answers else None
        bounds = (-1, 0) if first is False else ((0, 1) if position.ply == 0 else (-1, 1))
        return SolveResult(position.spec, Value.UNKNOWN, None, None, [], found.nodes, elapsed, stats, bounds=bounds)
    cell = found.move if found.move is not None else loss_move(position)
    line = [position.move_of_cell(cell)]
    nodes = found.nodes
    if opts.pv:
        after = position.copy()
        after.push(line[0])
        if not after.is_game_over() and position.spec.cells - after.ply <= PN_LINE_MAX_EMPTY:
            search = Search(position.spec, transposition_table(min(opts.tt_bits, 20)))
            score = {Value.WIN: -1, Value.DRAW: 0, Value.LOSS: 1}[found.value]
            rest = answer_with_line(search, after, score, True, True)
            nodes += search.nodes
            line += rest or []
    elapsed = time.perf_counter() - started
    result = SolveResult(position.spec, found.value, None, line[0], moves_of(position.spec, line), nodes, elapsed,
                         stats, proof="pn")
    if certificate is not None:
        result.certificates = [str(p) for p in found.certificates]
    return result


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
