"""parallel_mnk.parallel.coordinator: the scheduler, on the process pool.

* helpers: idle workers join running tasks (ABDADA on the shared table) and the
  answers stay the serial ones;
* at most ``MAX_SPECULATIVE`` tasks that young-brothers-wait holds back run at
  once (checked after every dispatch);
* a deep split (about 1450 tasks) refreshes only the windows a result can change
  (counted, not timed);
* a task result that decides nothing is an internal error, not a livelock.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from checks import (ABC, BIG_TT_BITS, FakeGame, abc_nodes, check_accounting, check_best_move, count_refreshes,
                    make_tree, pool_tasks, random_positions, serial_score, split_solve)
from parallel_mnk import GameSpec, Position
from parallel_mnk.kernels.core.layout import TT_EXACT, TT_LOWER
from parallel_mnk.parallel import coordinator as coordinator_module
from parallel_mnk.parallel.backends import get_coordinator
from parallel_mnk.parallel.task import DEFER_MIN_EMPTY, Task, TaskResult


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
    assert DEFER_MIN_EMPTY <= spec.cells - 8, "the busy marks were never consulted"


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
        assert speculative <= coordinator_module.MAX_SPECULATIVE, speculative
        seen["dispatches"] += 1
        seen["speculative_max"] = max(seen["speculative_max"], speculative)

    monkeypatch.setattr(coordinator_module.Coordinator, "_dispatch", checked_dispatch)
    spec = GameSpec(5, 4, 4, True)
    for pos in random_positions(spec, 10, (0, 6), seed=31):
        expect = serial_score(pos)
        r = split_solve(pos, 4, pv=False, split_depth=3)
        assert r.score == expect, pos.move_stack
        check_best_move(pos, r.best_move, r.score, weak=False)
    assert seen["dispatches"] > 0 and seen["speculative_max"] == coordinator_module.MAX_SPECULATIVE, seen


def test_deep_split_refreshes_only_what_each_result_changed(monkeypatch):
    """A deep split of a free board (5x4 k=4, split depth 3: ~360 tasks since the
    strategy-stealing and VCF bounds settle parts of the split tree): every
    result refreshes the windows of the subtree under the highest node whose
    bounds it changed, never the whole tree. Regression guard: when
    ``SplitTree.record`` refreshed the windows of the whole tree after every
    result, this took 4.7 s of coordinator CPU (3.2 ms per task) against 0.06 s
    for the whole serial solve. Counted (nodes visited per result), not timed."""
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
    w = coordinator.slots[0]
    task = Task(5, 7, 6, 4, True, 0, a1.own, a1.opp, a1.ply, a1.alpha, a1.beta, a1.path())
    coordinator._assign(w, a1, task)
    with pytest.raises(RuntimeError, match="internal error: task 5 .* does not decide its window"):
        coordinator._record(w, TaskResult(5, 1, 1, TT_LOWER, False, 10, 0.0, 0), tree)
    # the same value as an exact score decides it
    coordinator._assign(w, a1, replace(task, task_id=6))
    coordinator._record(w, TaskResult(6, 1, 1, TT_EXACT, False, 10, 0.0, 0), tree)
    assert a1.settled() and w.job is None

