"""The weak value of a free-placement board past 64 cells by the proof-number prover
(``--prover pn``): its questions ("does x win?", "does o win?", each a
:class:`.big_pn.ThreatProof`) asked in turn, a slice of jobs each, until one is
proven or both disproven; the answer, its figures and its certificates
(docs/big-boards.md section 6).

With ``--checkpoint`` the settled positions are journaled
(:mod:`..scheduling.big_pn_journal`) every ``PN_SNAPSHOT_S`` seconds and when the run
stops (a limit, Ctrl-C, SIGTERM); the same command resumes from them.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Optional

from ...api.options import SolveOptions
from ...api.results import SolveResult, WorkerStats
from ...api.settings import current
from ...engines.exact.search import terminal_result
from ...engines.provers.big_certificate import extract_big
from ...engines.provers.big_threats import DISPROVEN
from ...engines.provers.certificate import claims_of
from ...game.moves import Move, moves_of
from ...game.position import Position
from ...game.rules import Value
from ...runtime import running
from ..scheduling import registry
from ..scheduling.big_pn_journal import BigPnJournal
from .big_pn import ThreatProof


def solve_big_pn(position: Position, opts: SolveOptions, certificate: Optional[Path] = None) -> SolveResult:
    """The weak value of ``position`` (free placement past 64 cells) by proof-number
    search over threats (module docstring): "does the side to move win?" and "does
    the other side win?" (not on the empty board: strategy stealing), in turn, a
    slice of ``BIG_PN_SLICE_EXPANSIONS`` expansions each, doubling, until one is proven or both
    disproven. Stopped by a limit: ``unknown``, the bounds the answered questions
    prove and the move so far (not proved: the first of the judge's order
    the side to move's tree has not refuted; where that question is disproven, the
    other's tree's: a move that refutes its win, else the one hardest to prove). With
    ``certificate``, the value's certificates are written there: a win's (its
    tree's moves first), a draw's two ``cannot-win`` (the defender's refutations its
    question's tree found first; pairings where the prover's bounds find them, every
    attacker move elsewhere: :func:`.big_certificate.extract_big`). More than one worker: the jobs on ``opts.backend``'s
    workers (the process pool or Ray)."""
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    limit = opts.limit
    deadline = None if limit.time is None else time.monotonic() + limit.time
    journal = None if opts.checkpoint is None else BigPnJournal(Path(opts.checkpoint), position)
    line = running.StatusLine(opts.progress)
    mover = "x" if position.ply % 2 == 0 else "o"
    other = "o" if mover == "x" else "x"
    cpu0 = time.process_time()
    next_snapshot = time.monotonic() + current().PN_SNAPSHOT_S
    watch = opts.watch

    def nodes() -> int:
        return sum(p.nodes for p in proofs)

    def stop() -> bool:
        nonlocal next_snapshot
        if journal is not None and time.monotonic() >= next_snapshot:
            for p in proofs:
                journal.snapshot(p.attacker, p.settled, p.nodes)
            next_snapshot = time.monotonic() + current().PN_SNAPSHOT_S
        if watch is not None:
            watch.count(nodes())
        return ((deadline is not None and time.monotonic() >= deadline)
                or (limit.nodes is not None and nodes() >= limit.nodes)
                or (watch is not None and watch.stopped))

    # both questions in turn, a slice of jobs each (doubling): past 64 cells a disproof is rare, so the side
    # that wins is found by its proof, whichever side moves; the empty board: the first player's alone (the
    # second cannot win: strategy stealing)
    sides = [mover] if position.ply == 0 else [mover, other]
    proofs = [ThreatProof(position, side, None if journal is None else journal.settled(side)) for side in sides]
    answers: dict[str, bool] = {}
    backend = None if opts.workers <= 1 else \
        registry.get_coordinator(opts.backend, opts.workers, current().SIDE_POOL_TT_BITS, opts.address).backend
    try:
        expansions = current().BIG_PN_SLICE_EXPANSIONS
        while not stop() and len(answers) < len(proofs) and not any(answers.values()):
            for proof in proofs:
                if proof.attacker in answers:
                    continue
                end = proof.expansions + expansions
                show = lambda s: line.update(lambda: s)   # noqa: E731
                if backend is None:
                    got = proof.run(lambda: stop() or proof.expansions >= end, show)
                else:   # (the slice's end: its running jobs taken in, not stopped)
                    got = proof.run_on(backend, stop, show, lambda: proof.expansions >= end)
                if got is not None:
                    answers[proof.attacker] = got
                    if got:
                        break
            expansions *= 2
    finally:
        line.finish()
        if journal is not None:
            for proof in proofs:
                journal.snapshot(proof.attacker, proof.settled, proof.nodes)
            journal.close()
    wins = answers.get(mover)
    if wins:
        value = Value.WIN
    elif answers.get(other):
        value = Value.LOSS
    elif wins is False and (position.ply == 0 or answers.get(other) is False):
        value = Value.DRAW
    else:
        value = Value.UNKNOWN
    return _result(position, value, proofs, answers, opts, certificate, started, time.process_time() - cpu0)


def _result(position: Position, value: Value, proofs: list[ThreatProof], answers: dict[str, bool],
            opts: SolveOptions, certificate: Optional[Path], started: float, cpu_s: float) -> SolveResult:
    """:func:`solve_big_pn`'s answer from its questions' proofs: the move, the line,
    the figures, the certificate of a win."""
    mover = "x" if position.ply % 2 == 0 else "o"
    other = "o" if mover == "x" else "x"
    wins = answers.get(mover)
    nodes = sum(p.nodes for p in proofs)
    first = proofs[0]
    stats = [WorkerStats(0, sum(p.jobs for p in proofs), sum(p.judge.nodes for p in proofs), cpu_s, 0, 0,
                         sum(p.judge.search.threat_wins for p in proofs))]
    for w in sorted({w for p in proofs for w in p.worker_stats}):
        parts = [p.worker_stats[w] for p in proofs if w in p.worker_stats]
        stats.append(WorkerStats(w, sum(s.tasks for s in parts), sum(s.nodes for s in parts),
                                 sum(s.cpu_s for s in parts), max(s.peak_rss for s in parts)))
    figures: dict[str, object] = {"jobs": sum(p.jobs for p in proofs),
                                  "tree_nodes": sum(p.tree.nodes for p in proofs if p.tree is not None),
                                  "settled": sum(len(p.settled) for p in proofs), "questions": len(proofs),
                                  "workers": opts.workers, "lost": sum(p.lost for p in proofs),
                                  "threat_budget": [first.judge.threes, first.judge.vct_nodes]}   # (by the board)
    slot_s = sum(p.slot_s for p in proofs)
    if slot_s > 0:   # (the share of the workers' time without a job: "idle")
        figures["idle"] = round(sum(p.idle_s for p in proofs) / slot_s, 3)
    elapsed = time.perf_counter() - started
    search = first.judge.search
    if not value.known:
        bounds = (-1, 0) if wins is False else (0, 1) if answers.get(other) is False else (-1, 1)
        # the mover's tree, or where the mover cannot win the other side's (a move it has not refuted)
        tree = proofs[1].tree if wins is False and len(proofs) > 1 else first.tree
        # (the root's numbers cycle as its moves are worked in turn: they say nothing before one settles)
        cell = None if tree is None else tree.best_cell(margin=math.inf)
        if cell is None:   # (the root not split yet: the judge's first choice)
            cell = search.first_choice(position.x, position.o)
        return SolveResult(position.spec, Value.UNKNOWN, None, Move(position.spec, cell),
                           [], nodes, elapsed, stats, bounds=bounds, parallel=figures)
    if value is Value.WIN:
        move = first.winning_move(position.x, position.o)
        assert move is not None
        cells = first.line(move) if opts.pv else [move]
    elif value is Value.DRAW:   # (a move after which the other side cannot win: disproven in its tree)
        tree = proofs[-1].tree if len(proofs) > 1 else None
        held = [] if tree is None or tree.root.children is None else \
            [c.cell for c in tree.root.children if c.state == DISPROVEN]
        cells = [held[0] if held else search.first_choice(position.x, position.o)]
    else:
        cells = [search.first_choice(position.x, position.o)]
    result = SolveResult(position.spec, value, None, Move(position.spec, cells[0]), moves_of(position.spec, cells),
                         nodes, time.perf_counter() - started, stats, proof="pn", parallel=figures)
    if certificate is not None:
        result.certificates = []
        winner = next((p for p in proofs if p.answer), None)
        if winner is not None:
            cert = extract_big(position, winner.attacker, "wins", certificate, progress=opts.progress,
                               hint=winner.winning_move)
            result.certificates.append(str(cert.path))
        else:   # (each cannot-win walked along its question's refutations)
            asked = {p.attacker: p for p in proofs}
            for attacker, claim in claims_of(position, value):
                proof = asked.get(attacker)
                cert = extract_big(position, attacker, claim, certificate, progress=opts.progress,
                                   hint=None if proof is None else proof.refuting_move)
                result.certificates.append(str(cert.path))
    return result
