"""The jobs of the proof-number prover past 64 cells (:mod:`.big_pn`) on a pool's
workers: the scheduling apart from the proof. Two ways:

* jobs of judgements (:class:`JudgePool`, the default), below;
* the coordinator's df-pn (:class:`BatchJudge`, ``BIG_PN_POOL_DFPN``): each node it
  expands has its moves judged on the workers at once, one chunk a worker.

The coordinator keeps the proof's
tree; the most-proving open leaf's moves still to judge are one job
(:class:`~..task.JudgeJob`) where the attacker is to move (its judging ends at the
first move that proves the leaf), and are cut into one chunk a worker where the
defender is (at least ``BIG_PN_CHUNK_MIN`` moves a chunk: every defender's move needs
judging unless one disproves the leaf). Each idle worker gets the next chunk (a new
leaf is selected when no leaf has one left), and the leaf is expanded when all its
chunks are back: workers share the defender's leaf the proof needs first rather
than open others it may never need. A chunk that settles its leaf drops the leaf's
chunks not handed out yet. A job's judgements are taken only when it ends: a worker
lost mid-job (restarted) hands its chunk out again; a stopped run leaves its leaves
open, to be handed out again.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Callable, Protocol

from ...api.results import WorkerStats
from ...api.settings import current
from ...engines.provers.big_threats import DISPROVEN, OPEN, PROVEN, Judge
from ...game.position import Position
from ...game.rules import MnkError
from ..pools.backend import Backend, Lost
from ..scheduling.pn_tree import PnNode, PnTree
from ..task import JudgeJob, JudgeResult

_job_ids = itertools.count(1)


class Proof(Protocol):
    """What a pool run needs of a proof (:class:`.big_pn.ThreatProof`): its question
    and judge, its accounting, and its tree's leaves judged and expanded."""

    position: Position
    judge: Judge
    lost: int
    remote_nodes: int
    worker_stats: dict[int, WorkerStats]
    slot_s: float
    idle_s: float
    restarts: dict[int, int]

    def status(self) -> str: ...

    def to_judge(self, node: PnNode) -> list[tuple[int, int]]: ...

    def take(self, positions: tuple, judgements: tuple) -> None: ...

    def expand_judged(self, leaf: PnNode) -> tuple[int, int, int]: ...


@dataclass
class LeafWork:
    """A leaf being judged: its ``chunks`` of positions not handed out yet, how many
    are ``running``, whether one of them was ``stopped`` (the leaf then goes back
    open), and whether the tree has ``ended`` its job."""

    leaf: PnNode
    chunks: list[tuple]
    running: int = 0
    stopped: bool = False
    ended: bool = False


class JudgePool:
    """One run of ``proof``'s ``tree`` with its jobs on ``backend``'s workers."""

    def __init__(self, proof: Proof, tree: PnTree, backend: Backend) -> None:
        self.proof, self.tree, self.backend = proof, tree, backend
        self.running_jobs: dict[int, tuple[JudgeJob, LeafWork]] = {}
        self.works: list[LeafWork] = []   # leaves begun in the tree and not ended
        self.free_since: dict[int, float] = {}   # when each worker without a job had its last one end

    def run(self, stop: Callable[[], bool], status: Callable[[str], None],
            pause: Callable[[], bool] = lambda: False) -> bool:
        """Hand out and take in jobs until the root is settled (True), ``pause()``
        says to hand out no more (the running jobs' answers are taken in first), or
        ``stop()`` says to stop now (the running jobs stopped, their answers dropped):
        False, the root open."""
        tree, backend, proof = self.tree, self.backend, self.proof
        backend.begin()
        started = time.monotonic()
        self.free_since = {slot: started for slot in range(1, backend.n + 1) if slot not in self.running_jobs}
        try:
            while tree.root.state == OPEN and not stop():
                paused = pause()
                if not paused:
                    self._hand_out()
                if tree.root.state != OPEN or (paused and not self.running_jobs):
                    break
                if not self.running_jobs:
                    raise MnkError("the proof's tree has no open leaf to hand out (an internal error)")
                for slot, event in backend.collect(0.05):
                    self._collect(slot, event)
                status(proof.status())
        finally:
            ended = time.monotonic()
            proof.slot_s += backend.n * (ended - started)
            proof.idle_s += sum(ended - since for since in self.free_since.values())
            self.free_since.clear()
            if self.running_jobs:   # (stopped, or settled while jobs ran: stop them, drop their answers)
                backend.stop_all()
                self._drain()
            for work in self.works:   # (chunks not handed out: the leaf open again)
                self._end(work, open_again=True)
            self.works.clear()
            backend.begin()
        return tree.root.state != OPEN

    def _hand_out(self) -> None:
        """A job on every idle worker: the next chunk of a leaf being judged, else of
        the tree's most-proving open leaf (a leaf whose moves are all judged already
        is expanded here at once)."""
        proof, tree, backend = self.proof, self.tree, self.backend
        spec, judge = proof.position.spec, proof.judge
        for slot in range(1, backend.n + 1):
            while slot not in self.running_jobs and tree.root.state == OPEN:
                work = next((w for w in self.works if w.chunks), None)
                if work is None:
                    leaf = tree.select()
                    if leaf is None:
                        return
                    tree.begin_job(leaf)
                    todo = proof.to_judge(leaf)
                    if not todo:
                        tree.end_job(leaf, *proof.expand_judged(leaf))
                        continue
                    size = len(todo) if leaf.or_node else max(current().BIG_PN_CHUNK_MIN,
                                                               -(-len(todo) // backend.n))
                    work = LeafWork(leaf, [tuple(todo[i:i + size]) for i in range(0, len(todo), size)])
                    self.works.append(work)
                leaf = work.leaf
                job = JudgeJob(next(_job_ids), spec.cols, spec.rows, spec.k, judge.attacker, judge.threes,
                               judge.vct_nodes, judge.fours, work.chunks.pop(0),
                               PROVEN if leaf.or_node else DISPROVEN, judge.pairing)
                if not backend.start(slot, job):
                    work.chunks.insert(0, job.positions)
                    self._restart(slot, "its pipe closed")
                    break
                work.running += 1
                self.running_jobs[slot] = (job, work)
                proof.idle_s += time.monotonic() - self.free_since.pop(slot, time.monotonic())

    def _collect(self, slot: int, event: object) -> None:
        """Take one ended job into the tree: its judgements, then its leaf expanded
        once all its chunks are back; a lost job's chunk handed out again; a stopped
        job's leaf open again."""
        if slot not in self.running_jobs:
            return
        proof = self.proof
        job, work = self.running_jobs.pop(slot)
        self.free_since[slot] = time.monotonic()
        work.running -= 1
        if isinstance(event, Lost):
            proof.lost += 1
            work.chunks.insert(0, job.positions)
            self._restart(slot, event.how)
            return
        assert isinstance(event, JudgeResult)
        count_work(proof, event)
        if event.stopped:
            work.stopped = True
            work.chunks.clear()
        else:
            proof.take(job.positions, event.judgements)
            if any(j[0] == job.settles for j in event.judgements):
                work.chunks.clear()   # (the leaf is settled: its other moves are not needed)
        if not work.chunks and work.running == 0:
            self._end(work, open_again=work.stopped)

    def _end(self, work: LeafWork, open_again: bool) -> None:
        """End ``work``'s leaf in the tree: expanded from its judgements, or open
        again (its judgements taken so far kept)."""
        if work.ended:
            return
        work.ended = True
        if work in self.works:
            self.works.remove(work)
        if open_again:
            self.tree.end_job(work.leaf, -2, 1, 1)
        else:
            self.tree.end_job(work.leaf, *self.proof.expand_judged(work.leaf))

    def _drain(self) -> None:
        """Wait for the stopped jobs' answers (dropped: their leaves open again)."""
        end = time.monotonic() + 30
        while self.running_jobs and time.monotonic() < end:
            for slot, event in self.backend.collect(0.1):
                if slot in self.running_jobs:
                    self._end(self.running_jobs.pop(slot)[1], open_again=True)
                if isinstance(event, Lost):
                    self._restart(slot, event.how)
        for slot, (_, work) in list(self.running_jobs.items()):
            self.backend.reset(slot)
            self._end(work, open_again=True)
            self.running_jobs.pop(slot)

    def _restart(self, slot: int, how: str) -> None:
        restart(self.proof, self.backend, slot, how)


class BatchJudge:
    """The judgements of many positions at once on ``backend``'s workers, for a df-pn
    in the coordinator (:class:`~parallel_mnk.engines.provers.big_dfpn.ThreatDfpn`,
    its ``batch``): the moves of a node it expands cut into one chunk a worker, each a
    :class:`~..task.JudgeJob` that ends at a position that ``settles`` the node; chunks
    not handed out yet are dropped once one does. A worker lost mid-chunk is restarted and its chunk handed out again. The
    workers' time without a chunk counts as ``proof``'s idle time (between two
    expansions: while the coordinator's df-pn walks its table)."""

    def __init__(self, proof: Proof, backend: Backend) -> None:
        self.proof, self.backend = proof, backend
        self.started = time.monotonic()
        self.free_since = {slot: self.started for slot in range(1, backend.n + 1)}

    def __call__(self, positions: list[tuple[int, int]], settles: int,
                 stop: Callable[[], bool]) -> dict[tuple[int, int], tuple]:
        """The judgements (``(state, move, cells, count, zone)``) of those of
        ``positions`` the chunks reached; fewer when one settled the node or ``stop()``
        said so (the running chunks then stopped and dropped)."""
        proof, backend, judge = self.proof, self.backend, self.proof.judge
        spec = proof.position.spec
        size = -(-len(positions) // backend.n)
        queue = [tuple(positions[i:i + size]) for i in range(0, len(positions), size)]
        running: dict[int, JudgeJob] = {}
        out: dict[tuple[int, int], tuple] = {}
        stopped = False
        while queue or running:
            if not stopped and stop():
                stopped = True
                queue.clear()
                if running:
                    backend.stop_all()
            for slot in range(1, backend.n + 1):
                if not queue or slot in running:
                    continue
                job = JudgeJob(next(_job_ids), spec.cols, spec.rows, spec.k, judge.attacker, judge.threes,
                               judge.vct_nodes, judge.fours, queue.pop(0), settles, judge.pairing)
                if not backend.start(slot, job):
                    queue.insert(0, job.positions)
                    self._restart(slot, "its pipe closed")
                    continue
                running[slot] = job
                proof.idle_s += time.monotonic() - self.free_since.pop(slot, time.monotonic())
            for slot, event in backend.collect(0.05):
                if slot not in running:
                    continue
                job = running.pop(slot)
                self.free_since[slot] = time.monotonic()
                if isinstance(event, Lost):
                    proof.lost += 1
                    if not stopped:
                        queue.insert(0, job.positions)
                    self._restart(slot, event.how)
                    continue
                assert isinstance(event, JudgeResult)
                count_work(proof, event)
                if event.stopped or stopped:
                    continue
                out.update(zip(job.positions, event.judgements))
                if any(j[0] == settles for j in event.judgements):
                    queue.clear()   # (the node is settled: its other moves are not needed)
        if stopped:
            backend.begin()   # (the stop word cleared for the next chunks)
        return out

    def finish(self) -> None:
        """Count the workers' time without a chunk up to now (the run ends)."""
        ended = time.monotonic()
        self.proof.slot_s += self.backend.n * (ended - self.started)
        self.proof.idle_s += sum(ended - since for since in self.free_since.values())
        self.free_since.clear()

    def _restart(self, slot: int, how: str) -> None:
        restart(self.proof, self.backend, slot, how)


def restart(proof: Proof, backend: Backend, slot: int, how: str) -> None:
    """Restart the worker ``slot`` of ``backend`` (lost ``how``), counted in ``proof``;
    MnkError past ``MAX_RESTARTS_PER_WORKER`` restarts of one worker."""
    restarts = proof.restarts
    count = restarts[slot] = restarts.get(slot, 0) + 1
    if count > current().MAX_RESTARTS_PER_WORKER:
        raise MnkError(f"worker {slot} stopped {count} times ({how}); run again or use --workers 1")
    backend.restart(slot)


def count_work(proof: Proof, result: JudgeResult) -> None:
    """A job's nodes, CPU and memory counted in ``proof``'s figures (its worker's)."""
    proof.remote_nodes += result.nodes
    w = proof.worker_stats.get(result.worker) or WorkerStats(result.worker, 0, 0, 0.0, 0)
    proof.worker_stats[result.worker] = WorkerStats(result.worker, w.tasks + 1, w.nodes + result.nodes,
                                                    w.cpu_s + result.cpu_s, max(w.peak_rss, result.peak_rss))

