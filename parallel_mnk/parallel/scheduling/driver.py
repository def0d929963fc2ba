"""A parallel exact solve: the probe loop over split trees, then the best move
and the line (:func:`solve_parallel`, the same for every backend).

The exact score comes from the same null-window tests as the serial path, each
run as a split tree (``split_depth`` plies; default 1, deeper until there are
8 tasks, at most 4; 1 is plain root splitting without young-brothers-wait). The
best move and line are then found by the coordinator on its table (shared with
the workers of its machine). A position solved within ``serial_budget`` nodes by
the coordinator alone is not split at all (0: always split); the table it
filled is kept for the split. A checkpoint journal (:mod:`.checkpoint`) makes
the solve resumable.
"""
from __future__ import annotations

import time
from typing import Optional, Sequence

from ...api.options import SolveOptions
from ...api.settings import current
from ...api.results import SolveResult, WorkerStats, prover_of
from ...engines.exact.probes import narrowed, probe_score, weak_value
from ...engines.exact.search import Search, answer_with_line, terminal_result
from ...game.moves import Move, move_of, moves_of
from ...game.position import Position
from ...game.rules import Value, generic_bounds, value_of_score
from ...runtime.running import StatusLine, peak_rss
from ...runtime.ttable import new_salt
from . import registry
from .checkpoint import Checkpoint
from .coordinator import Coordinator, SearchTimeout
from .snapshots import LineSnapshots
from .split import Node, SplitTree



def solve_parallel(position: Position, opts: SolveOptions) -> SolveResult:
    """:func:`parallel_mnk.solve` on ``opts.workers`` slots of ``opts.backend``
    (see the module docstring), resuming from and writing to ``opts.checkpoint``."""
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    journal: Optional[Checkpoint] = None
    if opts.checkpoint is not None:
        journal = Checkpoint(opts.checkpoint, position)
    try:
        if journal is not None:
            done = journal.final_result(opts.weak, opts.pv)
            if done is not None:  # the journal holds the whole answer
                score, line = done
                stats = [WorkerStats(i) for i in range(opts.workers + 1)]
                return SolveResult(position.spec, value_of_score(score), None if opts.weak else score,
                                   Move(position.spec, line[0]), moves_of(position.spec, line), 0, time.perf_counter() - started, stats, checkpoint=journal.summary())
        got = time.perf_counter()
        coordinator = registry.get_coordinator(opts.backend, opts.workers, opts.tt_bits, opts.address)
        pool_start_s = time.perf_counter() - got
        coordinator.journal = journal
        try:
            result = ParallelSolve(coordinator, position, opts, journal, started, pool_start_s).run()
        finally:
            coordinator.journal = None
        if journal is not None:
            if result.value is not Value.UNKNOWN:
                journal.set_final_result(opts.weak, result.value, result.score, result.pv, full=opts.pv)
            result.checkpoint = journal.summary()
        return result
    finally:
        if journal is not None:
            journal.close()


class ParallelSolve:
    """One parallel solve of ``position`` on ``coordinator`` (see the module docstring)."""

    def __init__(self, coordinator: Coordinator, position: Position, opts: SolveOptions,
                 journal: Optional[Checkpoint], started: float, pool_start_s: float = 0.0) -> None:
        self.coordinator = coordinator
        self.position = position
        self.spec = position.spec
        self.opts = opts
        self.journal = journal
        self.started = started
        self.pool_start_s = pool_start_s   # getting the backend (started, or reused: about 0)
        coordinator.new_solve()
        self.salt = new_salt()
        self.search = Search(self.spec, coordinator.backend.tt, salt=self.salt)
        self.cpu0 = time.process_time()
        self.deadline = None if opts.limit.time is None else time.monotonic() + opts.limit.time
        self.status = StatusLine(opts.progress)
        self.label = ""
        self.tree: Optional[SplitTree] = None
        self.own, self.opp = position.stones()
        self.ply = position.ply
        # proven lower bounds through root children, with the child's cell (best-move candidates)
        self.proven: list[tuple[int, int]] = []
        self.lo, self.hi = generic_bounds(self.spec.cells, self.ply)
        self.snapshots = LineSnapshots(self.search, journal)   # (without a journal: the progress line)
        if journal is not None:  # what earlier runs proved: about the root, and in the table
            self.lo, self.hi, earlier = journal.root_bounds(self.lo, self.hi)
            self.proven += earlier
            for own, opp, value, kind in journal.earlier_bounds():
                self.search.seed_bound(own, opp, bin(own | opp).count("1"), value, kind)
        # what the finished probes proved of the root's score (weak: of -1/0/1), for an unknown answer
        self.bounds = (-1, 1) if opts.weak else (self.lo, self.hi)

    def run(self) -> SolveResult:
        """The result (``unknown`` when a limit stopped it)."""
        try:
            done = self._serial_try()
            if done is not None:
                return done
            n, lo0, hi0, cells = self.search.expand(self.own, self.opp, self.ply)
            self._check_nodes()
            score = self._score(n, lo0, hi0)
            self._set_coordinator_budget()
            line = answer_with_line(self.search, self.position, score, self.opts.weak, self.opts.pv,
                                    self._known_best_cell(score, n, lo0, cells[0]))
            if line is None:
                raise SearchTimeout()
            return self._result(score, line)
        except SearchTimeout:
            return self._result(None, [], so_far=self._move_so_far())
        except KeyboardInterrupt:
            registry.shutdown_backends()
            raise
        finally:
            self.status.finish()

    # ------------------------------------------------------------ the steps
    def _serial_try(self) -> Optional[SolveResult]:
        """Easy positions: a serial search within the serial budget, on the shared
        table; its result, or None (the table it filled is kept)."""
        budget = current().SERIAL_BUDGET if self.opts.serial_budget is None else self.opts.serial_budget
        if self.opts.limit.nodes is not None:
            budget = min(budget, self.opts.limit.nodes)
        if not budget:
            return None
        self.search.set_node_limit(budget)
        score = self.search.score(self.own, self.opp, self.ply, self.opts.weak)
        if not self.search.aborted:
            self._set_coordinator_budget()
            line = answer_with_line(self.search, self.position, score, self.opts.weak, self.opts.pv)
            if line is not None:
                return self._result(score, line, serial=True)
        self.bounds = (max(self.bounds[0], self.search.bounds[0]), min(self.bounds[1], self.search.bounds[1]))
        self.search.set_node_limit(None)
        self._check_nodes()
        return None

    def _score(self, n: int, lo0: int, hi0: int) -> int:
        """The exact score (or the weak -1/0/1) by window searches of split trees."""
        if n == 0:
            return lo0
        if self.opts.weak:
            lo, hi = self.lo, self.hi
            if lo > 0 or hi < 0 or lo == hi == 0:
                v = lo if lo > 0 else (hi if hi < 0 else 0)  # the journal decides it
            else:
                found = weak_value(lambda alpha, beta: self._window_search(alpha, beta, f"weak, testing > {alpha}"))
                assert found is not None   # (a stopped search raises instead)
                v = found
            return 1 if v > 0 else (-1 if v < 0 else 0)
        lo, hi = max(self.lo, lo0), min(self.hi, hi0)
        # the serial root's first probe (the middle of the whole score range, not of
        # the known bounds): a bound from the root's expansion (0 on an empty free
        # board) must not move the probes away from where the serial search looks
        score = probe_score(lo, hi, lambda lo, hi, med: self._window_search(med, med + 1,
                                                                            f"score in [{lo},{hi}], testing > {med}"),
                            first=generic_bounds(self.spec.cells, self.ply))
        assert score is not None   # (a stopped search raises instead)
        return score

    def _window_search(self, alpha: int, beta: int, label: str) -> int:
        """One probe: the root's fail-soft value for the window, by a split tree."""
        depth = self.opts.split_depth if self.opts.split_depth is not None else current().DEFAULT_SPLIT_DEPTH
        tree = SplitTree(self.spec.cells, self.search.expand, self.own, self.opp, self.ply, alpha, beta,
                         depth=depth, ybw=self.opts.split_depth != 1,
                         min_tasks=current().MIN_TASKS if self.opts.split_depth is None else 0)
        if self.journal is not None:
            self.journal.apply(tree)
        self.label, self.tree = label, tree
        # running tasks are split for idle workers in the young-brothers-wait split (not
        # in Lazy SMP, depth 0, nor in plain root splitting, depth 1: those stay as named)
        splits = self.opts.split_depth is None or self.opts.split_depth >= 2
        value = self.coordinator.search_tree(tree, self.spec, int(self.salt), self.deadline, self._after_turn,
                                             settle=self._settle if splits else None)
        self.bounds = narrowed(self.bounds, alpha, beta, value, self.opts.weak)
        child = tree.best_child()
        if child is not None:
            self.proven.append((-child.hi, child.cell))
        if self.journal is not None:
            self.journal.probe_done(alpha, beta, value, None if child is None else (-child.hi, child.cell))
        return value

    def _settle(self, node: Node) -> Optional[tuple[int, int]]:
        """What a search of one node on the shared table decides of ``node`` for its
        window (the coordinator's side of splitting a running task)."""
        return self.search.settled_at_once(node.own, node.opp, node.ply, node.alpha, node.beta)

    def _known_best_cell(self, score: int, n: int, lo0: int, first_choice: int) -> Optional[int]:
        """A best move the probes already proved (or the static bound gives), or
        None when the coordinator must search for one."""
        reaching = [c for v, c in self.proven if v >= score]
        if reaching:
            return reaching[-1]
        if n > 0 and score == max(generic_bounds(self.spec.cells, self.ply)[0], lo0):
            return first_choice  # the score is the static bound every candidate reaches
        return None

    # ------------------------------------------------------------ limits and figures
    def _nodes(self) -> int:
        return self.search.nodes + sum(st.nodes for st in self.coordinator.stats)

    def _check_nodes(self) -> None:
        """Raise SearchTimeout once the node limit is spent or the watch is stopped."""
        if self.opts.limit.nodes is not None and self._nodes() >= self.opts.limit.nodes:
            raise SearchTimeout()
        if self.opts.watch is not None and self.opts.watch.stopped:
            raise SearchTimeout()

    def _set_coordinator_budget(self) -> None:
        """The coordinator's own searches (best move, line) may use what is left of the node limit."""
        if self.opts.limit.nodes is not None:
            self.search.set_node_limit(self.search.nodes + max(1, self.opts.limit.nodes - self._nodes()))

    def _after_turn(self) -> None:
        if self.tree is not None and self.snapshots.due():
            self.snapshots.take(self.coordinator, self.tree)
        if self.opts.watch is not None:
            self.opts.watch.count(self._nodes())
        self._check_nodes()
        self.status.update(self._status_text)

    def _status_text(self) -> str:
        """The status line: tasks, nodes, rate, elapsed; the oldest running task's progress."""
        co = self.coordinator
        nodes = sum(st.nodes for st in co.stats)
        tasks = sum(st.tasks for st in co.stats)
        total = self.tree.tasks_total if self.tree is not None else 0
        elapsed = self.status.elapsed()
        line = f"; {self.snapshots.progress}" if self.snapshots.progress else ""
        return (f"{self.label}: {tasks} tasks done ({total} in this split), {co.running} running, "
                f"{nodes / 1e6:.1f} M nodes, {nodes / max(elapsed, 1e-9) / 1e6:.1f} M nodes/s, {elapsed:.1f} s{line}")

    def _move_so_far(self) -> Optional[int]:
        """An unknown value's best move so far: the move the probes proved best (not
        the score), else the table's move of the root; None when neither has one."""
        if self.proven:
            return self.position.move_of_cell(max(self.proven)[1])
        cell = self.search.move_so_far(self.own, self.opp, self.ply)
        return None if cell < 0 else self.position.move_of_cell(cell)

    def _result(self, score: Optional[int], line: Sequence[int], serial: bool = False,
                so_far: Optional[int] = None) -> SolveResult:
        """The SolveResult (``score`` None: unknown, with the bounds proved and ``so_far``,
        the best move so far)."""
        cpu = time.process_time() - self.cpu0
        stats = [WorkerStats(0, 1 if serial else 0, self.search.nodes, cpu, peak_rss(), *self.search.proof_counts)]
        stats += self.coordinator.stats
        nodes = sum(s.nodes for s in stats)
        value = Value.UNKNOWN if score is None else value_of_score(score)
        exact = None if (self.opts.weak or score is None) else score
        wall = time.perf_counter() - self.started
        return SolveResult(self.spec, value, exact, move_of(self.spec, line[0] if line else so_far),
                           moves_of(self.spec, line), nodes, wall, stats,
                           proof=prover_of(value, stats), parallel=None if serial else self._figures(wall, nodes),
                           bounds=self.bounds if score is None else None)

    def _figures(self, wall: float, nodes: int) -> dict:
        """Where the solve's time went and its span (:mod:`.tasklog`): the task
        log's figures, the coordinator's serial nodes added to the span, and the
        wall clock split into the backend's start, the probes and the
        coordinator's own work between them (serial searches, split trees); and
        the faults (:meth:`.Coordinator.fault_figures`: workers restarted, tasks
        lost with their workers and whether they ran again)."""
        log = self.coordinator.log.figures.to_dict()
        log["span_nodes"] += self.search.nodes
        return {"workers": self.coordinator.backend.n, "work_nodes": nodes, "coordinator_nodes": self.search.nodes,
                "wall_s": round(wall, 6), "pool_start_s": round(self.pool_start_s, 6),
                "coordinator_s": round(max(0.0, wall - self.pool_start_s - log["probe_s"]), 6), **log,
                **self.coordinator.fault_figures()}

