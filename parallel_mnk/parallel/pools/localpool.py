"""What the two pools of this machine share: ``n`` workers searching one table
(``tt``) and steered through control words (``ctl``, :mod:`.shm`): a task's live
window and abandon word at its worker's slot, the stop word for all.

:class:`~.procpool.ProcessPool` (forked processes, the table in shared memory)
and :class:`~.threadpool.ThreadPool` (threads, the table in private memory) add
how a task reaches a worker and its result comes back.
"""
from __future__ import annotations

import mmap

import numpy as np

from ...game.rules import MnkError
from ..task import AnyTask
from . import shm
from .backend import Backend


class LocalPool(Backend):
    """``workers`` workers of this machine on a table of ``2**tt_bits`` entries
    (:meth:`_make_table`'s) and fresh control words; idle workers may join
    running tasks (helpers) and running tasks may be split (their lines are
    published in the control words, their table is the coordinator's)."""

    helpers = True
    splits = True

    def __init__(self, workers: int, tt_bits: int) -> None:
        if workers < 1:
            raise MnkError(f"workers must be at least 1, got {workers}")
        self.n = workers
        self.tt_bits = tt_bits
        self.tt = self._make_table(tt_bits)
        self._ctl_mem: mmap.mmap
        self._ctl_mem, self.ctl = shm.shared_control(workers)

    def _make_table(self, tt_bits: int) -> np.ndarray:
        """The zeroed table of ``2**tt_bits`` entries the workers will share."""
        raise NotImplementedError

    @staticmethod
    def slot_of(worker: int) -> int:
        """The index in ``ctl`` of worker ``worker``'s control words."""
        return shm.slot_of(worker)

    def arm(self, slot: int, task: AnyTask) -> None:
        """Set ``slot``'s words for ``task`` about to start there (not abandoned, its live window)."""
        shm.start_task(self.ctl, self.slot_of(slot), task.task_id, *(task.live_window or (0, 0)))

    def set_window(self, slot: int, task_id: int, alpha: int, beta: int) -> None:
        shm.set_window(self.ctl, self.slot_of(slot), task_id, alpha, beta)

    def path_of(self, slot: int, task_id: int, root_ply: int) -> dict[int, tuple[int, int, int]]:
        return shm.path_of(self.ctl, self.slot_of(slot), task_id, root_ply)

    def abandon(self, slot: int, task_id: int) -> None:
        shm.abandon(self.ctl, self.slot_of(slot), task_id)

    def begin(self) -> None:
        shm.clear_stop(self.ctl)

    def stop_all(self) -> None:
        shm.stop_all(self.ctl)
