"""The process pool: ``n`` forked worker processes on this machine, one shared
table, the control words in shared memory, one pipe per worker.

* Memory: the transposition table (``uint64``) and the control words (``int64``,
  :mod:`.shm`) are anonymous shared mappings made before the workers fork, so
  every worker reads and writes the same table (lock-free one-word entries) and
  the coordinator narrows a running task's window, or abandons it, by writing
  one word the kernel reads with an atomic load.
* Start: the parent loads the kernels and faults the table's pages in, then
  forks (the start method is set explicitly); each worker maps the table's
  pages for itself (:func:`~parallel_mnk.runtime.ttable.prefault`, all workers at once)
  and says it is ready, and the pool is made once all are: a worker's first
  task compiles nothing and takes no page fault on the table.
* Messages: a task down the worker's pipe, its result back up; one poll object
  watches every pipe and every process sentinel (made again only when a worker
  is restarted: building one per wait cost the coordinator a tenth of its time).
* Faults: a dead worker is reported as :class:`~.backend.Lost`; the coordinator
  restarts it. Workers die with the coordinator (:mod:`.worker`).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import select
import threading
import time
from typing import Any, Optional

import numpy as np

from ...api.settings import current, to_carry
from ...kernels.core import layout as L
from ...runtime import families
from ...runtime.ttable import prefault, shared_table
from ..task import AnyTask
from . import shm
from .backend import Event, Lost
from .localpool import LocalPool
from .worker import worker_main

START_METHOD = "fork"      # workers inherit the loaded kernels and the shared memory


class _Proc:
    """One worker process as the pool sees it."""

    __slots__ = ("index", "slot", "process", "conn", "task_id")

    def __init__(self, index: int) -> None:
        self.index = index
        self.slot = shm.slot_of(index)
        self.process: Any = None   # multiprocessing.Process, once started
        self.conn: Any = None      # its end of the pipe
        self.task_id = 0           # the task it runs (0: idle)


class ProcessPool(LocalPool):
    """``workers`` forked processes sharing one table of ``2**tt_bits`` entries."""

    def __init__(self, workers: int, tt_bits: int) -> None:
        super().__init__(workers, tt_bits)
        self._mp: Any = mp.get_context(START_METHOD)
        families.load("expand")   # (forked workers inherit the families loaded in this process)
        self._procs = [_Proc(i + 1) for i in range(workers)]
        self.start_times: list[float] = []
        self._poll: Optional[tuple[select.poll, dict[int, tuple[bool, _Proc]]]] = None
        for p in self._procs:
            self._spawn(p)
        self._await_ready(self._procs)
        self.closed = False

    def _make_table(self, tt_bits: int) -> np.ndarray:
        """An anonymous shared mapping (workers forked later share it), its pages
        faulted in here (the coordinator searches it too)."""
        self._tt_mem, tt = shared_table(tt_bits)
        prefault(tt)
        return tt

    # ------------------------------------------------------------ processes
    def _spawn(self, p: _Proc) -> None:
        t = time.perf_counter()
        parent_conn, child_conn = self._mp.Pipe()
        main_thread = threading.current_thread() is threading.main_thread()
        args = (p.index, child_conn, self._tt_mem, self._ctl_mem, p.slot, os.getpid(), main_thread)
        proc = self._mp.Process(target=worker_main, args=args, name=f"parallel-mnk-worker-{p.index}", daemon=True)
        proc.start()
        child_conn.close()
        p.process, p.conn, p.task_id = proc, parent_conn, 0
        self._poll = None  # watch the new pipe and process
        self.ctl[p.slot:p.slot + L.CTL_PER_WORKER] = 0
        self.start_times.append(time.perf_counter() - t)

    def _await_ready(self, procs: list[_Proc]) -> None:
        """Wait for each of ``procs`` to say it is ready (its table mapped), at most
        the setting ``READY_WAIT_S`` in all; a worker that died or stays silent is left to the
        coordinator's fault handling (its first task finds it)."""
        deadline = time.monotonic() + current().READY_WAIT_S
        for p in procs:
            try:
                if p.conn.poll(max(0.0, deadline - time.monotonic())):
                    p.conn.recv()
            except (EOFError, OSError):
                pass

    @staticmethod
    def _kill(p: _Proc) -> None:
        """Kill ``p``'s process if it still runs, and close its pipe."""
        if p.process.is_alive():
            p.process.kill()
            p.process.join(1.0)
        try:
            p.conn.close()
        except OSError:
            pass

    def _bury(self, p: _Proc) -> str:
        """Clean up after a dead worker; returns how it died."""
        code = p.process.exitcode
        p.task_id = 0
        try:
            p.conn.close()
        except OSError:
            pass
        p.process.join(0.1)
        self._poll = None
        return f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"

    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [p.process.pid for p in self._procs if p.process is not None]

    def searching(self) -> dict[int, int]:
        """Worker (1..n) -> id of the task it holds, for the workers inside its
        search now: their published line (``CTL_PATH``) carries that task's id (a
        worker clears its line before it answers). Read by the fault tests to kill
        a worker mid-search."""
        out = {}
        for p in self._procs:
            task = p.task_id
            words = self.ctl[p.slot + L.CTL_PATH:p.slot + L.CTL_PATH + L.PATH_DEPTH]
            if task and any(int(w) >> 32 == task for w in words):
                out[p.index] = task
        return out

    # ------------------------------------------------------------ the backend contract
    def start(self, slot: int, task: AnyTask) -> bool:
        p = self._procs[slot - 1]
        self.arm(slot, task)
        try:
            p.conn.send((to_carry(), task))   # (the solve's settings: the worker runs the task with them)
        except (OSError, BrokenPipeError):
            self._bury(p)
            return False
        p.task_id = task.task_id
        return True

    def _poller(self) -> tuple[select.poll, dict[int, tuple[bool, _Proc]]]:
        """A poll object watching every worker's pipe and process sentinel."""
        if self._poll is None:
            poll = select.poll()
            fds: dict[int, tuple[bool, _Proc]] = {}
            for p in self._procs:
                if p.conn.closed:
                    continue
                for fd, is_conn in ((p.conn.fileno(), True), (p.process.sentinel, False)):
                    poll.register(fd, select.POLLIN)
                    fds[fd] = (is_conn, p)
            self._poll = (poll, fds)
        return self._poll

    def collect(self, timeout: float) -> list[Event]:
        poll, fds = self._poller()
        events: list[Event] = []
        for fd, _ in poll.poll(max(0, int(timeout * 1000 + 0.999))):
            is_conn, p = fds[fd]
            if p.conn.closed:
                continue  # buried earlier in this turn
            if is_conn:
                try:
                    events.append(self._received(p, p.conn.recv()))
                except (EOFError, OSError):
                    events.append((p.index, Lost(self._bury(p))))
                continue
            while p.task_id and p.conn.poll():   # results sent just before it died
                try:
                    events.append(self._received(p, p.conn.recv()))
                except (EOFError, OSError):
                    break
            if not p.process.is_alive():
                events.append((p.index, Lost(self._bury(p))))
        return events

    @staticmethod
    def _received(p: _Proc, result) -> Event:
        if result.task_id == p.task_id:
            p.task_id = 0
        return p.index, result

    def dead_idle(self) -> list[tuple[int, str]]:
        return [(p.index, self._bury(p)) for p in self._procs
                if not p.task_id and (p.conn.closed or not p.process.is_alive())]

    def restart(self, slot: int) -> None:
        p = self._procs[slot - 1]
        self._spawn(p)
        self._await_ready([p])

    def reset(self, slot: int) -> None:
        p = self._procs[slot - 1]
        self._kill(p)
        self._spawn(p)
        self._await_ready([p])

    def close(self) -> None:
        """Stop every worker (abort running searches first); idempotent."""
        if self.closed:
            return
        self.closed = True
        self.stop_all()
        for p in self._procs:
            try:
                p.conn.send(None)
            except (OSError, ValueError, BrokenPipeError):
                pass
        deadline = time.monotonic() + current().CLOSE_WAIT_S
        for p in self._procs:
            p.process.join(max(0.0, deadline - time.monotonic()))
        for p in self._procs:
            self._kill(p)
