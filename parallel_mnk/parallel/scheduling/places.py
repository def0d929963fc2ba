"""What the coordinator knows of each place (a worker's slot) and the job it
holds, and the questions the scheduler asks of them: how many tasks run under
each split-tree node, and which running task an idle worker should join.
"""
from __future__ import annotations

import time
from typing import Optional

from ..task import AnyTask
from .split import Node, SplitTree


class Job:
    """A task handed to a place: its split-tree node (None for independent tasks or
    once released), the window last sent to it, whether it was abandoned (and
    why: split), whether it helps another, when it started."""

    __slots__ = ("node", "task", "window", "abandon_sent", "split", "helper", "started")

    def __init__(self, node: Optional[Node], task: AnyTask, helper: bool = False) -> None:
        self.node, self.task = node, task
        self.window = task.live_window
        self.abandon_sent = False
        self.split = False
        self.helper = helper
        self.started = time.perf_counter()


class Slot:
    """One place of the backend as the coordinator sees it (a worker's slot): the
    job handed to it, if any."""

    __slots__ = ("index", "job")

    def __init__(self, index: int) -> None:
        self.index = index
        self.job: Optional[Job] = None


def running_children(slots: list[Slot]) -> dict[int, int]:
    """Tasks running now on ``slots`` (helpers not counted twice), per ``id`` of their parent node."""
    tasks = {id(s.job.node): s.job.node for s in slots
             if s.job is not None and s.job.node is not None and s.job.node.parent is not None}
    out: dict[int, int] = {}
    for node in tasks.values():
        out[id(node.parent)] = out.get(id(node.parent), 0) + 1
    return out


def helpable(slots: list[Slot], tree: SplitTree, max_helpers: int) -> Optional[Job]:
    """The running task an idle slot should join: the one the fewest slots search
    (at most ``max_helpers``), the oldest first; None if there is none."""
    best, best_key = None, None
    for s in slots:
        job = s.job
        if job is None or job.node is None or job.abandon_sent or tree.live_window(job.node) is None:
            continue
        key = (job.node.running, job.task.task_id)
        if job.node.running <= max_helpers and (best_key is None or key < best_key):
            best, best_key = job, key
    return best
