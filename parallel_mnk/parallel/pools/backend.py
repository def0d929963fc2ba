"""What a backend is: a place where tasks run, on ``n`` worker slots.

The :class:`~.coordinator.Coordinator` decides which task runs when; a backend
only carries that out. Two exist: forked processes on this machine
(:class:`~.procpool.ProcessPool`) and Ray tasks on a cluster
(:class:`~.ray_backend.RayBackend`). Workers are numbered 1..n (0 is the
coordinator's own process in the accounting).

The coordinator hands tasks to worker *slots*, numbered 1..``n``: a slot holds at
most one task and is handed a new one only after it answered the last.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from ..task import AnyResult, AnyTask


@dataclass(frozen=True)
class Lost:
    """A worker died (``how``: a signal, an exit code, an error name); the task of
    the place it is reported for produced nothing (place 0: it held none).
    ``worker``: the worker that died, 0 for the place's own worker (a slot)."""

    how: str
    worker: int = 0


Event = tuple[int, Union[AnyResult, Lost]]   # (place, its task's result or its loss)


class Backend(ABC):
    """``n`` worker slots, the table of ``2**tt_bits`` entries the coordinator
    searches (``tt``; shared with the workers of its machine), and whether idle
    workers may join running tasks (``helpers``: they need a shared table)."""

    helpers = False
    splits = False   # running tasks may be split: their lines are seen (path_of), their table is ``tt``
    maps_store = True   # its workers can map a memory of the coordinator's process (a proof's settled store)
    closed = True
    n: int
    tt_bits: int
    tt: np.ndarray

    @abstractmethod
    def start(self, slot: int, task: AnyTask) -> bool:
        """Run ``task`` on the idle place ``slot``; False when its worker turned out
        to be dead (it is cleaned up; :meth:`restart` it)."""

    @abstractmethod
    def collect(self, timeout: float) -> list[Event]:
        """The results (and losses) that came back, waiting up to ``timeout``
        seconds for the first."""

    @abstractmethod
    def set_window(self, slot: int, task_id: int, alpha: int, beta: int) -> None:
        """Narrow the live window of task ``task_id`` running on ``slot``."""

    @abstractmethod
    def abandon(self, slot: int, task_id: int) -> None:
        """Ask task ``task_id`` on ``slot`` to stop; it answers abandoned."""

    def path_of(self, slot: int, task_id: int, root_ply: int) -> dict[int, tuple[int, int, int]]:
        """The line task ``task_id`` (rooted at ``root_ply`` stones) on ``slot`` is
        searching now (:func:`.shm.path_of`); empty where lines are not seen."""
        return {}

    def flush(self) -> None:
        """Send what :meth:`set_window` and :meth:`abandon` queued (if they queue)."""

    def share(self, value: Any) -> Any:
        """A handle of ``value`` for many tasks to carry (the worker's ``fetch`` gives it
        back): the value itself here; Ray: an object in its store, sent once a machine."""
        return value

    def post(self, name: str, value: Any) -> None:
        """Make ``value`` the newest notice ``name`` for running tasks (a worker reads it
        with its ``news``, :class:`~..task.WorkerEnv`); a later post replaces it. Here
        nothing is posted: the pool's workers see no notice mid-task (they map what a
        notice would carry)."""

    @abstractmethod
    def begin(self) -> None:
        """Clear a stop of :meth:`stop_all` before new work."""

    @abstractmethod
    def stop_all(self) -> None:
        """Ask every running task to stop now (a time limit, Ctrl-C)."""

    def dead_idle(self) -> list[tuple[int, str]]:
        """Workers without a task that died, with how (cleaned up; :meth:`restart` them)."""
        return []

    def restart(self, worker: int) -> None:
        """Give ``worker``'s slot a fresh worker after a loss."""

    def reset(self, slot: int) -> None:
        """Place ``slot`` does not answer: its task is lost (its worker replaced)."""

    @abstractmethod
    def close(self) -> None:
        """Stop every worker; idempotent."""
