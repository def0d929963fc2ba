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
from ...api.settings import current



class LineSnapshots:
    """The snapshots of one solve into ``journal`` (None: only the progress of the
    running tasks, for the status line), taken with ``search`` (the coordinator's
    search on the shared table)."""

    def __init__(self, search: Search, journal: Optional[Checkpoint], every_s: Optional[float] = None) -> None:
        self.search, self.journal = search, journal
        self.every_s = current().SNAPSHOT_EVERY_S if every_s is None else every_s
        self.last = time.monotonic()
        self.kept: set[tuple[int, int, int, int]] = set()   # (own, opp, value, kind) journaled by this run
        self.taken = 0                                      # snapshots taken
        self.progress = ""                                  # the oldest running task's line, for the status line

    def due(self) -> bool:
        """Whether the next snapshot is due."""
        return time.monotonic() - self.last >= self.every_s

    def take(self, coordinator: Coordinator, tree: SplitTree) -> int:
        """Journal what the running tasks of ``tree`` finished (the module
        docstring); returns the rows written, committed."""
        self.last = time.monotonic()
        self.taken += 1
        written, oldest = 0, None
        for slot in coordinator.slots:
            job = slot.job
            if job is None or job.node is None or job.helper or job.abandon_sent:
                continue
            node = job.node
            line = coordinator.backend.path_of(slot.index, job.task.task_id, node.ply)
            levels: list[tuple[int, int]] = []
            written += self._walk(tree, node.own, node.opp, node.ply, node.alpha, node.beta, line, levels)
            if levels and (oldest is None or job.started < oldest[0]):
                oldest = (job.started, node.ply, levels)
        self.progress = "" if oldest is None else progress_text(oldest[1], oldest[2])
        if written and self.journal is not None:
            self.journal.commit()
        return written

    def _walk(self, tree: SplitTree, own: int, opp: int, ply: int, alpha: int, beta: int,
              line: dict[int, tuple[int, int, int]], levels: list[tuple[int, int]]) -> int:
        """Journal the proven positions one move off ``line`` from the node
        ``own``/``opp`` (window ``(alpha, beta)``) down; the rows written. Appends
        to ``levels`` each node's (moves finished, moves) along the line."""
        written = 0
        while ply in line and ply + 1 < self.search.spec.cells:
            cell, child_ply, done = line[ply]
            n, _, _, moves = self.search.expand(own, opp, ply)
            levels.append((min(done, n), n))
            if done and self.journal is not None:
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
        if self.journal is None or (own, opp, value, kind) in self.kept:
            return 0
        self.kept.add((own, opp, value, kind))
        self.journal.bound_proven(tree, own, opp, ply, alpha, beta, value, kind)
        return 1


def progress_text(ply: int, levels: list[tuple[int, int]]) -> str:
    """A task's progress for the status line, from ``levels``: per node of its line
    from its root (``ply`` stones) down, (moves finished, moves). The share done
    is what those counts give if every move of a node cost the same (an
    odometer: finished moves of the root, plus the running one's share of its
    own, and so on down); moves a cut or a zone skips make it pessimistic."""
    done, weight = 0.0, 1.0
    for finished, moves in levels:
        moves = max(moves, 1)
        done += weight * finished / moves
        weight /= moves
    counts = " ".join(f"{finished}/{moves}" for finished, moves in levels[:6])
    return f"task at ply {ply}: moves done {counts}{' ...' if len(levels) > 6 else ''}, about {100 * done:.1f} %"
