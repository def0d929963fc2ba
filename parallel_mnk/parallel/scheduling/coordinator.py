"""The scheduler: which task runs where and when, on any backend.

:meth:`Coordinator.search_tree` runs the tasks of a split tree (:mod:`.split`)
until its root is settled:

* dispatch: tasks in the tree's order (best-ordered first) to free places (a
  worker's slot), each first looked up by a search of one node on the shared
  table (a transposition or mirror image of a position already proven is
  settled there, without a task); those young-brothers-wait allows,
  plus at most ``MAX_SPECULATIVE`` handed out before their elder brother is
  settled (any number on a backend without helpers); with helpers, on free
  boards, at most ``MAX_SIBLINGS`` running children of one node;
* splits: where workers are still idle and the backend shows the tasks' lines,
  the running task whose line has the shallowest finished move (after
  ``SPLIT_AFTER_S``) is split there (:mod:`.resplit`): the split tree grows
  down its line and the moves not finished become tasks;
* helpers: a worker left idle still (nothing to split) joins a running task
  (same task on the shared table; the busy marks make the two searchers take
  different moves first, ABDADA), the task the fewest workers search first;
  the first result counts;
* live windows: after every result the windows of running tasks are narrowed
  (or the tasks abandoned when nobody needs them any more);
* faults: a lost worker's task goes back to the tree and the slot gets a fresh
  worker, a few times per solve at most (:attr:`Coordinator.lost` records each
  lost task and what became of it); Ctrl-C closes the backend; a time
  limit raises :class:`SearchTimeout`; before returning, every task still
  running is abandoned and waited for (a slot that does not answer is reset).

:attr:`Coordinator.log` (:mod:`.tasklog`) sees every probe, task and result of
a solve: where the workers' time went, and the span.

Every engine's split work goes through :meth:`Coordinator.search_tree`: the exact
solver's split trees, and the root splitting of big boards and of the
depth-limited engine (a :func:`.tree_tasks.root_split` tree whose tasks are
theirs, :class:`.tree_tasks.TreeTasks`). :meth:`Coordinator.run_each` runs
independent tasks (a book's positions) in the order a callback hands them out.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from ...api.options import Watch
from ...api.settings import current
from ...api.results import WorkerStats
from ...game.rules import GameSpec, MnkError, ResourceError
from ..pools.backend import Backend, Lost
from ..task import AnyResult, AnyTask, Task, TaskResult
from . import resplit
from .checkpoint import Checkpoint
from .places import Job, Slot, helpable, running_children
from .split import Node, SplitTree
from .tasklog import TaskLog
from .tree_tasks import TreeTasks, WindowTasks

_task_ids = itertools.count(1)   # unique in the process, whatever the backend


@dataclass
class LostTask:
    """A split-tree task whose worker died holding it: ``worker`` (1..n) held
    task ``task_id``, a search of the node at ``path``. ``started``: whether the
    worker had begun the task's search (its published line carries the task),
    or had only been sent the task; None where the backend shows no lines.
    ``wanted``: whether its answer was still wanted when the death was noticed
    (not abandoned, not split; if not, nothing is run again: ``outcome``
    ``"abandoned"``). ``reruns``: the times its node was handed out again
    afterwards; ``outcome``: ``"rerun"`` when a search handed out after the loss
    decided the node, ``"helper"`` when a helper of the same task (running before
    the loss) did, ``"unneeded"`` when the probe ended without needing the node
    any more (a cutoff by other results), ``""`` when the solve stopped first
    (a limit, an error)."""

    worker: int
    task_id: int
    path: tuple[int, ...]
    node: Node = field(repr=False, compare=False)
    started: Optional[bool] = None
    wanted: bool = True
    reruns: int = 0
    outcome: str = ""

    def to_dict(self) -> dict:
        return {"worker": self.worker, "task_id": self.task_id, "path": list(self.path), "started": self.started,
                "wanted": self.wanted, "reruns": self.reruns, "outcome": self.outcome}


def _wanted(job: Job) -> bool:
    """Whether ``job``'s answer is still wanted: a split-tree task not abandoned (nor split)."""
    return job.node is not None and not job.abandon_sent


class SearchTimeout(Exception):
    """A limit ran out (time, nodes) or the caller's watch was stopped; the answer is unknown."""


class Coordinator:
    """Schedules work on ``backend``'s slots (see the module docstring)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.slots = [Slot(i + 1) for i in range(backend.n)]
        self.stats = [WorkerStats(i + 1) for i in range(backend.n)]   # what each worker did in this solve
        self.restarts = [0] * backend.n                                 # each worker's restarts in this solve
        self.helper_jobs = 0   # times an idle worker joined a running task (since the backend started)
        self._settle: Optional[resplit.Settle] = None   # the current split tree's one-node searches
        self._tasks: Optional[TreeTasks] = None          # what the current split tree's nodes become
        self.journal: Optional[Checkpoint] = None   # sees every task handed out and every result, for one solve
        self.log = TaskLog(backend.n)          # where this solve's time went, and its span
        self.lost: list[LostTask] = []         # this solve's lost tasks, in the order their workers died
        self._unsettled: dict[int, list[LostTask]] = {}   # id(node) -> its lost tasks not decided yet

    def new_solve(self) -> None:
        """Per-solve figures start afresh (stats, the restart limit, lost tasks)."""
        self.stats = [WorkerStats(i + 1) for i in range(self.backend.n)]
        self.restarts = [0] * self.backend.n
        self.log = TaskLog(self.backend.n)
        self.lost = []
        self._unsettled = {}

    def fault_figures(self) -> dict:
        """This solve's faults: ``restarts`` (workers found dead and started again),
        ``lost_tasks`` (:class:`LostTask`: tasks held by workers that died),
        ``lost_wanted`` (of those, the ones whose answer was still wanted),
        ``rerun_tasks`` (the ones whose node was handed out again), ``rerun_done``
        (the ones a search handed out after the loss decided) and ``lost`` (each
        as a dict)."""
        return {"restarts": sum(self.restarts), "lost_tasks": len(self.lost),
                "lost_wanted": sum(t.wanted for t in self.lost),
                "rerun_tasks": sum(t.reruns > 0 for t in self.lost),
                "rerun_done": sum(t.outcome == "rerun" for t in self.lost),
                "lost": [t.to_dict() for t in self.lost]}

    @property
    def running(self) -> int:
        """Places with a task."""
        return sum(s.job is not None for s in self.slots)

    def wanted(self) -> dict[int, int]:
        """Place -> id of the split-tree task it holds whose answer is still wanted
        (not abandoned, not split): the tasks a death of their worker would make run
        again (:class:`LostTask`). Read by the fault tests to kill a worker that holds one."""
        return {s.index: s.job.task.task_id for s in self.slots if s.job is not None and _wanted(s.job)}

    # ------------------------------------------------------------ a split tree
    def search_tree(self, tree: SplitTree, spec: GameSpec, salt: int, deadline: Optional[float],
                    status: Optional[Callable[[], None]] = None, settle: Optional[resplit.Settle] = None,
                    tasks: Optional[TreeTasks] = None) -> int:
        """Run the tasks of ``tree`` until its root is settled; returns the root's
        value. ``tasks`` says what a node's task is and what its result proves
        (default: the exact solver's window searches, salted with ``salt``).
        ``status()`` is called after every turn of the loop (it may raise
        :class:`SearchTimeout` to stop the search). ``settle`` (a search of one
        node on the backend's table, :mod:`.resplit`) lets running tasks be split
        where the backend shows their lines. Raises :class:`SearchTimeout` at
        ``deadline``, or when a stop of every search (a limit) cut a task short."""
        self.backend.begin()
        self.log.probe_begin()
        self._settle = settle if self.backend.splits else None
        self._tasks = tasks or WindowTasks(spec, salt)
        try:
            while not tree.done:
                self._dispatch(tree, spec, salt)
                if tree.done:   # (the table settled the last open node at hand-out)
                    break
                if not self.running:
                    raise RuntimeError("internal error: the split tree has no task to run but is not settled")
                waiting = self._splitting(spec) and self.running < len(self.slots)
                settings = current()
                self._collect(tree, timeout=settings.SPLIT_POLL_S if waiting else settings.TURN_S)
                self._update_live(tree)
                if deadline is not None and time.monotonic() >= deadline:
                    raise SearchTimeout()
                if status is not None:
                    status()
            return tree.result()
        except KeyboardInterrupt:
            # Ctrl-C may have cut a message to or from a worker in half: stop them
            # all now (the caller forgets this backend) rather than wait for replies
            self.backend.close()
            raise
        finally:
            self._settle = None
            if not self.backend.closed:
                self._drain(tree)
            self._tasks = None
            self.log.probe_end(tree)
            for lost in self._unsettled.values():   # (the nodes of this probe's tree)
                for t in lost:
                    t.outcome = "unneeded" if tree.done else ""
            self._unsettled = {}

    def _dispatch(self, tree: SplitTree, spec: GameSpec, salt: int) -> None:
        """Hand out the tasks the tree needs now, split running tasks for the
        slots still idle, then let the rest help (see the module docstring)."""
        for index, how in self.backend.dead_idle():
            if self._lost(None, how, index):
                self.backend.restart(index)
        idle = [s for s in self.slots if s.job is None]
        if not idle:
            return
        splitting = self._splitting(spec)
        assert self._tasks is not None
        self._hand_out(tree, spec, salt, idle, helpers=not splitting and self._tasks.helpers)
        while idle and splitting and self._split(tree):
            self._hand_out(tree, spec, salt, idle, helpers=False)
        while idle and self.backend.helpers and self._tasks.helpers and not splitting:
            job = helpable(self.slots, tree, current().MAX_HELPERS)
            if job is None or job.node is None:
                break
            node = job.node
            assert isinstance(job.task, Task)   # (split-tree nodes hold window tasks)
            self._start(idle.pop(0), node, replace(job.task, alpha=node.alpha, beta=node.beta, marks=True),
                        helper=True)
            self.helper_jobs += 1
        for s in idle:
            self.log.starving(s.index)

    def _splitting(self, spec: GameSpec) -> bool:
        """Whether idle slots are given split tasks rather than helping: where the
        backend shows lines and no cap on running siblings holds."""
        settings = current()
        return settings.SPLITS and self._settle is not None and not (self.backend.helpers
                                                                     and settings.MAX_SIBLINGS[spec.gravity])

    def _hand_out(self, tree: SplitTree, spec: GameSpec, salt: int, idle: list[Slot], helpers: bool) -> None:
        """Start the tasks the tree allows now on slots taken from ``idle``
        (``helpers``: the slots left idle will join running tasks)."""
        assert self._tasks is not None
        nodes = self._choose(tree, spec, len(idle), helpers)
        while nodes is None:   # (the table settled a node: the tree's order and windows changed)
            if tree.done:
                return
            nodes = self._choose(tree, spec, len(idle), helpers)
        # busy marks (ABDADA) where a subtree may be searched by two workers at once:
        # tasks that idle workers will join, and those workers
        company = helpers and self.backend.helpers and self._tasks.helpers and len(nodes) < len(idle)
        for node in nodes:
            task = self._tasks.task(node, next(_task_ids), company)
            if self.journal is not None:
                assert isinstance(task, Task)
                self.journal.handed_out(tree, task)
            self._start(idle.pop(0), node, task)

    def _choose(self, tree: SplitTree, spec: GameSpec, wanted: int, helpers: bool) -> Optional[list[Node]]:
        """Up to ``wanted`` frontier nodes to hand out now (young-brothers-wait, the
        speculative and sibling caps); None when the shared table settled one of
        them at once instead (the setting ``SETTLE_AT_HAND_OUT``: a transposition or mirror
        image of a position already proven needs no task)."""
        speculative = sum(1 for s in self.slots
                          if s.job is not None and s.job.node is not None and not tree.eligible(s.job.node))
        nodes: list[Node] = []
        cap = current().MAX_SIBLINGS[spec.gravity] if helpers and self.backend.helpers else 0
        running = running_children(self.slots) if cap else {}
        for node in tree.next_tasks():
            eligible = tree.eligible(node)
            if not (eligible or speculative < current().MAX_SPECULATIVE or not self.backend.helpers):
                break
            if cap and node.parent is not None:
                if running.get(id(node.parent), 0) >= cap:
                    continue   # (its idle worker will join a running task instead)
            if current().SETTLE_AT_HAND_OUT and self._settle is not None:
                known = self._settle(node)
                if known is not None:
                    tree.record(node, *known)
                    if node.settled() or tree.done:
                        return None
                    # (a bound that does not settle the node for its window: it still needs its task)
            if cap and node.parent is not None:
                running[id(node.parent)] = running.get(id(node.parent), 0) + 1
            speculative += not eligible
            nodes.append(node)
            if len(nodes) == wanted:
                break
        return nodes

    def _split(self, tree: SplitTree) -> bool:
        """Split the running task whose published line has the shallowest finished
        move (:mod:`.resplit`), abandoning it and its helpers; False when no task
        can be split yet."""
        assert self._settle is not None
        now = time.perf_counter()
        running = [(s.index, s.job, s.job.node) for s in self.slots if s.job is not None and s.job.node is not None
                   and not (s.job.helper or s.job.abandon_sent or s.job.node.children)
                   and now - s.job.started >= current().SPLIT_AFTER_S and tree.live_window(s.job.node) is not None
                   and tree.eligible(s.job.node)]   # (a speculative task's work may all be cut away: not spread)
        lines = {place: (job.started, self.backend.path_of(place, job.task.task_id, node.ply))
                 for place, job, node in running}
        chosen = resplit.choose(lines, tree.cells, current().SPLIT_MIN_EMPTY)
        if chosen is None:
            return False
        place, at = chosen
        node = next(n for p, _, n in running if p == place)
        self.log.split(place)
        for s in self.slots:   # the task and its helpers: their finished work is in the table
            if s.job is not None and s.job.node is node and not s.job.abandon_sent:
                self.backend.abandon(s.index, s.job.task.task_id)
                self.log.stopping(s.index)
                s.job.abandon_sent = s.job.split = True
        self.backend.flush()
        resplit.split_along(tree, node, lines[place][1], at, self._settle)
        return True

    def _start(self, slot: Slot, node: Optional[Node], task: AnyTask, helper: bool = False) -> bool:
        """Hand ``task`` (for ``node``) to the idle ``slot``; a worker found dead is
        restarted and tried once more. False when that failed too (the task is
        then handed out again later)."""
        for _ in range(2):
            self._assign(slot, node, task, helper)
            self.log.started(slot.index, helper)
            if self.backend.start(slot.index, task):
                if node is not None:
                    for t in self._unsettled.get(id(node), ()):
                        t.reruns += t.task_id != task.task_id   # (a helper of the lost task is no rerun)
                return True
            if not self._lost(slot, "its pipe was closed", slot.index, unsent=True):
                return False
            self.backend.restart(slot.index)
        return False

    @staticmethod
    def _assign(slot: Slot, node: Optional[Node], task: AnyTask, helper: bool = False) -> None:
        """``slot`` runs ``task``, a search of ``node`` (``helper``: beside another)."""
        if node is not None:
            node.running += 1
            node.task_id = task.task_id
        slot.job = Job(node, task, helper)

    @staticmethod
    def _release(job: Job) -> None:
        """``job`` no longer counts as a search of its node."""
        if job.node is not None:
            job.node.running -= 1
            job.node = None

    def _collect(self, tree: Optional[SplitTree], timeout: float) -> None:
        """Record what came back (results, losses), waiting up to ``timeout`` s."""
        for index, event in self.backend.collect(timeout):
            if isinstance(event, Lost):
                worker = event.worker or index
                if self._lost(self.slots[index - 1] if index else None, event.how, worker):
                    self.backend.restart(worker)
            else:
                self._record(self.slots[index - 1], event, tree)

    def _record(self, slot: Slot, result: AnyResult, tree: Optional[SplitTree]) -> bool:
        """Account for ``slot``'s result and, for a split-tree task, record it in
        ``tree``; False for a result no job waits for."""
        job = slot.job
        if job is None or job.task.task_id != result.task_id:
            return False
        slot.job = None
        if 1 <= result.worker <= len(self.stats):   # (0: never started)
            st = self.stats[result.worker - 1]
            unstarted = isinstance(result, TaskResult) and result.abandoned and result.nodes == 0
            st.tasks += 0 if unstarted else 1
            st.nodes += result.nodes
            if isinstance(result, TaskResult):
                st.certificates += result.proofs[0]
                st.vcf_wins += result.proofs[1]
            st.cpu_s += result.cpu_s
            st.peak_rss = max(st.peak_rss, result.peak_rss)
        node = job.node
        self._release(job)
        abandoned = isinstance(result, TaskResult) and result.abandoned
        # a helper's or an older search of a node handed out again does not count
        counts = not (node is None or tree is None or self._tasks is None or abandoned
                      or result.task_id != node.task_id)
        self.log.answered(slot.index, counts, abandoned, result.nodes, split=job.split)
        if not counts:
            return True
        assert node is not None and tree is not None and self._tasks is not None
        proven = self._tasks.bound(result)
        if proven is None:   # a stop of every search (a limit) cut it short
            raise SearchTimeout()
        self.log.decided(node, result.nodes)
        tree.record(node, *proven)
        if not node.settled():
            # the fail-soft contract makes every finished search decide its node; going
            # on would hand the same task out again and again
            raise RuntimeError(f"internal error: task {result.task_id} at {node.path()} returned "
                               f"{proven[0]} (kind {proven[1]}), which does not decide its window "
                               f"({node.alpha}, {node.beta}); bounds now [{node.lo}, {node.hi}]")
        for t in self._unsettled.pop(id(node), ()):
            t.outcome = "rerun" if t.task_id != result.task_id else "helper"
        if self.journal is not None:
            assert isinstance(job.task, Task) and isinstance(result, TaskResult)
            self.journal.task_done(tree, job.task, result)
        return True

    def _lost(self, slot: Optional[Slot], how: str, worker: int, unsent: bool = False) -> bool:
        """``worker`` died (``how``): the task of ``slot`` (its place, if it held
        one) goes back to the tree (recorded in :attr:`lost`, unless ``unsent``:
        the worker was found dead when the task was handed to it). False when the
        backend is closing; raises after too many deaths of one worker in one solve."""
        if slot is not None and slot.job is not None:
            job = slot.job
            node = job.node
            if node is not None and not unsent:
                started = bool(self.backend.path_of(slot.index, job.task.task_id, node.ply)) if self.backend.splits \
                    else None   # (the dead worker's line is still in the control words)
                t = LostTask(worker, job.task.task_id, node.path(), node, started, _wanted(job))
                self.lost.append(t)
                if t.wanted:
                    self._unsettled.setdefault(id(node), []).append(t)
                else:
                    t.outcome = "abandoned"
            self._release(job)
            slot.job = None
            self.log.answered(slot.index, False, True)
        if self.backend.closed:
            return False
        self.restarts[worker - 1] += 1
        if self.restarts[worker - 1] > current().MAX_RESTARTS_PER_WORKER:
            raise ResourceError(f"worker {worker} died {self.restarts[worker - 1]} times (last: {how}); giving up "
                                "(out of memory? try a smaller --tt-size or fewer --workers)")
        return True

    def _update_live(self, tree: SplitTree) -> None:
        """Narrow the live windows of running tasks; abandon those nobody needs."""
        for s in self.slots:
            job = s.job
            if job is None or job.abandon_sent or job.node is None or not job.task.abandonable:
                continue   # (a task that is not abandonable has a fixed window: it runs to its end)
            window = tree.live_window(job.node)
            if window is None:
                self.backend.abandon(s.index, job.task.task_id)
                self.log.stopping(s.index)
                job.abandon_sent = True
            elif window != job.window:
                self.backend.set_window(s.index, job.task.task_id, *window)
                job.window = window
        self.backend.flush()

    def _drain(self, tree: Optional[SplitTree]) -> None:
        """Abandon every task handed out (a stop of every search where one of them
        reads only the stop word, cleared once they answered) and wait for the
        places to answer (an abandoned search stops within about a millisecond); a
        place that has not answered after ``DRAIN_TIMEOUT_S`` is reset."""
        for s in self.slots:
            if s.job is not None and not s.job.abandon_sent:
                self.backend.abandon(s.index, s.job.task.task_id)
                s.job.abandon_sent = True
        stop = any(s.job is not None and not s.job.task.abandonable for s in self.slots)
        if stop:
            self.backend.stop_all()   # (their searches read only the stop word)
        self.backend.flush()
        deadline = time.monotonic() + current().DRAIN_TIMEOUT_S
        while self.running and time.monotonic() < deadline:
            self._collect(None, timeout=0.5)
        for s in self.slots:
            if s.job is not None:
                self._release(s.job)
                s.job = None
                self.log.answered(s.index, False, True)
                self.backend.reset(s.index)
        if stop:
            self.backend.begin()   # (the pool's next work must not find the stop word set)

    # ------------------------------------------------------------ independent tasks
    def run_each(self, next_task: Callable[[], Optional[AnyTask]], on_result: Callable[[AnyResult], None],
                 deadline: Optional[float] = None, watch: Optional[Watch] = None) -> bool:
        """Run the tasks ``next_task()`` hands out (None: no more for now), each on
        the next idle place, at most one per worker at a time, until all have answered; ``on_result`` sees each result
        as it comes (and may change what ``next_task`` gives). At ``deadline``, or
        once ``watch`` is stopped, every running task is stopped and no more are
        handed out. Returns whether the deadline or the watch stopped it."""
        self.backend.begin()
        stopped = False
        try:
            while True:
                for slot in self.slots:
                    if self.running >= self.backend.n:
                        break
                    task = None if stopped or slot.job is not None else next_task()
                    if task is not None and not self._start(slot, None, task):
                        raise MnkError(f"worker {slot.index} stopped; run again or use --workers 1")
                if not self.running:
                    return stopped
                wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
                for index, event in self.backend.collect(wait):
                    if isinstance(event, Lost):
                        self._lost(self.slots[index - 1] if index else None, event.how, event.worker or index)
                        raise MnkError(f"worker {index} stopped ({event.how}); run again or use --workers 1")
                    if self._record(self.slots[index - 1], event, None):
                        on_result(event)
                late = deadline is not None and time.monotonic() >= deadline
                if not stopped and (late or (watch is not None and watch.stopped)):
                    self.backend.stop_all()
                    stopped = True
        except KeyboardInterrupt:
            self.backend.close()
            raise
        finally:
            if not self.backend.closed:
                self._drain(None)   # (an error: tasks still running are stopped)
                self.backend.begin()
