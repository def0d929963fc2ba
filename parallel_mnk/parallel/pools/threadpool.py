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

* Start: each thread faults in its part of the table, all at once, and the pool
  is made once all have (:func:`~parallel_mnk.runtime.ttable.prefault`).
* Messages: a queue per worker for its tasks, one queue for every result;
  nothing is pickled. Notices (:meth:`~.backend.Backend.post`) are a dict the threads read.
* Windows, abandons, stops: the same control words as the process pool
  (:mod:`.localpool`), read by the kernels with atomic loads.
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

from ...runtime import families
from ...runtime.ttable import check_table_memory, prefault
from ..task import AnyTask, WorkerEnv
from .backend import Event, Lost
from .localpool import LocalPool


class ThreadPool(LocalPool):
    """``workers`` threads sharing one private table of ``2**tt_bits`` entries."""

    def __init__(self, workers: int, tt_bits: int) -> None:
        super().__init__(workers, tt_bits)
        families.load("expand")
        self._results: queue.Queue = queue.Queue()
        self._notices: dict[str, object] = {}   # Backend.post's: the threads read them (one dict read: atomic)
        self._inboxes: list[queue.Queue] = [queue.Queue() for _ in range(workers)]
        self._ready = threading.Barrier(workers + 1)
        self._threads = [threading.Thread(target=self._work, args=(i + 1,), name=f"parallel-mnk-worker-{i + 1}",
                                          daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()
        self._ready.wait()   # every thread has faulted in its part of the table
        self.closed = False

    def _make_table(self, tt_bits: int) -> np.ndarray:
        """Private memory (numpy asks Linux for 2 MiB pages)."""
        check_table_memory(tt_bits, "the thread pool's table")
        return np.zeros(1 << tt_bits, dtype=np.uint64)

    def _work(self, index: int) -> None:
        """A worker thread: run each task of its queue, put ``(index, result)``
        (or its loss) on the results queue; None ends it."""
        env = WorkerEnv(index, self.tt, self.ctl, self.slot_of(index))
        env.news = self._notices.get
        prefault(self.tt, index - 1, self.n)
        self._ready.wait()
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
        self.arm(slot, task)
        self._inboxes[slot - 1].put(task)
        return True

    def post(self, name: str, value: object) -> None:
        self._notices[name] = value

    def collect(self, timeout: float) -> list[Event]:
        events: list[Event] = []
        try:
            events.append(self._results.get(timeout=max(0.0, timeout)))
            while True:
                events.append(self._results.get_nowait())
        except queue.Empty:
            pass
        return events

    def close(self, wait: Optional[float] = 1.0) -> None:
        """Stop every search and end the threads (waiting up to ``wait`` s each); idempotent."""
        if self.closed:
            return
        self.closed = True
        self.stop_all()
        for inbox in self._inboxes:
            inbox.put(None)
        for t in self._threads:
            t.join(wait)
