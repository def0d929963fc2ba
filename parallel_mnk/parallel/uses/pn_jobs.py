"""A proof by the proof-number prover on the worker pool, by jobs: the coordinator
keeps the best-first tree of each question (:mod:`..scheduling.pn_tree`) and hands
its most-proving leaves out as bounded df-pn jobs (:class:`~..task.PnJob`, about
``PN_JOB_NODES`` nodes each) to the workers, which keep their own tables from job to
job (:class:`~parallel_mnk.engines.provers.pns.PnJobSearcher`).

Every searcher of a question, the coordinator's included, settles into one store in
memory they all map (:mod:`parallel_mnk.runtime.shared_store`): a node is stored once,
by the first searcher that settles it (a compare-and-swap claims its slot), and the
others take its result, so no worker proves again what another settled, and the
certificate, written from the store once the question is settled
(:func:`parallel_mnk.engines.provers.pns.write_certificate`), has one record a node that
agrees with the zones its ancestors used. The coordinator settles the tree's own
nodes with the same kernels, once their children settle them.

Where the workers cannot map the store (the Ray backend: a worker may be on another
machine; or the setting ``PN_REPLICAS``) each keeps a replica of it instead, and sends
back what a job settled for the coordinator to merge: the only writer of the store then
(:class:`~parallel_mnk.engines.provers.pn_replica.ReplicaSearcher`,
:mod:`..scheduling.store_log`; a delta that disagrees with the store is refused and its
job runs again).

A worker that dies mid-job is restarted and its job handed out again; a slot it was
filling is marked dead (:func:`parallel_mnk.kernels.pns.settled_store.bury_dead`), what it
stored stays (whole entries only: an entry is published after its words).

With a journal (``--checkpoint``, :mod:`..scheduling.pn_journal`) the store is saved
every ``PN_SNAPSHOT_S`` seconds, when a question is settled and when the run stops;
the same command run again loads it and goes on (a settled question is not asked
again).

With one worker the jobs run on one thread of this process (the thread backend): the
tree at the top and df-pn below it, as on many workers. From the root alone df-pn
needed up to 6x the nodes (empty (9,6,5): 2.9 M against 0.50 M; bench/README.md).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ...api.options import SolveOptions
from ...api.results import SolveResult, WorkerStats
from ...engines.provers.pns import PnRules, check_game, write_certificate
from ...engines.exact.search import terminal_result
from ...engines.serial import loss_move, pn_line
from ...game.geometry import least_image, symmetries
from ...game.moves import Move, moves_of
from ...game.position import Position
from ...game.rules import MnkError, Value
from ...kernels.pns import layout as PL
from ...runtime import running
from ...runtime.shared_store import SharedStore
from ...runtime.ttable import new_salt
from ...api.settings import current
from ..pools.backend import Backend, Lost
from ..scheduling import registry
from ..scheduling.pn_journal import PnJournal
from ..scheduling.pn_tree import OPEN, PROVEN, PnNode, PnTree
from ..scheduling.store_log import StoreLog
from .pn_coordinator import CoordinatorKernels
from ..task import PnJob, PnJobResult

_job_ids = itertools.count(1)
_question_runs = itertools.count(1)


@dataclass
class QuestionRun:
    """What one question's run did: ``wins`` (None: stopped), the root's ``move``,
    ``nodes``, jobs run and lost, the worker-seconds without a job and the run's
    seconds, the tree's size, and the certificate file; ``earlier``: the nodes
    earlier runs of the question gave it (a journal's)."""

    wins: Optional[bool]
    move: Optional[int]
    nodes: int
    jobs: int = 0
    lost: int = 0
    idle_s: float = 0.0   # worker-seconds without a job while the coordinator waited for answers
    elapsed_s: float = 0.0
    certificate: Optional[Path] = None
    tree_nodes: int = 0
    stored: int = 0
    resumed: int = 0
    guess: Optional[int] = None   # stopped: the root move the proof leans to (not proved)
    earlier: int = 0
    refused: int = 0   # with replicas: jobs whose delta disagreed with the store (run again)
    synced: int = 0   # with replicas: the store's additions jobs took while they ran (posted by the coordinator)
    restarts: int = 0   # with replicas: jobs started again mid-job (an addition taken disagreed with their own)

    @property
    def proof_nodes(self) -> int:
        """The question's nodes over every run: the earlier runs' and this one's."""
        return self.earlier + self.nodes


class JobProof:
    """The parallel prover of one position: its questions on ``workers`` processes
    of the pool (made once), each with its own shared store and tree."""

    def __init__(self, position: Position, opts: SolveOptions, rules: PnRules = PnRules(),
                 journal: Optional[PnJournal] = None) -> None:
        check_game(position.spec)
        self.position, self.opts, self.rules, self.journal = position, opts, rules, journal
        backend = "thread" if opts.workers == 1 else opts.backend   # (one worker: a thread of this process)
        settings = current()
        self.backend: Backend = registry.get_coordinator(backend, opts.workers, settings.SIDE_POOL_TT_BITS,
                                                         opts.address).backend
        self.store_bits = max(16, min(settings.PN_STORE_MAX_BITS, opts.tt_bits - 2))
        self.worker_tt_bits = max(12, min(settings.PN_JOB_TT_BITS, opts.tt_bits - 2 - (opts.workers - 1).bit_length()))
        self.restarts: dict[int, int] = {}
        self.worker_stats: dict[int, WorkerStats] = {}
        # the workers keep replicas of the store where they cannot map it (Ray: other machines)
        self.replicated = not self.backend.maps_store or settings.PN_REPLICAS
        self.log: Optional[StoreLog] = None

    def ask(self, attacker_moves: bool, deadline: Optional[float], node_limit: Optional[int],
            certificate: Optional[Path], status: Callable[[str], None]) -> QuestionRun:
        """Whether the attacker (the side to move, or the other) wins the position."""
        pos, spec = self.position, self.position.spec
        mover = "x" if pos.ply % 2 == 0 else "o"
        attacker = mover if attacker_moves else ("o" if mover == "x" else "x")
        journal = self.journal
        salt, jmove, janswer, jnodes = journal.question(attacker) if journal is not None else (None, None, None, None)
        salt = int(new_salt()) if salt is None else salt
        if journal is not None:
            journal.begin(attacker, salt)
        store = SharedStore(self.store_bits)
        path, st = store.path, store.array
        # one name a run of a question: a worker keeps its searcher by it (not by the store's path: reused)
        question = f"{attacker}-wins@{pos.board_text()}#{next(_question_runs)}"
        backend = self.backend
        running_jobs: dict[int, tuple[PnJob, PnNode]] = {}
        kernels: Optional[CoordinatorKernels] = None
        run: Optional[QuestionRun] = None
        try:
            kernels = CoordinatorKernels(spec, salt, st, self.store_bits, self.rules, self.replicated)
            self.log = StoreLog(backend.share) if self.replicated else None
            resumed, earlier = self._resume(kernels, attacker)
            if janswer is not None:   # settled in an earlier run: its answer (and certificate, from its store)
                run = QuestionRun(janswer, jmove, 0, stored=resumed, earlier=int(jnodes or 0))
                if certificate is not None:
                    kernels.plain()
                    run.certificate = write_certificate(kernels.prover, st, pos, attacker, janswer, certificate,
                                                        run.proof_nodes, 0.0, self.opts.progress)
                return run
            perms = symmetries(spec)
            many = backend.n >= current().PN_MANY_WORKERS   # (a ply deeper: leaves for every worker)
            tree = PnTree(pos.x, pos.o, pos.ply, attacker_moves, kernels.expand, kernels.state_of,
                          kernels.zone_of, kernels.settle, current().PN_OPEN_DEPTH + many,
                          key_of=lambda x, o: least_image(perms, x, o)[0], zone_wait=not many)
            run = QuestionRun(None, None, 0, resumed=resumed, earlier=earlier)
            started = time.perf_counter()
            next_snapshot = time.monotonic() + current().PN_SNAPSHOT_S
            backend.begin()
            stopped = due = False
            while tree.root.state == OPEN:
                # a snapshot is of a store no job writes to: jobs are not handed out once it is due, and it is
                # taken when the last one has ended (taken while they wrote, it held parents without children)
                due = due or (journal is not None and time.monotonic() >= next_snapshot)
                if due and not running_jobs:
                    self._snapshot(kernels, attacker, run.proof_nodes)
                    due, next_snapshot = False, time.monotonic() + current().PN_SNAPSHOT_S
                if not stopped and not due:
                    self._hand_out(tree, running_jobs, kernels, question, salt, str(path))
                if tree.root.state != OPEN:
                    break
                if not running_jobs:
                    if stopped:
                        break
                    raise MnkError("the proof's tree has no open leaf to hand out (an internal error)")
                wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
                turn, busy = time.monotonic(), len(running_jobs)
                self._collect(tree, running_jobs, kernels, run, wait, question)
                run.idle_s += (backend.n - busy) * (time.monotonic() - turn)
                status(self._status(tree, run, started))
                late = deadline is not None and time.monotonic() >= deadline
                over = node_limit is not None and run.nodes >= node_limit
                watch = self.opts.watch
                if not stopped and (late or over or (watch is not None and watch.stopped)):
                    backend.stop_all()
                    stopped = True
                if watch is not None:
                    watch.count(run.nodes)
            if running_jobs:   # (stopped, or settled while jobs ran: stop them, drop their answers)
                backend.stop_all()
                self._drain(running_jobs, kernels)
            backend.begin()
            run.elapsed_s = time.perf_counter() - started
            run.nodes += kernels.nodes
            run.tree_nodes = tree.nodes
            p = kernels.prover
            run.stored += kernels.stored   # (counted as written: a scan of the store took 0.2 s a question)
            if journal is not None:
                self._snapshot(kernels, attacker, run.proof_nodes)
            if tree.root.state == OPEN:
                run.guess = tree.best_cell()
                return run
            run.wins = tree.root.state == PROVEN
            _, _, move = kernels.lookup(tree.root)
            run.move = None if move < 0 else move
            if journal is not None:
                journal.settled(attacker, run.wins, run.move, run.proof_nodes)
            if certificate is not None:   # (its header counts the question's nodes over every run)
                kernels.plain()
                run.certificate = write_certificate(p, st, pos, attacker, run.wins, certificate, run.proof_nodes,
                                                    time.perf_counter() - started, self.opts.progress)
            return run
        except BaseException:
            backend.stop_all()
            if journal is not None and kernels is not None:   # (Ctrl-C, SIGTERM: keep what was settled)
                self._drain(running_jobs, kernels)
                self._snapshot(kernels, attacker, 0 if run is None else run.proof_nodes)
            raise
        finally:
            self._close(store, question)

    def _hand_out(self, tree: PnTree, running_jobs: dict, kernels: CoordinatorKernels, question: str, salt: int,
                  path: str) -> None:
        """Start a job on every idle worker: the tree's most-proving open leaves."""
        spec, backend = self.position.spec, self.backend
        for slot in range(1, backend.n + 1):
            if slot in running_jobs:
                continue
            node = tree.select()
            if node is None:
                break
            log, resets = self._log_for_job(kernels)
            job = PnJob(next(_job_ids), spec.cols, spec.rows, spec.k, question, salt, path, self.store_bits,
                        node.x, node.o, node.ply, node.or_node, current().PN_JOB_NODES, self.worker_tt_bits,
                        self.rules, self.replicated, log, resets)
            tree.begin_job(node)
            if not backend.start(slot, job):
                tree.end_job(node, -2, 1, 1)
                self._restart(slot, "its pipe closed", kernels)
                continue
            running_jobs[slot] = (job, node)

    def _close(self, store: SharedStore, question: str) -> None:
        """The question's end: its store closed, the log posted for it withdrawn (its chunks freed)."""
        if self.log is not None:
            self.backend.post(question, None)
        store.close()

    def _collect(self, tree: PnTree, running_jobs: dict, kernels: CoordinatorKernels, run: QuestionRun,
                 wait: float, question: str) -> None:
        """Take the jobs that ended within ``wait`` seconds into the tree: a lost
        worker's job back to its leaf (the worker restarted), a stopped job's too;
        with replicas, what the store took posted as ``question``'s log for the jobs
        under way (they take it between their slices)."""
        for slot, event in self.backend.collect(wait):
            if slot not in running_jobs:
                continue
            job, node = running_jobs.pop(slot)
            if isinstance(event, Lost):
                run.lost += 1
                tree.end_job(node, -2, 1, 1)
                self._restart(slot, event.how, kernels)
                continue
            assert isinstance(event, PnJobResult)
            run.nodes += event.nodes
            run.stored += event.stats.get("stored", 0)
            run.synced += event.stats.get("synced", 0)
            run.restarts += event.stats.get("restarts", 0)
            self._account(event)
            if event.stats.get("full"):
                if self.replicated:
                    raise MnkError(f"a job's store of 2**{current().PN_JOB_STORE_BITS} entries is full: give it "
                                   "more (--setting PN_JOB_STORE_BITS=...)")
                raise MnkError(f"the shared store of 2**{self.store_bits} entries is full: give a bigger "
                               "table (--tt-size)")
            if self.replicated and not self._merge(event, kernels):
                run.refused += 1   # (its leaf open again: the job runs again on a searcher that agrees)
                tree.end_job(node, -2, 1, 1)
                continue
            if event.stopped:
                tree.end_job(node, -2, 1, 1)
                continue
            run.jobs += 1
            tree.end_job(node, event.found, event.pn, event.dn)
        if self.log is not None and self._log_pending(kernels):
            self.backend.post(question, self.log.handed_out())

    def _log_for_job(self, kernels: CoordinatorKernels) -> tuple[tuple, tuple]:
        """What a job carries with replicas: the log's chunks (what the coordinator's
        store took so far) and the resets asked; empty without."""
        if self.log is None:
            return (), ()
        self._log_pending(kernels)
        return self.log.handed_out(), tuple(self.log.resets().items())

    def _log_pending(self, kernels: CoordinatorKernels) -> bool:
        """Log the additions the store took since (replicated); whether there were any."""
        if self.log is None or not kernels.pending:
            return False
        for rows in kernels.pending:
            self.log.add(rows)
        kernels.pending.clear()
        return True

    def _merge(self, event: PnJobResult, kernels: CoordinatorKernels) -> bool:
        """Merge a job's delta (replicated): False when it is refused (its searcher was
        refused before and has not reset, or the delta disagrees with the store)."""
        assert self.log is not None and event.delta is not None
        if self.log.accepts(event.searcher, event.epoch) and kernels.merge(*event.delta):
            return True
        self.log.refuse(event.searcher, event.epoch)
        return False

    def _resume(self, kernels: CoordinatorKernels, attacker: str) -> tuple[int, int]:
        """Load the journal's newest snapshot of the question into the store: the entries
        loaded, and the nodes the question had taken when it was written."""
        if self.journal is None:
            return 0, 0
        snap = self.journal.latest(attacker)
        if snap is None:
            return 0, 0
        _, entries, pool, nodes = snap
        p, st = kernels.prover, kernels.store
        mask = (1 << self.store_bits) - 1
        base = (mask + 1) * PL.ST_WORDS
        if base + len(pool) > len(st):
            raise MnkError("the journal's store does not fit in this run's: give a table as big as the run that "
                           "made it (--tt-size)")
        n = int(p.kernels.import_entries(st, np.uint64(mask), entries, len(entries) // PL.ST_WORDS))
        if n < 0:
            raise MnkError("the journal's store does not fit in this run's: give a bigger table (--tt-size)")
        st[base:base + len(pool)] = pool
        if kernels.replicated:
            kernels.pending.append(np.asarray(entries, dtype=np.uint64))   # (the replicas start from it)
        return n, nodes

    def _snapshot(self, kernels: CoordinatorKernels, attacker: str, nodes: int) -> None:
        """Write the store to the journal (entries and the used part of the pool)."""
        assert self.journal is not None
        p, st = kernels.prover, kernels.store
        mask = (1 << self.store_bits) - 1
        n = int(p.kernels.count_entries(st, np.uint64(mask)))
        out = np.zeros((n + n // 8 + 1) * PL.ST_WORDS, dtype=np.uint64)   # (room for entries written meanwhile)
        n = int(p.kernels.export_entries(st, np.uint64(mask), out))
        base = (mask + 1) * PL.ST_WORDS
        used = max(1, int(st[base]))
        self.journal.snapshot(attacker, self.store_bits, out[:n * PL.ST_WORDS], st[base:base + used].copy(), nodes)

    def _drain(self, running_jobs: dict, kernels: CoordinatorKernels) -> None:
        """Wait for the stopped jobs' answers (dropped)."""
        end = time.monotonic() + 30
        while running_jobs and time.monotonic() < end:
            for slot, event in self.backend.collect(0.1):
                running_jobs.pop(slot, None)
                if isinstance(event, Lost):
                    self._restart(slot, event.how, kernels)
        for slot in list(running_jobs):
            self.backend.reset(slot)
            running_jobs.pop(slot)
            self._bury(kernels, slot)

    def _restart(self, slot: int, how: str, kernels: CoordinatorKernels) -> None:
        count = self.restarts[slot] = self.restarts.get(slot, 0) + 1
        if count > current().MAX_RESTARTS_PER_WORKER:
            raise MnkError(f"worker {slot} stopped {count} times ({how}); run again or use --workers 1")
        self._bury(kernels, slot)
        self.backend.restart(slot)

    def _bury(self, kernels: CoordinatorKernels, slot: int) -> None:
        """Mark the store slots the dead worker of ``slot`` left half written (its own marks only)."""
        p = kernels.prover
        p.kernels.bury_dead(kernels.store, np.uint64((1 << self.store_bits) - 1), slot)

    def _account(self, r: PnJobResult) -> None:
        s = self.worker_stats.get(r.worker) or WorkerStats(r.worker, 0, 0, 0.0, 0)
        self.worker_stats[r.worker] = WorkerStats(r.worker, s.tasks + 1, s.nodes + r.nodes, s.cpu_s + r.cpu_s,
                                                  max(s.peak_rss, r.peak_rss),
                                                  s.certificates + r.stats.get("pairings", 0),
                                                  s.vcf_wins + r.stats.get("vcf_proofs", 0)
                                                  + r.stats.get("vcf_disproofs", 0))

    @staticmethod
    def _status(tree: PnTree, run: QuestionRun, started: float) -> str:
        root = tree.root
        if root.children is None:
            moves = "root not split yet"
        else:
            done = sum(1 for c in root.children if c.state != OPEN)
            live = len(tree.live_children(root)) if root.state == OPEN else 0
            moves = f"root moves {done} settled, {live} open of {len(root.children)}"
        elapsed = time.perf_counter() - started
        return (f"pn jobs: {run.nodes / 1e6:.1f} M nodes, {run.jobs} jobs, {moves}, root pn {root.pn} dn {root.dn}, "
                f"{elapsed:.0f} s")


def solve_pn(position: Position, opts: SolveOptions, certificate: Optional[Path] = None) -> SolveResult:
    """The weak value of ``position`` by the proof-number prover on ``opts.workers``
    workers (module docstring): "does the side to move win?", then (unless it does,
    and past the empty board) "does the other side win?"; with ``certificate``, the
    value's certificates (mnk-proof/2) written there from what the jobs settled.
    ``proof`` ``"pn"``; the best move is the prover's (a win's winning move, a draw's
    drawing move, a loss's block of a completion cell or else the first empty cell),
    its line completed by alpha-beta near the end (:func:`~parallel_mnk.engines.serial.pn_line`).
    Stopped by a limit: ``unknown``, the bounds the answered question proves, and the
    move the unanswered question's tree leans to (not proved). A finished game: its
    result, as every engine gives it (no question, no certificate)."""
    started = time.perf_counter()
    if position.is_game_over():   # (no question to ask, no move to name)
        return terminal_result(position, started)
    limit = opts.limit
    deadline = None if limit.time is None else time.monotonic() + limit.time
    journal = None if opts.checkpoint is None else PnJournal(Path(opts.checkpoint), position)
    proof = JobProof(position, opts, journal=journal)
    line = running.StatusLine(opts.progress)
    runs: list[QuestionRun] = []

    def nodes_left() -> Optional[int]:
        return None if limit.nodes is None else max(1, limit.nodes - sum(r.nodes for r in runs))

    try:
        def ask(attacker_moves: bool, cert: Optional[Path]) -> QuestionRun:
            runs.append(proof.ask(attacker_moves, deadline, nodes_left(), cert, lambda s: line.update(lambda: s)))
            return runs[-1]

        first = ask(True, certificate)
        if first.wins is None:
            value, move = Value.UNKNOWN, first.guess
        elif first.wins:
            value, move = Value.WIN, first.move
        else:
            second = ask(False, None if position.ply == 0 else certificate)
            if second.wins is None:
                value, move = Value.UNKNOWN, second.guess
            elif second.wins:
                value, move = Value.LOSS, None
            else:
                value, move = Value.DRAW, second.move
    finally:
        line.finish()
        if journal is not None:
            figures_journal = journal.summary()
            journal.close()
    nodes = sum(r.nodes for r in runs)
    stats = [WorkerStats(0, 0, sum(r.nodes for r in runs) - sum(s.nodes for s in proof.worker_stats.values()))] + \
        [proof.worker_stats[w] for w in sorted(proof.worker_stats)]
    slot_s = proof.backend.n * sum(r.elapsed_s for r in runs)   # (the share of it without a job: "idle")
    figures: dict[str, object] = {"jobs": sum(r.jobs for r in runs), "lost": sum(r.lost for r in runs),
               "idle": round(sum(r.idle_s for r in runs) / slot_s, 3) if slot_s > 0 else 0.0,
               "tree_nodes": sum(r.tree_nodes for r in runs), "stored": sum(r.stored for r in runs),
               "resumed": sum(r.resumed for r in runs), "questions": len(runs),
               "refused": sum(r.refused for r in runs), "replicas": proof.replicated,
               "synced": sum(r.synced for r in runs), "restarts": sum(r.restarts for r in runs),
               "proof_nodes": {("x" if (position.ply % 2 == 0) == (i == 0) else "o"): r.proof_nodes
                               for i, r in enumerate(runs)}}
    if journal is not None:
        figures["checkpoint"] = figures_journal
    elapsed = time.perf_counter() - started
    if not value.known:
        bounds = (-1, 0) if runs and runs[0].wins is False else ((0, 1) if position.ply == 0 else (-1, 1))
        guess = None if move is None else Move(position.spec, move)
        return SolveResult(position.spec, Value.UNKNOWN, None, guess, [], nodes, elapsed, stats, bounds=bounds,
                           parallel=figures)
    if move is None:   # (a loss: any move; the block of a completion cell first)
        move = loss_move(position)
    cells, line_nodes = pn_line(position, value, move, opts)
    result = SolveResult(position.spec, value, None, Move(position.spec, move), moves_of(position.spec, cells),
                         nodes + line_nodes, time.perf_counter() - started, stats, proof="pn", parallel=figures)
    if certificate is not None:
        result.certificates = [str(r.certificate) for r in runs if r.certificate is not None]
    return result
