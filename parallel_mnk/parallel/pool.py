"""Where the tasks run: a pool of forked worker processes, one shared table, live
windows in shared memory, and the coordinator that combines the results.

* Memory: the transposition table (``uint64``) and the control array (``int64``)
  are anonymous shared mappings made before the workers fork, so every worker
  reads and writes the same table (lock-free one-word entries) and the
  coordinator can narrow a running task's window or abandon it by writing one
  word that the kernel reads with an atomic load.
* Start: the parent compiles (or loads) the kernels, then forks; a worker's
  first task costs no compilation. The start method is set explicitly.
* Scheduling: :class:`~parallel_mnk.parallel.split.SplitTree` says which tasks
  are needed and in which order; the coordinator hands one to each idle worker,
  records results, rewrites live windows and abandons tasks nobody needs. That
  loop is :class:`Coordinator`, shared with the Ray backend
  (:mod:`parallel_mnk.parallel.cluster`): a backend only says how a task is
  started, how results come back and how a live window or an abandon reaches a
  running task. :func:`solve_parallel` (probes, best move, line, the optional
  checkpoint journal) is the same for both.
* Faults: a worker that dies has its task run again by a fresh worker (a few
  times at most, then a clear error); Ctrl-C and time limits stop every worker
  through the shared abort word; workers die with the coordinator (PDEATHSIG).
"""
from __future__ import annotations

import ctypes
import itertools
import multiprocessing as mp
import os
import select
import signal
import sys
import threading
import time
from dataclasses import replace
from typing import Optional

import numpy as np

from ..geometry import build_context
from ..kernels import layout as L
from ..kernels.root import expand as _expand_kernel
from ..kernels.root import next_probe
from ..kernels.root import run_task as _run_task_kernel
from ..position import Position
from ..rules import GameSpec, MnkError, value_of_score
from ..search import (SolveResult, Search, WorkerStats, check_table_memory, new_salt, principal_variation,
                      terminal_result)
from .heuristic import HeuristicTask, run_heuristic_task
from .split import SplitTree, Task, TaskResult, generic_bounds

START_METHOD = "fork"      # workers inherit the compiled kernels and the shared memory
MAX_SPECULATIVE = 1        # running tasks young-brothers-wait does not allow yet; other idle workers help
MAX_HELPERS = 64           # at most this many workers on one task
BUSY_MARKS = 1 << 12       # ABDADA marks: room for every node the workers are inside at once
DEFER_MIN_EMPTY = 8        # workers put off children another is inside at nodes with this many empty cells
MAX_RESTARTS_PER_WORKER = 3


SHMEM_THP = "/sys/kernel/mm/transparent_hugepage/shmem_enabled"


def shared_huge_pages() -> Optional[str]:
    """Linux's transparent huge page policy for shared memory (``never``,
    ``advise``, ``always``, ...), which decides whether the pool's shared table
    gets 2 MiB pages; None where there is no such setting.

    The serial table is private memory, which NumPy asks huge pages for (and
    ``enabled`` is usually ``madvise`` or ``always``); the shared table asks
    too, but under ``never`` (the usual default) it stays on 4 KiB pages and
    each random probe tends to miss the TLB. ``advise`` lets it have them.
    """
    try:
        with open(SHMEM_THP) as f:
            text = f.read()
    except OSError:
        return None
    chosen = [word[1:-1] for word in text.split() if word.startswith("[")]
    return chosen[0] if chosen else None


class SearchTimeout(Exception):
    """The time limit ran out; the answer is unknown."""


def _die_with_parent(parent_pid: int, use_pdeathsig: bool) -> None:
    """Make sure this worker never outlives the coordinator.

    PR_SET_PDEATHSIG (Linux) kills at once, but it fires when the *thread* that
    forked us exits, so it is only asked for when the main thread forked. A
    watchdog thread checks the parent every half second in every case (the
    kernels release the GIL, so it runs during a search too).
    """
    if use_pdeathsig:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - not Linux
            pass

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _peak_rss() -> int:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_task_here(task: Task, index: int, slot: int, tt: np.ndarray, ctl: np.ndarray,
                  contexts: dict[tuple, np.ndarray]) -> TaskResult:
    """Run one :class:`Task` with the kernel in this process, as worker ``index``
    whose control words for this task (a lane) start at ``ctl[slot]`` (worker
    side of every backend). A task abandoned before it starts (it waited in
    the worker's queue) is reported abandoned without a search."""
    if ctl[slot + L.CTL_TASK_ABORT] == task.task_id:
        return TaskResult(task.task_id, index, 0, 0, True, 0, 0.0, _peak_rss())
    key = (task.cols, task.rows, task.k, task.gravity)
    ctx = contexts.get(key)
    if ctx is None:
        ctx = contexts[key] = build_context(GameSpec(*key))
    ctx[L.C_SALT] = np.uint64(task.salt)
    ctx[L.C_DEFER_MIN_EMPTY] = DEFER_MIN_EMPTY if ctl[L.CTL_BUSY_BASE] > 0 else 0
    ctx[L.C_TASK_ID] = np.uint64(task.task_id)
    ctx[L.C_CTL_SLOT] = np.uint64(slot)
    ctx[L.C_ABORTED] = 0
    ctx[L.C_NODES] = 0
    cpu = time.process_time()
    value = _run_task_kernel(ctx, tt, ctl, np.uint64(task.own), np.uint64(task.opp), task.ply,
                             task.alpha, task.beta, slot + L.CTL_LIVE_WINDOW)
    return TaskResult(task.task_id, index, int(value), int(ctx[L.C_RESULT_KIND]), bool(ctx[L.C_ABORTED]),
                      int(ctx[L.C_NODES]), time.process_time() - cpu, _peak_rss())


def _worker_main(index: int, conn, tt_mem, ctl_mem, slot: int, parent_pid: int, use_pdeathsig: bool) -> None:
    """A worker: receive :class:`Task`, run the kernel, send :class:`TaskResult`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    _die_with_parent(parent_pid, use_pdeathsig)
    tt = np.frombuffer(tt_mem, dtype=np.uint64)
    ctl = np.frombuffer(ctl_mem, dtype=np.int64)
    contexts: dict[tuple, np.ndarray] = {}
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        if isinstance(task, HeuristicTask):   # depth-limited search of one root move (big boards)
            conn.send(run_heuristic_task(task, index, ctl))
            continue
        task, lane = task
        ctl[slot + L.CTL_STARTED] = task.task_id  # the coordinator no longer hands it to another worker
        conn.send(run_task_here(task, index, slot + lane * L.CTL_LANE, tt, ctl, contexts))


def _pack_window(task_id: int, alpha: int, beta: int) -> int:
    return (task_id << 32) | ((alpha + L.WINDOW_BIAS) << 16) | (beta + L.WINDOW_BIAS)


class Job:
    """A task handed to a worker: its split-tree node, the window last sent to it,
    and the lane (control words) it uses on that worker."""

    __slots__ = ("node", "task", "window", "abandon_sent", "lane", "ref")

    def __init__(self, node, task: Task, lane: int) -> None:
        self.node, self.task, self.lane = node, task, lane
        self.window = (task.alpha, task.beta)
        self.abandon_sent = False
        self.ref = None  # the backend's handle (a Ray object ref)


class Slot:
    """One worker as the coordinator sees it: the tasks handed to it (the first
    is running, later ones wait in its queue) and what it did."""

    __slots__ = ("index", "jobs", "restarts", "stats")

    def __init__(self, index: int) -> None:
        self.index = index
        self.jobs: list[Job] = []
        self.restarts = 0
        self.stats = WorkerStats(index, 0, 0, 0.0)

    @property
    def node(self):
        """The split-tree node of the task running (None when idle)."""
        return self.jobs[0].node if self.jobs else None

    def free_lane(self) -> int:
        used = {j.lane for j in self.jobs}
        return min(lane for lane in range(L.CTL_LANES) if lane not in used)


class _Worker(Slot):
    """A forked worker process of the pool."""

    __slots__ = ("process", "conn", "slot", "started_s")

    def __init__(self, index: int, slot: int) -> None:
        super().__init__(index)
        self.slot = slot
        self.process = None
        self.conn = None
        self.started_s = 0.0


def warm_up_kernels() -> None:
    """Compile or load every kernel a worker uses, in this process (before forking)."""
    spec = GameSpec(3, 3, 3)
    search = Search(spec, np.zeros(1 << 10, dtype=np.uint64))
    out = np.zeros(L.MAX_CELLS, dtype=np.int64)
    _expand_kernel(search.ctx, search.tt, np.uint64(0), np.uint64(0), 0, out)
    _run_task_kernel(search.ctx, search.tt, search.ctl, np.uint64(0), np.uint64(0), 0, -1, 1, L.CTL_WORKERS + 1)
    search.score(0, 0, 0, False)
    search.best_cell(0, 0, 0, 0, False)


class Coordinator:
    """The coordinator's side of a backend: ``n`` worker slots, the table the
    coordinator searches (``tt``, ``2**tt_bits`` entries), and the loop that runs
    a split tree's tasks on the slots (:meth:`search_tree`).

    A backend fills in how a task starts (:meth:`_start_task`), how results
    and deaths come back (:meth:`_collect`, which calls :meth:`_record` and
    :meth:`_lost`), and how a live window or an abandon reaches a running task
    (:meth:`_set_window`, :meth:`_abandon`, then :meth:`_flush`).
    ``journal`` (a :class:`~parallel_mnk.parallel.checkpoint.Checkpoint`, set
    for one solve) sees every task handed out and every result.
    """

    name = "?"
    queue_depth = 1  # tasks a worker may hold: one running, the rest queued behind it
    helpers = False  # whether idle workers may join a running task (needs a shared table)
    helper_jobs = 0  # how many times a worker joined a running task (since the backend started)
    n: int
    tt_bits: int
    tt: np.ndarray
    workers: list
    closed = False
    journal = None
    _task_ids = itertools.count(1)

    # ------------------------------------------------------------ backend hooks
    def _begin(self) -> None:
        """Before a tree: clear a previous stop."""

    def _revive_idle(self) -> None:
        """Before dispatching: replace idle workers that died."""

    def _start_task(self, w: Slot, node, task: Task) -> None:
        """Hand ``task`` (for ``node``) to ``w``: :meth:`_assign`, then send it."""
        raise NotImplementedError

    def _collect(self, tree: Optional[SplitTree], timeout: float) -> None:
        raise NotImplementedError

    def _set_window(self, w: Slot, job: Job, window: tuple[int, int]) -> None:
        raise NotImplementedError

    def _abandon(self, w: Slot, job: Job) -> None:
        raise NotImplementedError

    def _steal(self, w: Slot, job: Job) -> bool:
        """Take back ``job``, queued on ``w`` and not started, so an idle worker
        can run it; False when that is not possible (it may have started)."""
        return False

    def _flush(self) -> None:
        """Send what :meth:`_set_window` and :meth:`_abandon` queued."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ one window search
    def search_tree(self, tree: SplitTree, spec: GameSpec, salt: int, deadline: Optional[float],
                    progress: Optional["Progress"] = None) -> int:
        """Run the tasks of ``tree`` until its root is settled; returns the root's value."""
        self._begin()
        try:
            while not tree.done:
                self._dispatch(tree, spec, salt)
                busy = [w for w in self.workers if w.jobs]
                if not busy:
                    raise RuntimeError("internal error: the split tree has no task to run but is not settled")
                self._collect(tree, timeout=0.1)
                self._update_live(tree)
                if deadline is not None and time.monotonic() >= deadline:
                    raise SearchTimeout()
                if progress is not None:
                    progress.update(self)
            return tree.result()
        except KeyboardInterrupt:
            # Ctrl-C may have cut a message to or from a worker in half: stop them
            # all now (the caller forgets this backend) rather than wait for replies
            self.close()
            raise
        finally:
            if not self.closed:
                self._drain(tree)

    def _assign(self, w: Slot, node, task: Task) -> Job:
        node.running += 1
        node.task_id = task.task_id
        job = Job(node, task, w.free_lane())
        w.jobs.append(job)
        return job

    @staticmethod
    def _release(job: Job) -> None:
        """``job`` no longer counts as a search of its node."""
        if job.node is not None:
            job.node.running -= 1
            job.node = None

    def _dispatch(self, tree: SplitTree, spec: GameSpec, salt: int) -> None:
        """Hand out the tasks the tree needs now, best-ordered first: to idle
        workers the tasks young-brothers-wait allows, and speculative ones while
        fewer than ``MAX_SPECULATIVE`` run (any number on a backend without
        helpers); with ``queue_depth`` 2, one allowed task to queue behind each
        running one. Idle workers left over join running tasks (helpers)."""
        self._revive_idle()
        idle = [w for w in self.workers if not w.jobs]
        queue = [w for w in self.workers if 0 < len(w.jobs) < self.queue_depth]
        if not idle and not queue:
            return
        if idle:
            self._steal_queued(idle)
        speculative = sum(1 for v in self.workers for job in v.jobs[:1]
                          if job.node is not None and not tree.eligible(job.node))
        for node in tree.next_tasks():
            eligible = tree.eligible(node)
            if idle and (eligible or speculative < MAX_SPECULATIVE or not self.helpers):
                w = idle.pop(0)
                speculative += not eligible
                if self.queue_depth > 1:
                    queue.append(w)  # the next allowed task waits behind this one
            elif queue and eligible:
                w = queue.pop(0)
            else:
                break
            task = Task(next(self._task_ids), spec.cols, spec.rows, spec.k, spec.gravity, int(salt), node.own,
                        node.opp, node.ply, node.alpha, node.beta, node.path())
            if self.journal is not None:
                self.journal.handed_out(tree, task)
            self._start_task(w, node, task)
            if not idle and not queue:
                break
        while idle and self.helpers:
            job = self._helpable(tree)
            if job is None:
                break
            # a worker with nothing else to do joins a running task: same task, the
            # current window; the shared table and the busy marks split the work
            node = job.node
            self._start_task(idle.pop(0), node, replace(job.task, alpha=node.alpha, beta=node.beta))
            self.helper_jobs += 1

    def _helpable(self, tree: SplitTree) -> Optional[Job]:
        """The running task an idle worker should join: the one the fewest
        workers search, the oldest first; None if there is none."""
        best = None
        for w in self.workers:
            if not w.jobs:
                continue
            job = w.jobs[0]
            if job.node is None or job.abandon_sent or tree.live_window(job.node) is None:
                continue
            if job.node.running > MAX_HELPERS:
                continue
            if best is None or (job.node.running, job.task.task_id) < (best.node.running, best.task.task_id):
                best = job
        return best

    def _steal_queued(self, idle: list[Slot]) -> None:
        """Give idle workers back the tasks queued on busy ones that have not
        started: they are needed now, and would otherwise wait for a long task."""
        for w in self.workers:
            if len(w.jobs) > 1:
                for job in w.jobs[1:]:
                    if not job.abandon_sent and job.node is not None and self._steal(w, job):
                        job.abandon_sent = True
                        self._release(job)  # handed out again below

    def _record(self, w: Slot, result: TaskResult, tree: Optional[SplitTree]) -> None:
        job = next((j for j in w.jobs if j.task.task_id == result.task_id), None)
        if job is None:
            return
        w.jobs.remove(job)
        node = job.node
        st = w.stats
        st.tasks += 0 if result.abandoned and result.nodes == 0 else 1
        st.nodes += result.nodes
        st.cpu_s += result.cpu_s
        st.peak_rss = max(st.peak_rss, result.peak_rss)
        self._release(job)
        if node is None or result.task_id != node.task_id:
            return  # stolen, or handed out again after a death
        if not result.abandoned and tree is not None:
            tree.record(node, result.value, result.kind)
            if not node.settled():
                # the fail-soft contract makes every finished search decide its node; going
                # on would hand the same task out again and again
                raise RuntimeError(f"internal error: task {result.task_id} at {node.path()} returned "
                                   f"{result.value} (kind {result.kind}), which does not decide its window "
                                   f"({node.alpha}, {node.beta}); bounds now [{node.lo}, {node.hi}]")
            if self.journal is not None:
                self.journal.task_done(tree, job.task, result)

    def _lost(self, w: Slot, how: str) -> bool:
        """Worker ``w`` died (``how``): its task goes back to the tree. False when
        the backend is closing; raises after too many deaths in one solve."""
        self._forget_jobs(w)  # handed out again by the next dispatch
        if self.closed:
            return False
        w.restarts += 1
        if w.restarts > MAX_RESTARTS_PER_WORKER:
            raise MnkError(f"worker {w.index} died {w.restarts} times (last: {how}); giving up "
                           "(out of memory? try a smaller --tt-size or fewer --workers)")
        return True

    def _update_live(self, tree: SplitTree) -> None:
        for w in self.workers:
            for job in w.jobs:
                if job.abandon_sent:
                    continue
                window = tree.live_window(job.node)
                if window is None:
                    self._abandon(w, job)
                    job.abandon_sent = True
                elif window != job.window:
                    self._set_window(w, job, window)
                    job.window = window
        self._flush()

    DRAIN_TIMEOUT_S = 10.0

    def _drain(self, tree: SplitTree) -> None:
        """Abandon every task handed out and wait for the workers to report (an
        abandoned search stops within about a millisecond); a worker that has
        not reported after :attr:`DRAIN_TIMEOUT_S` is restarted."""
        for w in self.workers:
            for job in w.jobs:
                if not job.abandon_sent:
                    self._abandon(w, job)
                    job.abandon_sent = True
        self._flush()
        deadline = time.monotonic() + self.DRAIN_TIMEOUT_S
        while any(w.jobs for w in self.workers) and time.monotonic() < deadline:
            self._collect(None, timeout=0.5)
        for w in self.workers:
            if w.jobs:
                self._reset(w)

    def _forget_jobs(self, w: Slot) -> None:
        """``w``'s tasks no longer count as searches of their nodes."""
        for job in w.jobs:
            self._release(job)
        w.jobs = []

    def _reset(self, w: Slot) -> None:
        """Forget the tasks of a worker that does not answer (and restart it)."""
        self._forget_jobs(w)


class WorkerPool(Coordinator):
    """``workers`` forked processes sharing one table of ``2**tt_bits`` entries."""

    name = "process"
    helpers = True

    def __init__(self, workers: int, tt_bits: int, queue_depth: int = 1) -> None:
        """``queue_depth`` 2 queues a task behind each running one (measured: no
        gain on 2 cores, a little more search overhead; kept as an option)."""
        import mmap

        if not 1 <= queue_depth <= L.CTL_LANES:
            raise MnkError(f"queue depth must be 1 to {L.CTL_LANES}, got {queue_depth}")
        self.queue_depth = queue_depth

        if workers < 1:
            raise MnkError(f"workers must be at least 1, got {workers}")
        check_table_memory(tt_bits, "a shared table")
        self.n = workers
        self.tt_bits = tt_bits
        self._tt_mem = mmap.mmap(-1, 8 << tt_bits)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            # 2 MiB pages where the system allows them for shared memory (see
            # shared_huge_pages): fewer TLB misses on random table probes
            self._tt_mem.madvise(mmap.MADV_HUGEPAGE)
        self.tt = np.frombuffer(self._tt_mem, dtype=np.uint64)
        busy_base = L.CTL_WORKERS + L.CTL_PER_WORKER * (workers + 1)
        self._ctl_mem = mmap.mmap(-1, 8 * (busy_base + BUSY_MARKS))
        self.ctl = np.frombuffer(self._ctl_mem, dtype=np.int64)
        self.ctl[L.CTL_BUSY_BASE], self.ctl[L.CTL_BUSY_MASK] = busy_base, BUSY_MARKS - 1
        self._mp = mp.get_context(START_METHOD)
        warm_up_kernels()
        self.workers = [_Worker(i + 1, L.CTL_WORKERS + L.CTL_PER_WORKER * (i + 1)) for i in range(workers)]
        self.start_times: list[float] = []
        self._poll = None
        for w in self.workers:
            self._start(w)
        self.closed = False

    # ------------------------------------------------------------ processes
    def _start(self, w: _Worker) -> None:
        t = time.perf_counter()
        parent_conn, child_conn = self._mp.Pipe()
        main_thread = threading.current_thread() is threading.main_thread()
        proc = self._mp.Process(target=_worker_main, args=(w.index, child_conn, self._tt_mem, self._ctl_mem, w.slot,
                                                           os.getpid(), main_thread),
                                name=f"parallel-mnk-worker-{w.index}", daemon=True)
        proc.start()
        child_conn.close()
        w.process, w.conn = proc, parent_conn
        self._poll = None  # watch the new pipe and process
        w.jobs = []
        self.ctl[w.slot:w.slot + L.CTL_PER_WORKER] = 0
        self.start_times.append(time.perf_counter() - t)

    def close(self) -> None:
        """Stop every worker (abort running searches first); idempotent."""
        if self.closed:
            return
        self.closed = True
        self.ctl[L.CTL_ABORT] = 1
        for w in self.workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError, BrokenPipeError):
                pass
        deadline = time.monotonic() + 1.0
        for w in self.workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
        for w in self.workers:
            self._kill(w)

    @staticmethod
    def _kill(w: _Worker) -> None:
        """Kill ``w``'s process if it still runs, and close its pipe."""
        if w.process.is_alive():
            w.process.kill()
            w.process.join(1.0)
        try:
            w.conn.close()
        except OSError:
            pass

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process is not None]

    # ------------------------------------------------------------ the backend hooks
    def _begin(self) -> None:
        self.ctl[L.CTL_ABORT] = 0

    def _revive_idle(self) -> None:
        for w in self.workers:
            if not w.jobs and not w.process.is_alive():
                self._worker_died(w)  # died while idle: start a new one

    def _start_task(self, w: _Worker, node, task: Task) -> None:
        for attempt in range(2):
            job = self._assign(w, node, task)
            lane = w.slot + job.lane * L.CTL_LANE
            self.ctl[lane + L.CTL_TASK_ABORT] = 0
            self.ctl[lane + L.CTL_LIVE_WINDOW] = _pack_window(task.task_id, task.alpha, task.beta)
            try:
                w.conn.send((task, job.lane))
                return
            except (OSError, BrokenPipeError):
                self._worker_died(w)  # restarts w; its tasks go back to the tree

    def _poller(self) -> tuple[select.poll, dict[int, tuple[bool, _Worker]]]:
        """A poll object watching every worker's pipe and process sentinel, made
        again only when a worker was (re)started: building one per wait cost
        the coordinator a tenth of its time."""
        if self._poll is None:
            poll = select.poll()
            fds: dict[int, tuple[bool, _Worker]] = {}
            for w in self.workers:
                for fd, is_conn in ((w.conn.fileno(), True), (w.process.sentinel, False)):
                    poll.register(fd, select.POLLIN)
                    fds[fd] = (is_conn, w)
            self._poll = (poll, fds)
        return self._poll

    def _collect(self, tree: Optional[SplitTree], timeout: float) -> None:
        poll, fds = self._poller()
        for fd, _ in poll.poll(max(0, int(timeout * 1000 + 0.999))):
            if self._poll is None:
                break  # a worker was restarted: its old descriptors mean nothing now
            is_conn, w = fds[fd]
            if is_conn:
                try:
                    result = w.conn.recv()
                except (EOFError, OSError):
                    self._worker_died(w)
                    continue
                self._record(w, result, tree)
            else:
                while w.jobs and w.conn.poll():
                    try:
                        self._record(w, w.conn.recv(), tree)
                    except (EOFError, OSError):
                        break
                if not w.process.is_alive():
                    self._worker_died(w)

    def _worker_died(self, w: _Worker) -> None:
        code = w.process.exitcode if w.process is not None else None
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        if not self._lost(w, how):
            return
        try:
            w.conn.close()
        except OSError:
            pass
        if w.process is not None:
            w.process.join(0.1)
        self._start(w)

    def _reset(self, w: _Worker) -> None:
        self._forget_jobs(w)
        self._kill(w)
        self._start(w)

    def _set_window(self, w: _Worker, job: Job, window: tuple[int, int]) -> None:
        self.ctl[w.slot + job.lane * L.CTL_LANE + L.CTL_LIVE_WINDOW] = _pack_window(job.task.task_id, *window)

    def _abandon(self, w: _Worker, job: Job) -> None:
        self.ctl[w.slot + job.lane * L.CTL_LANE + L.CTL_TASK_ABORT] = job.task.task_id

    def _steal(self, w: _Worker, job: Job) -> bool:
        if self.ctl[w.slot + L.CTL_STARTED] == job.task.task_id:
            return False
        self._abandon(w, job)  # if it starts after all, it stops at its first poll
        return True


class Progress:
    """One status line on stderr, rewritten every half second (only on a terminal)."""

    def __init__(self, stream=sys.stderr) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self.last = 0.0
        self.label = ""
        self.tree: Optional[SplitTree] = None

    def update(self, pool: Coordinator, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < 0.5:
            return
        self.last = now
        nodes = sum(w.stats.nodes for w in pool.workers)
        elapsed = now - self.started
        tasks = sum(w.stats.tasks for w in pool.workers)
        running = sum(w.node is not None for w in pool.workers)
        total = self.tree.tasks_total if self.tree else 0
        self.stream.write(f"\r{self.label}: {tasks} tasks done ({total} in this split), {running} running, "
                          f"{nodes / 1e6:.1f} M nodes, {nodes / max(elapsed, 1e-9) / 1e6:.1f} M nodes/s, "
                          f"{elapsed:.1f} s   ")
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\r" + " " * 100 + "\r")
        self.stream.flush()


# ------------------------------------------------------------------ the solve
_pool: Optional[WorkerPool] = None


def get_pool(workers: int, tt_bits: int) -> WorkerPool:
    """The process's pool of ``workers`` (reused across solves, rebuilt on change)."""
    global _pool
    if _pool is not None and (_pool.closed or _pool.n != workers or _pool.tt_bits != tt_bits):
        _pool.close()
        _pool = None
    if _pool is None:
        _pool = WorkerPool(workers, tt_bits)
    return _pool


def get_backend(backend: str, workers: int, tt_bits: int, address: Optional[str] = None) -> Coordinator:
    """The process pool, or the Ray backend (imported only when asked for)."""
    if backend == "process":
        return get_pool(workers, tt_bits)
    if backend == "ray":
        from .cluster import get_cluster
        return get_cluster(workers, tt_bits, address)
    raise MnkError(f"unknown backend {backend!r} (process or ray)")


def shutdown_pool() -> None:
    """Stop the process's pool and Ray backend, if any."""
    global _pool
    if _pool is not None:
        _pool.close()
        _pool = None
    cluster = sys.modules.get(__package__ + ".cluster")
    if cluster is not None:
        cluster.shutdown_cluster()


DEFAULT_SPLIT_DEPTH = 1  # plies always split; more while there are under MIN_TASKS tasks
MIN_TASKS = 8            # (whatever the number of workers: workers beyond that join running tasks)
SERIAL_BUDGET = 1 << 13  # nodes (about 2 ms) tried serially before splitting


def solve_parallel(position: Position, workers: int, weak: bool = False, time_limit: Optional[float] = None,
                   tt_bits: int = 22, pv: bool = True, split_depth: Optional[int] = None,
                   progress: Optional[bool] = None, serial_budget: int = SERIAL_BUDGET, backend: str = "process",
                   address: Optional[str] = None, checkpoint=None) -> SolveResult:
    """:func:`parallel_mnk.search.solve` on ``workers`` processes (``backend``
    ``"process"``) or Ray task slots (``"ray"``, at ``address``).

    The exact score comes from the same null-window tests as the serial path,
    each run as a split tree (``split_depth`` plies, default: 1, deeper until
    there are 8 tasks, at most 4; 1 is plain root splitting without
    young-brothers-wait). A worker with no task to start joins a running one
    (the process pool only): both search it on the shared table, each putting
    off the moves the other is inside (ABDADA), and the first result counts.
    The best move and line are then found by the
    coordinator on its table (shared with the workers of its machine). A
    position solved within ``serial_budget`` nodes by the coordinator alone is
    not split at all (0: always split); the table it filled is kept for the
    split. ``checkpoint``: the journal file (see
    :mod:`parallel_mnk.parallel.checkpoint`) to resume from and write to.
    """
    started = time.perf_counter()
    if position.is_game_over():
        return terminal_result(position, started)
    journal = None
    if checkpoint is not None:
        from .checkpoint import Checkpoint
        journal = Checkpoint(checkpoint, position)
    try:
        if journal is not None:
            done = journal.final_result(weak, pv)
            if done is not None:  # the journal holds the whole answer
                score, line = done
                stats = [WorkerStats(i, 0, 0, 0.0) for i in range(workers + 1)]
                return SolveResult(position.spec, value_of_score(score), None if weak else score, line[0], line,
                                   0, time.perf_counter() - started, stats, checkpoint=journal.summary())
        pool = get_backend(backend, workers, tt_bits, address)
        pool.journal = journal
        try:
            result = _solve_on(pool, position, workers, weak, time_limit, pv, split_depth, progress, serial_budget,
                               journal, started)
        finally:
            pool.journal = None
        if journal is not None:
            if result.value != "unknown":
                journal.set_final_result(weak, result.value, result.score, result.pv, full=pv)
            result.checkpoint = journal.summary()
        return result
    finally:
        if journal is not None:
            journal.close()


def _solve_on(pool: Coordinator, position: Position, workers: int, weak: bool, time_limit: Optional[float], pv: bool,
              split_depth: Optional[int], progress: Optional[bool], serial_budget: int, journal,
              started: float) -> SolveResult:
    spec = position.spec
    for w in pool.workers:
        w.stats = WorkerStats(w.index, 0, 0, 0.0)
        w.restarts = 0  # the give-up limit is per solve
    salt = new_salt()
    coordinator = Search(spec, pool.tt, salt=salt)
    cpu0 = time.process_time()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    show = sys.stderr.isatty() if progress is None else progress
    prog = Progress() if show else None
    out = np.zeros(L.MAX_CELLS, dtype=np.int64)

    def expander(own: int, opp: int, ply: int):
        n, lo, hi = _expand_kernel(coordinator.ctx, pool.tt, np.uint64(own), np.uint64(opp), ply, out)
        return int(n), int(lo), int(hi), [int(c) for c in out[:max(int(n), 1)]]

    own, opp = position.stones()
    ply = position.ply
    depth = split_depth if split_depth is not None else DEFAULT_SPLIT_DEPTH
    if depth < 1:
        raise MnkError(f"split depth must be at least 1, got {depth}")

    proven: list[tuple[int, int]] = []  # (proven lower bound through a root child, its cell)
    jlo, jhi = generic_bounds(spec.cells, ply)
    if journal is not None:  # what earlier runs proved about the root
        jlo, jhi, earlier = journal.root_bounds(jlo, jhi)
        proven += earlier

    def window_search(alpha: int, beta: int, label: str) -> int:
        tree = SplitTree(spec.cells, expander, own, opp, ply, alpha, beta, depth=depth, ybw=split_depth != 1,
                         min_tasks=MIN_TASKS if split_depth is None else 0)
        if journal is not None:
            journal.apply(tree)
        if prog is not None:
            prog.label, prog.tree = label, tree
        value = pool.search_tree(tree, spec, int(salt), deadline, prog)
        child = tree.best_child()
        if child is not None:
            proven.append((-child.hi, child.cell))
        if journal is not None:
            journal.probe_done(alpha, beta, value, None if child is None else (-child.hi, child.cell))
        return value

    try:
        if serial_budget:
            # easy positions: a serial search with a node budget, on the shared table
            coordinator.ctx[L.C_NODE_LIMIT] = serial_budget
            score = coordinator.score(own, opp, ply, weak)
            coordinator.ctx[L.C_NODE_LIMIT] = 0
            if not coordinator.aborted:
                cell = coordinator.best_cell(own, opp, ply, score, weak)
                line = (principal_variation(coordinator, position, score, weak, cell) if pv
                        else [position.move_of_cell(cell)])
                return _result(spec, score, weak, line, coordinator, pool, cpu0, started, serial=True)
            coordinator.ctx[L.C_ABORTED] = 0
        n, lo0, hi0 = _expand_kernel(coordinator.ctx, pool.tt, np.uint64(own), np.uint64(opp), ply, out)
        first_choice = int(out[0])  # an immediate win, or the best-ordered move (never worse than lo0)
        if n == 0:
            score = int(lo0)
        elif weak:
            if jlo > 0 or jhi < 0 or jlo == jhi == 0:
                v = jlo if jlo > 0 else (jhi if jhi < 0 else 0)  # the journal decides it
            else:
                v = window_search(-1, 1, "weak")
            score = 1 if v > 0 else (-1 if v < 0 else 0)
        else:
            lo, hi = generic_bounds(spec.cells, ply)
            lo, hi = max(lo, int(lo0), jlo), min(hi, int(hi0), jhi)
            while lo < hi:
                med = int(next_probe(lo, hi))
                r = window_search(med, med + 1, f"score in [{lo},{hi}], testing > {med}")
                if r <= med:
                    hi = r
                else:
                    lo = r
            score = lo
        reaching = [c for v, c in proven if v >= score]
        if reaching:
            cell = reaching[-1]
        elif n > 0 and score == max(generic_bounds(spec.cells, ply)[0], int(lo0)):
            cell = first_choice  # the score is the static bound every candidate reaches
        else:
            cell = coordinator.best_cell(own, opp, ply, score, weak)
        if cell < 0:
            raise SearchTimeout()
        line = principal_variation(coordinator, position, score, weak, cell) if pv else [position.move_of_cell(cell)]
        if coordinator.aborted:
            raise SearchTimeout()
        return _result(spec, score, weak, line, coordinator, pool, cpu0, started)
    except SearchTimeout:
        return _result(spec, None, weak, [], coordinator, pool, cpu0, started)
    except KeyboardInterrupt:
        shutdown_pool()
        raise
    finally:
        if prog is not None:
            prog.finish()


def _result(spec: GameSpec, score: Optional[int], weak: bool, line: list[int], coordinator: Search,
            pool: Coordinator, cpu0: float, started: float, serial: bool = False) -> SolveResult:
    """The SolveResult of a parallel solve (``score`` None: unknown)."""
    stats = [WorkerStats(0, 1 if serial else 0, coordinator.nodes, time.process_time() - cpu0, _peak_rss())]
    stats += [w.stats for w in pool.workers]
    nodes = sum(s.nodes for s in stats)
    value = "unknown" if score is None else value_of_score(score)
    return SolveResult(spec, value, None if (weak or score is None) else score, line[0] if line else None, line,
                       nodes, time.perf_counter() - started, stats)
