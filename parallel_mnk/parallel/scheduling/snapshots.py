"""Snapshots of running tasks' lines for the journal: what a long task finished.

The journal (:mod:`.checkpoint`) keeps finished tasks; on a big free board one
task can run for hours. Every ``SNAPSHOT_EVERY_S`` seconds :meth:`LineSnapshots.take`
walks, from each running task's root, the line its search publishes
(``Backend.path_of``: per ply, the move it is inside and how many moves of that
node it finished) and journals each position one move off the line whose bound
the shared table proves in a search of one node (``Search.settled_at_once``):
the subtrees the task finished. Every bound journaled is a fact of the table,
true whatever window found it. A resumed run seeds its table with them
(``driver.py``), so a kill loses the work since the last snapshot and below the
line's deepest published node, not the task.

Backends whose workers share no table with the coordinator (Ray) publish no
lines: nothing is taken there.
"""
from __future__ import annotations

import time
from typing import Optional

from ...engines.exact.search import Search
from .checkpoint import Checkpoint
from .coordinator import Coordinator
from .split import SplitTree

SNAPSHOT_EVERY_S = 30.0


class LineSnapshots:
    """The snapshots of one solve into ``journal``, taken with ``search`` (the
    coordinator's search on the shared table)."""

    def __init__(self, search: Search, journal: Checkpoint, every_s: Optional[float] = None) -> None:
        self.search, self.journal = search, journal
        self.every_s = SNAPSHOT_EVERY_S if every_s is None else every_s
        self.last = time.monotonic()
        self.kept: set[tuple[int, int, int, int]] = set()   # (own, opp, value, kind) journaled by this run
        self.taken = 0                                      # snapshots taken

    def due(self) -> bool:
        """Whether the next snapshot is due."""
        return time.monotonic() - self.last >= self.every_s

    def take(self, coordinator: Coordinator, tree: SplitTree) -> int:
        """Journal what the running tasks of ``tree`` finished (the module
        docstring); returns the rows written, committed."""
        self.last = time.monotonic()
        self.taken += 1
        written = 0
        for slot in coordinator.slots:
            job = slot.job
            if job is None or job.node is None or job.helper or job.abandon_sent:
                continue
            node = job.node
            line = coordinator.backend.path_of(slot.index, job.task.task_id, node.ply)
            written += self._walk(tree, node.own, node.opp, node.ply, job.task.alpha, job.task.beta, line)
        if written:
            self.journal.commit()
        return written

    def _walk(self, tree: SplitTree, own: int, opp: int, ply: int, alpha: int, beta: int,
              line: dict[int, tuple[int, int, int]]) -> int:
        """Journal the proven positions one move off ``line`` from the node
        ``own``/``opp`` (window ``(alpha, beta)``) down; the rows written."""
        written = 0
        while ply in line and ply + 1 < self.search.spec.cells:
            cell, child_ply, done = line[ply]
            if done:
                n, _, _, moves = self.search.expand(own, opp, ply)
                for c in moves[:n]:
                    if c != cell:
                        written += self._keep(tree, opp, own | 1 << c, ply + 1, -beta, -alpha)
            if child_ply != ply + 1:
                break   # (a forced line below the move: its positions are not published)
            own, opp, ply, alpha, beta = opp, own | 1 << cell, ply + 1, -beta, -alpha
        return written

    def _keep(self, tree: SplitTree, own: int, opp: int, ply: int, alpha: int, beta: int) -> int:
        """Journal the position's bound if the table proves one not journaled yet."""
        got = self.search.settled_at_once(own, opp, ply, alpha, beta)
        if got is None:
            return 0
        value, kind = got
        if (own, opp, value, kind) in self.kept:
            return 0
        self.kept.add((own, opp, value, kind))
        self.journal.bound_proven(tree, own, opp, ply, alpha, beta, value, kind)
        return 1
