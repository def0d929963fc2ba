"""The thread pool: ``n`` worker threads in this process, one table, the control
words in an ordinary array.

The kernels release the GIL (``nogil``), so threads search in parallel as
processes do; what threads add is memory: the table is private memory of this
process, which Linux gives 2 MiB pages under the usual
``transparent_hugepage/enabled = madvise`` (numpy asks for them), while the
process pool's shared mapping gets them only under
``transparent_hugepage/shmem_enabled = advise`` (usually ``never``). Random
probes then miss the TLB less: on the project's 2-core machine, empty 7x6 weak
with 2 workers took 0.87x the process pool's time (whole processes, 4 pairs).

* Messages: a queue per worker for its tasks, one queue for every result;
  nothing is pickled.
* Windows, abandons, stops: the same control words as the process pool
  (:mod:`.shm`), read by the kernels with atomic loads.
* Faults: a task that raises is reported as :class:`~.backend.Lost` with the
  error's name (its worker thread lives on); a crash of the process ends
  everything (the price of threads: the process pool survives a worker's death).
* CPU figures: a task's ``cpu_s`` is its thread's CPU time.
"""
from __future__ import annotations

import queue
import threading
from typing import Optional

import numpy as np

from .. import families
from ..rules import MnkError
from ..ttable import check_table_memory
from . import shm
from .backend import Backend, Event, Lost
from .task import AnyTask, WorkerEnv


class ThreadPool(Backend):
    """``workers`` threads sharing one private table of ``2**tt_bits`` entries."""

    helpers = True

    def __init__(self, workers: int, tt_bits: int) -> None:
        if workers < 1:
            raise MnkError(f"workers must be at least 1, got {workers}")
        self.n = workers
        self.tt_bits = tt_bits
        check_table_memory(tt_bits, "the thread pool's table")
        self.tt = np.zeros(1 << tt_bits, dtype=np.uint64)
        self._ctl_mem, self.ctl = shm.shared_control(workers)
        families.load("pool")
        self._results: queue.Queue = queue.Queue()
        self._inboxes: list[queue.Queue] = [queue.Queue() for _ in range(workers)]
        self._threads = [threading.Thread(target=self._work, args=(i + 1,), name=f"parallel-mnk-worker-{i + 1}",
                                          daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()
        self.closed = False

    def _work(self, index: int) -> None:
        """A worker thread: run each task of its queue, put ``(index, result)``
        (or its loss) on the results queue; None ends it."""
        env = WorkerEnv(index, self.tt, self.ctl, shm.slot_of(index))
        inbox = self._inboxes[index - 1]
        while True:
            task = inbox.get()
            if task is None:
                return
            event: Event
            try:
                event = (index, task.run(env))
            except Exception as e:   # reported to the coordinator, which hands the task out again
                event = (index, Lost(f"error {type(e).__name__}: {e}"))
            self._results.put(event)

    # ------------------------------------------------------------ the backend contract
    def start(self, slot: int, task: AnyTask) -> bool:
        if self.closed:
            return False
        shm.start_task(self.ctl, shm.slot_of(slot), task.task_id, *(task.live_window or (0, 0)))
        self._inboxes[slot - 1].put(task)
        return True

    def collect(self, timeout: float) -> list[Event]:
        events: list[Event] = []
        try:
            events.append(self._results.get(timeout=max(0.0, timeout)))
            while True:
                events.append(self._results.get_nowait())
        except queue.Empty:
            pass
        return events

    def set_window(self, slot: int, task_id: int, alpha: int, beta: int) -> None:
        shm.set_window(self.ctl, shm.slot_of(slot), task_id, alpha, beta)

    def abandon(self, slot: int, task_id: int) -> None:
        shm.abandon(self.ctl, shm.slot_of(slot), task_id)

    def begin(self) -> None:
        shm.clear_stop(self.ctl)

    def stop_all(self) -> None:
        shm.stop_all(self.ctl)

    def close(self, wait: Optional[float] = 1.0) -> None:
        """Stop every search and end the threads (waiting up to ``wait`` s each); idempotent."""
        if self.closed:
            return
        self.closed = True
        shm.stop_all(self.ctl)
        for inbox in self._inboxes:
            inbox.put(None)
        for t in self._threads:
            t.join(wait)
