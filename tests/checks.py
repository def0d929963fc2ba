"""Helpers shared by the test modules (imported as ``from checks import ...``, as
naive.py is; no tests here):

* :func:`random_positions`: the one generator of random positions;
* references and checkers of an answer: :func:`serial_score`,
  :func:`check_best_move`, :func:`check_pv`, :func:`check_accounting`,
  :func:`pool_tasks`, and :func:`split_solve` (a parallel solve that always splits);
* :data:`BOARDS` (the random boards of the parallel tests), :data:`C4`,
  :data:`KILL_MOVES`/:data:`KILL_SCORE` (a Connect Four solve of about a second on 2
  workers, Pons' score, for the fault tests), :data:`RESUME_MOVES` and :data:`INTERRUPT_MOVES`
  (longer ones, for tests that stop a solve before it ends);
* :func:`alive` (whether a process still runs), :func:`kill_mid_search` (SIGKILL a
  pool worker inside the search of a task the coordinator still wants);
* :func:`missing` (third-party reference data absent: a skip, or under
  ``$REQUIRE_DATA``, as CI runs, a failure);
* :func:`web_server` (a ``parallel-mnk serve`` server in a thread of the test);
* split trees over fake games, with no kernels (:class:`FakeGame`,
  :func:`make_tree`, the small game :data:`ABC` and :func:`abc_nodes`).
"""
from __future__ import annotations

import contextlib
import os
import queue
import random
import signal
import threading
import time
from typing import Iterator, Optional, Union

import numpy as np
import psutil
import pytest

from naive import naive_score, naive_solver
from parallel_mnk import GameSpec, Move, Position, solve
from parallel_mnk.parallel.pools.backend import Backend
from parallel_mnk.parallel.scheduling.split import SplitTree
from parallel_mnk.game import geometry
from parallel_mnk.game.rules import win_score
from parallel_mnk import Limit, Options

def missing(reason: str) -> None:
    """Third-party reference data (``../shared/data``) is absent: skip the test with
    ``reason``, or fail it when ``$REQUIRE_DATA`` is set (CI sets it: there, a check
    against an independent reference never turns into a skip)."""
    if os.environ.get("REQUIRE_DATA"):
        pytest.fail(f"REQUIRE_DATA is set but {reason}", pytrace=False)
    pytest.skip(reason)


C4 = GameSpec(7, 6, 4, True)
TT_BITS = 16          # small shared tables: light pools for the many small solves
BIG_TT_BITS = 20      # for the few searches of several seconds
# Pons' Test_L1_R3, line 18: exact score 2 (checked serially by the slow test of
# test_procpool.py); 70 tasks over 8 null-window probes, a few seconds on 2 workers
KILL_MOVES, KILL_SCORE = "53476", 2
# longer Connect Four solves, for tests that must stop one before it ends (KILL_MOVES is
# down to about 1 s on 2 workers: it could end first): about 2.5 s (12.8 M nodes, Pons'
# score 2 with the sign of the side to move: a win) and about 10 s (58 M nodes)
RESUME_MOVES, RESUME_SCORE = "453", 2
INTERRUPT_MOVES = "45"


def wins_in_one(spec: GameSpec, stones: int, other: int) -> set[int]:
    """Empty cells that complete a line of ``stones`` (free placement), from line masks."""
    cells = set()
    for line in geometry.line_masks(spec):
        missing = line & ~stones
        if not line & other and missing and missing & (missing - 1) == 0:
            cells.add(missing.bit_length() - 1)
    return cells


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


# ---------------------------------------------------------------- random positions
def _random_moves(spec: GameSpec, rng: random.Random, stones: int, quiet: bool) -> tuple[list[int], int, int, bool]:
    """A game of ``stones`` random moves from the empty board, stopped early when it
    ends; ``quiet``: never a move that ends it (stopped early when every move would).
    Returns its move indices, X's and O's stones and whether it ended. Played on
    bitboards (a Position a move cost a tenth of the test run), drawing from ``rng``
    exactly as the same game on a :class:`Position` would: ``rng.choice`` of the
    legal moves, or ``rng.shuffle`` of them then the first that does not end the game
    (tests/test_naive.py checks both against that game)."""
    reference = naive_solver(spec)   # (its lines through each cell)
    through, full = reference.through, reference.full
    indices = range(spec.cols if spec.gravity else spec.cells)
    sides, moves, over = [0, 0], [], False
    while len(moves) < stones and not over:
        mask = sides[0] | sides[1]
        legal = [m for m in indices if not mask >> m & 1]   # (with gravity: a column whose top cell is empty)
        if quiet:
            rng.shuffle(legal)
        else:
            legal = [rng.choice(legal)]
        me = len(moves) & 1
        for m in legal:
            cell = m
            if spec.gravity:   # the lowest empty cell of the column (row 0 is the top)
                cell = next(c for c in range((spec.rows - 1) * spec.cols + m, -1, -spec.cols) if not mask >> c & 1)
            after = sides[me] | 1 << cell
            ends = (mask | 1 << cell) == full or any(line & after == line for line in through[cell])
            if quiet and ends:
                continue
            sides[me], over = after, ends
            moves.append(m)
            break
        else:
            break   # (quiet: every move would end the game)
    return moves, sides[0], sides[1], over


def _position(spec: GameSpec, moves: list[int]) -> Position:
    pos = Position(spec)
    for m in moves:
        pos.push(Move(spec, m))
    return pos


def _random_game(spec: GameSpec, rng: random.Random, stones: int, quiet: bool) -> Position:
    """The position of :func:`_random_moves`' game."""
    return _position(spec, _random_moves(spec, rng, stones, quiet)[0])


def push_quiet(pos: Position, moves: list) -> bool:
    """Play the first of ``moves`` that does not end the game; False when each would."""
    for m in moves:
        pos.push(m)
        if pos.outcome() is None:
            return True
        pos.pop()
    return False


def random_positions(spec: GameSpec, count: int, stones: Union[int, tuple[int, int]], *,
                     seed: Optional[int] = None, rng: Optional[random.Random] = None, quiet: bool = False,
                     min_stones: int = 0, keep_over: bool = False, distinct: bool = True, tries: int = 50,
                     exact: bool = True) -> list[Position]:
    """``count`` positions of ``spec`` reached by random games from the empty board.

    Each game plays ``stones`` moves (an int, or ``(lo, hi)``: a number drawn with
    ``rng.randint(lo, hi)`` for each game) chosen by ``rng`` (or by
    ``random.Random(seed)``), and stops early when the game ends. With ``quiet``
    it never plays a move that ends the game (it tries the legal moves in a random
    order) and stops early when every move would.

    A game is played again, up to ``tries * count`` games in all, when it ended
    (unless ``keep_over``), when it stopped short of ``min_stones`` stones, or,
    with ``distinct``, when its position was found before. ``exact``: assert that
    ``count`` positions were found (else return those found).
    """
    if rng is None:
        rng = random.Random(seed)
    seen: set[tuple[int, int]] = set()
    out: list[Position] = []
    games = 0
    while len(out) < count and games < tries * count:
        games += 1
        n = stones if isinstance(stones, int) else rng.randint(*stones)
        moves, x, o, over = _random_moves(spec, rng, n, quiet)
        if (over and not keep_over) or len(moves) < min_stones:
            continue
        if distinct:
            if (x, o) in seen:
                continue
            seen.add((x, o))
        out.append(_position(spec, moves))
    assert len(out) == count or not exact, f"{len(out)} of {count} random positions of {spec}"
    return out


# ---------------------------------------------------------------- references
_serial_cache: dict[tuple, int] = {}


def naive_answers(spec: GameSpec, stones: int) -> bool:
    """Whether tests/naive.py answers a position of ``spec`` with ``stones`` on the board in
    a fraction of a second: at most 10 empty cells on a free board, 12 with gravity."""
    return spec.cells - stones <= (12 if spec.gravity else 10)


def serial_score(pos: Position) -> int:
    """Exact score from the side to move (cached): tests/naive.py's where it answers at
    once, which shares no code with the solver; else the serial solver's (no
    independent reference reaches those positions: the serial solver is itself held to
    naive.py on random small positions and to Pons' sets in test_solver.py)."""
    key = (pos.spec, pos.x, pos.o)
    if key not in _serial_cache:
        if naive_answers(pos.spec, pos.ply):
            _serial_cache[key] = naive_score(pos.spec, pos.x, pos.o)
        else:
            r = solve(pos, options=Options(workers=1, pv=False))
            assert r.score is not None, r
            _serial_cache[key] = r.score
    return _serial_cache[key]


def check_best_move(pos: Position, move, score: int, weak: bool) -> None:
    """``move`` is optimal: it wins at once, or the child's serial score is
    ``-score`` (weak: the child's value is the opposite of ``sign(score)``)."""
    assert move in pos.legal_moves, (move, pos.legal_moves)
    child = pos.copy()
    mover = child.turn
    child.push(move)
    out = child.outcome()
    if out is not None:
        if out.winner == mover:
            got = win_score(pos.spec, child.ply)
        else:
            assert out.winner is None, "a move cannot make the opponent win"
            got = 0
        if weak:
            assert sign(got) == sign(score), (move, got, score)
        else:
            assert got == score, (move, got, score)
        return
    child_score = serial_score(child)
    if weak:
        assert sign(-child_score) == sign(score), (move, child_score, score)
    else:
        assert -child_score == score, (move, child_score, score)


def check_pv(pos: Position, pv: list, score: int) -> None:
    """Each move of ``pv`` is legal and keeps the score; the line ends the game."""
    assert pv, "empty principal variation"
    cur = pos.copy()
    s = score
    for i, move in enumerate(pv):
        assert move in cur.legal_moves, (i, move, pv)
        check_best_move(cur, move, s, weak=False)
        cur.push(move)
        s = -s
        if cur.is_game_over():
            assert i == len(pv) - 1, f"the line goes on after the game ended at move {i}: {pv}"
    assert cur.is_game_over(), f"the line stops before the end: {pv}"


def split_solve(pos: Position, workers: int, limit: Optional[Limit] = None, weak: bool = False,
                tt_bits: int = TT_BITS, **options):
    """A parallel solve that always splits (no serial try first: ``serial_budget=0``),
    so that even easy positions go through the split tree and the pool; ``options``
    are :class:`Options` fields, the table given by its bits."""
    options.setdefault("progress", False)
    return solve(pos, limit, weak=weak, options=Options(workers=workers, serial_budget=0, tt_size=8 << tt_bits,
                                                         **options))


def pool_tasks(result) -> int:
    """Tasks the pool's workers ran for ``result``."""
    return sum(w.tasks for w in result.workers[1:])


def check_accounting(result, workers: int) -> None:
    """One entry per process (the coordinator, then each worker); nodes add up."""
    assert len(result.workers) == workers + 1
    assert [w.worker for w in result.workers] == list(range(workers + 1))
    assert sum(w.nodes for w in result.workers) == result.nodes
    for w in result.workers:
        assert w.nodes >= 0 and w.tasks >= 0 and w.cpu_s >= 0 and w.peak_rss >= 0, w
    check_task_log(result, workers)


def check_task_log(result, workers: int) -> None:
    """A parallel solve's phases add up to its places' time in probes; its span
    lies between the coordinator's serial nodes and all the nodes."""
    p = result.parallel
    if p is None:
        return
    assert p["workers"] == workers and p["work_nodes"] == result.nodes
    busy_and_idle = sum(p[f"{k}_s"] for k in ("busy", "first_wait", "turn", "starved", "tail"))
    assert busy_and_idle == pytest.approx(workers * p["probe_s"], rel=1e-3, abs=1e-3), p
    assert p["helping_s"] + p["abandoned_s"] <= p["busy_s"] + 1e-6
    assert p["helping_nodes"] + p["abandoned_nodes"] <= p["work_nodes"] - p["coordinator_nodes"]
    assert p["coordinator_nodes"] <= p["span_nodes"] <= max(p["work_nodes"], 1), p
    assert p["tasks"] >= sum(w.tasks for w in result.workers[1:]) and p["helper_tasks"] <= p["tasks"]


# (spec, fewest stones, most stones, positions) of the parallel tests' random
# positions; the ranges keep every serial solve well under a tenth of a second.
BOARDS = [
    (GameSpec(3, 3, 3), 0, 6, 30),
    (GameSpec(4, 4, 3), 0, 10, 48),
    (GameSpec(4, 4, 4), 0, 10, 48),
    (GameSpec(5, 4, 4), 2, 12, 48),
    (GameSpec(4, 4, 3, True), 0, 10, 48),
    (GameSpec(4, 4, 4, True), 0, 10, 48),
    (GameSpec(5, 4, 4, True), 0, 12, 48),
    (GameSpec(6, 5, 4, True), 10, 26, 48),
    (GameSpec(7, 6, 4, True), 24, 36, 48),
]


def spec_id(spec: GameSpec) -> str:
    """A short test id: ``4x4k3g`` (``g``: gravity)."""
    return f"{spec.cols}x{spec.rows}k{spec.k}{'g' if spec.gravity else ''}"


# ---------------------------------------------------------------- processes
def alive(pid: int, timeout: float = 0.0) -> bool:
    """Whether ``pid`` still runs (zombies count as dead) after up to ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            running = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            running = False
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.05)


def kill_mid_search(pool, coordinator, choose=min) -> Optional[tuple[int, int, int]]:
    """SIGKILL a worker of the process ``pool`` inside the search of a task whose
    answer ``coordinator`` still wants; ``(worker, task id, pid)`` of the kill, or None
    (nothing killed) when no worker qualifies now. ``choose`` picks the worker
    among those that do (1..n). The candidate is stopped (SIGSTOP) and checked
    again before the kill, so the kill cannot land just after its search ended:
    a stopped worker whose published line still carries the task has not
    answered it (a worker clears its line before it answers, ``ProcessPool.searching``);
    a candidate that fails the second look is let go on (SIGCONT)."""
    def qualifying() -> dict[int, int]:
        wanted = coordinator.wanted()
        return {w: t for w, t in pool.searching().items() if wanted.get(w) == t}

    found = qualifying()
    if not found:
        return None
    worker = choose(sorted(found))
    pid = pool.pids()[worker - 1]
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 10.0
    while True:
        try:
            if psutil.Process(pid).status() in (psutil.STATUS_STOPPED, psutil.STATUS_ZOMBIE):
                break
        except psutil.NoSuchProcess:
            return None
        assert time.monotonic() < deadline, f"worker {pid} did not stop on SIGSTOP"
        time.sleep(0.001)
    if qualifying().get(worker) != found[worker]:
        os.kill(pid, signal.SIGCONT)
        return None
    os.kill(pid, signal.SIGKILL)
    return worker, found[worker], pid


# ---------------------------------------------------------------- split trees of fake games
FAKE_CELLS = 30     # board size the tree believes in (generic bounds +-15 at the root)
WIDE = (-100, 100)  # a window wider than any score


class FakeGame:
    """A game tree from nested lists: an int is a finished position's score (from
    its side to move), a list holds the children. Every edge has its own cell, so a
    node is known by the union ``own | opp`` of the cells on its path."""

    def __init__(self, tree, rng=None, static=False):
        self.tree = tree
        self.nodes = {}        # union of path cells -> subtree
        self.child_cells = {}  # union -> cells of the children, in order
        self.static = {}       # union -> (lo, hi) the expander reports (default: no information)
        next_cell = [0]

        def walk(sub, union):
            self.nodes[union] = sub
            if not isinstance(sub, list):
                return
            if static:
                v = self.value(sub)
                self.static[union] = (v - rng.randint(0, 3), v + rng.randint(0, 3))
            cells = self.child_cells[union] = []
            for child in sub:
                cells.append(next_cell[0])
                next_cell[0] += 1
                walk(child, union | 1 << cells[-1])
        walk(tree, 0)

    @staticmethod
    def value(sub) -> int:
        if isinstance(sub, int):
            return sub
        return max(-FakeGame.value(c) for c in sub)

    def true_value(self, node) -> int:
        return self.value(self.nodes[node.own | node.opp])

    def expander(self, own: int, opp: int, ply: int):
        union = own | opp
        sub = self.nodes[union]
        if isinstance(sub, int):
            return 0, sub, sub, [0]
        lo, hi = self.static.get(union, WIDE)
        cells = self.child_cells[union]
        return len(cells), lo, hi, list(cells)


class ThreadedPool(Backend):
    """A simulated backend: one thread per slot; each item handed to a slot (by
    :meth:`start`: the task) is answered after a random short time by
    ``answer(worker, rng, item)`` (a result, or a :class:`Lost`), which
    :meth:`collect` gives back. Windows, abandons and stops do nothing here."""

    helpers = False

    def __init__(self, workers: int, seed: int) -> None:
        self.n, self.tt_bits, self.tt = workers, 0, np.zeros(1, dtype=np.uint64)
        self.inbox: list[queue.Queue] = [queue.Queue() for _ in range(workers)]
        self.results: queue.Queue = queue.Queue()
        self.closed = False
        self.threads = [threading.Thread(target=self._serve, args=(w + 1, random.Random(seed + w)), daemon=True)
                        for w in range(workers)]
        for th in self.threads:
            th.start()

    def answer(self, worker: int, rng: random.Random, item):
        raise NotImplementedError

    def _serve(self, worker: int, rng: random.Random) -> None:
        while True:
            item = self.inbox[worker - 1].get()
            if item is None:
                return
            time.sleep(rng.random() * 0.002)
            self.results.put((worker, self.answer(worker, rng, item)))

    def start(self, slot, task):
        self.inbox[slot - 1].put(task)
        return True

    def collect(self, timeout):
        try:
            got = [self.results.get(timeout=timeout)]
        except queue.Empty:
            return []
        while not self.results.empty():
            got.append(self.results.get_nowait())
        return got

    def set_window(self, slot, task_id, alpha, beta):
        pass

    def abandon(self, slot, task_id):
        pass

    def begin(self):
        pass

    def stop_all(self):
        pass

    def close(self):
        self.closed = True
        for box in self.inbox:
            box.put(None)
        for th in self.threads:
            th.join(5)


def check_fail_soft(result: int, truth: int, alpha: int, beta: int, where: str) -> None:
    """A fail-soft search result against the true value: an upper bound at or below
    ``alpha``, a lower bound at or above ``beta``, exact inside the window."""
    if result <= alpha:
        assert truth <= result, where
    elif result >= beta:
        assert truth >= result, where
    else:
        assert truth == result, where


def make_tree(game: FakeGame, alpha: int, beta: int, depth: int, ybw: bool = True, **kw) -> SplitTree:
    """The split tree of ``game`` for the window ``(alpha, beta)``."""
    return SplitTree(FAKE_CELLS, game.expander, 0, 0, 0, alpha, beta, depth=depth, ybw=ybw, **kw)


def all_nodes(tree: SplitTree):
    """Every node of ``tree``."""
    stack = [tree.root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


#   root (ply 0)
#   +- A: a1 = 2            A = -2, root via A = 2
#   +- B: b1 = 1, b2 = -3   B = max(-1, 3) = 3, root via B = -3
#   +- C: c1 = 5, c2 = 0    C = max(-5, 0) = 0, root via C = 0
#   root = 2 (move A); cells: A 0, a1 1, B 2, b1 3, b2 4, C 5, c1 6, c2 7
ABC = [[2], [1, -3], [5, 0]]


def abc_nodes(tree):
    """``A, B, C, a1, b1, b2, c1, c2`` of a tree of :data:`ABC`."""
    A, B, C = tree.root.children
    return A, B, C, A.children[0], B.children[0], B.children[1], C.children[0], C.children[1]


def subtree_size(node) -> int:
    """Nodes in the subtree of ``node`` (itself included)."""
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(n.children)
    return count


def count_refreshes(monkeypatch) -> list[tuple[int, int, int]]:
    """Wrap ``SplitTree.record`` and ``SplitTree.refresh`` (for the test) and return a
    list that gets, for each result recorded, ``(refreshed, under_top, tree)``: the
    nodes whose windows ``refresh`` visited (the subtree under its ``top``, the whole
    tree for none), the nodes under the highest node whose bounds the result
    changed (the node itself when none changed), and the nodes in the tree."""
    calls: list[tuple[int, int, int]] = []
    visited = [0]
    record, refresh = SplitTree.record, SplitTree.refresh
    sizes: dict[SplitTree, int] = {}  # a tree's shape never changes once built

    def size(tree, node) -> int:
        if node is not tree.root:
            return subtree_size(node)
        if tree not in sizes:
            sizes[tree] = subtree_size(node)
        return sizes[tree]

    def counting_refresh(self, top=None):
        visited[0] += size(self, self.root if top is None else top)
        refresh(self, top)

    def counting_record(self, node, value, kind):
        chain = [node]
        while chain[-1].parent is not None:
            chain.append(chain[-1].parent)
        before = [(n.lo, n.hi) for n in chain]
        visited[0] = 0
        record(self, node, value, kind)
        changed = [n for n, b in zip(chain, before) if (n.lo, n.hi) != b]
        top = changed[-1] if changed else node
        calls.append((visited[0], size(self, top), size(self, self.root)))

    monkeypatch.setattr(SplitTree, "refresh", counting_refresh)
    monkeypatch.setattr(SplitTree, "record", counting_record)
    return calls


# ---------------------------------------------------------------- the web server
@contextlib.contextmanager
def web_server(**kw) -> Iterator:
    """A :class:`parallel_mnk.frontends.serve.Server` on a free loopback port, answering in a
    thread while the block runs (``kw`` as for the server; a small table)."""
    from parallel_mnk.frontends.serve import Server

    kw.setdefault("tt_bits", TT_BITS + 2)
    server = Server("127.0.0.1", 0, **kw)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.jobs.stop_all()
        server.shutdown()
        server.server_close()
        thread.join(10)
