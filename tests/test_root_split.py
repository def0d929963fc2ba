"""Root splitting on the one scheduler (issue 54): the big boards' and the
depth-limited engine's root moves are a :func:`root_split` tree run by
:meth:`Coordinator.search_tree`, with :class:`RootMoveTasks` saying what a move's
task is and what its answer proves.

On a simulated pool (threads that answer a root move with its value, fail-soft
for the alpha it was handed out with, sometimes dying mid-task): the root's value
is the best move's, every move's answer is a true bound, a lost task is run
again and the answer stays right, a stop of every search (an aborted answer)
ends the search with :class:`SearchTimeout`. Then the real engines on two
workers against one (and naive.py, in test_big and test_limited)."""
from __future__ import annotations

import os
import random
import time

import pytest

from checks import ThreadedPool

from parallel_mnk import GameSpec, Options, Position, solve
from parallel_mnk.parallel.pools.backend import Lost
from parallel_mnk.parallel.scheduling import coordinator as coordinator_module
from parallel_mnk.parallel.scheduling.coordinator import SearchTimeout
from parallel_mnk.parallel.scheduling.tree_tasks import RootMoveTasks, root_split
from parallel_mnk.parallel.task import LimitedTask, LimitedTaskResult

SPEC = GameSpec(4, 4, 3)


class RootPool(ThreadedPool):
    """Worker threads that answer a root move's task: the move's value from
    ``values`` when above the task's alpha (exact), else a fail-soft upper bound
    between the value and alpha; a worker dies (a :class:`Lost`, no answer) on the
    tasks handed out ``deaths``-th (1: the first), and answers ``aborted`` on the
    ``aborts``-th. Their searches read only the stop word (as the real ones)."""

    def __init__(self, values: dict[int, int], workers: int, seed: int, deaths=(), aborts=()) -> None:
        self.values = values
        self.deaths, self.aborts = set(deaths), set(aborts)
        self.handed: list[tuple[int, int]] = []   # (cell, alpha) of every task handed out
        self.restarted: list[int] = []
        self.stops = 0
        self.stopped = False   # the stop word
        super().__init__(workers, seed)

    def answer(self, worker, rng, item):
        t, nth = item
        if nth in self.deaths:
            return Lost("killed")
        v = self.values[t.cell]
        value = v if v > t.alpha else rng.randint(v, t.alpha)
        return LimitedTaskResult(t.task_id, worker, t.cell, value, nth in self.aborts, 10, 0.0)

    def start(self, slot, task):
        self.handed.append((task.cell, task.alpha))
        return super().start(slot, (task, len(self.handed)))

    def set_window(self, slot, task_id, alpha, beta):
        raise AssertionError("a root move's task has a fixed window")

    def stop_all(self):
        self.stops += 1
        self.stopped = True

    def begin(self):
        self.stopped = False

    def restart(self, worker):
        self.restarted.append(worker)


def make_task(cell: int, alpha: int, task_id: int) -> LimitedTask:
    return LimitedTask(task_id, SPEC.cols, SPEC.rows, SPEC.k, SPEC.gravity, 0, 0, 1, cell, 1, alpha, 99, 0, 0)


def run(values: dict[int, int], lo: int, hi: int, workers: int, seed: int, deaths=(), aborts=()):
    order = list(values)
    tree = root_split(SPEC.cells, 0, 0, 0, order, lo, hi)
    tasks = RootMoveTasks(make_task)
    pool = RootPool(values, workers, seed, deaths, aborts)
    coordinator = coordinator_module.Coordinator(pool)
    try:
        value = coordinator.search_tree(tree, SPEC, 0, deadline=time.monotonic() + 60, tasks=tasks)
    finally:
        pool.close()
    return value, tree, tasks, pool, coordinator


def test_the_root_value_is_the_best_moves_and_every_answer_a_true_bound():
    """Random move values on 1-4 workers: the tree's value is the best move's; each
    move's answer is exact above its alpha, an upper bound at or below it (the kinds
    recorded); the first task's alpha is the root's lower bound; a move reaching
    the root's upper bound settles the root (the moves after it are not needed),
    and the tasks still running are stopped (they read only the stop word), the
    stop word cleared once they answered."""
    rng = random.Random(5)
    cut_short = 0
    for case in range(80):
        n = rng.randint(1, 12)
        values = {cell: rng.randint(-5, 5) for cell in rng.sample(range(SPEC.cells), n)}
        lo = min(values.values()) - 1
        hi = max(values.values()) if rng.random() < 0.3 else 6
        value, tree, tasks, pool, _ = run(values, lo, hi, rng.randint(1, 4), seed=case)
        assert value == max(values.values()), (values, value)
        assert pool.handed[0][1] == lo
        for child in tree.root.children:
            v = values[child.cell]
            if child.cell in tasks.answers:
                got = tasks.answers[child.cell].value
                assert got >= v
                if child.lo == child.hi:
                    assert got == v == -child.lo
                else:   # an upper bound from the root's view: a lower one from the child's
                    assert child.lo == -got and child.hi == -lo
        exact = [c for c in tree.root.children if c.lo == c.hi]
        assert max(-c.lo for c in exact) == value
        cut_short += len(tasks.answers) < len(values)
        if len(pool.handed) > len(tasks.answers):   # tasks still running when the root settled:
            assert pool.stops == 1                    # their searches read only the stop word
        assert not pool.stopped   # (cleared once they answered: the pool's next work runs)
    assert cut_short, "no case reached the root's upper bound before every move was answered"


def test_a_lost_task_is_run_again_and_the_answer_stays_right():
    """Workers that die holding a root move's task (the first, a middle one, two):
    the coordinator records each loss, restarts the worker, hands the move out
    again, and the root's value is still the best move's."""
    rng = random.Random(11)
    for case, deaths in enumerate([(1,), (3,), (1, 2), (2, 5)]):
        values = {cell: rng.randint(-5, 5) for cell in range(8)}
        value, tree, tasks, pool, coordinator = run(values, -6, 6, 2, seed=case, deaths=deaths)
        assert value == max(values.values())
        assert len(coordinator.lost) == len(deaths) and len(pool.restarted) == len(deaths)
        lost_cells = {t.path[0] for t in coordinator.lost}
        assert all(cell in tasks.answers for cell in lost_cells)   # (8 moves, hi 6: every move answered)
        assert len(pool.handed) == len(values) + len(deaths)


def test_an_aborted_answer_stops_the_search():
    """An answer cut short by a stop of every search (a limit) proves nothing:
    :class:`SearchTimeout`, and what was proven before stays in the tree."""
    values = {cell: cell - 3 for cell in range(6)}
    with pytest.raises(SearchTimeout):
        run(values, -6, 6, 1, seed=0, aborts=(3,))


def test_a_killed_worker_of_a_big_solve_gets_its_move_again(monkeypatch, tmp_path):
    """A big-board solve (9x8 k=5, past 64 cells) on two processes whose worker dies on
    its first root move (the first task's process exits): the coordinator records the
    loss, the move is handed out again on a fresh worker, and the answer is naive.py's,
    as on one worker (a lost worker used to stop the solve with an error)."""
    from naive import naive_solver

    import big_cases
    from parallel_mnk.api.settings import current
    from parallel_mnk.parallel.scheduling.registry import get_coordinator, shutdown_backends
    from parallel_mnk.parallel.task import BigTask

    marker = tmp_path / "died"
    run_move = BigTask.run

    def dies_once(self, env):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return run_move(self, env)
        os._exit(9)   # (in the worker process: the first task of the solve)

    spec = GameSpec(9, 8, 5)
    text, score = big_cases.MIXED[2]
    pos = Position.from_board(spec, text)
    shutdown_backends()   # (the pool is forked after the patch)
    monkeypatch.setattr(BigTask, "run", dies_once)
    try:
        r = solve(pos, options=Options(tt_size="2M", workers=2))
        lost = list(get_coordinator("process", 2, current().SIDE_POOL_TT_BITS).lost)
    finally:
        shutdown_backends()
    assert marker.exists() and len(lost) == 1, lost
    assert r.score == score == naive_solver(spec).score(pos.x, pos.o)
    assert r.parallel["root_moves_proved"] >= 1 and r.best_move in pos.legal_moves
