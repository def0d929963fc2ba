"""The process pool with a ready list: workers take their next task from shared
memory (:mod:`.ready`) instead of waiting for the coordinator to send it.

The places of this backend are the list's entries (more than the workers): the
coordinator puts every task the split tree allows into free entries at once; a
worker that finishes a task sends its result up its pipe and claims the next
ready entry at once. Windows and abandons are addressed by entry (each entry has
its own control words), whichever worker runs the task. Everything else (the
table, the busy marks, the processes, their pipes and deaths) is the
:class:`~.procpool.ProcessPool`'s.

Chosen by ``backends.READY_LIST`` or ``PARALLEL_MNK_READY_LIST=1`` (off by default:
see :mod:`.backends` for what it did on 2 cores).

Faults: a worker found dead loses the entry it had claimed (reported as
:class:`~.backend.Lost` at that place, or at place 0 when it held none); tasks
still ready stay for the others.
"""
from __future__ import annotations

import mmap
import os
import threading
from typing import Any

from ..kernels.pool import ready as K
from . import shm
from .backend import Event, Lost
from .procpool import ProcessPool, _Proc
from .ready import PAYLOAD_BYTES, ReadyList, words_needed
from .task import AnyTask
from .worker import ready_worker_main


def ready_entries(workers: int) -> int:
    """Entries of a pool's ready list: room for a split's eligible tasks, and for a
    task and a helper per worker."""
    return max(2 * workers, workers + 8)


class ReadyPool(ProcessPool):
    """``workers`` forked processes taking their tasks from a ready list of
    ``entries`` (default :func:`ready_entries`)."""

    def __init__(self, workers: int, tt_bits: int, entries: int = 0) -> None:
        self._entries = entries or ready_entries(max(1, workers))
        super().__init__(workers, tt_bits)

    @property
    def places(self) -> int:
        return self._entries

    # ------------------------------------------------------------ set-up
    def _extra_words(self) -> int:
        return words_needed(self._entries)

    def _prepare(self) -> None:
        self._payload_mem = mmap.mmap(-1, self._entries * PAYLOAD_BYTES)
        self._wake = self._mp.Semaphore(0)
        self.ready = ReadyList(self.ctl, shm.extra_start(self.n), self._entries, self._payload_mem, self._wake)

    def _worker_args(self, p: _Proc, conn) -> tuple[Any, tuple]:
        main_thread = threading.current_thread() is threading.main_thread()
        board = (self.ready.start, self._entries, self._payload_mem, self._wake)
        return ready_worker_main, (p.index, conn, self._tt_mem, self._ctl_mem, board, os.getpid(), main_thread)

    # ------------------------------------------------------------ the backend contract
    def start(self, slot: int, task: AnyTask) -> bool:
        self.ready.put(slot - 1, task)
        return True

    def spare_workers(self, free_places: int) -> int:
        ready, claimed = self.ready.counts()
        return max(0, self.n - ready - claimed)

    def busy_workers(self) -> list[int]:
        return sorted(s for s in (self.ready.state(e) for e in self.ready.pending) if s > 0)

    def collect(self, timeout: float) -> list[Event]:
        events: list[Event] = [(e + 1, r) for e, r in self.ready.take_back_results()]
        poll, fds = self._poller()
        for fd, _ in poll.poll(0 if events else max(0, int(timeout * 1000 + 0.999))):
            is_conn, p = fds[fd]
            if p.conn.closed:
                continue  # buried earlier in this turn
            broken = False
            while is_conn or p.conn.poll():   # a message; or, at a death, those sent before it
                is_conn = False
                try:
                    entry, result = p.conn.recv()
                except (EOFError, OSError):
                    broken = True
                    break
                if self.ready.received(entry, result):
                    events.append((entry + 1, result))
            if broken or not p.process.is_alive():
                events += self._lost(p)
        return events

    def _lost(self, p: _Proc) -> list[Event]:
        """Bury ``p``; the loss of the entry it held (or of none, place 0)."""
        how = self._bury(p)
        held = self.ready.held_by(p.index)
        for e in held:
            self.ready.release(e)
        self._wake.release()   # in case it died between a wake-up and its claim
        return [(e + 1, Lost(how, p.index)) for e in held] or [(0, Lost(how, p.index))]

    def set_window(self, slot: int, task_id: int, alpha: int, beta: int) -> None:
        self.ready.set_window(slot - 1, task_id, alpha, beta)

    def abandon(self, slot: int, task_id: int) -> None:
        self.ready.abandon(slot - 1, task_id)

    def dead_idle(self) -> list[tuple[int, str]]:
        return [(p.index, self._bury(p)) for p in self._procs
                if not self.ready.held_by(p.index) and (p.conn.closed or not p.process.is_alive())]

    def restart(self, worker: int) -> None:
        p = self._procs[worker - 1]
        if p.conn.closed or not p.process.is_alive():   # once, however many losses were reported
            self._spawn(p)

    def reset(self, slot: int) -> None:
        entry = slot - 1
        state = self.ready.state(entry)
        if state == K.READY and K.take_back(self.ctl, self.ready.base, entry):
            state = K.FREE
        if state > 0:
            p = self._procs[state - 1]
            self._kill(p)
            self._spawn(p)
        self.ready.release(entry)

    def close(self) -> None:
        if not self.closed:
            self.ready.close(self.n)
        super().close()
