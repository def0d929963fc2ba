"""A ready list of tasks in shared memory: the coordinator puts every task it can
hand out into a free entry at once; a worker that finishes a task claims the next
ready one itself (a compare-and-swap, :mod:`parallel_mnk.kernels.pool.ready`) instead of
waiting for the coordinator to send it one. Results still go up to the
coordinator, which wakes only to record them and to refill the list.

Where things are:

* words (``ctl``, int64, after the busy marks): one ``closing`` word, then
  ``count`` entries of ``ENTRY_WORDS`` words (abort, live window, state,
  priority, payload length; see the kernel module). An entry's base is the
  control slot of the search that runs its task, so the coordinator narrows a
  task's window or abandons it by entry, whichever worker runs it;
* payloads: the pickled task, ``PAYLOAD_BYTES`` per entry in a byte area;
* wake-ups: a counting semaphore released once per task put in the list; an
  idle worker waits on it, then claims (a claim may find nothing when the entry
  was taken back: it waits again). A worker only claims after a wake-up, so a
  ready entry never waits while a worker sleeps; the one exception, a worker
  killed between its wake-up and its claim, costs at most ``WAKE_POLL_S``
  (idle workers look at the list that often anyway).

Lifecycle of an entry: ``FREE`` -(coordinator: :meth:`put`)-> ``READY``
-(worker: claim)-> worker index -(coordinator: :meth:`received`, its result
came)-> ``FREE``; or ``READY`` -(coordinator: :meth:`abandon`, taken back before
anyone claimed it)-> ``FREE`` with a made-up "abandoned, not started" result.
A task abandoned after its claim sees its abort word (before it starts, or
within its search's next poll) and answers abandoned.

The same class serves both sides and any memory: the process pool's anonymous
mappings and a process semaphore, or plain arrays and a thread semaphore (the
simulated pool of the tests).
"""
from __future__ import annotations

import pickle
from typing import Any, Optional

import numpy as np

from ..kernels.pool import ready as K
from ..rules import MnkError
from . import shm
from .task import AnyResult, AnyTask

PAYLOAD_BYTES = 4096     # a pickled Task is about 300 bytes; a HeuristicTask of a big board under 1 KiB
HELPER_PRIORITY = 1 << 40   # helpers (a second searcher on a running task) after every real task
CLOSING = 0              # word before the entries: the workers leave
WAKE_POLL_S = 0.2        # an idle worker looks at the list at least this often


def words_needed(count: int) -> int:
    """Words of ``ctl`` a ready list of ``count`` entries takes."""
    return 1 + count * K.ENTRY_WORDS


class ReadyList:
    """``count`` entries from ``ctl[start]`` (``words_needed(count)`` words), their
    payloads in ``payload`` (a writable buffer of ``count * PAYLOAD_BYTES``
    bytes) and ``wake``, a semaphore (``acquire(timeout=)``, ``release()``)."""

    def __init__(self, ctl: np.ndarray, start: int, count: int, payload: Any, wake: Any) -> None:
        self.ctl = ctl
        self.start = start
        self.base = start + 1
        self.count = count
        self.payload = memoryview(payload)
        self.wake = wake
        self.next_priority = 0
        self.pending: dict[int, int] = {}   # entry -> id of the task put there, until its result came
        self.tasks: dict[int, AnyTask] = {}
        self.taken_back: list[tuple[int, AnyResult]] = []   # (entry, made-up result) not yet collected

    def slot(self, entry: int) -> int:
        """The control slot (abort word, live-window word) of ``entry``'s task."""
        return self.base + entry * K.ENTRY_WORDS

    def state(self, entry: int) -> int:
        return int(self.ctl[self.slot(entry) + K.E_STATE])

    # ------------------------------------------------------------ the coordinator's side
    def put(self, entry: int, task: AnyTask) -> None:
        """Put ``task`` in the free ``entry`` and wake a worker. Workers claim tasks in
        the order they were put, helpers (a task already in another entry: a
        second searcher of it) after every other task."""
        helper = task.task_id in self.pending.values()
        data = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > PAYLOAD_BYTES:
            raise MnkError(f"internal error: a task of {len(data)} bytes does not fit a ready-list entry")
        at = self.slot(entry)
        if self.ctl[at + K.E_STATE] != K.FREE or entry in self.pending:
            raise RuntimeError(f"internal error: ready-list entry {entry} is not free")
        off = entry * PAYLOAD_BYTES
        self.payload[off:off + len(data)] = data
        shm.start_task(self.ctl, at, task.task_id, *(task.live_window or (0, 0)))
        self.next_priority += 1
        self.ctl[at + K.E_PRIORITY] = self.next_priority + (HELPER_PRIORITY if helper else 0)
        self.ctl[at + K.E_LENGTH] = len(data)
        self.pending[entry] = task.task_id
        self.tasks[entry] = task
        K.publish(self.ctl, self.base, entry)   # last (a barrier): a worker may claim it from now on
        self.wake.release()

    def set_window(self, entry: int, task_id: int, alpha: int, beta: int) -> None:
        """Narrow the live window of task ``task_id`` in ``entry``."""
        shm.set_window(self.ctl, self.slot(entry), task_id, alpha, beta)

    def abandon(self, entry: int, task_id: int) -> None:
        """Task ``task_id`` of ``entry`` is not needed: taken back if nobody claimed it
        (its made-up result comes with the next :meth:`take_back_results`), else
        its search is asked to stop."""
        shm.abandon(self.ctl, self.slot(entry), task_id)   # first: a claim racing with us sees it
        if self.pending.get(entry) == task_id and K.take_back(self.ctl, self.base, entry):
            del self.pending[entry]
            self.taken_back.append((entry, self.tasks.pop(entry).skipped(0)))

    def take_back_results(self) -> list[tuple[int, AnyResult]]:
        """The made-up results of the tasks taken back since the last call."""
        out, self.taken_back = self.taken_back, []
        return out

    def received(self, entry: int, result: AnyResult) -> bool:
        """A worker's result for ``entry``: frees it; False when it is not the
        result of the task put there (nothing changes then)."""
        if self.pending.get(entry) != result.task_id:
            return False
        self.release(entry)
        return True

    def release(self, entry: int) -> None:
        """Forget ``entry``'s task (answered or lost) and free the entry."""
        self.pending.pop(entry, None)
        self.tasks.pop(entry, None)
        self.ctl[self.slot(entry) + K.E_STATE] = K.FREE

    def held_by(self, worker: int) -> list[int]:
        """Entries ``worker`` claimed whose result has not come."""
        return [e for e in self.pending if self.state(e) == worker]

    def counts(self) -> tuple[int, int]:
        """``(ready, claimed)``: entries waiting for a worker, and claimed entries
        whose result has not come."""
        ready = claimed = 0
        for e in self.pending:
            s = self.state(e)
            ready += s == K.READY
            claimed += s > 0
        return ready, claimed

    def close(self, workers: int) -> None:
        """Tell the workers to leave (and wake every one of them)."""
        self.ctl[self.start + CLOSING] = 1
        for _ in range(workers):
            self.wake.release()

    # ------------------------------------------------------------ a worker's side
    @property
    def closing(self) -> bool:
        return bool(self.ctl[self.start + CLOSING])

    def next_task(self, worker: int) -> Optional[tuple[int, AnyTask]]:
        """Wait for a ready task and claim it for ``worker``: ``(entry, task)``; None
        once the list closes. Every ``WAKE_POLL_S`` it looks without a wake-up
        too (a worker killed between its wake-up and its claim took one)."""
        while True:
            self.wake.acquire(timeout=WAKE_POLL_S)
            if self.closing:
                self.wake.release()   # pass the word on
                return None
            entry = int(K.claim(self.ctl, self.base, self.count, worker))
            if entry >= 0:
                at = self.slot(entry)
                off, size = entry * PAYLOAD_BYTES, int(self.ctl[at + K.E_LENGTH])
                return entry, pickle.loads(self.payload[off:off + size])
