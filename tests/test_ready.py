"""parallel_mnk.parallel.ready (with kernels/pool/ready.py): the ready list of the
process pool, driven without processes.

* one step at a time against a naive twin (a plain list of queued tasks): the
  claims take the oldest ready task (helpers last), a take-back succeeds exactly
  when nobody claimed the task, the counts and the holders agree;
* a simulated pool (threads claiming entries, finishing in random order) fed
  more tasks than the list holds: every task put is run exactly once or taken
  back unrun, an abandoned task's result says so, and every window a task sees
  is its own (one the coordinator set for it);
* the coordinator on that simulated pool (fake games, random completion order,
  helpers): the root value is the minimax one, every time.
"""
from __future__ import annotations

import queue
import random
import threading
import time

import numpy as np

from checks import WIDE, FakeGame, check_fail_soft, make_tree
from parallel_mnk import GameSpec
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.kernels.pool import ready as K
from parallel_mnk.kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER
from parallel_mnk.parallel.backend import Backend
from parallel_mnk.parallel.coordinator import Coordinator
from parallel_mnk.parallel.ready import PAYLOAD_BYTES, ReadyList, words_needed
from parallel_mnk.parallel.task import Task, TaskResult


def wide_game(rng: random.Random, depth: int):
    """A random game tree, 2 to 5 moves a node, ``depth`` plies at most."""
    if depth == 0 or rng.random() < 0.1:
        return rng.randint(-6, 6)
    return [wide_game(rng, depth - 1) for _ in range(rng.randint(2, 5))]


def make_list(count: int, start: int = 3) -> ReadyList:
    ctl = np.zeros(start + words_needed(count), dtype=np.int64)
    return ReadyList(ctl, start, count, bytearray(count * PAYLOAD_BYTES), threading.Semaphore(0))


def task(task_id: int, alpha: int = -5, beta: int = 5) -> Task:
    return Task(task_id, 4, 4, 3, False, 0, task_id, 0, 1, alpha, beta, (task_id % 16,))


def unpack(word: int) -> tuple[int, int, int]:
    return word >> 32, ((word >> 16) & 0xFFFF) - L.WINDOW_BIAS, (word & 0xFFFF) - L.WINDOW_BIAS


# ---------------------------------------------------------------- step by step, against a plain queue
def test_ready_list_steps_match_a_plain_queue():
    rng = random.Random(7)
    for case in range(40):
        count = rng.randint(1, 6)
        board = make_list(count)
        twin: list[tuple[int, int, bool]] = []   # queued (entry, task id, helper), oldest first
        claimed: dict[int, tuple[int, int]] = {}   # entry -> (task id, worker)
        next_id = 1
        for _ in range(200):
            free = [e for e in range(count) if all(q[0] != e for q in twin) and e not in claimed]
            op = rng.random()
            if op < 0.35 and free:
                entry = rng.choice(free)
                live = [t for _, t, _ in twin] + [t for t, _ in claimed.values()]
                if live and rng.random() < 0.3:   # a second searcher of a task under way: a helper
                    tid = rng.choice(live)
                else:
                    tid, next_id = next_id, next_id + 1
                helper = tid in board.pending.values()
                board.put(entry, task(tid))
                twin.append((entry, tid, helper))
            elif op < 0.6:
                worker = rng.randint(1, 4)
                got = int(K.claim(board.ctl, board.base, count, worker))
                order = [q for q in twin if not q[2]] + [q for q in twin if q[2]]
                if not order:
                    assert got == -1
                    continue
                entry, tid, _ = order[0]
                assert got == entry, (case, got, order)
                twin.remove(order[0])
                claimed[entry] = (tid, worker)
                assert board.state(entry) == worker
            elif op < 0.8 and (twin or claimed):
                entry = rng.choice([q[0] for q in twin] + list(claimed))
                tid = board.pending[entry]
                board.abandon(entry, tid)
                back = board.take_back_results()
                if entry in claimed:
                    assert back == [] and board.ctl[board.slot(entry) + L.CTL_TASK_ABORT] == tid
                else:
                    assert [(e, r.task_id, r.abandoned, r.nodes) for e, r in back] == [(entry, tid, True, 0)]
                    twin[:] = [q for q in twin if q[0] != entry]
                    assert board.state(entry) == K.FREE
            elif claimed:
                entry = rng.choice(list(claimed))
                tid, worker = claimed.pop(entry)
                assert sorted(board.held_by(worker)) == sorted([e for e, (_, w) in claimed.items() if w == worker]
                                                               + [entry])
                assert not board.received(entry, TaskResult(tid + 1000, worker, 0, TT_EXACT, False, 1, 0.0, 0))
                assert board.received(entry, TaskResult(tid, worker, 0, TT_EXACT, False, 1, 0.0, 0))
                assert board.state(entry) == K.FREE
            assert board.counts() == (len(twin), len(claimed))


# ---------------------------------------------------------------- a simulated pool of threads
def fake_worker(board: ReadyList, worker: int, rng: random.Random, log: list, results: queue.Queue) -> None:
    """Claim, 'search' for a random short time watching the entry's words, answer."""
    while True:
        claimed = board.next_task(worker)
        if claimed is None:
            return
        entry, t = claimed
        at = board.slot(entry)
        seen = []
        abandoned = False
        for _ in range(rng.randint(0, 4)):
            if board.ctl[at + L.CTL_TASK_ABORT] == t.task_id:
                abandoned = True
                break
            seen.append(unpack(int(board.ctl[at + L.CTL_LIVE_WINDOW])))
            time.sleep(rng.random() * 0.002)
        log.append((t.task_id, entry, worker, seen))
        results.put((entry, TaskResult(t.task_id, worker, 0, TT_EXACT, abandoned, 0 if abandoned else 1, 0.0, 0)))


def test_simulated_pool_runs_every_task_once_and_windows_reach_their_task():
    rng = random.Random(2024)
    for case in range(6):
        count, workers, total = rng.randint(1, 8), rng.randint(1, 4), 150
        board = make_list(count)
        log: list = []
        results: queue.Queue = queue.Queue()
        threads = [threading.Thread(target=fake_worker, args=(board, w + 1, random.Random(case * 10 + w), log,
                                                               results), daemon=True) for w in range(workers)]
        for th in threads:
            th.start()
        windows: dict[int, list[tuple[int, int]]] = {}   # task id -> every window set for it
        answered, taken_back, abandoned = set(), set(), set()
        next_id, holding = 1, {}
        while len(answered) + len(taken_back) < total:
            for e in range(count):   # refill every free entry at once
                if e not in holding and next_id <= total:
                    windows[next_id] = [(-5, 5)]
                    board.put(e, task(next_id))
                    holding[e], next_id = next_id, next_id + 1
            for e, tid in list(holding.items()):
                r = rng.random()
                if r < 0.05:
                    abandoned.add(tid)
                    board.abandon(e, tid)
                elif r < 0.3:
                    a = rng.randint(-5, 0)
                    windows[tid].append((a, a + rng.randint(1, 5)))
                    board.set_window(e, tid, *windows[tid][-1])
            for e, res in board.take_back_results():
                assert res.abandoned and holding.pop(e) == res.task_id
                taken_back.add(res.task_id)
            try:
                e, res = results.get(timeout=1.0)
            except queue.Empty:
                continue
            assert board.received(e, res) and holding.pop(e) == res.task_id
            assert res.task_id not in answered
            answered.add(res.task_id)
            assert res.abandoned <= (res.task_id in abandoned)
        board.close(workers)
        for th in threads:
            th.join(5)
        assert not any(th.is_alive() for th in threads)
        runs = [r[0] for r in log]
        assert sorted(runs) == sorted(answered), "a task ran twice, or ran without an answer"
        assert answered | taken_back == set(range(1, total + 1)) and not answered & taken_back
        assert taken_back <= abandoned
        for tid, entry, worker, seen in log:
            for own_id, a, b in seen:
                assert own_id == tid and (a, b) in windows[tid], (tid, own_id, a, b)


# ---------------------------------------------------------------- the coordinator on the simulated pool
class SimReadyPool(Backend):
    """A ready list served by threads that 'search' fake-game positions: the
    value of the position (its cells' union) from :class:`FakeGame`, fail-soft for
    the window it ran with (the task's, narrowed by the entry's live window)."""

    helpers = True

    def __init__(self, game: FakeGame, workers: int, entries: int, seed: int) -> None:
        self.n, self.tt_bits, self.tt = workers, 0, np.zeros(1, dtype=np.uint64)
        self.game = game
        self.board = make_list(entries)
        self.results: queue.Queue = queue.Queue()
        self.runs: list[int] = []
        self.taken_back = 0
        self.closed = False
        self.threads = [threading.Thread(target=self._serve, args=(w + 1, random.Random(seed + w)), daemon=True)
                        for w in range(workers)]
        for th in self.threads:
            th.start()

    @property
    def places(self) -> int:
        return self.board.count

    def _serve(self, worker: int, rng: random.Random) -> None:
        while True:
            claimed = self.board.next_task(worker)
            if claimed is None:
                return
            entry, t = claimed
            at = self.board.slot(entry)
            time.sleep(rng.random() * 0.002)
            if self.board.ctl[at + L.CTL_TASK_ABORT] == t.task_id:
                self.results.put((entry, t.skipped(worker)))
                continue
            self.runs.append(t.task_id)
            own_id, a, b = unpack(int(self.board.ctl[at + L.CTL_LIVE_WINDOW]))
            assert own_id == t.task_id
            a, b = max(a, t.alpha), min(b, t.beta)
            v = self.game.value(self.game.nodes[t.own | t.opp])
            value, kind = (v, TT_UPPER) if v <= a else ((v, TT_LOWER) if v >= b else (v, TT_EXACT))
            self.results.put((entry, TaskResult(t.task_id, worker, value, kind, False, 1, 0.0, 0)))

    def start(self, slot, task):
        self.board.put(slot - 1, task)
        return True

    def spare_workers(self, free_places):
        ready, claimed = self.board.counts()
        return max(0, self.n - ready - claimed)

    def collect(self, timeout):
        events = [(e + 1, r) for e, r in self.board.take_back_results()]
        self.taken_back += len(events)
        try:
            got = [self.results.get(timeout=0 if events else timeout)]
            while not self.results.empty():
                got.append(self.results.get_nowait())
        except queue.Empty:
            got = []
        events += [(e + 1, r) for e, r in got if self.board.received(e, r)]
        return events

    def set_window(self, slot, task_id, alpha, beta):
        self.board.set_window(slot - 1, task_id, alpha, beta)

    def abandon(self, slot, task_id):
        self.board.abandon(slot - 1, task_id)

    def begin(self):
        pass

    def stop_all(self):
        pass

    def close(self):
        self.closed = True
        self.board.close(self.n)
        for th in self.threads:
            th.join(5)


def test_coordinator_on_a_simulated_ready_pool_matches_minimax():
    rng = random.Random(99)
    spec = GameSpec(3, 3, 3)
    seen = {"taken back": 0, "helpers": 0}
    for case in range(60):
        game = FakeGame(wide_game(rng, rng.randint(2, 5)), rng=rng, static=rng.random() < 0.5)
        truth = FakeGame.value(game.tree)
        alpha = rng.randint(-7, 6)
        alpha, beta = (alpha, alpha + 1) if rng.random() < 0.5 else WIDE
        tree = make_tree(game, alpha, beta, depth=rng.randint(1, 3), ybw=rng.random() < 0.6)
        pool = SimReadyPool(game, workers=rng.randint(1, 4), entries=rng.randint(1, 10), seed=case)
        coordinator = Coordinator(pool)
        try:
            result = coordinator.search_tree(tree, spec, 0, deadline=time.monotonic() + 60)
        finally:
            pool.close()
        seen["taken back"] += pool.taken_back
        seen["helpers"] += coordinator.helper_jobs
        where = f"case {case}: {game.tree} ({alpha},{beta})"
        check_fail_soft(result, truth, alpha, beta, where)
        assert not pool.board.pending, "an entry is still held after the search"
    assert seen["taken back"] > 0 and seen["helpers"] > 0, seen


# ---------------------------------------------------------------- the real pool with a ready list
def test_ready_pool_agrees_with_serial(monkeypatch):
    """The process pool with a ready list (not the default): serial = parallel on
    random positions, free and gravity, 2 and 3 workers, with helpers; every
    entry is free again after each solve."""
    from checks import check_accounting, check_best_move, random_positions, serial_score, split_solve
    from parallel_mnk.parallel import backends
    from parallel_mnk.parallel.readypool import ReadyPool

    monkeypatch.setenv("PARALLEL_MNK_READY_LIST", "1")
    try:
        for workers, spec, stones in [(2, GameSpec(4, 4, 4), (0, 8)), (3, GameSpec(5, 4, 4, True), (2, 10)),
                                      (2, GameSpec(6, 5, 4, True), (10, 20))]:
            before = backends.get_coordinator("process", workers, 16).helper_jobs
            for pos in random_positions(spec, 8, stones, seed=workers * 100 + spec.cols):
                r = split_solve(pos, workers, pv=False, split_depth=None if spec.gravity else 2)
                assert r.score == serial_score(pos), pos.move_stack
                check_best_move(pos, r.best_move, r.score, weak=False)
                check_accounting(r, workers)
                pool = backends.get_pool(workers, 16)
                assert isinstance(pool, ReadyPool) and not pool.ready.pending
            assert backends.get_coordinator("process", workers, 16).helper_jobs >= before
    finally:
        backends.shutdown_backends()
