"""The Ray backend's shared bounds: :class:`BoundBoard`, an async Ray actor.

It holds the live window word of each running task (``pack_window``), the tasks
to abandon, a stop flag for all, the table of each machine (``node id ->
(pid, fd)``, see :func:`parallel_mnk.runtime.ttable.open_memfd_table`), and the
coordinator's *notices* (:meth:`BoundBoard.post`: a proof's newest log of its store,
which the running jobs read between their slices). The coordinator
sends it the changes once per loop turn (:meth:`BoundBoard.update`).

Workers *watch* a task: :meth:`BoundBoard.watch` answers at once if the task's
entry changed since the version the worker has seen, else when it changes (or
after ``timeout``). So a running task costs one call per change of its window
(and one per timeout while nothing changes), not one per polling period.

Plain Python: :mod:`.ray_backend` makes it an actor with ``ray.remote``.
"""
from __future__ import annotations

import asyncio
from typing import Optional


class BoundBoard:
    """The shared bounds of one Ray backend (see the module docstring); it remembers
    ``forget_after`` finished tasks (the setting ``RAY_FORGET_AFTER``)."""

    def __init__(self, forget_after: int) -> None:
        self.forget_after = forget_after
        self.windows: dict[int, int] = {}
        self.abandoned: set[int] = set()
        self.version: dict[int, int] = {}   # task id -> changes so far (-1: done)
        self.events: dict[int, asyncio.Event] = {}   # task id -> the event of the waiting watch
        self.stop = False
        self.tables: dict[str, tuple] = {}
        self.watches = 0
        self.notices: dict[str, object] = {}

    def _changed(self, task_id: int, done: bool = False) -> None:
        self.version[task_id] = -1 if done else self.version.get(task_id, 0) + 1
        event = self.events.pop(task_id, None)
        if event is not None:
            event.set()

    async def update(self, windows: dict, abandon: list, done: list, stop: Optional[bool] = None) -> None:
        """New live windows, tasks to abandon, finished tasks, and the stop flag."""
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
        if len(self.version) > self.forget_after:  # forget the oldest finished tasks
            for task_id in [t for t, v in self.version.items() if v < 0][:self.forget_after // 2]:
                del self.version[task_id]
        if stop is not None:
            self.stop = stop
            for task_id in list(self.events):
                self._changed(task_id)

    async def watch(self, task_id: int, seen: int, timeout: float) -> tuple[int, int, bool, bool]:
        """``(version, window word or 0, abandon, stop)`` of a task, once its version
        is not ``seen`` (or after ``timeout`` seconds)."""
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
        """The registered table of a machine, or None."""
        return self.tables.get(node)

    async def register_table(self, node: str, entry: tuple, stale: Optional[tuple]) -> tuple:
        """Make ``entry`` the machine's table unless another (not ``stale``) is there;
        returns the machine's table."""
        current = self.tables.get(node)
        if current is None or current == stale:
            self.tables[node] = entry
            return entry
        return current

    async def post(self, name: str, value: object) -> None:
        """Make ``value`` the notice ``name`` (its object references stay alive with it)."""
        self.notices[name] = value

    async def notice(self, name: str) -> object:
        """The notice ``name``, or None."""
        return self.notices.get(name)

    async def stats(self) -> dict:
        """Counters: watch calls served, live windows held."""
        return {"watches": self.watches, "live": len(self.windows)}
