"""parallel_mnk.parallel.scheduling.coordinator: the scheduler, on the process pool.

* helpers: idle workers join running tasks (ABDADA on the shared table) and the
  answers stay the serial ones;
* at most ``MAX_SPECULATIVE`` tasks that young-brothers-wait holds back run at
  once (checked after every dispatch);
* a deep split (about 1450 tasks) refreshes only the windows a result can change
  (counted, not timed);
* a task result that decides nothing is an internal error, not a livelock;
* a task the shared table decides at once is settled at hand-out, truly, and
  fewer tasks run;
* on a simulated backend (threads 'searching' fake games, finishing in random
  order, live windows and abandons, helpers): the root value is the minimax one,
  every time.
"""
from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest

from checks import (ABC, BIG_TT_BITS, WIDE, FakeGame, ThreadedPool, abc_nodes, check_accounting, check_best_move,
                    check_fail_soft, count_refreshes, make_tree, pool_tasks, random_positions, serial_score,
                    spec_id, split_solve)
from naive import naive_score
from parallel_mnk import GameSpec, Position
from parallel_mnk.kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER
from parallel_mnk.parallel.scheduling import coordinator as coordinator_module
from parallel_mnk.parallel.scheduling.registry import get_coordinator
from parallel_mnk.parallel.scheduling.places import running_children
from parallel_mnk.parallel.scheduling.tree_tasks import WindowTasks
from parallel_mnk.api.settings import DEFAULTS, current
from parallel_mnk.parallel.task import Task, TaskResult


def test_helpers_share_a_task_and_agree_with_serial():
    """Root splitting on a 4-column board leaves 4 workers with at most 4 tasks: the
    others join running ones (the same task, ABDADA on the shared table). Every
    answer is the serial one, and joining really happened."""
    spec = GameSpec(4, 5, 4, True)
    positions = random_positions(spec, 12, (2, 8), seed=77)
    coordinator = get_coordinator("process", 4, BIG_TT_BITS)
    before = coordinator.helper_jobs
    for pos in positions:
        expect = serial_score(pos)
        r = split_solve(pos, 4, tt_bits=BIG_TT_BITS, pv=False, split_depth=1)
        assert r.score == expect, pos.move_stack
        check_best_move(pos, r.best_move, r.score, weak=False)
        check_accounting(r, 4)
    assert coordinator.helper_jobs > before, "no worker joined a running task"
    assert DEFAULTS.DEFER_MIN_EMPTY <= spec.cells - 8, "the busy marks were never consulted"


def test_at_most_one_speculative_task_runs_and_answers_agree(monkeypatch):
    """With helpers, idle workers start a task young-brothers-wait holds back only
    while fewer than ``MAX_SPECULATIVE`` such tasks run; the others join running
    tasks. Checked after every dispatch of real 4-worker splits (eligibility only
    grows, so the count of distinct held-back tasks under way can only come from
    dispatching), and the answers are the serial ones."""
    seen = {"dispatches": 0, "speculative_max": 0}
    original = coordinator_module.Coordinator._dispatch

    def checked_dispatch(self, tree, spec, salt):
        original(self, tree, spec, salt)
        running = {id(s.job.node): s.job.node for s in self.slots if s.job is not None and s.job.node is not None}
        speculative = sum(1 for node in running.values() if not tree.eligible(node))
        assert speculative <= current().MAX_SPECULATIVE, speculative
        seen["dispatches"] += 1
        seen["speculative_max"] = max(seen["speculative_max"], speculative)

    monkeypatch.setattr(coordinator_module.Coordinator, "_dispatch", checked_dispatch)
    spec = GameSpec(5, 4, 4, True)
    for pos in random_positions(spec, 10, (0, 6), seed=31):
        expect = serial_score(pos)
        r = split_solve(pos, 4, pv=False, split_depth=3)
        assert r.score == expect, pos.move_stack
        check_best_move(pos, r.best_move, r.score, weak=False)
    assert seen["dispatches"] > 0 and seen["speculative_max"] == DEFAULTS.MAX_SPECULATIVE, seen


@pytest.mark.parametrize("workers", [2, 4])
def test_busy_marks_only_where_workers_share_a_subtree(monkeypatch, workers):
    """A task carries busy marks (ABDADA) when idle workers will join it: every
    helper has them, and so does every task handed out in a dispatch that also
    started helpers; where each worker gets a task of its own (2 workers on a
    split of dozens of tasks) they have none. Answers stay the serial ones."""
    dispatches = []
    original_dispatch = coordinator_module.Coordinator._dispatch
    original_start = coordinator_module.Coordinator._start

    def logged_dispatch(self, tree, spec, salt):
        dispatches.append([])
        original_dispatch(self, tree, spec, salt)

    def logged_start(self, slot, node, task, helper=False):
        dispatches[-1].append((task.marks, helper))
        return original_start(self, slot, node, task, helper)

    monkeypatch.setattr(coordinator_module.Coordinator, "_dispatch", logged_dispatch)
    monkeypatch.setattr(coordinator_module.Coordinator, "_start", logged_start)
    spec = GameSpec(5, 4, 4, True)
    for pos in random_positions(spec, 6, (0, 4), seed=5):
        r = split_solve(pos, workers, pv=False, split_depth=2 if workers == 2 else 1)
        assert r.score == serial_score(pos), pos.move_stack
    started = [t for d in dispatches for t in d]
    assert started and all(marks for marks, helper in started if helper)
    for d in dispatches:
        if any(helper for _, helper in d):
            assert all(marks for marks, _ in d), d
    if workers == 2:
        assert any(not marks for marks, _ in started)
    else:
        assert any(helper for _, helper in started)


@pytest.mark.parametrize("spec, cap", [(GameSpec(5, 4, 4), 1), (GameSpec(5, 4, 4, True), 0)], ids=["free", "gravity"])
def test_running_children_of_one_node_are_capped_on_free_boards(monkeypatch, spec, cap):
    """After every dispatch of 4-worker splits, the distinct tasks running under one
    split-tree node are at most ``MAX_SIBLINGS`` (1 on free boards; no limit with
    gravity, where more do run at once); the answers are the serial ones."""
    assert DEFAULTS.MAX_SIBLINGS[spec.gravity] == cap
    seen = {"max": 0}
    original = coordinator_module.Coordinator._dispatch

    def checked_dispatch(self, tree, spec_, salt):
        original(self, tree, spec_, salt)
        per_parent = running_children(self.slots)
        most = max(per_parent.values(), default=0)
        assert not cap or most <= cap, per_parent
        seen["max"] = max(seen["max"], most)

    monkeypatch.setattr(coordinator_module.Coordinator, "_dispatch", checked_dispatch)
    for pos in random_positions(spec, 8, (0, 5), seed=13):
        r = split_solve(pos, 4, pv=False, split_depth=2)
        assert r.score == serial_score(pos), pos.move_stack
        check_best_move(pos, r.best_move, r.score, weak=False)
    assert seen["max"] == cap if cap else seen["max"] > 1


@pytest.mark.parametrize("spec", [GameSpec(5, 4, 4), GameSpec(5, 4, 4, True)], ids=spec_id)
def test_tasks_the_table_decides_are_settled_at_hand_out(monkeypatch, use_settings, spec):
    """Before a node is handed out as a task, the coordinator asks the shared table
    (a search of one node): on exact 4-worker solves of random positions, whatever
    that settles is true (fail-soft in the node's window, against naive.py's value
    of the node), fewer tasks run than with the look-up off, and every answer is the
    serial one either way."""
    settled = []
    original = coordinator_module.Coordinator.search_tree

    def logged(self, tree, spec_, salt, deadline, status=None, settle=None):
        def logging_settle(node):
            got = settle(node)
            if got is not None:
                settled.append((node.own, node.opp, node.ply, node.alpha, node.beta, got[0]))
            return got
        return original(self, tree, spec_, salt, deadline, status, settle=None if settle is None else logging_settle)

    monkeypatch.setattr(coordinator_module.Coordinator, "search_tree", logged)
    positions = random_positions(spec, 10, (8, 10), seed=23)
    tasks = {}
    for on in (True, False):
        use_settings(SETTLE_AT_HAND_OUT=on)
        tasks[on] = 0
        for pos in positions:
            r = split_solve(pos, 4, pv=False, split_depth=2)
            assert r.score == serial_score(pos), pos.move_stack
            check_best_move(pos, r.best_move, r.score, weak=False)
            tasks[on] += r.parallel["tasks"]
        if on:
            assert settled, "the table settled no task at hand-out"
            for own, opp, ply, alpha, beta, value in settled:
                x, o = (own, opp) if ply % 2 == 0 else (opp, own)
                check_fail_soft(value, naive_score(spec, x, o), alpha, beta, f"{bin(own)} {bin(opp)}")
    assert tasks[True] < tasks[False], tasks


def test_deep_split_refreshes_only_what_each_result_changed(monkeypatch, use_settings):
    """A deep split of a free board (5x4 k=4, split depth 3: ~360 tasks since the
    strategy-stealing and VCF bounds settle parts of the split tree): every
    result refreshes the windows of the subtree under the highest node whose
    bounds it changed, never the whole tree. Regression guard: when
    ``SplitTree.record`` refreshed the windows of the whole tree after every
    result, this took 4.7 s of coordinator CPU (3.2 ms per task) against 0.06 s
    for the whole serial solve. Counted (nodes visited per result), not timed.
    (The look-up of each task in the table at hand-out is off here: with it the
    table settles all but a few of these tasks, and the results to count are gone.)"""
    use_settings(SETTLE_AT_HAND_OUT=False)
    calls = count_refreshes(monkeypatch)
    pos = Position(GameSpec(5, 4, 4))
    r = split_solve(pos, 2, pv=False, split_depth=3)
    assert r.score == 0
    tasks = pool_tasks(r)
    assert tasks > 300   # (~1450 while the probes started away from 0, before af333c9)
    assert len(calls) >= tasks // 2, (len(calls), tasks)  # the results of this solve's trees
    for refreshed, under_top, size in calls:
        assert refreshed <= under_top, f"a result refreshed {refreshed} nodes of {size}, only {under_top} can change"
    refreshed = sum(c[0] for c in calls)
    whole = sum(c[2] for c in calls)
    assert refreshed * 5 < whole, f"{refreshed} nodes refreshed for {len(calls)} results in trees of {whole} nodes"


def test_a_result_that_decides_nothing_is_an_internal_error():
    """Every finished task search decides its node (fail-soft contract). A result
    that does not (a bound inside the window) would otherwise have the same task
    handed out again forever: the coordinator stops with an internal error."""
    class OneSlot:
        n, places, helpers, closed = 1, 1, False, False

    tree = make_tree(FakeGame(ABC), 1, 2, depth=2)
    a1 = abc_nodes(tree)[3]
    coordinator = coordinator_module.Coordinator(OneSlot())
    coordinator._tasks = WindowTasks(GameSpec(7, 6, 4, True), 0)   # (as search_tree sets it)
    w = coordinator.slots[0]
    task = Task(5, 7, 6, 4, True, 0, a1.own, a1.opp, a1.ply, a1.alpha, a1.beta, a1.path())
    coordinator._assign(w, a1, task)
    with pytest.raises(RuntimeError, match="internal error: task 5 .* does not decide its window"):
        coordinator._record(w, TaskResult(5, 1, 1, TT_LOWER, False, 10, 0.0, 0), tree)
    # the same value as an exact score decides it
    coordinator._assign(w, a1, replace(task, task_id=6))
    coordinator._record(w, TaskResult(6, 1, 1, TT_EXACT, False, 10, 0.0, 0), tree)
    assert a1.settled() and w.job is None


# ---------------------------------------------------------------- the coordinator on a simulated backend
def wide_game(rng: random.Random, depth: int):
    """A random game tree, 2 to 5 moves a node, ``depth`` plies at most."""
    if depth == 0 or rng.random() < 0.1:
        return rng.randint(-6, 6)
    return [wide_game(rng, depth - 1) for _ in range(rng.randint(2, 5))]


class SimPool(ThreadedPool):
    """Worker threads that 'search' fake-game positions: the value of the position
    (its cells' union) from :class:`FakeGame`, fail-soft for the window it ran with
    (the task's, narrowed by the slot's live window), or an abandoned answer when
    the slot's abort word names the task."""

    helpers = True

    def __init__(self, game: FakeGame, workers: int, seed: int) -> None:
        self.game = game
        self.live: list[tuple[int, int, int]] = [(0, 0, 0)] * workers   # (task id, alpha, beta)
        self.abort = [0] * workers
        self.abandoned = 0
        super().__init__(workers, seed)

    def answer(self, worker, rng, t):
        if self.abort[worker - 1] == t.task_id:
            self.abandoned += 1
            return t.skipped(worker)
        own_id, a, b = self.live[worker - 1]
        assert own_id == t.task_id
        a, b = max(a, t.alpha), min(b, t.beta)
        v = self.game.value(self.game.nodes[t.own | t.opp])
        value, kind = (v, TT_UPPER) if v <= a else ((v, TT_LOWER) if v >= b else (v, TT_EXACT))
        return TaskResult(t.task_id, worker, value, kind, False, 1, 0.0, 0)

    def start(self, slot, task):
        self.abort[slot - 1] = 0
        self.live[slot - 1] = (task.task_id, *task.live_window)
        return super().start(slot, task)

    def set_window(self, slot, task_id, alpha, beta):
        self.live[slot - 1] = (task_id, alpha, beta)

    def abandon(self, slot, task_id):
        self.abort[slot - 1] = task_id


def test_coordinator_on_a_simulated_pool_matches_minimax():
    rng = random.Random(99)
    spec = GameSpec(3, 3, 3)
    seen = {"abandoned": 0, "helpers": 0}
    for case in range(60):
        game = FakeGame(wide_game(rng, rng.randint(2, 5)), rng=rng, static=rng.random() < 0.5)
        truth = FakeGame.value(game.tree)
        alpha = rng.randint(-7, 6)
        alpha, beta = (alpha, alpha + 1) if rng.random() < 0.5 else WIDE
        tree = make_tree(game, alpha, beta, depth=rng.randint(1, 3), ybw=rng.random() < 0.6)
        pool = SimPool(game, workers=rng.randint(1, 4), seed=case)
        coordinator = coordinator_module.Coordinator(pool)
        try:
            result = coordinator.search_tree(tree, spec, 0, deadline=time.monotonic() + 60)
        finally:
            pool.close()
        seen["abandoned"] += pool.abandoned
        seen["helpers"] += coordinator.helper_jobs
        check_fail_soft(result, truth, alpha, beta, f"case {case}: {game.tree} ({alpha},{beta})")
        assert coordinator.running == 0, "a place still holds a task after the search"
    assert seen["abandoned"] > 0 and seen["helpers"] > 0, seen
