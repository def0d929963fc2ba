"""The Ray backend: the tasks of the split tree as Ray tasks (``--backend ray``).

Ray is an optional dependency (the ``cluster`` extra: ``pip install
'parallel_mnk[cluster]'``); it is imported only when a Ray backend is built, and
its absence is one line (:class:`~parallel_mnk.game.rules.MnkError`). Everything above
the backend is shared with the process pool: the split tree (:mod:`..scheduling.split`),
the scheduler (:mod:`..scheduling.coordinator`) and the probe loop (:mod:`..scheduling.driver`), so the
answers and the per-worker accounting have the same meaning.

* Slots: at most one Ray task per slot out at a time; a slot is what the
  accounting calls a worker (Ray picks the process that runs each task). Without
  ``address`` a local Ray is started with ``num_cpus=workers``; with one, the
  cluster's Ray is joined and ``workers`` should be its CPU count. A Ray already
  initialised in this process (by the caller) is used as it is and not shut down.
* Shared bounds: the backend's actor (:mod:`.ray_board`) gets the changes of
  live windows, abandons and the stop once per loop turn (:meth:`flush`); the
  workers watch it (:mod:`.ray_worker`).
* Tables: one per machine in shared memory; on the coordinator's machine the
  coordinator and the workers share one, as with the pool. Each machine needs
  ``2**tt_bits`` entries of 8 bytes free; one without them fails the solve with
  a clear message.
* Faults: a task whose worker process dies is reported lost (the coordinator
  hands it out again); Ray's own retries are off. Closing stops the running
  tasks through the actor (not ``ray.cancel``: a forced cancel racing a task's
  reply aborts the driver in Ray 2.60, "Tried to complete task that was not
  pending") and shuts down a Ray this backend started.
* Output: a Ray this backend starts or joins keeps its processes' log lines to
  themselves (``log_to_driver=False``) and prints the cluster's error messages
  (a lost node) on stderr, not stdout: the CLI's stdout is its answer.
* Start-up: a local Ray takes seconds to start; worker processes load the
  kernels from numba's cache (warm-up tasks, before the first solve).
"""
from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any, Callable, Optional

from ...api.settings import current, to_carry
from ...game.rules import MnkError
from ...kernels.core import layout as L
from ...runtime.ttable import check_table_memory, close_memfd_table, memfd_table
from ..task import AnyTask
from .backend import Backend, Event, Lost
from .ray_board import BoundBoard
from .ray_worker import BOARD_PREFIX, import_ray, run_remote, warm_remote



class RayBackend(Backend):
    """``workers`` task slots on Ray (local, or the cluster at ``address``)."""

    maps_store = False   # (a worker may be on another machine: a proof's workers keep replicas of its store)

    def __init__(self, workers: int, tt_bits: int, address: Optional[str] = None) -> None:
        ray = import_ray()
        if workers < 1:
            raise MnkError(f"workers must be at least 1, got {workers}")
        check_table_memory(tt_bits, "a table")
        self.ray = ray
        self.n, self.tt_bits, self.address = workers, tt_bits, address
        self._owns_ray = False
        self._restore_messages: Optional[Callable[[], None]] = None
        t = time.perf_counter()
        if not ray.is_initialized():
            self._init_ray(workers, address)
        self.init_s = time.perf_counter() - t
        self.token = os.urandom(8).hex()
        self.board = ray.remote(num_cpus=0)(BoundBoard).options(name=BOARD_PREFIX + self.token).remote(
            current().RAY_FORGET_AFTER)
        self._table = memfd_table(self.token, tt_bits)
        self.tt = self._table[2]
        if self._table[0] >= 0:
            node = ray.get_runtime_context().get_node_id()
            ray.get(self.board.register_table.remote(node, (os.getpid(), self._table[0]), None))
        self._run = ray.remote(num_cpus=1, max_retries=0)(run_remote)
        self._refs: dict[int, Any] = {}   # slot -> the object ref of its running task
        self._windows: dict[int, int] = {}
        self._abandon_ids: list[int] = []
        self._done: list[int] = []
        self.closed = False
        t = time.perf_counter()
        warm = ray.remote(num_cpus=1, max_retries=0)(warm_remote)
        try:
            ray.get([warm.remote(self.token, tt_bits) for _ in range(workers)])
        except ray.exceptions.RayTaskError as e:
            self.close()
            raise _task_error(e) from None
        self.warm_s = time.perf_counter() - t

    def _init_ray(self, workers: int, address: Optional[str]) -> None:
        # log_to_driver=False: Ray would copy its processes' log lines (workers' stdout,
        # raylet and GCS stderr) into ours, and our stdout is the answer (one JSON object)
        kw: dict[str, Any] = dict(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
        if address is not None:
            _check_reachable(address)
        try:
            if address is None:
                self.ray.init(num_cpus=workers, **kw)
            else:
                self.ray.init(address=address, **kw)
        except (ConnectionError, ValueError, RuntimeError) as e:
            raise MnkError(f"cannot start or join Ray{'' if address is None else ' at ' + address}: "
                           f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        self._owns_ray = True
        self._restore_messages = _driver_messages_to_stderr()

    # ------------------------------------------------------------ the backend contract
    def start(self, slot: int, task: AnyTask) -> bool:
        self._refs[slot] = self._run.remote(task, self.token, self.tt_bits, slot, to_carry())
        return True

    def share(self, value: Any) -> Any:
        return self.ray.put(value)

    def post(self, name: str, value: Any) -> None:
        self.board.post.remote(name, value)

    def collect(self, timeout: float) -> list[Event]:
        ray = self.ray
        refs = {ref: slot for slot, ref in self._refs.items()}
        if not refs:
            return []
        ready, _ = ray.wait(list(refs), num_returns=1, timeout=timeout)
        if ready and len(refs) > 1:
            ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
        events: list[Event] = []
        for ref in ready:
            slot = refs[ref]
            del self._refs[slot]
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                raise _task_error(e) from None
            except ray.exceptions.RayError as e:  # the worker process died, or the task was cancelled
                events.append((slot, Lost(type(e).__name__)))
                continue
            self._done.append(result.task_id)
            events.append((slot, result))
        return events

    def set_window(self, slot: int, task_id: int, alpha: int, beta: int) -> None:
        self._windows[task_id] = L.pack_window(task_id, alpha, beta)

    def abandon(self, slot: int, task_id: int) -> None:
        self._abandon_ids.append(task_id)

    def flush(self) -> None:
        if self._windows or self._abandon_ids or self._done:
            self.board.update.remote(self._windows, self._abandon_ids, self._done)
            self._windows, self._abandon_ids, self._done = {}, [], []

    def begin(self) -> None:
        self.board.update.remote({}, [], [], False)   # (the actor's stop flag of stop_all, cleared)

    def stop_all(self) -> None:
        self.board.update.remote({}, [], [], True)

    def reset(self, slot: int) -> None:
        self._refs.pop(slot, None)   # forgotten: a task that does not stop is left to finish on its own

    def board_stats(self) -> dict:
        """The actor's counters (watch calls served, live windows held)."""
        return self.ray.get(self.board.stats.remote())

    def close(self) -> None:
        """Stop running tasks (the stop word, then the actor's end: their watchers
        halt them), free this process's table; shut Ray down if this backend
        started it. Idempotent."""
        if self.closed:
            return
        self.closed = True
        ray = self.ray
        try:
            if ray.is_initialized():
                self.board.update.remote({}, [], [], True)
                self._refs = {}
                ray.kill(self.board)
        except Exception:  # pragma: no cover - Ray already going down
            pass
        close_memfd_table(self._table)
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        if self._restore_messages is not None:
            self._restore_messages()
            self._restore_messages = None


def _driver_messages_to_stderr() -> Optional[Callable[[], None]]:
    """Send what Ray prints in this process on its own (the cluster's error messages,
    such as a node marked dead, which Ray writes to stdout) to stderr: stdout is the
    answer. Returns the undo (None where this Ray has no such printer)."""
    from ray._private import worker as ray_worker   # no public switch for these messages
    printer = getattr(ray_worker, "print_to_stdstream", None)
    if printer is None:
        return None

    def to_stderr(data: dict, ignore_prefix: bool) -> None:
        printer(dict(data, is_err=True), ignore_prefix)

    ray_worker.print_to_stdstream = to_stderr

    def undo() -> None:
        ray_worker.print_to_stdstream = printer
    return undo


def _check_reachable(address: str, timeout: Optional[float] = None) -> None:
    """Refuse a ``host:port`` address nothing answers on within ``timeout`` seconds (None:
    the setting ``RAY_REACH_TIMEOUT_S``; Ray itself would retry for minutes); other forms
    (``auto``, ``ray://...``) are left to Ray."""
    timeout = current().RAY_REACH_TIMEOUT_S if timeout is None else timeout
    host, sep, port = address.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise MnkError(f"cannot reach a Ray cluster at {address} ({e.strerror or e}); "
                       "start one with 'ray start --head' or check the address") from None


def _task_error(e: Any) -> Exception:
    """A task's MnkError (a node without memory for its table) as our error;
    anything else as it came."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, MnkError):
        return MnkError(str(cause))
    return e
