"""The public entry points of both engines: :func:`solve` (exact) and
:func:`best_move` (depth-limited). Each validates what it is asked once, then
runs the serial engine here or hands the work to a parallel backend; this is
the only module of the front ends that imports :mod:`parallel_mnk.parallel`.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Optional, Union

from ..api.options import Limit, SolveOptions, Watch, check_workers
from ..api.results import LimitedResult, SolveResult, WorkerStats
from ..engines.books.base import Book, BookAnswer
from ..engines.books.choose import open_book
from ..engines.books.store import BookFile
from ..engines.exact.big import solve_big
from ..engines.exact.search import Search
from ..engines.limited import DEFAULT_TT_BITS as LIMITED_TT_BITS
from ..engines.limited import LimitedSearch
from ..engines.provers.big_certificate import extract_big
from ..engines.provers.certificate import claims_of, extract
from ..engines.serial import solve_serial
from ..game.moves import Move, moves_of
from ..game.position import Position
from ..game.rules import GameSpec, MnkError, UnsupportedError, value_of_score
from ..parallel.scheduling import registry
from ..parallel.scheduling.driver import solve_parallel
from ..parallel.uses.big import solve_big_parallel
from ..parallel.uses.book_build import BuildReport, build
from ..parallel.uses.certify import extract_parallel
from ..parallel.uses.limited import best_move_parallel
from ..parallel.uses.pn_jobs import solve_pn_parallel
from ..runtime import families
from ..runtime.ttable import resolve_tt_bits, transposition_table
from ..settings import MOVE_SEARCH_TT_BITS


def solve(position: Position, limit: Optional[Limit] = None, *, weak: bool = False, workers: int = 1,
          pv: bool = True, tt_size: Union[int, str, None] = None, tt_bits: Optional[int] = None,
          progress: Optional[bool] = None, split_depth: Optional[int] = None, serial_budget: Optional[int] = None,
          backend: str = "process", address: Optional[str] = None, checkpoint: Union[str, Path, None] = None,
          time_limit: Optional[float] = None, watch: Optional[Watch] = None, prover: str = "auto",
          book: Union[Book, str, None] = None, certificate: Union[str, Path, None] = None) -> SolveResult:
    """Solve ``position`` for the side to move: value, exact score, best move, line.

    ``limit``: :class:`Limit` (``time`` seconds, ``nodes``); past it the value is
    ``unknown``, never a guess (``time_limit=S`` is the older spelling of
    ``Limit(time=S)``). ``weak``: only win/draw/loss (faster; ``score`` is None).
    ``workers``: 1 searches in this process; more use a pool of processes
    sharing one table. ``pv``: also the principal variation (the best move is
    always found). ``tt_size``: the table's bytes (or ``"2G"``): the largest power
    of two of 8-byte entries that fits; ``tt_bits``: log2 of its entries
    instead; default by the board and the workers (:func:`.ttable.default_tt_bits`: 32 MiB
    for 7x6 with gravity, 256 MiB for big free boards), at most a quarter of the available memory.
    ``progress``: a status line on stderr (default: when stderr is a terminal).
    ``watch``: a :class:`Watch` another thread stops the solve with (the answer is
    then ``unknown``) and reads its node count from.
    ``prover``: ``"search"`` alpha-beta; ``"dfpn"`` depth-first proof-number
    search (weak, serial, free placement only; the node limit holds for each of
    its two questions); ``"auto"`` (default) df-pn first, capped, for weak serial
    solves of free-placement positions past the first move with at least 20 empty
    cells, else alpha-beta (docs/how-it-works.md, "Which prover"); ``proof`` is ``"dfpn"`` when
    df-pn settled the value. ``book``: an opening book (:class:`Book`, or a file,
    ``"auto"`` or ``"none"``: :func:`parallel_mnk.engines.books.choose.open_book`) that answers
    the positions it covers without search (``proof`` ``"book"``; the line goes on
    by search past the book's last ply); not with a checkpoint. ``certificate``: a
    folder where the value (win, draw or loss; not the exact score) is written as
    mnk-proof/1 certificates (:mod:`parallel_mnk.engines.provers.certificate`), one file per
    claim it needs, listed in ``certificates``; the book is not used then.

    Parallel only: ``split_depth`` plies of the split tree (1 = plain root
    splitting; 0 = Lazy SMP: the root is the one task and every worker joins it
    on the shared table, desynchronised by ABDADA's deferral of busy nodes;
    default adaptive); ``serial_budget`` nodes the coordinator tries
    alone before splitting (0: always split); ``backend`` ``"process"`` (forked
    workers), ``"thread"`` (threads of this process on a table with huge pages;
    always parallel) or ``"ray"`` (Ray tasks; ``address`` of a running cluster, default a
    local Ray; always parallel, even with one worker); ``checkpoint``: a journal
    file of finished tasks, from which the same solve run again resumes (always
    parallel). Raises :class:`MnkError` for what cannot be solved or asked.
    """
    opts = SolveOptions(weak=weak, limit=Limit.of(limit, time=time_limit), workers=workers,
                        tt_bits=resolve_tt_bits(tt_bits, tt_size, position.spec.cells, position.spec.gravity, workers), pv=pv, progress=progress,
                        split_depth=split_depth, serial_budget=serial_budget, backend=backend, address=address,
                        checkpoint=checkpoint, watch=watch, prover=prover)
    folder = None if certificate is None else Path(certificate)
    if opts.prover in ("dfpn", "pn") and position.spec.gravity:
        raise UnsupportedError(f"--prover {opts.prover} is for free placement; gravity boards are solved by "
                               "alpha-beta (--prover search)")
    if not position.spec.exact_solvable:
        _check_big(opts)
    if folder is not None:
        _check_certifiable(position, opts, folder)
    kernels = KernelLoad(position.spec, opts)   # loaded at the first need: a book answer may need none
    if folder is None and position.spec.exact_solvable and checkpoint is None:
        opened = open_book(position.spec, book) if book is None or isinstance(book, str) else book
        hit = None if opened is None else _from_book(position, opened, opts, kernels)
        if hit is not None:
            hit.startup_s = kernels.seconds
            return hit
    kernels.load()
    if not position.spec.exact_solvable:
        result = _solve_big(position, opts, folder)
    elif folder is not None:
        result = _certified(position, opts, folder)
    elif opts.parallel and opts.pn_first(position):
        result = solve_pn_parallel(position, opts)
    else:
        result = solve_parallel(position, opts) if opts.parallel else solve_serial(position, opts)
    result.startup_s = kernels.seconds
    return result


class KernelLoad:
    """The kernel families of one solve (:func:`parallel_mnk.runtime.families.load_for_solve`),
    loaded once, at :meth:`load`'s first call; ``seconds`` is what that load took
    (compiling or reading the cache), 0 until then. Every solve, analysis and book
    build of the front ends loads its kernels through one of these."""

    def __init__(self, spec: GameSpec, opts: SolveOptions = SolveOptions()) -> None:
        self.spec, self.opts = spec, opts
        self.seconds = 0.0
        self.loaded = False

    def load(self) -> float:
        """Load the families (the first call only); the seconds it took."""
        if not self.loaded:
            self.seconds = families.load_for_solve(self.spec, self.opts).seconds
            self.loaded = True
        return self.seconds


def _check_big(opts: SolveOptions) -> None:
    """Raise :class:`UnsupportedError` for what a solve past 64 cells cannot be asked."""
    if opts.checkpoint is not None or opts.backend != "process":
        raise UnsupportedError("boards over 64 cells are solved on the process pool, without --checkpoint")
    if opts.prover in ("dfpn", "pn"):
        raise UnsupportedError(f"--prover {opts.prover} takes boards of at most 64 cells; past them threat-space "
                               "search and alpha-beta prove values")


def _solve_big(position: Position, opts: SolveOptions, certificate: Optional[Path]) -> SolveResult:
    """:func:`solve` past 64 cells (:func:`parallel_mnk.engines.exact.big.solve_big`); with
    ``certificate``, the value's certificates written there too."""
    result = solve_big_parallel(position, opts) if opts.workers > 1 else solve_big(position, opts)
    if certificate is not None and result.value.known and not result.terminal:
        result.certificates = [str(extract_big(position, attacker, claim, certificate, opts.tt_bits,
                                               opts.progress).path)
                               for attacker, claim in claims_of(position, result.value)]
    return result


def _check_certifiable(position: Position, opts: SolveOptions, folder: Path) -> None:
    """Raise :class:`MnkError` when a certificate of ``position`` cannot be asked with
    ``opts`` or written into ``folder`` (checked before any search)."""
    if folder.exists() and not folder.is_dir():
        raise MnkError(f"--certificate {folder} is a file: give a folder")
    if position.spec.cols > 26:
        raise UnsupportedError("certificates name columns a-z: at most 26 columns")
    if opts.limit.nodes is not None or opts.limit.time is not None:
        raise UnsupportedError("a certificate needs the whole value: no time or node limit")
    try:   # made now and written to once, so that a folder that cannot be is refused before the search
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise MnkError(f"--certificate {folder}: cannot write there ({e.strerror or e})") from None


def _certified(position: Position, opts: SolveOptions, folder: Path) -> SolveResult:
    """Solve, then write the certificates of the value into ``folder`` (the
    proof-number prover writes them as it proves: no walk after)."""
    if opts.pn_first(position):
        return solve_pn_parallel(position, opts, folder) if opts.parallel else solve_serial(position, opts, folder)
    result = solve_parallel(position, opts) if opts.parallel else solve_serial(position, opts)
    if result.value.known and not result.terminal:
        result.certificates = []
        for attacker, claim in claims_of(position, result.value):
            if opts.workers > 1:
                cert = extract_parallel(position, attacker, claim, folder, min(opts.tt_bits, 24), opts.workers,
                                        opts.progress)
            else:
                cert = extract(position, attacker, claim, folder, min(opts.tt_bits, 24), opts.progress)
            result.certificates.append(str(cert.path))
    return result


def _from_book(position: Position, book: Book, opts: SolveOptions, kernels: KernelLoad) -> Optional[SolveResult]:
    """The answer of ``book`` for ``position`` (None when it does not cover it): the
    line follows the book, then a search from its last position when asked (the
    searches load ``kernels``; their start-up is not in the answer's time)."""
    started = time.perf_counter()
    answer = book.answer(position)
    nodes = 0
    if answer is None:   # the book may know the score but not its children's (its last ply)
        known = book.score(position)
        if known is None:
            return None
        kernels.load()
        answer, nodes = _move_by_search(position, known, opts, book.name)
    line: list[int] = []
    walk = position.copy()
    step: Optional[object] = answer
    while step is not None and not walk.is_game_over():
        move = step.best_move  # type: ignore[attr-defined]
        line.append(move)
        walk.push(move)
        step = book.answer(walk) if opts.pv else None
    if opts.pv and not walk.is_game_over():
        kernels.load()
        tail = solve_serial(walk, SolveOptions(tt_bits=opts.tt_bits, progress=False))
        line += tail.pv
        nodes += tail.nodes
    score = answer.score
    return SolveResult(position.spec, value_of_score(score), None if opts.weak else score,
                       Move(position.spec, line[0]), moves_of(position.spec, line if opts.pv else line[:1]), nodes,
                       time.perf_counter() - started - kernels.seconds, [WorkerStats(0, nodes=nodes)], proof="book")




def _move_by_search(position: Position, score: int, opts: SolveOptions, name: str) -> tuple[BookAnswer, int]:
    """A move that keeps the book's ``score`` of ``position``, found by null-window
    searches of its moves (:meth:`Search.best_cell`); and the nodes they took (the
    kernels loaded)."""
    search = Search(position.spec, transposition_table(min(opts.tt_bits, MOVE_SEARCH_TT_BITS)))
    own, opp = position.stones()
    cell = search.best_cell(own, opp, position.ply, score, weak=False)
    return BookAnswer(score, position.move_of_cell(cell), name), search.nodes


def build_book(spec: GameSpec, plies: int, out: Union[str, Path], *, workers: int = 1, backend: str = "process",
               address: Optional[str] = None, resume: bool = False, tt_size: Union[int, str, None] = None,
               tt_bits: Optional[int] = None, task_nodes: int = 200_000_000, leaf_book: Optional[str] = "auto",
               progress: Optional[bool] = None) -> tuple[BookFile, BuildReport]:
    """Build the opening book of ``spec`` up to ``plies`` stones into the SQLite file
    ``out`` (:mod:`parallel_mnk.parallel.uses.book_build`): every position, one per symmetry
    class, with its exact score and a best move. ``workers`` processes of ``backend``
    (``"ray"``: ``address`` of a cluster, default a local Ray) solve the last ply's
    positions, one a task (``task_nodes``: past it a position is solved by the whole
    pool's split); ``resume`` continues the build in ``out`` (a killed build loses no
    finished entry); ``leaf_book`` reads the leaves from an opening book where it
    covers them (``"auto"``: Thill's for Connect Four when installed). Returns the
    book (open) and what the build did. Raises :class:`MnkError` for plies beyond the
    board, a file that is not this book, or options that do not go together."""
    spec.require_exact()
    if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies < spec.cells:
        raise MnkError(f"--plies must be between 0 and {spec.cells - 1} on {spec.describe()}, got {plies!r}")
    check_workers(workers)
    if address is not None and backend != "ray":
        raise MnkError("an address is only for the ray backend")
    bits = resolve_tt_bits(tt_bits, tt_size, spec.cells, spec.gravity, workers)
    leaves = open_book(spec, leaf_book)   # loaded before the pool forks, so the workers share it
    KernelLoad(spec, SolveOptions(workers=workers, backend=backend)).load()
    new = not Path(out).exists()
    book = BookFile.create(out, spec, plies, resume)
    try:
        report = build(book, workers=workers, backend=backend, address=address, tt_bits=bits, task_nodes=task_nodes,
                       leaf_book=None if leaves is None else leaf_book, progress=progress)
    except BaseException:
        empty = new and not book.keys()
        book.close()
        if empty:   # nothing was built (no Ray, say): leave no file that a rerun would have to --checkpoint
            for suffix in ("", "-wal", "-shm"):
                Path(f"{out}{suffix}").unlink(missing_ok=True)
        raise
    return book, report


def best_move(position: Position, limit: Optional[Limit] = None, *, workers: int = 1, width: Optional[int] = None,
              fours: bool = True, tt_bits: int = LIMITED_TT_BITS, depth: Optional[int] = None,
              time_limit: Optional[float] = None, watch: Optional[Watch] = None) -> LimitedResult:
    """A strong move for the side to move by depth-limited search (any board up to
    26x26): iterative deepening up to ``limit`` (``Limit(depth=, time=, nodes=)``;
    default 4 plies), the deepest finished iteration giving the move; ``depth=``
    and ``time_limit=`` are the older spellings. ``width``: moves tried per node
    (default all up to 64 cells, 14 beyond). ``fours``: first look for a win by
    continuous fours. ``workers`` > 1: each iteration's root moves are searched
    on the process pool. ``watch``: a :class:`Watch` that stops the search as a
    time limit would (depth 1 always completes). Raises :class:`MnkError` if the
    game is over.
    """
    check_workers(workers)
    search = LimitedSearch(position, Limit.of(limit, time=time_limit, depth=depth), width, tt_bits, watch)
    found = search.forcing_win() if fours else None
    if found is not None:
        return found
    return best_move_parallel(search, workers) if workers > 1 else search.iterate()


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
