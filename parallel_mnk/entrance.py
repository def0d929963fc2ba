"""The library's entrance: :func:`solve`, :func:`analyze`, :func:`best_move` and
:func:`build_book`, with what they take (:class:`Limit`, :class:`Options`,
:class:`Watch`) and what they answer (:class:`SolveResult`, :class:`Analysis`,
:class:`LimitedResult`). As python-chess' ``engine.analyse(board, limit)``::

    solve(position, limit=None, *, weak=False, options=None) -> SolveResult

The front ends (the command line, the web server, the game) build a
:class:`Limit` and an :class:`Options` once from what they are given and call
these. Each function checks what it is given first (one :class:`MnkError` line:
:class:`OptionError` for a wrong argument, :class:`UnsupportedError` for an
option it does not use), then loads the kernels its search needs, once
(:class:`KernelLoad`: the compile or load is never counted in a time limit, and
said on stderr when it compiles), then runs the engine: serial or on a pool,
exact up to 64 cells or the big-board search past them. Everything below this
module is the engines' and the pools'.
"""
from __future__ import annotations

import functools
import os
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional, TypeVar, Union

from .api.options import Limit, Options, SolveOptions, Watch
from .api.settings import Settings, applied, current
from .api.results import Analysis, LimitedResult, MoveAnalysis, SolveResult, WorkerStats
from .engines.analysis import first_entries, search_big, search_serial
from .engines.book_answers import book_result
from .engines.books.choose import open_book
from .engines.books.store import BookFile
from .engines.exact.big import solve_big
from .engines.exact.search import terminal_result
from .engines.limited import LimitedSearch, check_search
from .engines.provers.big_draws import draw_answer
from .engines.provers.pns import check_game
from .engines.serial import solve_serial
from .game.geometry import winning_cells
from .game.moves import Move
from .game.position import Position
from .game.rules import GameSpec, MnkError, OptionError, UnsupportedError, Value, generic_bounds, parse_cell
from .parallel.scheduling import registry
from .parallel.scheduling.driver import solve_parallel
from .parallel.uses.big import solve_big_parallel
from .parallel.uses.big_pn_solve import solve_big_pn
from .parallel.uses.book_build import BuildReport, build
from .parallel.uses.campaign import Campaign, run_campaign
from .parallel.uses.certify import certify
from .parallel.uses.pn_jobs import solve_pn
from .parallel.uses.limited import best_move_parallel
from .runtime import families
from .runtime.ttable import resolve_tt_bits, tt_bits_for_size

__all__ = ["solve", "analyze", "best_move", "build_book", "Limit", "Options", "Settings", "Watch", "SolveResult",
           "Analysis", "MoveAnalysis", "LimitedResult", "WorkerStats", "start_backend", "shutdown"]
F = TypeVar("F", bound=Callable)


def _with_settings(function: F) -> F:
    """Run ``function`` (one of the library's functions, which take ``options=`` by
    keyword) with its options' runtime settings in force in this process
    (:func:`parallel_mnk.api.settings.applied`; none given: those in force now). A
    wrong ``options`` passes through, for the function's own check."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        options = kwargs.get("options")
        with applied(options.settings if isinstance(options, Options) else None):
            return function(*args, **kwargs)
    return run  # type: ignore[return-value]


@_with_settings
def solve(position: Position, limit: Optional[Limit] = None, *, weak: bool = False,
          options: Optional[Options] = None) -> SolveResult:
    """Solve ``position`` for the side to move: value, exact score, best move, line.

    ``limit``: a :class:`Limit` (``time`` seconds, ``nodes``); past it the value is
    ``unknown``, never a guess, with ``bounds`` (the scores still possible) and the
    best move so far. ``weak``: only win/draw/loss (faster; ``score`` is None).
    ``options``: :class:`Options` (workers, backend, table, prover, book,
    certificate, checkpoint, progress, watch ...; see there). A solve with an
    ``options.certificate`` folder writes the value's certificates there once the
    value is proved (``certificates`` lists them; empty when the limit left the
    value unknown; the book is not used then). Raises :class:`MnkError` for what
    cannot be solved or asked.
    """
    opts = prepare("solve", _position(position, "solve").spec, limit, weak, options)
    kernels = KernelLoad(position.spec, opts, position)   # loaded at the first need: a book answer may need none
    result: Optional[SolveResult] = None
    for answer in _answerers(position.spec, opts, kernels):   # an opening book, then the search
        result = answer(position, opts)
        if result is not None:
            break
    assert result is not None, "the search always answers"
    if not result.value.known and not position.is_game_over():   # what an engine that said nothing so far
        if result.bounds is None:                                  # proved: nothing; where it begins
            result.bounds = (-1, 1) if opts.weak else generic_bounds(position.spec.cells, position.ply)
        if result.best_move is None:
            result.best_move = first_choice(position)
    result.startup_s = kernels.seconds
    result.to_move = position.turn
    result.settings = current()
    return result


def first_choice(position: Position) -> Move:
    """A move for a position no search has said anything of (not over): a win at once,
    else a block of the opponent's win in one, else the legal move nearest the centre
    (the first one of a search's usual order)."""
    spec = position.spec
    own, opp = position.stones()
    playable = 0
    for move in position.legal_moves:
        playable |= 1 << position.cell_of_move(move)
    for stones in (own, opp):
        wins = winning_cells(stones, playable, spec.rows, spec.cols, spec.k)
        if wins:
            return position.move_of_cell((wins & -wins).bit_length() - 1)

    def off_centre(move: Move) -> float:
        cell = position.cell_of_move(move)
        return abs(cell % spec.cols - (spec.cols - 1) / 2) + abs(cell // spec.cols - (spec.rows - 1) / 2)

    return min(position.legal_moves, key=off_centre)


Answerer = Callable[[Position, SolveOptions], Optional[SolveResult]]


def _answerers(spec: GameSpec, opts: SolveOptions, kernels: "KernelLoad") -> list[Answerer]:
    """Who answers a solve of a position of ``spec`` with ``opts``, asked in turn until one
    does: an opening book where one is asked and no certificate or checkpoint is (None
    when it does not cover the position: :mod:`parallel_mnk.engines.book_answers`); then
    the search, the kernels loaded first: past 64 cells a draw by two pairings at the root
    (:mod:`parallel_mnk.engines.provers.big_draws`), else the big-board search
    (:mod:`parallel_mnk.engines.exact.big`, on the pool with workers), else the serial
    search (:func:`~parallel_mnk.engines.serial.solve_serial`) or the parallel one
    (:func:`~parallel_mnk.parallel.scheduling.driver.solve_parallel`, where
    ``opts.parallel``), and with a certificate folder the value's certificates after it
    (:func:`~parallel_mnk.parallel.uses.certify.certify`); or, where the options ask the
    proof-number prover, that prover (by jobs, on one thread of this process with one
    worker, else on the pool: :mod:`parallel_mnk.parallel.uses.pn_jobs`), which writes
    its own certificates from what it proved."""
    if not spec.exact_solvable:
        search: Answerer = solve_big_parallel if opts.workers > 1 else solve_big
    else:
        search = solve_parallel if opts.parallel else solve_serial

    def searched(position: Position, opts: SolveOptions) -> Optional[SolveResult]:
        by_pn = opts.pn_first(position)
        kernels.load()
        folder = None if opts.certificate is None else Path(opts.certificate)
        if by_pn:   # (the proof-number prover writes its certificates)
            return solve_pn(position, opts, folder) if spec.exact_solvable else solve_big_pn(position, opts, folder)
        result = (None if spec.exact_solvable else draw_answer(position, opts)) or search(position, opts)
        if result is not None and folder is not None:
            certify(position, result, opts, folder)
        return result

    def from_book(position: Position, opts: SolveOptions) -> Optional[SolveResult]:
        book = open_book(position.spec, _book_choice(opts))
        if book is None:
            return None
        if book.covers(position):
            kernels.load_also(book.families)   # the book's own searches: before the clock starts
        tail = (families.exact_family(position.spec),)   # the line past the book: a serial search
        return book_result(position, book, opts, lambda: kernels.load_also(tail),
                           lambda: families.cached(*tail) == set(tail))

    booked = opts.book is not None and opts.certificate is None and opts.checkpoint is None and spec.exact_solvable
    return [from_book, searched] if booked else [searched]


@_with_settings
def analyze(position: Position, limit: Optional[Limit] = None, *, weak: bool = False,
            options: Optional[Options] = None) -> Analysis:
    """Value and score of every legal move of ``position``, for the side to move
    (:mod:`parallel_mnk.engines.analysis`: a move's score is the win score if it
    wins at once, else minus the opponent's exact score after it, as Pons' ``-a``).

    ``limit``: ``Limit(time=S)`` for the whole analysis: moves not solved by then
    are ``unknown``. ``options``: ``workers`` 1 searches the moves one after
    another on one table (past 64 cells always, whatever ``workers`` says); more
    solve each move on the process pool (``split_depth`` as for :func:`solve`);
    ``tt_size``, ``progress`` (serial only), ``watch`` (moves not solved when it
    stops are ``unknown``), ``book`` (scores the moves whose positions it covers),
    ``prover``: ``"pn"`` (``weak`` only, free placement up to 64 cells) solves each
    move by the proof-number prover (by jobs on ``workers``, as :func:`solve`);
    ``"search"`` and ``"auto"`` (the default), alpha-beta: its moves share one table,
    and it settled more of them than the pn prover where measured (bench/README.md,
    "Analyze by the proof-number prover").
    """
    opts = prepare("analyze", _position(position, "analyze").spec, limit, weak, options)
    started = time.perf_counter()
    pos = position.copy()
    if pos.is_game_over():
        done = terminal_result(pos, started)
        return Analysis(pos, [], weak, 0, time.perf_counter() - started, terminal=True,
                        terminal_score=done.score, workers=opts.workers, settings=current())
    entries, to_search = first_entries(pos, weak, open_book(pos.spec, _book_choice(opts)))
    by_pn = weak and pos.spec.exact_solvable and opts.prover == "pn"
    loaded = SolveOptions.of(Options(workers=opts.workers, prover="pn" if by_pn else "search"), weak, opts.limit)
    startup = KernelLoad(pos.spec, loaded).load() if to_search else 0.0
    started += startup   # the clock of the time limit, and time_s, leave out the kernels' start-up
    nodes = sum(e.nodes for e in entries.values())   # the book's searches
    if not to_search:
        pass
    elif not pos.spec.exact_solvable:
        nodes += search_big(pos, to_search, entries, opts, started)
    elif opts.workers == 1 and not by_pn:
        nodes += search_serial(pos, to_search, entries, opts, started)
    else:
        nodes += _analyze_each(to_search, entries, opts, started, by_pn)
    moves = [entries.get(m) or MoveAnalysis(pos.spec, m, Value.UNKNOWN, None) for m in pos.legal_moves]
    return Analysis(pos, moves, weak, nodes, time.perf_counter() - started, workers=opts.workers, startup_s=startup,
                    settings=current())


def _analyze_each(to_search, entries, opts: SolveOptions, started: float, by_pn: bool) -> int:
    """Each child solved in turn within what is left of the time, by the proof-number
    prover (``by_pn``) or a parallel solve; returns the nodes."""
    nodes = 0
    deadline = None if opts.limit.time is None else started + opts.limit.time
    watch = opts.watch
    for move, child in to_search:
        left = None if deadline is None else deadline - time.perf_counter()
        if (left is not None and left <= 0) or (watch is not None and watch.stopped):
            break
        if watch is not None:
            watch.base = nodes
        t0 = time.perf_counter()
        how = Options(workers=opts.workers, prover="pn", watch=watch, pv=False, progress=False) if by_pn else \
            Options(workers=opts.workers, split_depth=opts.split_depth, watch=watch, pv=False, progress=False)
        child_opts = SolveOptions.of(how, opts.weak, Limit(time=left), opts.tt_bits)
        r = solve_pn(child, child_opts) if by_pn else solve_parallel(child, child_opts)
        nodes += r.nodes
        if not r.value.known:
            break
        score = None if opts.weak or r.score is None else -r.score
        entries[move] = MoveAnalysis(child.spec, move, r.value.negated(), score, r.nodes, time.perf_counter() - t0)
    return nodes


def prepare_best(position: Position, limit: Optional[Limit] = None, options: Optional[Options] = None) -> Options:
    """The options :func:`best_move` of ``position`` runs with, every argument checked
    (:class:`MnkError`, one line: a game over, a depth past the deepest, a negative
    width, an option it does not take) before any search or kernel, so that a front
    end can refuse bad input at once (:func:`best_move` calls it itself)."""
    _position(position, "best_move")
    options = _checked(limit, options)
    options.refuse("best_move", "backend", "address", "prover", "book", "certificate", "checkpoint", "progress",
                   "split_depth", "serial_budget", "pv")
    check_search(position, limit, options.width)
    return options


@_with_settings
def best_move(position: Position, limit: Optional[Limit] = None, *, options: Optional[Options] = None) -> LimitedResult:
    """A strong move for the side to move by depth-limited search (any board up to
    26x26): a search for a forced win by fours (and threes) first, then iterative
    deepening up to ``limit`` (``Limit(depth=, time=, nodes=)``; default 4 plies),
    the deepest finished iteration giving the move (depth 1 always completes).
    ``options``: ``workers`` (> 1: each iteration's root moves on the process
    pool), ``width`` (moves tried per node), ``tt_size`` (its table; default 2**20
    entries), ``watch`` (stops it as a time limit would). Raises :class:`MnkError`
    if the game is over.
    """
    options = prepare_best(position, limit, options)
    bits = current().LIMITED_TT_BITS if options.tt_size is None else tt_bits_for_size(options.tt_size)
    families.load("grid", aside=families.outside_the_limit(None if limit is None else limit.time))
    search = LimitedSearch(position, limit, options.width, bits, options.watch)
    found = search.forcing_win()
    if found is None:
        found = best_move_parallel(search, options.workers) if options.workers > 1 else search.iterate()
    found.to_move = position.turn
    found.settings = current()
    return found


@_with_settings
def build_book(spec: GameSpec, plies: int, out: Union[str, Path], *, options: Optional[Options] = None,
               resume: bool = False, task_nodes: int = 200_000_000) -> tuple[BookFile, BuildReport]:
    """Build the opening book of ``spec`` up to ``plies`` stones into the SQLite file
    ``out`` (:mod:`parallel_mnk.parallel.uses.book_build`): every position, one per
    symmetry class, with its exact score and a best move. ``options``: ``workers``
    processes of ``backend`` (``"ray"``: ``address`` of a cluster) solve the last
    ply's positions, one a task (``task_nodes``: past it a position is solved by the
    whole pool's split); ``tt_size``, ``progress``; ``book``: read the leaves from
    that opening book where it covers them (``"auto"``: Thill's for Connect Four when
    installed). ``resume`` continues the build in ``out`` (a killed build loses no
    finished entry). Returns the book (open) and what the build did. Raises
    :class:`MnkError` for plies beyond the board, a file that is not this book, or
    options that do not go together."""
    if not isinstance(spec, GameSpec):
        raise OptionError(f"build_book takes a GameSpec, got {_shown(spec)}")
    options = _checked(None, options)
    options.refuse("build_book", "prover", "certificate", "checkpoint", "split_depth", "serial_budget", "watch",
                   "pv", "width")
    spec.require_exact()
    if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies < spec.cells:
        raise OptionError(f"plies must be between 0 and {spec.cells - 1} on {spec.describe()}, got {plies!r}")
    bits = resolve_tt_bits(None, options.tt_size, spec.cells, spec.gravity, options.workers)
    leaves = open_book(spec, _book_choice(options))   # loaded before the pool forks, so the workers share it
    KernelLoad(spec, SolveOptions(workers=options.workers, backend=options.backend)).load()
    new = not Path(out).exists()
    book = BookFile.create(out, spec, plies, resume)
    try:
        report = build(book, workers=options.workers, backend=options.backend, address=options.address,
                       tt_bits=bits, task_nodes=task_nodes, leaf_book=None if leaves is None else _book_choice(options),
                       progress=options.progress)
    except BaseException:
        empty = new and not book.keys()
        book.close()
        if empty:   # nothing was built (no Ray, say): leave no file that a rerun would have to --checkpoint
            for suffix in ("", "-wal", "-shm"):
                Path(f"{out}{suffix}").unlink(missing_ok=True)
        raise
    return book, report


class KernelLoad:
    """The kernel families of one solve (of ``position``, when given:
    :func:`parallel_mnk.runtime.families.load_for_solve`), loaded once, at :meth:`load`'s first call; ``seconds`` is what that load took
    (compiling or reading the cache), 0 until then. Every solve, analysis and book
    build loads its kernels through one of these, before its clock starts."""

    def __init__(self, spec: GameSpec, opts: SolveOptions = SolveOptions(), position: Optional[Position] = None) -> None:
        self.spec, self.opts, self.position = spec, opts, position
        self.seconds = 0.0
        self.loaded = False

    def load(self) -> float:
        """Load the families (the first call only); the seconds it took (with those
        of :meth:`load_also`)."""
        if not self.loaded:
            self.seconds += families.load_for_solve(self.spec, self.opts, position=self.position).seconds
            self.loaded = True
        return self.seconds

    def load_also(self, names: tuple[str, ...]) -> float:
        """Load the families ``names`` too (an opening book's, or only what a book's line
        needs), their seconds added to :attr:`seconds`; the seconds this call took (0
        when they were loaded)."""
        took = families.load(*names, aside=families.outside_the_limit(self.opts.limit.time)) if names else 0.0
        self.seconds += took
        return took


@_with_settings
def campaign(spec: GameSpec, first: Optional[str], folder: Union[str, Path], limit: Optional[Limit] = None, *,
             options: Optional[Options] = None) -> Campaign:
    """Prove "x wins from the empty board" of ``spec`` (free placement past 64 cells) in
    ``folder``, x's ``first`` move fixed (None: the centre), o's replies class by class
    (:mod:`parallel_mnk.parallel.uses.campaign`); resumed from the folder, stopped by
    ``limit`` (time, nodes); ``options``: ``workers``, ``backend``, ``address``,
    ``progress``. Returns the campaign (its state: each class's figures)."""
    options = _checked(limit, options)
    options.refuse("campaign", "prover", "certificate", "checkpoint", "book", "watch", "split_depth")
    cell = (spec.rows // 2) * spec.cols + spec.cols // 2 if first is None else parse_cell(spec, first)
    lim = limit or Limit()
    return run_campaign(spec, cell, Path(folder), options.workers, options.backend, options.address, lim.time,
                        lim.nodes, options.progress)


def start_backend(backend: str, workers: int, tt_bits: int, address: Optional[str] = None) -> float:
    """Start the parallel ``backend`` now (a local Ray takes seconds), so that the
    first solve's clock does not count it; returns the seconds it took."""
    t = time.perf_counter()
    registry.get_coordinator(backend, workers, tt_bits, address)
    return time.perf_counter() - t


def shutdown() -> None:
    """Stop the worker pool and the Ray backend of this process, if any (they are
    kept between solves; they also stop when the process exits)."""
    registry.shutdown_backends()


# ------------------------------------------------------------------ the checks
def _shown(value: object) -> str:
    """A value in an error line: its type and a short repr."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _position(position: object, what: str) -> Position:
    """``position``, once it is a :class:`Position` (:class:`OptionError` otherwise)."""
    if not isinstance(position, Position):
        hint = " (Position(spec) is its empty board)" if isinstance(position, GameSpec) else ""
        raise OptionError(f"{what} takes a Position{hint}, got {_shown(position)}")
    return position


def _checked(limit: object, options: object) -> Options:
    """``options`` (None: the defaults), once ``limit`` and ``options`` are of their
    types (:class:`OptionError` otherwise, with what was meant)."""
    if limit is not None and not isinstance(limit, Limit):
        hint = f" (Limit(time={limit}) for {limit} seconds)" if isinstance(limit, (int, float)) else ""
        raise OptionError(f"limit must be a Limit(time=, nodes=, depth=){hint}, got {_shown(limit)}")
    if options is None:
        return Options()
    if not isinstance(options, Options):
        raise OptionError(f"options must be an Options(...), got {_shown(options)}")
    return options


def prepare(what: str, spec: GameSpec, limit: Optional[Limit] = None, weak: bool = False,
            options: Optional[Options] = None) -> SolveOptions:
    """What a ``what`` (``"solve"`` or ``"analyze"``) of a position of ``spec`` runs
    with: the arguments checked, the options that do not go together refused, the
    table resolved for the board and the workers, the book opened, the certificate
    folder made. Every check of :func:`solve` and :func:`analyze` that needs no
    search and no kernel, so that a front end can refuse bad input at once (the
    functions call it themselves)."""
    given = _checked(limit, options)
    if not isinstance(weak, bool):
        raise OptionError(f"weak must be True or False, got {_shown(weak)}")
    bits = resolve_tt_bits(None, given.tt_size, spec.cells, spec.gravity, given.workers)
    opts = SolveOptions.of(given, weak, limit, bits)
    if what == "analyze":
        opts.refuse("analyze", "backend", "address", "certificate", "checkpoint", "serial_budget", "pv", "width")
        if opts.limit.nodes is not None:
            raise UnsupportedError("analyze takes a time limit only (Limit(time=...))")
        if opts.prover == "dfpn":
            raise UnsupportedError("analyze's provers are search, pn and auto (df-pn answers solve's questions)")
    else:
        opts.refuse("solve", "width")
    if opts.prover in ("dfpn", "pn") and spec.gravity:
        raise UnsupportedError(f"the {opts.prover} prover is for free placement; gravity boards are solved by "
                               "alpha-beta (prover search)")
    if opts.prover == "pn" and spec.exact_solvable:
        check_game(spec)
    if opts.prover == "pn" and not spec.exact_solvable and what == "analyze":
        raise UnsupportedError("analyze past 64 cells is the big-board search's; the pn prover past 64 cells "
                               "solves one position (solve --prover pn)")
    if what != "analyze":
        if not spec.exact_solvable:
            _check_big(spec, opts)
        if opts.certificate is not None:
            _check_certifiable(spec, Path(opts.certificate))
        if opts.checkpoint is not None:
            _check_journal_path(Path(opts.checkpoint))
    if opts.book is not None and spec.exact_solvable:
        open_book(spec, _book_choice(opts))   # a file that is not a book, or of another game, refused now
    return opts


def _book_choice(options: Options) -> Optional[str]:
    """The ``book`` option as :func:`~parallel_mnk.engines.books.choose.open_book` takes it."""
    return None if options.book is None else str(options.book)


def _check_big(spec: GameSpec, opts: SolveOptions) -> None:
    """Raise :class:`UnsupportedError` for what a solve past 64 cells cannot be asked."""
    if opts.may_ask_pn(spec):   # (proof-number search over threats: jobs on processes, a journal of its own)
        if opts.backend == "thread":
            raise UnsupportedError("past 64 cells the pn prover's workers are processes (--backend process or ray)")
        return
    if opts.checkpoint is not None or opts.backend != "process":
        raise UnsupportedError("boards over 64 cells are solved on the process pool, without a checkpoint "
                               "(the pn prover keeps a journal: --weak --prover pn, free placement)")
    if opts.prover == "dfpn":
        raise UnsupportedError("the dfpn prover takes boards of at most 64 cells; past them threat-space "
                               "search and alpha-beta prove values (or --prover pn)")


def _check_journal_path(path: Path) -> None:
    """Raise :class:`MnkError` when no journal can be kept at ``path``: a folder, a
    file this process may not read and write, or a new file in a folder that is
    missing or not writable (what is in an existing file is the journal's to judge
    once the position is known)."""
    if path.is_dir():
        raise MnkError(f"checkpoint {path} is a folder: give a file")
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            raise MnkError(f"checkpoint {path} cannot be opened (not readable and writable by this process)")
        return
    folder = path.parent
    if not folder.is_dir():
        raise MnkError(f"checkpoint {path} cannot be made (no folder {folder})")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise MnkError(f"checkpoint {path} cannot be made (the folder {folder} is not writable)")


def _check_certifiable(spec: GameSpec, folder: Path) -> None:
    """Raise :class:`MnkError` when a certificate of a position of ``spec`` cannot be
    written into ``folder`` (checked before any search; the folder is made)."""
    if folder.exists() and not folder.is_dir():
        raise MnkError(f"the certificate folder {folder} is a file: give a folder")
    if spec.cols > 26:
        raise UnsupportedError("certificates name columns a-z: at most 26 columns")
    try:   # made now and written to once, so that a folder that cannot be is refused before the search
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise MnkError(f"the certificate folder {folder}: cannot write there ({e.strerror or e})") from None
