"""parallel_mnk.parallel.pools.threadpool: the thread pool (``backend="thread"``).

* every answer on random positions (exact, weak, Lazy SMP, several worker counts)
  is the serial one, with a best move, and the accounting adds up;
* idle threads join running tasks (helpers);
* a time limit gives ``unknown`` and the pool answers the next solve;
* a task that raises is a lost task: handed out again, the answer still right;
* the CLI takes ``--backend thread``.
"""
from __future__ import annotations

import io
import json

import pytest

from checks import (BIG_TT_BITS, C4, KILL_MOVES, KILL_SCORE, check_accounting, check_best_move, random_positions,
                    serial_score, spec_id, split_solve)
from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.frontends.cli import main
from parallel_mnk.parallel import task as task_module
from parallel_mnk.parallel.scheduling.registry import get_coordinator
from parallel_mnk.game.rules import Value
from parallel_mnk import Limit, Options

BOARDS = [GameSpec(4, 4, 4), GameSpec(5, 4, 4, True), GameSpec(6, 5, 4, True)]


@pytest.mark.parametrize("spec", BOARDS, ids=spec_id)
@pytest.mark.parametrize("workers, weak, depth", [(2, False, None), pytest.param(3, True, None, marks=pytest.mark.slow),
                                                  pytest.param(2, False, 0, marks=pytest.mark.slow)])
def test_thread_pool_agrees_with_serial(spec, workers, weak, depth):
    stones = (6, 16) if spec.gravity and spec.cells > 24 else (0, 8)
    for pos in random_positions(spec, 6, stones, seed=spec.cells + workers):
        expect = serial_score(pos)
        r = split_solve(pos, workers, backend="thread", weak=weak, pv=False, split_depth=depth)
        if weak:
            assert (r.value == "win") == (expect > 0) and (r.value == "loss") == (expect < 0), pos.move_stack
        else:
            assert r.score == expect, pos.move_stack
            check_best_move(pos, r.best_move, r.score, weak=False)
        check_accounting(r, workers)


def test_idle_threads_help_running_tasks():
    """Six threads on a board of four columns split at the root: the first hand-out
    leaves two threads idle while its tasks run, so they join them whatever the
    timing (with four threads, helpers came only when a task outlasted another)."""
    coordinator = get_coordinator("thread", 6, BIG_TT_BITS)
    before = coordinator.helper_jobs
    for pos in random_positions(GameSpec(4, 5, 4, True), 6, (2, 8), seed=3):
        r = split_solve(pos, 6, backend="thread", tt_bits=BIG_TT_BITS, pv=False, split_depth=1)
        assert r.score == serial_score(pos)
    assert coordinator.helper_jobs > before


def test_a_time_limit_gives_unknown_and_the_pool_goes_on():
    r = solve(Position(C4), Limit(time=0.3), options=Options(workers=2, backend="thread", progress=False, book="none"))
    assert r.value == Value.UNKNOWN and r.score is None
    pos = Position.from_moves(C4, KILL_MOVES)   # Pons' score: no serial solve needed
    assert solve(pos, options=Options(workers=2, backend="thread", progress=False)).score == KILL_SCORE


def test_a_task_that_raises_is_handed_out_again(monkeypatch):
    original = task_module.Task.run
    failed = []

    def run_once_failing(self, env):
        if not failed:
            failed.append(self.task_id)
            raise RuntimeError("injected")
        return original(self, env)

    monkeypatch.setattr(task_module.Task, "run", run_once_failing)
    pos = Position.from_moves(GameSpec(6, 5, 4, True), "34")
    r = split_solve(pos, 2, backend="thread", pv=False)
    assert failed and r.score == serial_score(pos)


def test_cli_backend_thread():
    text = io.StringIO()
    assert main(["solve", "--game", "connect4", "--moves", "4453", "--workers", "2", "--backend", "thread",
                 "--book", "none", "--json", "--no-progress"], stdout=text) == 0
    out = json.loads(text.getvalue())
    assert out["best_move"] is not None and out["parallel"]["workers"] == 2
