"""Building an opening book: every position of up to N plies, solved exactly.

The positions of the last ply (the book's leaves, one per symmetry class, games
already over left out) are independent solves: each is one
:class:`~.task.PositionTask` on the backend's workers (the process pool or Ray),
handed out as workers come free, on one shared table salted once for the whole
book. A leaf whose search passes ``task_nodes`` nodes comes back unfinished and
is solved after the others by a parallel solve of its own (the pool's split,
:mod:`..scheduling.driver`). Every position of a lower ply then takes its exact score and
best move from its children's (negamax: a win at once and a full board by the
rules, otherwise minus the child's stored score), without search.

Each finished entry is committed to the book file as it arrives (:mod:`parallel_mnk.engines.books.store`:
a killed process loses none); a build run again with ``resume`` skips every entry
the file holds.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ...api.options import SolveOptions
from ...engines.books.base import canonical, child_score, positions_by_ply
from ...engines.books.store import BookFile
from ...game.position import Position
from ...kernels.core import layout as L
from ...runtime.running import StatusLine
from ...runtime.ttable import new_salt, transposition_table
from ..scheduling import registry
from ..scheduling.driver import solve_parallel
from ..task import AnyResult, PositionResult, PositionTask, WorkerEnv

_task_ids = itertools.count(1)
BAR = 30   # characters of the progress bar


@dataclass
class BuildReport:
    """What a build did: entries per ply (new and already there), leaves searched
    and their nodes, leaves solved by the pool's split, seconds, and per-worker
    ``[worker, tasks, nodes, cpu_s]``."""

    entries: int = 0
    resumed: int = 0
    leaves: int = 0
    leaf_nodes: int = 0
    split_leaves: int = 0
    derived: int = 0
    time_s: float = 0.0
    per_worker: list = field(default_factory=list)


def build(book: BookFile, *, workers: int, backend: str, address: Optional[str], tt_bits: int,
          task_nodes: int, leaf_book: Optional[str], progress: Optional[bool]) -> BuildReport:
    """Fill ``book`` (opened for building) with every position of its game up to its
    plies; see the module docstring. ``leaf_book``: an opening book the leaves are
    read from where it covers them. Stops with KeyboardInterrupt as a solve does;
    what was finished stays in the file."""
    started = time.perf_counter()
    report = BuildReport()
    spec = book.spec
    layers = dict(positions_by_ply(spec, book.plies))
    stored = {key: score for key, _, score, _, _ in book.rows()}
    report.resumed = len(stored)
    line = StatusLine(progress)
    leaves = [p for p in layers[book.plies] if canonical(p).key not in stored]
    salt = int(new_salt())
    total = sum(len(v) for v in layers.values())

    def status() -> str:
        done = len(stored)
        filled = BAR * done // max(total, 1)
        return (f"book {spec.describe()} up to {book.plies} plies [{'#' * filled}{'.' * (BAR - filled)}] "
                f"{done}/{total} entries, {report.leaf_nodes / 1e6:.1f} M nodes, {line.elapsed():.0f} s")

    def record(position: Position, score: int, move: int, nodes: int) -> None:
        c = canonical(position)
        book.add([(c.key, position.ply, score, c.move_to_key(spec, move), nodes)])
        stored[c.key] = score
        report.entries += 1
        line.update(status)

    try:
        unfinished = _solve_leaves(leaves, record, report, workers=workers, backend=backend, address=address,
                                   tt_bits=tt_bits, salt=salt, task_nodes=task_nodes if workers > 1 else 0,
                                   leaf_book=leaf_book)
        for position in unfinished:   # too big for one worker: the whole pool's split
            r = solve_parallel(position, SolveOptions(workers=workers, tt_bits=tt_bits, backend=backend,
                                                      address=address, pv=False, progress=False))
            report.split_leaves += 1
            report.leaf_nodes += r.nodes
            assert r.score is not None and r.best_move is not None, "no limit was set"
            record(position, r.score, r.best_move, r.nodes)
        for ply in range(book.plies - 1, -1, -1):
            for position in layers[ply]:
                if canonical(position).key not in stored:
                    score, move = _from_children(position, stored)
                    record(position, score, move, 0)
                    report.derived += 1
        book.finish()
    finally:
        line.finish()
        report.time_s = time.perf_counter() - started
    return report


def _from_children(position: Position, stored: dict[str, int]) -> tuple[int, int]:
    """Score and best move of ``position`` from its children's stored scores."""
    best: Optional[tuple[int, int]] = None
    for move in position.legal_moves:
        value = child_score(lambda child: stored.get(canonical(child).key), position, move)
        assert value is not None, "a child below the book's ply is stored before its parent"
        if best is None or value > best[0]:
            best = (value, move)
    assert best is not None
    return best


def _solve_leaves(leaves: list[Position], record: Callable[[Position, int, int, int], None], report: BuildReport, *,
                  workers: int, backend: str, address: Optional[str], tt_bits: int, salt: int, task_nodes: int,
                  leaf_book: Optional[str]) -> list[Position]:
    """Solve ``leaves`` one task each (here with one worker of the process backend,
    else on the backend), recording each; returns those left unfinished."""
    by_id: dict[int, Position] = {}
    pending = list(reversed(leaves))
    unfinished: list[Position] = []

    def next_task() -> Optional[PositionTask]:
        if not pending:
            return None
        p = pending.pop()
        s = p.spec
        task = PositionTask(next(_task_ids), s.cols, s.rows, s.k, s.gravity, p.x, p.o, salt, task_nodes, leaf_book)
        by_id[task.task_id] = p
        return task

    def on_result(r: AnyResult) -> None:
        assert isinstance(r, PositionResult)
        position = by_id.pop(r.task_id)
        report.leaf_nodes += r.nodes
        if r.unfinished:
            unfinished.append(position)
            return
        report.leaves += 1
        record(position, r.score, r.move, r.nodes)

    if workers == 1 and backend == "process":
        env = WorkerEnv(1, transposition_table(tt_bits), np.zeros(L.CTL_SIZE, dtype=np.int64), L.CTL_WORKERS)
        cpu = time.process_time()
        while (task := next_task()) is not None:
            on_result(task.run(env))
        report.per_worker = [[1, report.leaves, report.leaf_nodes, time.process_time() - cpu]]
        return unfinished
    coordinator = registry.get_coordinator(backend, workers, tt_bits, address)
    coordinator.new_solve()
    coordinator.run_each(next_task, on_result)
    report.per_worker = [[st.worker, st.tasks, st.nodes, st.cpu_s] for st in coordinator.stats]
    return unfinished
