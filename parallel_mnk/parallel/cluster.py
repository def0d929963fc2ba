"""The Ray backend: the tasks of the split tree as Ray tasks (``--backend ray``).

Ray is an optional dependency (the ``cluster`` extra: ``pip install
'parallel_mnk[cluster]'``); this module imports it only when a Ray backend is
built, and says so in one line (:class:`~parallel_mnk.rules.MnkError`) when it
is missing. Everything above the backend is shared with the process pool: the
split tree (:mod:`.split`), the coordinator loop (:class:`.pool.Coordinator`:
dispatch in move order, live windows, abandoning, combining, faults) and the
probe loop, best move and line (:func:`.pool.solve_parallel`). So the answers
and the per-worker accounting (``SolveResult.workers``: entry 0 the
coordinator, then one entry per worker slot) have the same meaning.

* Slots: the coordinator keeps ``workers`` task slots and has at most one Ray
  task per slot out at a time; a slot is what the accounting calls a worker
  (Ray picks the process that runs each task). Without ``address`` a local Ray
  is started with ``num_cpus=workers``; with one, the cluster's Ray is joined
  and ``workers`` should be its CPU count. A Ray already initialised in this
  process (by the caller) is used as it is and not shut down.
* Shared bounds: a small actor (:class:`BoundBoard`, no CPU reserved) holds
  the live window of every running task and the abandon and stop flags; the
  coordinator sends it the changes once per loop turn. From ``POLL_S`` (5 ms)
  after a task's start (short tasks never do it), a helper thread of the task's
  process polls the actor with a *watch*: a call the actor answers as soon as
  the task's entry changes (or after ``WATCH_S`` without a change), so a task
  costs one actor call per change of its window, not one per polling period
  (polling every 5 ms, a poll costing about 1 ms of CPU on each side, took a
  quarter of the search's time on 2 cores). What the watch returns goes into
  the process's own control
  array, which the kernel (running without the GIL in the task's thread)
  already reads with atomic loads: the same words the pool's coordinator
  writes directly (``kernels/layout.py``, ``CTL_*``). A running numba call
  cannot be stopped by ``ray.cancel``; this is how it stops.
* Tables: one transposition table per machine (per Ray node) in shared
  memory: a ``memfd`` made by the first process of the node that needs it
  (the coordinator, on its own machine) and registered with the actor; the
  other processes of the node open it through ``/proc/<pid>/fd/<fd>``. So on
  the coordinator's machine the coordinator and the workers share one table,
  as with the pool (the best move and line after the score reuse the workers'
  entries). The memory is freed when the last process holding it exits; a
  worker keeps the table of the current backend only. Where this is not
  possible (no ``memfd``/``/proc``, or the creator died) a process falls back
  to a table of its own. Each node needs ``2**tt_bits`` entries of 8 bytes
  free; a node without them fails the solve with a clear message.
* Faults: a task whose worker process dies is run again on another (a few
  times per slot and solve, then a clear error); Ray's own retries are off so
  that the coordinator decides. Ctrl-C or a time limit abandons the running
  tasks through the actor; closing cancels them and shuts down a Ray this
  backend started.
* Start-up: a local Ray takes seconds to start (4-9 s here); worker
  processes load the kernels from numba's cache (about 0.6 s, done before the
  first solve by warm-up tasks). Every node needs this package (with its
  dependencies) installed; kernels compile on first use on a node without a
  cache.
"""
from __future__ import annotations

import mmap
import os
import socket
import threading
import time
from typing import Optional

import numpy as np

from ..kernels import layout as L
from ..rules import MnkError
from ..search import check_table_memory
from .pool import Coordinator, Job, Slot, _pack_window, run_task_here, warm_up_kernels
from .split import SplitTree, Task, TaskResult

POLL_S = 0.005          # a task starts watching the actor this long after it starts (short ones never do)
WATCH_S = 1.0           # a watch returns after this long without a change (then the next one is sent)
MEMFD_PREFIX = "parallel-mnk-tt-"
BOARD_PREFIX = "parallel-mnk-board-"


def import_ray():
    """``ray``, or a one-line MnkError naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise MnkError("the ray backend needs Ray, which is not installed: "
                       "pip install 'parallel_mnk[cluster]' (or pip install 'ray>=2.9')") from None
    return ray


class BoundBoard:
    """The shared bounds (an async Ray actor): the live window word of each running
    task (``pack_window``), the tasks to abandon, a stop flag for all; and the
    table of each node (``node id -> (pid, fd)``).

    Workers *watch* a task: :meth:`watch` answers at once if the task's entry
    changed since the version the worker has seen, else when it changes (or after
    ``timeout``). So a running task costs one call per change of its window (and
    one per ``WATCH_S`` while nothing changes), not one per polling period.
    """

    def __init__(self) -> None:
        self.windows: dict[int, int] = {}
        self.abandoned: set[int] = set()
        self.version: dict[int, int] = {}   # task id -> changes so far (-1: done)
        self.events: dict = {}               # task id -> asyncio.Event of the waiting watch
        self.stop = False
        self.tables: dict[str, tuple] = {}
        self.watches = 0

    def _changed(self, task_id: int, done: bool = False) -> None:
        self.version[task_id] = -1 if done else self.version.get(task_id, 0) + 1
        event = self.events.pop(task_id, None)
        if event is not None:
            event.set()

    async def update(self, windows: dict, abandon: list, done: list, stop: Optional[bool] = None) -> None:
        for task_id, word in windows.items():
            self.windows[task_id] = word
            self._changed(task_id)
        for task_id in abandon:
            self.abandoned.add(task_id)
            self._changed(task_id)
        for task_id in done:
            self.windows.pop(task_id, None)
            self.abandoned.discard(task_id)
            self._changed(task_id, done=True)
        if len(self.version) > 100_000:  # forget the oldest finished tasks
            for task_id in [t for t, v in self.version.items() if v < 0][:50_000]:
                del self.version[task_id]
        if stop is not None:
            self.stop = stop
            for task_id in list(self.events):
                self._changed(task_id)

    async def watch(self, task_id: int, seen: int, timeout: float) -> tuple[int, int, bool, bool]:
        """``(version, window word or 0, abandon, stop)`` of a task, once its version
        is not ``seen`` (or after ``timeout`` seconds)."""
        import asyncio

        self.watches += 1
        if self.version.get(task_id, 0) == seen and not self.stop:
            event = self.events.get(task_id)
            if event is None:
                event = self.events[task_id] = asyncio.Event()
            try:
                await asyncio.wait_for(event.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        done = self.version.get(task_id, 0) < 0
        return (self.version.get(task_id, 0), self.windows.get(task_id, 0), done or task_id in self.abandoned,
                self.stop)

    async def table_of(self, node: str) -> Optional[tuple]:
        return self.tables.get(node)

    async def register_table(self, node: str, entry: tuple, stale: Optional[tuple]) -> tuple:
        """Make ``entry`` the node's table unless another (not ``stale``) is there."""
        current = self.tables.get(node)
        if current is None or current == stale:
            self.tables[node] = entry
            return entry
        return current

    async def stats(self) -> dict:
        return {"watches": self.watches, "live": len(self.windows)}


# ------------------------------------------------------------------ node tables
def _make_table(token: str, bits: int) -> tuple[int, Optional[mmap.mmap], np.ndarray]:
    """A new table of ``2**bits`` entries in a memfd: (fd, mapping, array); fd -1
    (a private array) where memfd does not exist."""
    size = 8 << bits
    if not hasattr(os, "memfd_create"):
        return -1, None, np.zeros(1 << bits, dtype=np.uint64)
    fd = os.memfd_create(MEMFD_PREFIX + token, 0)
    os.ftruncate(fd, size)
    mem = mmap.mmap(fd, size)
    return fd, mem, np.frombuffer(mem, dtype=np.uint64)


def _open_table(entry: tuple, token: str, bits: int) -> Optional[tuple[int, mmap.mmap, np.ndarray]]:
    """Open another process's table of this node, or None when it is not there
    (another host, the process is gone, not this backend's table)."""
    pid, fd = entry
    path = f"/proc/{pid}/fd/{fd}"
    try:
        if not os.readlink(path).startswith("/memfd:" + MEMFD_PREFIX + token):
            return None
        own_fd = os.open(path, os.O_RDWR)
    except OSError:
        return None
    try:
        if os.fstat(own_fd).st_size != 8 << bits:
            os.close(own_fd)
            return None
        mem = mmap.mmap(own_fd, 8 << bits)
    except OSError:
        os.close(own_fd)
        return None
    return own_fd, mem, np.frombuffer(mem, dtype=np.uint64)


class _WorkerState:
    """What a Ray worker process keeps between tasks."""

    token: Optional[str] = None
    table: Optional[tuple] = None    # (fd, mapping, array)
    board = None                     # the actor of backend ``board_token``
    board_token: Optional[str] = None
    contexts: dict = {}
    ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
    poller: Optional["_Poller"] = None


def _board(ray, token: str):
    """The backend's actor, looked up by name once per worker process (passing
    the handle with every task costs more than the task itself)."""
    if _WorkerState.board_token != token:
        _WorkerState.board = ray.get_actor(BOARD_PREFIX + token)
        _WorkerState.board_token = token
    return _WorkerState.board


class _Poller:
    """One thread per worker process: while a task runs (from ``POLL_S`` after its
    start), watches the task's entry in the actor and writes every change into
    ``ctl``."""

    def __init__(self, ray, ctl: np.ndarray) -> None:
        self.ray, self.ctl = ray, ctl
        self.cv = threading.Condition()
        self.current: Optional[tuple] = None   # (task_id, actor, start time) of the running task
        threading.Thread(target=self._loop, name="parallel-mnk-watch", daemon=True).start()

    def start(self, task_id: int, board) -> None:
        with self.cv:
            self.current = (task_id, board, time.monotonic())
            self.cv.notify()

    def stop(self) -> None:
        with self.cv:
            self.current = None
            self.cv.notify()

    def _loop(self) -> None:
        slot = L.CTL_WORKERS
        while True:
            with self.cv:
                while self.current is None:
                    self.cv.wait()
                running = self.current
                task_id, board, started = running
                wait = started + POLL_S - time.monotonic()
                if wait > 0:
                    self.cv.wait(wait)  # woken early when the task ends
                if self.current is not running:
                    continue
            seen = 0
            while True:
                try:
                    seen, word, abandon, halt = self.ray.get(board.watch.remote(task_id, seen, WATCH_S))
                except Exception:  # the actor is gone: the coordinator stopped
                    seen, word, abandon, halt = 0, 0, False, True
                with self.cv:
                    if self.current is not running:
                        break
                    if word:
                        self.ctl[slot + L.CTL_LIVE_WINDOW] = word
                    if abandon:
                        self.ctl[slot + L.CTL_TASK_ABORT] = task_id
                    if halt:
                        self.ctl[L.CTL_ABORT] = 1
                        break


def _drop_table() -> None:
    if _WorkerState.table is not None:
        fd, mem, _ = _WorkerState.table
        _WorkerState.table = None
        if mem is not None:
            try:
                mem.close()
            except BufferError:  # still referenced: freed with the last reference
                pass
        if fd >= 0:
            os.close(fd)
    _WorkerState.token = None


def _node_table(ray, token: str, bits: int) -> np.ndarray:
    """This worker process's view of its node's table for backend ``token``."""
    if _WorkerState.token == token:
        return _WorkerState.table[2]
    _drop_table()
    board = _board(ray, token)
    node = ray.get_runtime_context().get_node_id()
    entry = ray.get(board.table_of.remote(node))
    table = _open_table(entry, token, bits) if entry is not None else None
    if table is None:
        check_table_memory(bits, f"the table of node {socket.gethostname()}")
        table = _make_table(token, bits)
        if table[0] >= 0:
            mine = (os.getpid(), table[0])
            winner = ray.get(board.register_table.remote(node, mine, entry))
            if winner != mine:  # another process of this node was quicker: share its table
                theirs = _open_table(winner, token, bits)
                if theirs is not None:
                    fd, mem, _ = table
                    mem.close()
                    os.close(fd)
                    table = theirs
    _WorkerState.token, _WorkerState.table = token, table
    return table[2]


# ------------------------------------------------------------------ Ray tasks (run in the workers)
def run_remote(task: Task, token: str, bits: int, index: int) -> TaskResult:
    """A Ray task: run ``task`` on this node's table, with the live window polled
    from the backend's actor into this process's control array."""
    ray = import_ray()
    tt = _node_table(ray, token, bits)
    board = _board(ray, token)
    ctl = _WorkerState.ctl
    ctl[:] = 0
    slot = L.CTL_WORKERS
    ctl[slot + L.CTL_LIVE_WINDOW] = _pack_window(task.task_id, task.alpha, task.beta)
    if _WorkerState.poller is None:
        _WorkerState.poller = _Poller(ray, ctl)
    _WorkerState.poller.start(task.task_id, board)
    try:
        return run_task_here(task, index, slot, tt, ctl, _WorkerState.contexts)
    finally:
        _WorkerState.poller.stop()


def warm_remote(token: str, bits: int) -> int:
    """A Ray task that loads the kernels and opens the node's table in a worker."""
    ray = import_ray()
    warm_up_kernels()
    _node_table(ray, token, bits)
    return os.getpid()


# ------------------------------------------------------------------ the coordinator side
class RayCluster(Coordinator):
    """``workers`` task slots on Ray (local, or the cluster at ``address``)."""

    name = "ray"

    def __init__(self, workers: int, tt_bits: int, address: Optional[str] = None) -> None:
        ray = import_ray()
        if workers < 1:
            raise MnkError(f"workers must be at least 1, got {workers}")
        check_table_memory(tt_bits, "a table")
        self.ray = ray
        self.n, self.tt_bits, self.address = workers, tt_bits, address
        self.closed = True
        self._owns_ray = False
        t = time.perf_counter()
        if not ray.is_initialized():
            import logging

            kw = dict(include_dashboard=False, logging_level=logging.WARNING)
            if address is not None:
                _check_reachable(address)
            try:
                if address is None:
                    ray.init(num_cpus=workers, **kw)
                else:
                    ray.init(address=address, **kw)
            except (ConnectionError, ValueError, RuntimeError) as e:
                raise MnkError(f"cannot start or join Ray{'' if address is None else ' at ' + address}: "
                               f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
            self._owns_ray = True
        self.init_s = time.perf_counter() - t
        self.token = os.urandom(8).hex()
        self.board = ray.remote(num_cpus=0)(BoundBoard).options(name=BOARD_PREFIX + self.token).remote()
        self._fd, self._mem, self.tt = _make_table(self.token, tt_bits)
        if self._fd >= 0:
            node = ray.get_runtime_context().get_node_id()
            ray.get(self.board.register_table.remote(node, (os.getpid(), self._fd), None))
        self._run = ray.remote(num_cpus=1, max_retries=0)(run_remote)
        self.workers = [Slot(i + 1) for i in range(workers)]
        self._windows: dict[int, int] = {}
        self._abandon_ids: list[int] = []
        self._done: list[int] = []
        self.closed = False
        t = time.perf_counter()
        warm = ray.remote(num_cpus=1, max_retries=0)(warm_remote)
        try:
            self.worker_pids = sorted(set(ray.get([warm.remote(self.token, tt_bits)
                                                    for _ in range(workers)])))
        except ray.exceptions.RayTaskError as e:
            self.close()
            raise _task_error(e) from None
        self.warm_s = time.perf_counter() - t

    # ------------------------------------------------------------ the backend hooks
    def _start_task(self, w: Slot, node, task: Task) -> None:
        job = self._assign(w, node, task)
        job.ref = self._run.remote(task, self.token, self.tt_bits, w.index)

    def _collect(self, tree: Optional[SplitTree], timeout: float) -> None:
        ray = self.ray
        refs = {job.ref: (w, job) for w in self.workers for job in w.jobs}
        if not refs:
            return
        ready, _ = ray.wait(list(refs), num_returns=1, timeout=timeout)
        if ready and len(refs) > 1:
            ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
        for ref in ready:
            w, job = refs[ref]
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                raise _task_error(e) from None
            except ray.exceptions.RayError as e:  # the worker process died, or the task was cancelled
                self._lost(w, type(e).__name__)
                continue
            self._done.append(result.task_id)
            self._record(w, result, tree)

    def _set_window(self, w: Slot, job: Job, window: tuple[int, int]) -> None:
        self._windows[job.task.task_id] = _pack_window(job.task.task_id, *window)

    def _abandon(self, w: Slot, job: Job) -> None:
        self._abandon_ids.append(job.task.task_id)

    def _flush(self) -> None:
        if self._windows or self._abandon_ids or self._done:
            self.board.update.remote(self._windows, self._abandon_ids, self._done)
            self._windows, self._abandon_ids, self._done = {}, [], []

    def board_stats(self) -> dict:
        """The actor's counters (watch calls served, live windows held)."""
        return self.ray.get(self.board.stats.remote())

    def close(self) -> None:
        """Cancel running tasks, stop the actor, free this process's table; shut
        Ray down if this backend started it. Idempotent."""
        if self.closed:
            return
        self.closed = True
        ray = self.ray
        try:
            if ray.is_initialized():
                self.board.update.remote({}, [], [], True)
                for w in self.workers:
                    for job in w.jobs:
                        ray.cancel(job.ref, force=True)
                    w.jobs = []
                ray.kill(self.board)
        except Exception:  # pragma: no cover - Ray already going down
            pass
        if self._mem is not None:
            try:
                self._mem.close()
            except BufferError:
                pass
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse a ``host:port`` address nothing answers on (Ray itself would retry
    for minutes); other forms (``auto``, ``ray://...``) are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise MnkError(f"cannot reach a Ray cluster at {address} ({e.strerror or e}); "
                       "start one with 'ray start --head' or check the address") from None


def _task_error(e) -> Exception:
    """A task's MnkError (a node without memory for its table) as our error;
    anything else as it came."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, MnkError):
        return MnkError(str(cause))
    return e


_cluster: Optional[RayCluster] = None


def get_cluster(workers: int, tt_bits: int, address: Optional[str] = None) -> RayCluster:
    """The process's Ray backend (reused across solves, rebuilt on change)."""
    global _cluster
    if _cluster is not None and (_cluster.closed or (_cluster.n, _cluster.tt_bits, _cluster.address)
                                 != (workers, tt_bits, address)):
        _cluster.close()
        _cluster = None
    if _cluster is None:
        _cluster = RayCluster(workers, tt_bits, address)
    return _cluster


def shutdown_cluster() -> None:
    """Stop the process's Ray backend, if any."""
    global _cluster
    if _cluster is not None:
        _cluster.close()
        _cluster = None
