"""parallel_mnk.parallel.task: the units of work and their results.

* ``Task``/``TaskResult`` pickle (they cross process pipes and Ray);
* a task run by a worker (``Task.run``, in this process) is labelled as strongly
  as its window allows: a value strictly inside the window is exact, and every
  label is true (against the naive reference).
"""
from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from checks import random_positions, spec_id
from naive import naive_solver
from parallel_mnk import GameSpec
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER
from parallel_mnk.parallel.task import Task, TaskResult, WorkerEnv
from parallel_mnk.game.rules import generic_bounds


def test_task_and_result_records_pickle():
    task = Task(task_id=7, cols=7, rows=6, k=4, gravity=True, salt=(1 << 64) - 3, own=(1 << 41) | 5, opp=1 << 40,
                ply=3, alpha=-2, beta=-1, path=(38, 31, 39))
    back = pickle.loads(pickle.dumps(task))
    assert back == task and hash(back) == hash(task) and back is not task
    assert isinstance(back.path, tuple)
    res = TaskResult(task_id=7, worker=2, value=-1, kind=TT_UPPER, abandoned=False, nodes=12345, cpu_s=0.25,
                     peak_rss=1 << 27)
    assert pickle.loads(pickle.dumps(res)) == res
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(task, protocol=proto)) == task


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(4, 4, 4), GameSpec(4, 4, 3, True),
                                  pytest.param(GameSpec(5, 4, 4, True), marks=pytest.mark.slow)],   # 9 s: CI runs it
                         ids=spec_id)
def test_task_results_are_labelled_as_strongly_as_their_window_allows(spec):
    """A worker's result for a task is a fail-soft value and its kind. A value
    strictly inside the task's window must be labelled exact, even when the
    kernel narrowed the window itself (to the position's score bounds, or to a
    table entry): a split-tree node given a mere bound there can never settle,
    and the same task was handed out again forever (a livelock seen on 4x4 k4).
    Each position is searched with a run of windows on one table, so later
    searches meet the entries the earlier ones stored."""
    tt = np.zeros(1 << 16, dtype=np.uint64)
    ctl = np.zeros(L.CTL_WORKERS + 2 * L.CTL_PER_WORKER, dtype=np.int64)
    env = WorkerEnv(1, tt, ctl, L.CTL_WORKERS + L.CTL_PER_WORKER)
    rng = random.Random(7)
    solver = naive_solver(spec)
    checked = {TT_EXACT: 0, TT_LOWER: 0, TT_UPPER: 0}
    # (from 6 stones: naive's scores of the 4x4 board's 4- and 5-stone positions took 6 of the test's 7 s)
    for i, pos in enumerate(random_positions(spec, 40, (6, 10), seed=11)):
        own, opp = pos.stones()
        true = solver.score(pos.x, pos.o)
        lo, hi = generic_bounds(spec.cells, pos.ply)
        for j in range(8):
            alpha = rng.randint(lo - 1, hi)
            beta = alpha + 1 if j % 2 else rng.randint(alpha + 1, hi + 1)
            task = Task(1 + 8 * i + j, spec.cols, spec.rows, spec.k, spec.gravity, 12345, own, opp, pos.ply,
                        alpha, beta, ())
            r = task.run(env)
            assert not r.abandoned
            where = (pos.move_stack, (alpha, beta), r.value, r.kind, true)
            if alpha < r.value < beta:
                assert r.kind == TT_EXACT, where
            if r.kind == TT_EXACT:
                assert r.value == true, where
            elif r.kind == TT_LOWER:
                assert r.value >= beta and true >= r.value, where
            else:
                assert r.kind == TT_UPPER and r.value <= alpha and true <= r.value, where
            checked[r.kind] += 1
    assert min(checked.values()) > 0, checked
