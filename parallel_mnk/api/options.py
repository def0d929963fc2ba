"""What a caller asks of a search, said once each: :class:`Limit` (when to stop, as
python-chess' ``chess.engine.Limit``), :class:`Options` (how it runs: workers,
backend, table, prover, book, certificate, checkpoint, progress ...) and
:class:`Watch` (a handle another thread stops a search with and reads its node
count from). :func:`parallel_mnk.solve`, ``analyze``, ``best_move`` and
``build_book`` take them; the command line builds them once from its options.

:class:`SolveOptions` is what the engines run with: the caller's :class:`Options`
with the question (``weak``), the :class:`Limit` and the table resolved for the
board (``tt_bits``), built by :mod:`parallel_mnk.entrance` (or a test) and
passed down as one object. Every check here raises :class:`OptionError` (or
:class:`UnsupportedError` for what does not go together), one line each.
"""
from __future__ import annotations

import math
import os
import re
import threading
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Optional, Union

from ..game.rules import GameSpec, OptionError, UnsupportedError
from .settings import Settings, current

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from ..game.position import Position

MAX_SPLIT_DEPTH = 8
BACKENDS = ("process", "thread", "ray")
PROVERS = ("auto", "search", "dfpn", "pn")
PathLike = Union[str, "os.PathLike[str]"]


def max_workers(backend: str, settings: Optional[Settings] = None) -> int:
    """The most workers a solve on ``backend`` may ask for: ``MAX_CLUSTER_WORKERS``
    on Ray; on this machine's pools ``LOCAL_WORKERS_PER_CPU`` per CPU this process
    may use, and at least 64 (more only time-share the same cores, each with its
    own copy of the kernels); the settings ``settings`` (None: those in force)."""
    settings = current() if settings is None else settings
    if backend == "ray":
        return settings.MAX_CLUSTER_WORKERS
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this OS
        cpus = os.cpu_count() or 1
    return max(64, settings.LOCAL_WORKERS_PER_CPU * cpus)


def check_workers(workers: object, backend: str = "process", name: str = "workers",
                  settings: Optional[Settings] = None) -> None:
    """Raise :class:`OptionError` (about ``name``) unless ``workers`` is an int from 1 to :func:`max_workers`."""
    most = max_workers(backend, settings)
    if not _is_int(workers):
        raise OptionError(f"{name} must be a whole number, at least 1, got {workers!r}")
    if workers < 1:   # type: ignore[operator]
        raise OptionError(f"{name} must be at least 1, got {workers!r}")
    if workers > most:   # type: ignore[operator]
        raise OptionError(f"{name} must be at most {most} on the {backend} backend (this machine), "
                          f"got {workers}")


def parse_size(text: str) -> int:
    """Bytes of a size such as ``512M``, ``2G``, ``1.5g``, ``64KiB`` or ``1048576``
    (binary units: K = 1024; a B or iB suffix is allowed)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*", str(text).lower())
    if m is None or (m.group(3) == "ib" and not m.group(2)):
        raise OptionError(f"bad size {text!r}: give bytes or a number with K, M, G or T (binary units), "
                          "like 512M or 2G")
    value = float(m.group(1)) * (1 << (10 * "_kmgt".index(m.group(2) or "_")))
    if not 0 < value < 2**62:
        raise OptionError(f"bad size {text!r}: it must be positive")
    return int(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise OptionError(message)


@dataclass(frozen=True)
class Limit:
    """When a search stops. Any of:

    * ``time``: seconds of wall time (the kernels' compile or load before the
      search is not counted);
    * ``depth``: plies (the depth-limited engine, :func:`parallel_mnk.best_move`,
      only: an exact solve has no depth);
    * ``nodes``: nodes searched (checked every 1024 nodes; a parallel solve checks
      its workers' nodes as their tasks finish, so it may overshoot by what the
      running tasks search meanwhile).

    An exact solve stopped by its limit answers ``unknown``, never a guess, with the
    bounds it proved and its best move so far; the depth-limited engine answers
    with the deepest iteration it finished.
    """

    time: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None

    def __post_init__(self) -> None:
        if self.time is not None:
            _check(isinstance(self.time, (int, float)) and not isinstance(self.time, bool)
                   and math.isfinite(self.time) and self.time > 0,
                   f"the time limit must be a positive number of seconds, got {self.time!r}")
        _check(self.depth is None or (_is_int(self.depth) and self.depth >= 1),
               f"the depth limit must be a whole number of plies, at least 1, got {self.depth!r}")
        _check(self.nodes is None or (_is_int(self.nodes) and self.nodes >= 1),
               f"the node limit must be a whole number, at least 1, got {self.nodes!r}")


class Watch:
    """A running search seen from another thread: :meth:`stop` ends it as a time
    limit would (an exact search answers ``unknown``, the depth-limited engine its
    deepest finished iteration), and :attr:`nodes` is its node count so far,
    refreshed about ten times a second (a web page's status line).

    Give it as ``Options(watch=...)`` to :func:`parallel_mnk.solve`,
    :func:`parallel_mnk.analyze` or :func:`parallel_mnk.best_move`; a stopped
    watch stays stopped.
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
class Options:
    """How a search runs; each field said once, every one optional. Checked here (one
    :class:`OptionError` line for a wrong type or range); what a function does not
    use it refuses (``analyze`` writes no certificate, say) rather than ignore.

    * ``workers``: 1 searches in this process; more use a pool of processes sharing
      one table (``best_move``: the root moves on the pool).
    * ``backend``: ``"process"`` (forked workers), ``"thread"`` (threads of this
      process on a table with huge pages; always parallel) or ``"ray"`` (Ray
      tasks, the ``cluster`` extra; always parallel); ``address``: a running Ray
      cluster to join (default a local Ray).
    * ``tt_size``: the transposition table's bytes, or text such as ``"512M"``,
      ``"2G"``: the largest power of two of 8-byte entries that fits; default by
      the board and the workers (32 MiB for 7x6 with gravity, 256 MiB for big free
      boards), at most a quarter of the available memory.
    * ``prover``: what settles a value: ``"search"`` alpha-beta; ``"dfpn"``
      depth-first proof-number search (weak, serial, free placement only, at most
      64 cells); ``"pn"`` the proof-number prover (weak, free placement: with
      relevance zones up to 64 cells, over threats past them); ``"auto"`` (default)
      the pn prover for weak solves of free boards of ``PN_AUTO_MIN_CELLS`` cells or
      more (up to 64 cells off Ray), else df-pn first, capped, for weak serial solves
      of free-placement positions past the first move with enough empty cells, else
      alpha-beta (docs/how-it-works.md, "Which prover").
    * ``book``: an opening book: a book file, ``"auto"`` (Thill's database for
      Connect Four when the ``books`` extra is installed) or ``"none"`` (None, the
      default: none); ``build_book`` reads its leaves from it.
    * ``certificate``: a folder where ``solve`` writes the value's mnk-proof/1
      certificates (with a limit: when the value is proved within it).
    * ``checkpoint``: a journal file from which the same parallel solve run again
      resumes (``build_book``: resume the book's file).
    * ``progress``: a status line on stderr (None, the default: when stderr is a terminal).
    * ``split_depth``: plies of a parallel solve's split tree (1 plain root
      splitting; 0 Lazy SMP; None adaptive); ``serial_budget``: nodes the
      coordinator tries alone before splitting (0: always split; None its default).
    * ``watch``: a :class:`Watch` another thread stops the search with.
    * ``pv``: also the principal variation (the best move is always found).
    * ``width``: ``best_move``'s moves tried per node (0 all; None: all up to 64
      cells, 14 beyond).
    * ``settings``: the runtime settings the search runs with, a
      :class:`~parallel_mnk.api.settings.Settings` (``Settings(SPLIT_MIN_EMPTY=12)``:
      the defaults with one changed); None, the default: those in force in this
      process (the defaults, unless a front end's ``--setting`` changed some).
    """

    workers: int = 1
    backend: str = "process"
    address: Optional[str] = None
    tt_size: Union[int, str, None] = None
    prover: str = "auto"
    book: Optional[PathLike] = None
    certificate: Optional[PathLike] = None
    checkpoint: Optional[PathLike] = None
    progress: Optional[bool] = None
    split_depth: Optional[int] = None
    serial_budget: Optional[int] = None
    watch: Optional[Watch] = None
    pv: bool = True
    width: Optional[int] = None
    settings: Optional[Settings] = None

    def __post_init__(self) -> None:
        _check(self.settings is None or isinstance(self.settings, Settings),
               f"settings must be a Settings(NAME=value, ...), got {self.settings!r}")
        _check(isinstance(self.backend, str) and self.backend in BACKENDS,
               f"unknown backend {self.backend!r} ({', '.join(BACKENDS)})")
        check_workers(self.workers, self.backend, settings=self.settings)
        _check(self.address is None or isinstance(self.address, str), f"address must be text, got {self.address!r}")
        _check(self.address is None or self.backend == "ray", "an address is only for the ray backend")
        if isinstance(self.tt_size, str):
            parse_size(self.tt_size)
        else:
            _check(self.tt_size is None or (_is_int(self.tt_size) and self.tt_size > 0),
                   f"tt_size must be bytes or text such as '512M', got {self.tt_size!r}")
        _check(isinstance(self.prover, str) and self.prover in PROVERS,
               f"unknown prover {self.prover!r} ({', '.join(PROVERS)})")
        for name in ("book", "certificate", "checkpoint"):
            value = getattr(self, name)
            _check(value is None or isinstance(value, (str, os.PathLike)),
                   f"{name} must be a file or folder name, got {value!r}")
        _check(self.progress is None or isinstance(self.progress, bool), f"progress must be True, False or None, "
                                                                         f"got {self.progress!r}")
        _check(self.split_depth is None or (_is_int(self.split_depth) and 0 <= self.split_depth <= MAX_SPLIT_DEPTH),
               f"split depth must be between 0 and {MAX_SPLIT_DEPTH}, got {self.split_depth!r}")
        _check(self.split_depth != 0 or self.backend != "ray",
               "Lazy SMP (split depth 0) needs one shared table (the process or thread pool), not the ray backend")
        _check(self.serial_budget is None or (_is_int(self.serial_budget) and self.serial_budget >= 0),
               f"the serial budget must be 0 or more nodes, got {self.serial_budget!r}")
        _check(self.watch is None or isinstance(self.watch, Watch), f"watch must be a Watch, got {self.watch!r}")
        _check(isinstance(self.pv, bool), f"pv must be True or False, got {self.pv!r}")
        _check(self.width is None or (_is_int(self.width) and self.width >= 0),
               f"width must be 0 (all moves) or more, got {self.width!r}")

    @property
    def settings_in_force(self) -> Settings:
        """The settings a search with these options runs with: :attr:`settings`, else
        those in force in this process (:func:`parallel_mnk.api.settings.current`)."""
        return current() if self.settings is None else self.settings

    @property
    def parallel(self) -> bool:
        """Whether a solve runs on a backend of workers (more than one worker, the
        thread or Ray backend, or a checkpoint journal) rather than serially here."""
        return self.workers > 1 or self.backend != "process" or self.checkpoint is not None

    def given(self) -> dict[str, object]:
        """The fields that differ from their defaults, by name (what a caller set)."""
        return {f.name: getattr(self, f.name) for f in fields(Options) if getattr(self, f.name) != f.default}

    def refuse(self, what: str, *names: str) -> None:
        """Raise :class:`UnsupportedError` when one of the fields ``names`` is set:
        ``what`` (a function) does not use it."""
        given = [n for n in names if n in self.given()]
        if given:
            raise UnsupportedError(f"{what} takes no {' or '.join(given)} option")


@dataclass(frozen=True)
class SolveOptions(Options):
    """What an exact solve runs with (:class:`Options` and three more):
    ``weak`` (win, draw or loss only), the :class:`Limit` and ``tt_bits``, the
    table resolved for the board (log2 of its entries). ``split_depth`` None is the
    adaptive split; ``serial_budget`` None the coordinator's default."""

    weak: bool = False
    limit: Limit = field(default_factory=Limit)
    tt_bits: int = 22

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(isinstance(self.weak, bool), f"weak must be True or False, got {self.weak!r}")
        _check(isinstance(self.limit, Limit), f"limit must be a Limit(time=, nodes=), got {self.limit!r}")
        if self.prover == "dfpn" and not self.weak:
            raise UnsupportedError("df-pn answers win, draw or loss only: ask a weak solve")
        if self.prover == "dfpn" and self.parallel:
            raise UnsupportedError("df-pn runs in one process: one worker, the process backend, no checkpoint")
        if self.prover == "pn" and not self.weak:
            raise UnsupportedError("the proof-number prover answers win, draw or loss only: ask a weak solve "
                                   "(--weak)")
        if self.limit.depth is not None:
            raise UnsupportedError("an exact solve has no depth limit (use Limit(time=) or Limit(nodes=); "
                                   "best_move takes a depth)")

    @classmethod
    def of(cls, options: Options, weak: bool = False, limit: Optional[Limit] = None,
           tt_bits: int = 22) -> "SolveOptions":
        """``options`` with the question, the limit and the resolved table."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(Options)}, weak=weak,
                   limit=Limit() if limit is None else limit, tt_bits=tt_bits)

    def may_ask_dfpn(self, spec: GameSpec, position: Optional[Position] = None) -> bool:
        """Whether a solve of a position of ``spec`` (of ``position`` itself, when given)
        with these options may ask df-pn first (:meth:`dfpn_first`), so needs df-pn's
        kernels: a weak serial solve of free placement whose prover is not
        ``"search"`` (with ``"auto"`` and a ``position``, where it asks df-pn)."""
        may = self.weak and not self.parallel and not spec.gravity and self.prover != "search"
        return may and (position is None or self.prover != "auto" or self.dfpn_first(position))

    def may_ask_pn(self, spec: GameSpec) -> bool:
        """Whether a solve of a position of ``spec`` with these options may use the
        proof-number prover (:meth:`pn_first`), so needs its kernels."""
        return not spec.gravity and (self.prover == "pn" or self._pn_by_default(spec))

    def _pn_by_default(self, spec: GameSpec) -> bool:
        """``prover="auto"`` answers by the proof-number prover: a weak solve of a
        free-placement board of ``PN_AUTO_MIN_CELLS`` cells or more: up to 64 cells off
        Ray (there the trees are deep and alpha-beta's order stops settling them),
        past them on any backend (its threat proofs settle what alpha-beta leaves
        unknown, and alpha-beta runs on the process pool alone): bench/README.md,
        "Which prover wins where" and "Threat budgets by the board"."""
        return (self.prover == "auto" and self.weak and not spec.gravity
                and self.settings_in_force.PN_AUTO_MIN_CELLS <= spec.cells
                and (spec.cells > 64 or self.backend != "ray"))

    def pn_first(self, position: Position) -> bool:
        """Whether the solve of ``position`` asks the proof-number prover: with
        ``prover="pn"`` (a weak solve of free placement) and, with ``"auto"``, on the
        boards of :meth:`_pn_by_default`; on workers by jobs when :attr:`parallel`."""
        return self.prover == "pn" or self._pn_by_default(position.spec)

    def dfpn_first(self, position: Position) -> bool:
        """Whether the serial solve of ``position`` asks df-pn first: always with
        ``prover="dfpn"``; with ``"auto"``, a weak question about a free-placement
        position that is not the empty board (there alpha-beta with strategy
        stealing and the pairing scan are faster) with at least
        ``DFPN_AUTO_MIN_EMPTY`` empty cells (on smaller ones alpha-beta is as fast)."""
        spec = position.spec
        if self.prover == "dfpn":
            return True
        return (self.prover == "auto" and not self._pn_by_default(spec) and self.weak and not spec.gravity and position.ply > 0
                and spec.cells - position.ply >= self.settings_in_force.DFPN_AUTO_MIN_EMPTY)
