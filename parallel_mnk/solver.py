"""The public entry points of both engines: :func:`solve` (exact) and
:func:`best_move` (depth-limited). Each validates what it is asked once, then
runs the serial engine here or hands the work to a parallel backend; this is
the only module of the front ends that imports :mod:`parallel_mnk.parallel`.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Union

from . import families
from .limited import DEFAULT_TT_BITS as LIMITED_TT_BITS
from .limited import LimitedSearch
from .options import Limit, SolveOptions, Watch
from .parallel import backends
from .parallel.driver import solve_parallel
from .parallel.heuristic import best_move_parallel
from .position import Position
from .results import LimitedResult, SolveResult
from .rules import MnkError
from .search import solve_serial
from .ttable import resolve_tt_bits


def solve(position: Position, limit: Optional[Limit] = None, *, weak: bool = False, workers: int = 1,
          pv: bool = True, tt_size: Union[int, str, None] = None, tt_bits: Optional[int] = None,
          progress: Optional[bool] = None, split_depth: Optional[int] = None, serial_budget: Optional[int] = None,
          backend: str = "process", address: Optional[str] = None, checkpoint: Union[str, Path, None] = None,
          time_limit: Optional[float] = None, watch: Optional[Watch] = None, prover: str = "auto") -> SolveResult:
    """Solve ``position`` for the side to move: value, exact score, best move, line.

    ``limit``: :class:`Limit` (``time`` seconds, ``nodes``); past it the value is
    ``unknown``, never a guess (``time_limit=S`` is the older spelling of
    ``Limit(time=S)``). ``weak``: only win/draw/loss (faster; ``score`` is None).
    ``workers``: 1 searches in this process; more use a pool of processes
    sharing one table. ``pv``: also the principal variation (the best move is
    always found). ``tt_size``: the table's bytes (or ``"2G"``): the largest power
    of two of 8-byte entries that fits; ``tt_bits``: log2 of its entries
    instead; default a quarter of the available memory, at most 256 MiB.
    ``progress``: a status line on stderr (default: when stderr is a terminal).
    ``watch``: a :class:`Watch` another thread stops the solve with (the answer is
    then ``unknown``) and reads its node count from.
    ``prover``: ``"search"`` alpha-beta; ``"dfpn"`` depth-first proof-number
    search (weak, serial, free placement only; the node limit holds for each of
    its two questions); ``"auto"`` (default) df-pn first, capped, for weak serial
    solves of free-placement positions past the first move with at least 20 empty
    cells, else alpha-beta (README "Which prover"); ``proof`` is ``"dfpn"`` when
    df-pn settled the value.

    Parallel only: ``split_depth`` plies of the split tree (1 = plain root
    splitting; 0 = Lazy SMP: the root is the one task and every worker joins it
    on the shared table, desynchronised by ABDADA's deferral of busy nodes;
    default adaptive); ``serial_budget`` nodes the coordinator tries
    alone before splitting (0: always split); ``backend`` ``"process"`` (forked
    workers) or ``"ray"`` (Ray tasks; ``address`` of a running cluster, default a
    local Ray; always parallel, even with one worker); ``checkpoint``: a journal
    file of finished tasks, from which the same solve run again resumes (always
    parallel). Raises :class:`MnkError` for what cannot be solved or asked.
    """
    position.spec.require_exact()
    opts = SolveOptions(weak=weak, limit=Limit.of(limit, time=time_limit), workers=workers,
                        tt_bits=resolve_tt_bits(tt_bits, tt_size), pv=pv, progress=progress,
                        split_depth=split_depth, serial_budget=serial_budget, backend=backend, address=address,
                        checkpoint=checkpoint, watch=watch, prover=prover)
    families.load(*families.for_solve(position.spec, parallel=opts.parallel, weak=weak, prover=prover))
    return solve_parallel(position, opts) if opts.parallel else solve_serial(position, opts)


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
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MnkError(f"workers must be at least 1, got {workers!r}")
    search = LimitedSearch(position, Limit.of(limit, time=time_limit, depth=depth), width, tt_bits, watch)
    found = search.forcing_win() if fours else None
    if found is not None:
        return found
    return best_move_parallel(search, workers) if workers > 1 else search.iterate()


def start_backend(backend: str, workers: int, tt_bits: int, address: Optional[str] = None) -> float:
    """Start the parallel ``backend`` now (a local Ray takes seconds), so that the
    first solve's clock does not count it; returns the seconds it took."""
    t = time.perf_counter()
    backends.get_coordinator(backend, workers, tt_bits, address)
    return time.perf_counter() - t


def shutdown() -> None:
    """Stop the worker pool and the Ray backend of this process, if any (they are
    kept between solves; they also stop when the process exits)."""
    backends.shutdown_backends()
