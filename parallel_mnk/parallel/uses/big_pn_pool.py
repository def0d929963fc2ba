"""The jobs of the proof-number prover past 64 cells (:mod:`.big_pn`) on a pool's
workers: the scheduling apart from the proof. The coordinator keeps the proof's
tree; each idle worker gets the most-proving open leaf's moves still to judge
(:class:`~..task.JudgeJob`), and the leaf is expanded when the job is back. A job's
judgements are taken only when it ends: a worker lost mid-job (restarted) or a job
stopped leaves its leaf open, to be handed out again.
"""
from __future__ import annotations

import itertools
import time
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
    restarts: dict[int, int]

    def status(self) -> str: ...

    def to_judge(self, node: PnNode) -> list[tuple[int, int]]: ...

    def take(self, positions: tuple, judgements: tuple) -> None: ...

    def expand_judged(self, leaf: PnNode) -> tuple[int, int, int]: ...


class JudgePool:
    """One run of ``proof``'s ``tree`` with its jobs on ``backend``'s workers."""

    def __init__(self, proof: Proof, tree: PnTree, backend: Backend) -> None:
        self.proof, self.tree, self.backend = proof, tree, backend
        self.running_jobs: dict[int, tuple[JudgeJob, PnNode]] = {}

    def run(self, stop: Callable[[], bool], status: Callable[[str], None],
            pause: Callable[[], bool] = lambda: False) -> bool:
        """Hand out and take in jobs until the root is settled (True), ``pause()``
        says to hand out no more (the running jobs' answers are taken in first), or
        ``stop()`` says to stop now (the running jobs stopped, their answers dropped):
        False, the root open."""
        tree, backend = self.tree, self.backend
        backend.begin()
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
                status(self.proof.status())
        finally:
            if self.running_jobs:   # (stopped, or settled while jobs ran: stop them, drop their answers)
                backend.stop_all()
                self._drain()
            backend.begin()
        return tree.root.state != OPEN

    def _hand_out(self) -> None:
        """A job on every idle worker: the tree's most-proving open leaves (a leaf
        whose moves are all judged already is expanded here at once)."""
        proof, tree, backend = self.proof, self.tree, self.backend
        spec, judge = proof.position.spec, proof.judge
        for slot in range(1, backend.n + 1):
            while slot not in self.running_jobs and tree.root.state == OPEN:
                leaf = tree.select()
                if leaf is None:
                    return
                tree.begin_job(leaf)
                todo = proof.to_judge(leaf)
                if not todo:
                    tree.end_job(leaf, *proof.expand_judged(leaf))
                    continue
                job = JudgeJob(next(_job_ids), spec.cols, spec.rows, spec.k, judge.attacker, judge.threes,
                               judge.vct_nodes, judge.fours, tuple(todo), PROVEN if leaf.or_node else DISPROVEN)
                if not backend.start(slot, job):
                    tree.end_job(leaf, -2, 1, 1)
                    self._restart(slot, "its pipe closed")
                    break
                self.running_jobs[slot] = (job, leaf)

    def _collect(self, slot: int, event: object) -> None:
        """Take one ended job into the tree: its judgements, then its leaf expanded;
        a lost or stopped job's leaf open again."""
        if slot not in self.running_jobs:
            return
        proof, tree = self.proof, self.tree
        job, leaf = self.running_jobs.pop(slot)
        if isinstance(event, Lost):
            proof.lost += 1
            tree.end_job(leaf, -2, 1, 1)
            self._restart(slot, event.how)
            return
        assert isinstance(event, JudgeResult)
        proof.remote_nodes += event.nodes
        s = proof.worker_stats.get(event.worker) or WorkerStats(event.worker, 0, 0, 0.0, 0)
        proof.worker_stats[event.worker] = WorkerStats(event.worker, s.tasks + 1, s.nodes + event.nodes,
                                                       s.cpu_s + event.cpu_s, max(s.peak_rss, event.peak_rss))
        if event.stopped:
            tree.end_job(leaf, -2, 1, 1)
            return
        proof.take(job.positions, event.judgements)
        tree.end_job(leaf, *proof.expand_judged(leaf))

    def _drain(self) -> None:
        """Wait for the stopped jobs' answers (dropped: their leaves open again)."""
        end = time.monotonic() + 30
        while self.running_jobs and time.monotonic() < end:
            for slot, event in self.backend.collect(0.1):
                if slot in self.running_jobs:
                    self.tree.end_job(self.running_jobs.pop(slot)[1], -2, 1, 1)
                if isinstance(event, Lost):
                    self._restart(slot, event.how)
        for slot, (_, leaf) in list(self.running_jobs.items()):
            self.backend.reset(slot)
            self.tree.end_job(leaf, -2, 1, 1)
            self.running_jobs.pop(slot)

    def _restart(self, slot: int, how: str) -> None:
        restarts = self.proof.restarts
        count = restarts[slot] = restarts.get(slot, 0) + 1
        if count > current().MAX_RESTARTS_PER_WORKER:
            raise MnkError(f"worker {slot} stopped {count} times ({how}); run again or use --workers 1")
        self.backend.restart(slot)
