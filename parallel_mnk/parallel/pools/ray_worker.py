"""The worker side of the Ray backend: what runs inside Ray's worker processes.

* A task runs with the kernel in the worker's thread (:func:`run_remote`), on
  its machine's shared table, with a private control array the task's
  *watcher* writes into: from ``RAY_POLL_S`` after the task starts (short tasks
  never do it), one thread per process asks the backend's actor
  (:class:`~.ray_board.BoundBoard`) to *watch* the task and writes each change
  (a narrower window, an abandon, the stop) into the same control words the
  pool's coordinator writes directly. A running numba call cannot be stopped by
  ``ray.cancel``; this is how it stops.
* Tables: one per machine, in a ``memfd`` made by the first process of the
  machine that needs it and registered with the actor; the other processes
  open it through ``/proc/<pid>/fd/<fd>``. Where that is not possible (no
  ``memfd``/``/proc``, or the creator died) a process makes a table of its own.
  A worker keeps the table of the current backend only.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any, Optional

import numpy as np

from ...api.settings import DEFAULTS, Settings, applied, current
from ...game.rules import MnkError
from ...kernels.core import layout as L
from ...runtime import families
from ...runtime.ttable import MemfdTable, check_table_memory, close_memfd_table, memfd_table, open_memfd_table
from ..task import AnyResult, AnyTask, WorkerEnv
from . import shm

BOARD_PREFIX = "parallel-mnk-board-"
SLOT = shm.slot_of(0)   # a Ray worker process runs one task at a time: one set of control words


def import_ray() -> Any:
    """``ray``, or a one-line MnkError naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise MnkError("the ray backend needs Ray, which is not installed: "
                       "pip install 'parallel_mnk[cluster]' (or pip install 'ray>=2.9')") from None
    return ray


class _WorkerState:
    """What a Ray worker process keeps between tasks."""

    token: Optional[str] = None      # the backend whose table is open
    table: Optional[MemfdTable] = None
    board: Any = None                # the actor of backend ``board_token``
    board_token: Optional[str] = None
    ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
    env: Optional[WorkerEnv] = None  # on the open table and ``ctl``
    watcher: Optional["_Watcher"] = None


def _board(ray: Any, token: str) -> Any:
    """The backend's actor, looked up by name once per worker process (passing
    the handle with every task costs more than the task itself)."""
    if _WorkerState.board_token != token:
        _WorkerState.board = ray.get_actor(BOARD_PREFIX + token)
        _WorkerState.board_token = token
    return _WorkerState.board


class _Watcher:
    """One thread per worker process: while a task runs (from ``RAY_POLL_S`` after its
    start), watches the task's entry in the actor and writes every change into
    ``ctl``."""

    def __init__(self, ray: Any, ctl: np.ndarray) -> None:
        self.ray, self.ctl = ray, ctl
        self.cv = threading.Condition()
        self.current: Optional[tuple] = None   # (task_id, actor, start time, settings) of the running task
        threading.Thread(target=self._loop, name="parallel-mnk-watch", daemon=True).start()

    def start(self, task_id: int, board: Any) -> None:
        with self.cv:
            self.current = (task_id, board, time.monotonic(), current())
            self.cv.notify()

    def stop(self) -> None:
        with self.cv:
            self.current = None
            self.cv.notify()

    def _next_task(self) -> Optional[tuple]:
        """Wait for a task that has run ``RAY_POLL_S``; None when it ended before."""
        with self.cv:
            while self.current is None:
                self.cv.wait()
            running = self.current
            wait = running[2] + running[3].RAY_POLL_S - time.monotonic()
            if wait > 0:
                self.cv.wait(wait)  # woken early when the task ends
            return running if self.current is running else None

    def _loop(self) -> None:
        while True:
            running = self._next_task()
            if running is None:
                continue
            task_id, board, _, settings = running
            seen = 0
            while True:
                try:
                    seen, word, abandon, halt = self.ray.get(board.watch.remote(task_id, seen, settings.RAY_WATCH_S))
                except Exception:  # the actor is gone: the coordinator stopped
                    seen, word, abandon, halt = 0, 0, False, True
                with self.cv:
                    if self.current is not running:
                        break
                    if word:
                        self.ctl[SLOT + L.CTL_LIVE_WINDOW] = word
                    if abandon:
                        shm.abandon(self.ctl, SLOT, task_id)
                    if halt:
                        shm.stop_all(self.ctl)
                        break


def _node_table(ray: Any, token: str, bits: int) -> np.ndarray:
    """This worker process's view of its machine's table for backend ``token``."""
    if _WorkerState.token == token and _WorkerState.table is not None:
        return _WorkerState.table[2]
    if _WorkerState.table is not None:
        close_memfd_table(_WorkerState.table)
        _WorkerState.table = _WorkerState.token = None
    board = _board(ray, token)
    node = ray.get_runtime_context().get_node_id()
    entry = ray.get(board.table_of.remote(node))
    found = open_memfd_table(entry, token, bits) if entry is not None else None
    table = found if found is not None else _new_node_table(ray, board, node, entry, token, bits)
    _WorkerState.token, _WorkerState.table = token, table
    return table[2]


def _new_node_table(ray: Any, board: Any, node: str, stale: Optional[tuple], token: str, bits: int) -> MemfdTable:
    """A new table for this machine, registered with the actor; the table of another
    process of the machine instead when that one registered first."""
    check_table_memory(bits, f"the table of node {socket.gethostname()}")
    table = memfd_table(token, bits)
    if table[0] >= 0:
        mine = (os.getpid(), table[0])
        winner = ray.get(board.register_table.remote(node, mine, stale))
        if winner != mine:  # another process of this machine was quicker: share its table
            theirs = open_memfd_table(winner, token, bits)
            if theirs is not None:
                close_memfd_table(table)
                table = theirs
    return table


def run_remote(task: AnyTask, token: str, bits: int, index: int, settings: Optional[Settings] = None) -> AnyResult:
    """A Ray task: run ``task`` on this machine's table with the runtime ``settings``
    of the solve that sent it (None: the defaults), with its live window watched
    from the backend's actor into this process's control words."""
    with applied(DEFAULTS if settings is None else settings):
        return _run(task, token, bits, index)


def _run(task: AnyTask, token: str, bits: int, index: int) -> AnyResult:
    ray = import_ray()
    tt = _node_table(ray, token, bits)
    board = _board(ray, token)
    env = _WorkerState.env
    if env is None or env.tt is not tt:
        env = _WorkerState.env = WorkerEnv(index, tt, _WorkerState.ctl, SLOT)
        env.fetch = ray.get   # (the handles of Backend.share)
    env.news = lambda name: ray.get(board.notice.remote(name))   # (Backend.post's notices, from the actor)
    env.index = index
    env.ctl[:] = 0
    shm.start_task(env.ctl, SLOT, task.task_id, *(task.live_window or (0, 0)))
    if _WorkerState.watcher is None:
        _WorkerState.watcher = _Watcher(ray, _WorkerState.ctl)
    _WorkerState.watcher.start(task.task_id, board)
    try:
        return task.run(env)
    finally:
        _WorkerState.watcher.stop()


def warm_remote(token: str, bits: int) -> int:
    """A Ray task that loads the kernels and opens the machine's table in a worker."""
    ray = import_ray()
    families.load("gravity", "free", "expand")
    _node_table(ray, token, bits)
    return os.getpid()
