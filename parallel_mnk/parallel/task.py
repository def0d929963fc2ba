"""The units of parallel work and what a worker reports back.

Each task type is a small picklable record that carries its own :meth:`run`, so
a worker of any backend (process pool, Ray) runs whatever it is handed with one
call and never needs to know the kinds:

* :class:`Task`: a window search of one position of the exact solver's split
  tree (:mod:`.scheduling.split`), answered by a :class:`TaskResult`;
* :class:`LimitedTask`: one root move of the depth-limited engine searched to
  a depth (:mod:`.uses.limited`), answered by a :class:`LimitedTaskResult`;
* :class:`BigTask`: one root move of a board past 64 cells proven with a window
  (:mod:`.uses.big`), answered by a :class:`BigTaskResult`;
* :class:`PositionTask`: one whole position solved exactly, score and best move
  (an opening book's entry, :mod:`.uses.book_build`), answered by a :class:`PositionResult`;
* :class:`PnJob`: a bounded proof-number search of one node of a parallel proof
  (:mod:`.uses.pn_jobs`), answered by a :class:`PnJobResult`;
* :class:`JudgeJob`: the judgements of a leaf's moves for the proof-number prover
  past 64 cells (:mod:`.uses.big_pn`), answered by a :class:`JudgeResult`.

:class:`WorkerEnv` is what a worker process holds between tasks: its index, the
shared table, the control array and its slot there, and its searches.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np

from ..api.settings import current
from ..engines import limited
from ..engines.books.choose import open_book
from ..engines.exact.big import BigSearch, table_bits
from ..engines.provers.big_threats import Judge
from ..engines.exact.search import Search
from ..engines.provers.pn_replica import ReplicaSearcher
from ..engines.provers.pns import PnJobSearcher, PnRules
from ..game.position import Position
from ..game.rules import GameSpec, format_board_text
from ..kernels.core import layout as L
from ..runtime.running import peak_rss
from ..runtime.shared_store import attach_store



@dataclass
class WorkerEnv:
    """A worker's side of a backend: ``index`` (1..n; 0 is the coordinator), the
    table ``tt`` and control array ``ctl`` it shares with the others, and ``slot``,
    the index of its control words in ``ctl`` (task abort, live window)."""

    index: int
    tt: np.ndarray
    ctl: np.ndarray
    slot: int
    searches: dict = field(default_factory=dict)   # GameSpec -> Search on tt and ctl
    big_searches: dict = field(default_factory=dict)   # (GameSpec, bits) -> BigSearch on ctl
    pn_searcher: Optional[tuple] = None   # (the question's key, its PnJobSearcher or ReplicaSearcher): one question at a time
    judges: dict = field(default_factory=dict)   # JudgeJob's question -> its Judge on ctl (kept from job to job)
    fetch: Callable[[Any], Any] = lambda handle: handle   # a shared object's value from its handle (Ray: ray.get)
    news: Callable[[str], Any] = lambda name: None   # the newest value the coordinator posted as ``name`` (Backend.post; None: none)

    def search(self, spec: GameSpec) -> Search:
        """This worker's :class:`Search` of ``spec`` (made once)."""
        s = self.searches.get(spec)
        if s is None:
            s = self.searches[spec] = Search(spec, self.tt, self.ctl, salt=np.uint64(0))
        return s

    def big_search(self, spec: GameSpec, bits: int) -> BigSearch:
        """This worker's :class:`BigSearch` of ``spec`` with tables of ``2**bits``
        entries of its own, stopped by ``ctl``'s stop word (made once; its proven
        entries serve every later task of the board)."""
        s = self.big_searches.get((spec, bits))
        if s is None:
            s = self.big_searches[(spec, bits)] = BigSearch(spec, bits, self.ctl)
        return s


@dataclass(frozen=True)
class TaskResult:
    """What a worker reports for a task: the fail-soft ``value`` and its ``kind``
    (1 lower bound, 2 upper bound, 3 exact), or ``abandoned`` (no value), plus the
    work it cost."""

    task_id: int
    worker: int
    value: int
    kind: int
    abandoned: bool
    nodes: int
    cpu_s: float
    peak_rss: int
    proofs: tuple[int, int] = (0, 0)   # nodes closed by pairing certificates and by VCF wins


@dataclass(frozen=True)
class Task:
    """One unit of the exact solver's parallel work: search ``own``/``opp`` (``ply``
    stones, ``own`` to move) with window ``(alpha, beta)`` on a table salted with
    ``salt``; ``path`` is the cells from the solve's root; ``marks``: with busy
    marks (ABDADA: another searcher of the same subtree takes other moves first),
    worth their cost only where other workers search the same subtree."""

    task_id: int
    cols: int
    rows: int
    k: int
    gravity: bool
    salt: int
    own: int
    opp: int
    ply: int
    alpha: int
    beta: int
    path: tuple[int, ...]
    marks: bool = True   # busy marks (ABDADA deferral): off where no other worker will share the subtree

    abandonable = True   # its search reads its slot's abandon word (the others read only the stop word)

    @property
    def spec(self) -> GameSpec:
        return GameSpec(self.cols, self.rows, self.k, self.gravity)

    @property
    def live_window(self) -> Optional[tuple[int, int]]:
        """The window the coordinator narrows while the task runs."""
        return self.alpha, self.beta

    def skipped(self, worker: int) -> TaskResult:
        """The answer of the task abandoned before it started."""
        return TaskResult(self.task_id, worker, 0, 0, True, 0, 0.0, 0)

    def run(self, env: WorkerEnv) -> TaskResult:
        """Search the task in this process with the live window and abort word of
        ``env``'s slot. A task abandoned before it started is reported abandoned
        without a search."""
        if env.ctl[env.slot + L.CTL_TASK_ABORT] == self.task_id:
            return self.skipped(env.index)
        search = env.search(self.spec)
        defer = current().DEFER_MIN_EMPTY if self.marks and env.ctl[L.CTL_BUSY_BASE] > 0 else 0
        cpu = time.thread_time()
        certificates, vcf_wins = search.proof_counts
        value, kind, abandoned = search.run_task(self.own, self.opp, self.ply, self.alpha, self.beta, self.task_id,
                                                 self.salt, env.slot, defer)
        proofs = (search.proof_counts[0] - certificates, search.proof_counts[1] - vcf_wins)
        return TaskResult(self.task_id, env.index, value, kind, abandoned, search.nodes,
                          time.thread_time() - cpu, peak_rss(), proofs)


@dataclass(frozen=True)
class LimitedTaskResult:
    """The value of a root move from the root's view (a fail-soft bound when it is
    ``<= alpha``), or ``aborted``; plus the work it cost."""

    task_id: int
    worker: int
    cell: int
    value: int
    aborted: bool
    nodes: int
    cpu_s: float
    peak_rss: int = 0


@dataclass(frozen=True)
class LimitedTask:
    """Search the position after root move ``cell`` to ``depth`` plies in all with
    the window ``(alpha, beta)`` from the root's view. ``x``/``o`` are the root's
    bitboards (Python ints: any board size), ``turn`` the side to move there."""

    task_id: int
    cols: int
    rows: int
    k: int
    gravity: bool
    x: int
    o: int
    turn: int
    cell: int
    depth: int
    alpha: int
    beta: int
    flags: int
    width: int

    live_window = None   # its window is fixed when it is handed out
    abandonable = False   # its search reads only the stop word

    def skipped(self, worker: int) -> LimitedTaskResult:
        """The answer of the task stopped before it started."""
        return LimitedTaskResult(self.task_id, worker, self.cell, 0, True, 0, 0.0)

    def run(self, env: WorkerEnv) -> LimitedTaskResult:
        """Search the move in this process (``env.ctl``'s abort word stops it)."""
        cpu = time.process_time()
        spec = GameSpec(self.cols, self.rows, self.k, self.gravity)
        value, aborted, nodes = limited.search_root_move(spec, self.x, self.o, self.turn, self.cell, self.depth,
                                                         self.alpha, self.beta, self.flags, self.width, env.ctl)
        return LimitedTaskResult(self.task_id, env.index, self.cell, value, aborted, nodes,
                               time.process_time() - cpu, peak_rss())


@dataclass(frozen=True)
class BigTaskResult:
    """The value of a root move from the root's view in the task's window (exact
    when above ``alpha``: then ``line`` is the move and a perfect line after it,
    when asked), or ``aborted``; plus the work it cost."""

    task_id: int
    worker: int
    cell: int
    value: int
    aborted: bool
    nodes: int
    cpu_s: float
    line: tuple = ()
    peak_rss: int = 0


@dataclass(frozen=True)
class BigTask:
    """Prove the value of root move ``cell`` of the position ``x``/``o`` of a board
    past 64 cells (:class:`parallel_mnk.engines.exact.big.BigSearch`), weak or exact, fail-soft in
    ``(alpha, beta)`` from the root's view, on the worker's own tables of ``2**bits``
    entries; ``pv``: with a value inside the window, the line after the move too;
    ``node_limit``: nodes it may search before it stops, aborted (0: no limit)."""

    task_id: int
    cols: int
    rows: int
    k: int
    gravity: bool
    x: int
    o: int
    cell: int
    weak: bool
    alpha: int
    beta: int
    bits: int
    pv: bool
    node_limit: int = 0

    live_window = None   # its window is fixed when it is handed out
    abandonable = False   # its search reads only the stop word

    def skipped(self, worker: int) -> BigTaskResult:
        """The answer of the task stopped before it started."""
        return BigTaskResult(self.task_id, worker, self.cell, 0, True, 0, 0.0)

    def run(self, env: WorkerEnv) -> BigTaskResult:
        """Search the move in this process (``env.ctl``'s stop word stops it)."""
        cpu = time.process_time()
        spec = GameSpec(self.cols, self.rows, self.k, self.gravity)
        search = env.big_search(spec, self.bits)
        search.nodes, search.aborted = 0, False
        search.node_limit = self.node_limit or None
        value = search.window(self.x, self.o, self.alpha, self.beta, self.weak, cell=self.cell)
        line: tuple = ()
        if not search.aborted and value > self.alpha:
            position = Position.from_board(spec, format_board_text(spec, self.x, self.o))
            found = search.line(position, value, self.weak, self.cell, self.pv)
            line = () if found is None else tuple(found)
        return BigTaskResult(self.task_id, env.index, self.cell, value, search.aborted, search.nodes,
                             time.process_time() - cpu, line, peak_rss())


@dataclass(frozen=True)
class PositionResult:
    """A position's exact ``score`` and a best ``move`` (a column with gravity, else a
    cell), or ``unfinished`` (stopped, or past the task's node limit); the work it cost."""

    task_id: int
    worker: int
    score: int
    move: int
    unfinished: bool
    nodes: int
    cpu_s: float
    peak_rss: int = 0


@dataclass(frozen=True)
class PositionTask:
    """Solve the position ``x``/``o`` (any side to move) exactly, on the worker's
    table salted with ``salt`` (one salt for a whole book: its positions share
    subtrees), stopping past ``node_limit`` nodes (0: none); or, with ``book``,
    read it from that opening book (:func:`parallel_mnk.engines.books.choose.open_book`)."""

    task_id: int
    cols: int
    rows: int
    k: int
    gravity: bool
    x: int
    o: int
    salt: int
    node_limit: int = 0
    book: Optional[str] = None

    live_window = None
    abandonable = False   # its search reads only the stop word

    def skipped(self, worker: int) -> PositionResult:
        """The answer of the task stopped before it started."""
        return PositionResult(self.task_id, worker, 0, -1, True, 0, 0.0)

    def run(self, env: WorkerEnv) -> PositionResult:
        """Solve the position in this process (``env.ctl``'s stop word stops it)."""
        cpu = time.process_time()
        spec = GameSpec(self.cols, self.rows, self.k, self.gravity)
        position = Position.from_board(spec, format_board_text(spec, self.x, self.o))
        if self.book is not None:
            book = open_book(spec, self.book)
            before = 0 if book is None else book.nodes
            answer = None if book is None else book.answer(position)
            if book is not None and answer is not None:   # (nodes: the book's own search, if it searches)
                return PositionResult(self.task_id, env.index, answer.score, answer.best_move, False,
                                      book.nodes - before, time.process_time() - cpu, peak_rss())
        search = env.search(spec)
        ctx = search.ctx
        ctx[L.C_SALT] = np.uint64(self.salt)
        ctx[L.C_DEFER_MIN_EMPTY] = 0
        ctx[L.C_TASK_ID] = np.uint64(self.task_id)
        ctx[L.C_CTL_SLOT] = np.uint64(env.slot)
        search.reset(self.node_limit)
        own, opp = position.stones()
        score = search.score(own, opp, position.ply, weak=False)
        cell = -1 if search.aborted else search.best_cell(own, opp, position.ply, score, weak=False)
        unfinished = search.aborted or cell < 0
        move = -1 if unfinished else position.move_of_cell(cell)
        return PositionResult(self.task_id, env.index, score, move, unfinished, search.nodes,
                              time.process_time() - cpu, peak_rss())


@dataclass(frozen=True)
class PnJobResult:
    """A bounded job's answer (:meth:`PnJob.run`): ``found`` 1 proven, 0 disproven, -1
    open (then ``pn``/``dn`` its numbers), ``stopped`` when the stop word ended it
    (its numbers are lost; what it settled is in the store); the work it cost."""

    task_id: int
    worker: int
    found: int
    pn: int
    dn: int
    stopped: bool
    nodes: int
    cpu_s: float
    stats: dict
    peak_rss: int = 0
    delta: Optional[tuple[np.ndarray, np.ndarray]] = None   # with replicas: the job's settled entries and pool
    searcher: str = ""   # with replicas: the searcher's token and epoch (parallel/scheduling/store_log.py)
    epoch: int = 0


@dataclass(frozen=True)
class PnJob:
    """Search the node ``x``/``o`` (``ply`` stones; ``attacker_moves``: the attacker to
    move) of the question ``question`` (salt ``salt``) for about ``budget`` nodes, on
    the worker's own table of ``2**tt_bits`` entries (kept from job to job of the
    question) and the question's shared store at ``store`` (``2**store_bits``
    entries; what the job settles goes there). With ``replicated`` the store is not
    mapped: the worker keeps a replica of it, brought up to date from ``log`` (the
    chunks of :class:`~.scheduling.store_log.StoreLog`) after the ``resets`` it names
    (token, epoch pairs), and sends back what the job settled (:class:`ReplicaSearcher`)."""

    task_id: int
    cols: int
    rows: int
    k: int
    question: str
    salt: int
    store: str
    store_bits: int
    x: int
    o: int
    ply: int
    attacker_moves: bool
    budget: int
    tt_bits: int
    rules: PnRules
    replicated: bool = False
    log: tuple = ()
    resets: tuple = ()

    live_window = None
    abandonable = False   # its search reads only the stop word

    def skipped(self, worker: int) -> PnJobResult:
        """The answer of the job stopped before it started."""
        return PnJobResult(self.task_id, worker, -1, 1, 1, True, 0, 0.0, {})

    def searcher(self, env: WorkerEnv) -> Union[PnJobSearcher, ReplicaSearcher]:
        """The worker's searcher of this job's question (made at its first job)."""
        key = (self.question, self.salt, self.tt_bits, self.store, self.replicated)
        if env.pn_searcher is None or env.pn_searcher[0] != key:
            env.pn_searcher = None   # (one question's tables at a time)
            spec = GameSpec(self.cols, self.rows, self.k, False)
            if self.replicated:
                searcher: Union[PnJobSearcher, ReplicaSearcher] = ReplicaSearcher(
                    spec, self.salt, self.tt_bits, self.store_bits, self.rules)
            else:
                st = attach_store(Path(self.store), self.store_bits)
                searcher = PnJobSearcher(spec, self.salt, self.tt_bits, st, self.store_bits, self.rules, env.index)
            env.pn_searcher = (key, searcher)
        return env.pn_searcher[1]

    def run(self, env: WorkerEnv) -> PnJobResult:
        """Run the job in this process (``env.ctl``'s stop word stops it)."""
        cpu = time.process_time()
        searcher = self.searcher(env)
        if isinstance(searcher, ReplicaSearcher):
            out, rows, pool = searcher.run(self.x, self.o, self.ply, self.attacker_moves, self.budget, env.ctl,
                                           self.log, dict(self.resets), env.fetch, lambda: env.news(self.question))
            return PnJobResult(self.task_id, env.index, out.found, out.pn, out.dn, out.stopped, out.nodes,
                               time.process_time() - cpu, out.stats, peak_rss(), (rows, pool), searcher.token,
                               searcher.epoch)
        out = searcher.run(self.x, self.o, self.ply, self.attacker_moves, self.budget, env.ctl)
        return PnJobResult(self.task_id, env.index, out.found, out.pn, out.dn, out.stopped, out.nodes,
                           time.process_time() - cpu, out.stats, peak_rss())


@dataclass(frozen=True)
class JudgeResult:
    """A :class:`JudgeJob`'s answer: per position, in the job's order, its judgement
    as ``(state, move, cells, count, zone)`` (:class:`~parallel_mnk.engines.provers.big_threats.Judgement`);
    ``stopped`` when the stop word ended it (its judgements are dropped); the work it cost."""

    task_id: int
    worker: int
    judgements: tuple
    stopped: bool
    nodes: int
    cpu_s: float
    peak_rss: int = 0


@dataclass(frozen=True)
class JudgeJob:
    """Judge the ``positions`` (``(x, o)`` pairs) of a free-placement board past 64
    cells for the question "does ``attacker`` (1: x, 2: o) win?" with threat-space
    search of ``threes`` threes within ``vct_nodes`` nodes and ``fours`` fours, and
    the defender's pairings searched within ``pairing`` (live lines, pairs tried)
    (:class:`~parallel_mnk.engines.provers.big_threats.Judge`, the worker's own, kept
    from job to job of the same question and bounds); it ends after the first
    position judged ``settles`` (a state: that position settles the leaf, the rest
    are not needed; 0: none)."""

    task_id: int
    cols: int
    rows: int
    k: int
    attacker: int
    threes: int
    vct_nodes: int
    fours: int
    positions: tuple
    settles: int = 0
    pairing: tuple = (0, 0)

    live_window = None
    abandonable = False   # its search reads only the stop word

    def skipped(self, worker: int) -> JudgeResult:
        """The answer of the job stopped before it started."""
        return JudgeResult(self.task_id, worker, (), True, 0, 0.0)

    def run(self, env: WorkerEnv) -> JudgeResult:
        """Judge the positions in this process (``env.ctl``'s stop word stops it)."""
        cpu = time.process_time()
        key = (self.cols, self.rows, self.k, self.attacker, self.threes, self.vct_nodes, self.fours, self.pairing)
        judge = env.judges.get(key)
        if judge is None:
            spec = GameSpec(self.cols, self.rows, self.k, False)
            judge = env.judges[key] = Judge(spec, self.attacker, self.threes, self.vct_nodes, self.fours,
                                            BigSearch(spec, table_bits(12), env.ctl), pairing=self.pairing)
        before = judge.nodes
        out = []
        for x, o in self.positions:
            if env.ctl[L.CTL_ABORT] != 0:
                break
            j = judge.judge(x, o)
            out.append((j.state, j.move, j.cells, j.count, j.zone))
            if j.state == self.settles:
                break
        stopped = bool(env.ctl[L.CTL_ABORT] != 0)
        return JudgeResult(self.task_id, env.index, tuple(out), stopped, judge.nodes - before,
                           time.process_time() - cpu, peak_rss())


AnyTask = Union[Task, LimitedTask, BigTask, PositionTask, PnJob, JudgeJob]
AnyResult = Union[TaskResult, LimitedTaskResult, BigTaskResult, PositionResult, PnJobResult, JudgeResult]
