"""parallel_mnk.parallel.scheduling.driver: parallel exact solves (probes over split trees,
then the best move and the line) against the serial solver.

* on random positions of :data:`checks.BOARDS`, with 2 to 4 workers and every
  split depth: the value, the exact score, the weak value, an optimal best move,
  a principal variation that keeps the score (and, on small boards, the serial
  score against the naive reference);
* per-worker accounting (nodes add up, one entry per process) on real splits;
* every split depth on positions of about a million nodes; a bad split depth; a
  finished game.

Most solves go through ``split_solve`` (``serial_budget=0``): the public
``solve`` first tries a position serially for a few thousand nodes, so that
small positions would otherwise never reach the pool.
"""
from __future__ import annotations

import pytest

from checks import (BIG_TT_BITS, BOARDS, C4, TT_BITS, check_accounting, check_best_move, check_pv, pool_tasks,
                    random_positions, serial_score, spec_id, split_solve)
from naive import naive_solver
from parallel_mnk import GameSpec, MnkError, Position, solve
from parallel_mnk.parallel.scheduling.registry import get_coordinator
from parallel_mnk.game.rules import value_of_score, win_score
from parallel_mnk import Options

WORKER_COUNTS = (2, 3, 4)
SPLIT_DEPTHS = (None, 0, 1, 2, 3)   # 0: Lazy SMP (the root is the one task, every worker joins it)
NAIVE_MAX_EMPTY = 10   # naive minimax where it is cheap (boards of <= 16 cells)
DEEP_SPLIT_MAX_EMPTY = 10  # split depth 3 on free boards only with this many empty cells at most


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: spec_id(b[0]))
def test_parallel_agrees_with_serial_on_random_positions(board):
    spec, lo, hi, count = board
    positions = random_positions(spec, count, (lo, hi), seed=1000 + BOARDS.index(board))
    serial = {}
    for pos in positions:
        serial[(pos.x, pos.o)] = serial_score(pos)
        if spec.cells <= 16 and spec.cells - pos.ply <= NAIVE_MAX_EMPTY:
            x, o = pos.x, pos.o
            assert naive_solver(spec).score(x, o) == serial[(x, o)], pos.move_stack
    split_solves = used_tasks = 0
    helped = {}
    for workers in WORKER_COUNTS:
        for i, pos in enumerate(positions):
            before = (pos.x, pos.o, list(pos.move_stack))
            expect = serial[(pos.x, pos.o)]
            depth = SPLIT_DEPTHS[(i + workers) % len(SPLIT_DEPTHS)]
            if depth == 3 and not spec.gravity and spec.cells - pos.ply > DEEP_SPLIT_MAX_EMPTY:
                depth = 2  # thousands of tasks for a few ms of search: too slow for this loop
            want_pv = i % 12 == 0
            where = f"{spec} moves={pos.move_stack} workers={workers} split_depth={depth}"

            # always split: exact score, optimal move, (sometimes) the line
            helpers_before = get_coordinator("process", workers, TT_BITS).helper_jobs
            r = split_solve(pos, workers, pv=want_pv, split_depth=depth)
            helped[workers] = (helped.get(workers, 0) + get_coordinator("process", workers, TT_BITS).helper_jobs
                               - helpers_before)
            assert (r.value, r.score) == (value_of_score(expect), expect), where
            check_best_move(pos, r.best_move, r.score, weak=False)
            assert r.pv[0] == r.best_move, where
            if want_pv:
                check_pv(pos, r.pv, r.score)
            else:
                assert r.pv == [r.best_move], where
            check_accounting(r, workers)
            split_solves += 1
            used_tasks += pool_tasks(r) > 0

            # always split, weak: the sign, and a move that keeps it
            w = split_solve(pos, workers, weak=True, pv=False, split_depth=depth)
            assert w.value == value_of_score(expect) and w.score is None, where
            check_best_move(pos, w.best_move, expect, weak=True)
            check_accounting(w, workers)

            # the public entry point (easy positions are tried serially first)
            p = solve(pos, options=Options(workers=workers, tt_size=8 << TT_BITS, pv=False, split_depth=depth, progress=False))
            assert (p.value, p.score) == (value_of_score(expect), expect), where
            check_best_move(pos, p.best_move, p.score, weak=False)
            check_accounting(p, workers)
            assert (pos.x, pos.o, pos.move_stack) == before, "solve changed the position"
    # not a vacuous test: a good share of the split solves ran pool tasks, and idle
    # workers joined running tasks (ABDADA on the shared table)
    assert used_tasks >= split_solves // 10, f"only {used_tasks} of {split_solves} split solves ran pool tasks"
    assert helped[max(WORKER_COUNTS)] > 0, f"no worker ever joined a running task: {helped}"


@pytest.mark.parametrize("workers", WORKER_COUNTS)
def test_node_accounting_on_a_real_split(workers):
    """Empty 6x5 gravity board (a draw, a few million nodes): the work is spread."""
    pos = Position(GameSpec(6, 5, 4, True))
    r = solve(pos, options=Options(workers=workers, tt_size=8 << BIG_TT_BITS, pv=False, progress=False))
    assert (r.value, r.score) == ("draw", 0)
    check_accounting(r, workers)
    pool_entries = r.workers[1:]
    assert sum(w.tasks for w in pool_entries) >= workers
    assert sum(w.nodes for w in pool_entries) > 0
    assert sum(w.tasks > 0 for w in pool_entries) >= 2, "only one worker ever got a task"
    assert r.workers[0].tasks == 0  # the coordinator runs no tasks


@pytest.mark.parametrize("depth", [1, 2, 3, 4, None])
@pytest.mark.parametrize("spec, moves, known", [
    (GameSpec(6, 5, 4, True), "34", 0),
    (C4, "24345155", -3),            # Pons' Test_L1_R3, line 10
], ids=["6x5g-34", "c4-24345155"])
def test_split_depths_on_a_real_split(spec, moves, known, depth):
    """Positions of about a million nodes, every split depth: exact score, optimal
    move and line."""
    pos = Position.from_moves(spec, moves)
    expect = serial_score(pos)
    assert expect == known
    r = split_solve(pos, 2, tt_bits=BIG_TT_BITS, pv=True, split_depth=depth)
    assert r.score == expect
    assert pool_tasks(r) > 0
    check_best_move(pos, r.best_move, r.score, weak=False)
    check_pv(pos, r.pv, r.score)
    check_accounting(r, 2)


def test_bad_split_depth_is_refused():
    with pytest.raises(MnkError):
        split_solve(Position(GameSpec(4, 4, 4)), 2, split_depth=-1)


def test_finished_game_is_not_searched_in_parallel():
    pos = Position.from_moves(GameSpec(3, 3, 3), "a3,a2,b3,b2,c3")  # X has the top row
    r = solve(pos, options=Options(workers=2, tt_size=8 << TT_BITS))
    assert r.terminal and r.value == "loss" and r.score == -win_score(pos.spec, 5)
    assert r.best_move is None and r.pv == []



@pytest.mark.parametrize("spec,score", [(GameSpec(4, 5, 4), 0), (GameSpec(5, 4, 4, True), 0)],
                         ids=["4x5k4", "5x4k4-gravity"])
def test_probes_start_where_the_serial_root_starts(monkeypatch, spec, score):
    """The probes start where the serial root's do (next to the middle of the whole
    score range), even when the root's expansion already bounds the score (the
    empty free board: >= 0): a drawn empty board is settled by probes next to 0."""
    from parallel_mnk.parallel.scheduling.driver import ParallelSolve

    windows = []
    original = ParallelSolve._window_search

    def recording(self, alpha, beta, label):
        windows.append((alpha, beta))
        return original(self, alpha, beta, label)

    monkeypatch.setattr(ParallelSolve, "_window_search", recording)
    r = split_solve(Position(spec), 2)
    assert r.score == score
    assert set(windows) <= {(0, 1), (-1, 0)}, windows
