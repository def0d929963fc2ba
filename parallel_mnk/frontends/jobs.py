"""The searches of the web server (:mod:`parallel_mnk.frontends.serve`): one at a time.

The server has one worker pool (or, with one worker, its own process) and runs at
most one search on it at a time. :meth:`Jobs.run` queues a search behind the one
running, in arrival order; at most ``max_waiting`` wait, each for at most
``wait_s`` seconds, and the others are refused (:class:`Busy`, HTTP 503): nothing
waits or runs unbounded (each search has its own time limit besides).

Every search carries a :class:`~parallel_mnk.api.options.Watch`. A page names itself
with a client id; a new request from the same client stops the search it
replaces, running or waiting, whose request then ends with :class:`Replaced`
(HTTP 409). :meth:`Jobs.status` tells a page what its search is doing (waiting
or searching, nodes, elapsed seconds) while it runs.

A request whose client has gone (``gone``: the server's test of its connection,
polled every ``SERVE_POLL_S`` seconds while the search waits or runs) leaves the queue
without running, or has its search stopped, and ends with :class:`Gone`: the
pool is free for the next request within about a tenth of a second.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional, TypeVar

from ..api.options import Watch
from ..game.rules import MnkError
from ..api.settings import current

T = TypeVar("T")



class Busy(MnkError):
    """The pool stayed busy (the queue is full, or the wait ran out): try again later."""


class Replaced(MnkError):
    """A newer request from the same client stopped this search."""


class Gone(ConnectionAbortedError):
    """The client of this search closed its connection: the search left the queue
    without running, or was stopped. Nobody is left to answer."""


class Job:
    """One search: its client, what it computes (``kind``), its watch, when it
    was queued and started (None while waiting), and whether its client has gone."""

    __slots__ = ("client", "kind", "watch", "queued", "started", "gone")

    def __init__(self, client: Optional[str], kind: str) -> None:
        self.client, self.kind = client, kind
        self.watch = Watch()
        self.queued = time.monotonic()
        self.started: Optional[float] = None
        self.gone = False

    def to_dict(self) -> dict[str, Any]:
        """The status of the job: ``state`` (waiting or searching), ``kind``,
        ``nodes`` so far and ``elapsed_s`` since it was queued."""
        return {"state": "waiting" if self.started is None else "searching", "kind": self.kind,
                "nodes": self.watch.nodes, "elapsed_s": round(time.monotonic() - self.queued, 3)}


class Jobs:
    """One search at a time, a bounded queue, replaced searches stopped (see the module doc);
    ``max_waiting`` and ``wait_s`` default to the settings ``SERVE_MAX_WAITING`` and ``SERVE_WAIT_S``."""

    def __init__(self, max_waiting: Optional[int] = None, wait_s: Optional[float] = None) -> None:
        self.max_waiting = current().SERVE_MAX_WAITING if max_waiting is None else max_waiting
        self.wait_s = current().SERVE_WAIT_S if wait_s is None else wait_s
        self._cond = threading.Condition()
        self._running: Optional[Job] = None
        self._waiting: list[Job] = []
        self._latest: dict[str, Job] = {}   # client -> its newest job, running or waiting
        self.searches = 0                   # searches run since the start (for the tests)

    def run(self, client: Optional[str], kind: str, search: Callable[[Watch], T],
            gone: Optional[Callable[[], bool]] = None) -> T:
        """``search(watch)`` once the pool is free, stopping ``client``'s earlier
        search first; raises :class:`Busy` or :class:`Replaced` (see the module doc).
        ``gone()``, when given, is asked every ``SERVE_POLL_S`` seconds (in a thread of its
        own) until the search ends: once it is true the search leaves the queue or
        is stopped, and :class:`Gone` is raised."""
        job = Job(client, kind)
        ended = threading.Event()
        if gone is not None:
            threading.Thread(target=self._drop_when, args=(job, gone, ended), daemon=True,
                             name=f"jobs: is the client of this {kind} there").start()
        try:
            self._enter(job)
            try:
                answer = search(job.watch)
            finally:
                with self._cond:
                    self._running = None
                    if client is not None and self._latest.get(client) is job:
                        del self._latest[client]
                    self._cond.notify_all()
        finally:
            ended.set()
        if job.gone:
            raise Gone("the client closed its connection: its search was stopped")
        if job.watch.stopped:
            raise Replaced("stopped: a newer request from the same page replaced this one")
        return answer

    def _drop_when(self, job: Job, gone: Callable[[], bool], ended: threading.Event) -> None:
        """Ask ``gone()`` every ``SERVE_POLL_S`` seconds until ``ended`` is set; once it is
        true, mark ``job`` gone, stop its watch and wake the queue (a waiting job
        leaves it, a running search stops as at its time limit)."""
        while not ended.wait(current().SERVE_POLL_S):
            if gone():
                with self._cond:
                    job.gone = True
                    job.watch.stop()
                    self._cond.notify_all()
                return

    def _enter(self, job: Job) -> None:
        """Queue ``job`` (stopping its client's earlier one) and wait for its turn; it is running on return."""
        client = job.client
        with self._cond:
            if client is not None and client in self._latest:
                self._latest.pop(client).watch.stop()
                self._cond.notify_all()
            if len(self._waiting) >= self.max_waiting:
                raise Busy(f"busy: {len(self._waiting)} searches are waiting already; try again later")
            if client is not None:
                self._latest[client] = job
            self._waiting.append(job)
            deadline = job.queued + self.wait_s
            try:
                while not job.watch.stopped and (self._running is not None or self._waiting[0] is not job):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise Busy(f"busy: another search held the pool for the {self.wait_s:g} s this one "
                                   f"may wait; try again later")
                    self._cond.wait(left)
                if job.gone:
                    raise Gone("the client closed its connection while its search waited")
            except BaseException:
                self._forget(job)
                raise
            self._waiting.remove(job)
            if job.watch.stopped:
                self._cond.notify_all()
                raise Replaced("stopped: a newer request from the same page replaced this one")
            job.started = time.monotonic()
            self._running = job
            self.searches += 1

    def _forget(self, job: Job) -> None:
        """Take a job that gives up out of the queue (the lock is held)."""
        self._waiting.remove(job)
        if job.client is not None and self._latest.get(job.client) is job:
            del self._latest[job.client]
        self._cond.notify_all()

    def status(self, client: Optional[str]) -> dict[str, Any]:
        """What ``client``'s search is doing (``state`` ``idle`` when it has none),
        and how many searches are running and waiting in all."""
        with self._cond:
            job = None if client is None else self._latest.get(client)
            mine = {"state": "idle"} if job is None else job.to_dict()
            return {**mine, "running": int(self._running is not None), "waiting": len(self._waiting)}

    def stop_all(self) -> None:
        """Stop the running search and every waiting one (the server is closing)."""
        with self._cond:
            for job in [*self._waiting, *([self._running] if self._running else [])]:
                job.watch.stop()
            self._cond.notify_all()
