"""What a caller asks of a search: :class:`Limit` (when to stop, as python-chess'
``chess.engine.Limit``), :class:`SolveOptions` (everything else a solve needs,
validated once by :func:`parallel_mnk.frontends.solver.solve` and passed down as one object)
and :class:`Watch` (a handle another thread stops a search with and reads its
node count from).
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

from ..game.rules import GameSpec, MnkError, UnsupportedError
from ..settings import DFPN_AUTO_MIN_EMPTY, LOCAL_WORKERS_PER_CPU, MAX_CLUSTER_WORKERS

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from ..game.position import Position

MAX_SPLIT_DEPTH = 8
BACKENDS = ("process", "thread", "ray")
PROVERS = ("auto", "search", "dfpn", "pn")


def max_workers(backend: str) -> int:
    """The most workers a solve on ``backend`` may ask for: ``MAX_CLUSTER_WORKERS``
    on Ray; on this machine's pools ``LOCAL_WORKERS_PER_CPU`` per CPU this process
    may use, and at least 64 (more only time-share the same cores, each with its
    own copy of the kernels)."""
    if backend == "ray":
        return MAX_CLUSTER_WORKERS
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this OS
        cpus = os.cpu_count() or 1
    return max(64, LOCAL_WORKERS_PER_CPU * cpus)


def check_workers(workers: object, backend: str = "process", name: str = "workers") -> None:
    """Raise :class:`MnkError` (about ``name``) unless ``workers`` is an int from 1 to :func:`max_workers`."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MnkError(f"{name} must be at least 1, got {workers!r}")
    if workers > max_workers(backend):
        raise MnkError(f"{name} must be at most {max_workers(backend)} on the {backend} backend (this machine), "
                       f"got {workers}")


@dataclass(frozen=True)
class Limit:
    """When a search stops. Any of:

    * ``time``: seconds of wall time;
    * ``depth``: plies (the depth-limited engine only; an exact solve has no depth);
    * ``nodes``: nodes searched (checked every 1024 nodes; a parallel solve checks
      its workers' nodes as their tasks finish, so it may overshoot by what the
      running tasks search meanwhile).

    An exact solve stopped by its limit answers ``unknown``, never a guess; the
    depth-limited engine answers with the deepest iteration it finished.
    """

    time: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None

    def __post_init__(self) -> None:
        if self.time is not None and not self.time > 0:
            raise MnkError(f"the time limit must be positive, got {self.time}")
        if self.depth is not None and (isinstance(self.depth, bool) or not isinstance(self.depth, int)
                                       or self.depth < 1):
            raise MnkError(f"the depth limit must be a whole number of plies, at least 1, got {self.depth!r}")
        if self.nodes is not None and (isinstance(self.nodes, bool) or not isinstance(self.nodes, int)
                                       or self.nodes < 1):
            raise MnkError(f"the node limit must be a whole number, at least 1, got {self.nodes!r}")

    @staticmethod
    def of(limit: Optional["Limit"] = None, time: Optional[float] = None, depth: Optional[int] = None) -> "Limit":
        """``limit`` merged with the older keyword arguments ``time_limit=`` and
        ``depth=`` (either way of giving one value, not both)."""
        limit = limit if limit is not None else Limit()
        if not isinstance(limit, Limit):
            raise MnkError(f"limit must be a Limit(time=, depth=, nodes=), got {limit!r}")
        if time is not None:
            if limit.time is not None:
                raise MnkError("give the time limit once: as Limit(time=...) or as time_limit=")
            limit = Limit(time, limit.depth, limit.nodes)
        if depth is not None:
            if limit.depth is not None:
                raise MnkError("give the depth once: as Limit(depth=...) or as depth=")
            limit = Limit(limit.time, depth, limit.nodes)
        return limit


class Watch:
    """A running search seen from another thread: :meth:`stop` ends it as a time
    limit would (an exact search answers ``unknown``, the depth-limited engine its
    deepest finished iteration), and :attr:`nodes` is its node count so far,
    refreshed about ten times a second (a web page's status line).

    Give the same watch to :func:`parallel_mnk.solve`, :func:`parallel_mnk.analyze`
    or :func:`parallel_mnk.best_move` (``watch=``); a stopped watch stays stopped.
    """

    def __init__(self) -> None:
        self._stop = threading.Event()
        self.base = 0     # nodes of the searches finished before the running one (an analysis's earlier moves)
        self.nodes = 0

    def stop(self) -> None:
        """Ask the search to stop (it does within about a tenth of a second)."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        """True once :meth:`stop` was called."""
        return self._stop.is_set()

    def count(self, nodes: int) -> None:
        """The running search has searched ``nodes`` nodes (``base`` is added)."""
        self.nodes = self.base + nodes


@dataclass(frozen=True)
class SolveOptions:
    """How :func:`parallel_mnk.solve` runs (see its docstring for each field).

    ``tt_bits`` is resolved (log2 of the table's entry count); ``split_depth``
    None is the adaptive split; ``serial_budget`` None the coordinator's default.
    """

    weak: bool = False
    limit: Limit = field(default_factory=Limit)
    workers: int = 1
    tt_bits: int = 22
    pv: bool = True
    progress: Optional[bool] = None
    split_depth: Optional[int] = None
    serial_budget: Optional[int] = None
    backend: str = "process"
    address: Optional[str] = None
    checkpoint: Optional[Union[str, Path]] = None
    watch: Optional[Watch] = None
    prover: str = "auto"

    def __post_init__(self) -> None:
        if self.prover not in PROVERS:
            raise MnkError(f"unknown prover {self.prover!r} ({', '.join(PROVERS)})")
        if self.prover == "dfpn" and not self.weak:
            raise UnsupportedError("df-pn answers win, draw or loss only: ask a weak solve")
        if self.prover == "dfpn" and self.parallel:
            raise UnsupportedError("df-pn runs in one process: one worker, the process backend, no checkpoint")
        if self.prover == "pn" and not self.weak:
            raise UnsupportedError("the proof-number prover answers win, draw or loss only: ask a weak solve "
                                   "(--weak)")
        if self.prover == "pn" and self.checkpoint is not None:
            raise UnsupportedError("the proof-number prover does not journal yet: no --checkpoint")
        check_workers(self.workers, self.backend)
        if self.limit.depth is not None:
            raise UnsupportedError("an exact solve has no depth limit (use Limit(time=) or Limit(nodes=); "
                                   "best_move takes a depth)")
        if self.split_depth is not None and not 0 <= self.split_depth <= MAX_SPLIT_DEPTH:
            raise MnkError(f"split depth must be between 0 and {MAX_SPLIT_DEPTH}, got {self.split_depth}")
        if self.serial_budget is not None and self.serial_budget < 0:
            raise MnkError(f"the serial budget must be 0 or more nodes, got {self.serial_budget}")
        if self.backend not in BACKENDS:
            raise MnkError(f"unknown backend {self.backend!r} ({' or '.join(BACKENDS)})")
        if self.address is not None and self.backend != "ray":
            raise MnkError("an address is only for the ray backend")
        if self.split_depth == 0 and self.backend == "ray":
            raise MnkError("Lazy SMP (split depth 0) needs one shared table (the process or thread pool), not the "
                           "ray backend")

    def may_ask_dfpn(self, spec: GameSpec) -> bool:
        """Whether a solve of a position of ``spec`` with these options may ask df-pn
        first (:meth:`dfpn_first`), so needs df-pn's kernels: a weak serial solve of
        free placement whose prover is not ``"search"``."""
        return self.weak and not self.parallel and not spec.gravity and self.prover != "search"

    def may_ask_pn(self, spec: GameSpec) -> bool:
        """Whether a solve of a position of ``spec`` with these options may use the
        proof-number prover (:meth:`pn_first`), so needs its kernels."""
        return self.prover == "pn" and not spec.gravity

    def pn_first(self, position: Position) -> bool:
        """Whether the solve of ``position`` asks the proof-number prover
        (``prover="pn"``: a weak solve of free placement; on workers by jobs when
        :attr:`parallel`)."""
        return self.prover == "pn"

    def dfpn_first(self, position: Position) -> bool:
        """Whether the serial solve of ``position`` asks df-pn first: always with
        ``prover="dfpn"``; with ``"auto"``, a weak question about a free-placement
        position that is not the empty board (there alpha-beta with strategy
        stealing and the pairing scan are faster) with at least
        ``DFPN_AUTO_MIN_EMPTY`` empty cells (on smaller ones alpha-beta is as fast)."""
        spec = position.spec
        if self.prover == "dfpn":
            return True
        return (self.prover == "auto" and self.weak and not spec.gravity and position.ply > 0
                and spec.cells - position.ply >= DFPN_AUTO_MIN_EMPTY)

    @property
    def parallel(self) -> bool:
        """Whether the solve runs on a backend of workers (more than one worker,
        the thread or Ray backend, or a checkpoint journal) rather than serially here."""
        return self.workers > 1 or self.backend != "process" or self.checkpoint is not None
