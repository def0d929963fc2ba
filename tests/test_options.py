"""parallel_mnk.api.options: ``Limit`` (time, depth, nodes), ``Options``, ``SolveOptions``
and ``Watch``, and how solve, analyze and best_move honour a Limit or a stopped
Watch (never a guess: an exact search stopped by either answers ``unknown``)."""
from __future__ import annotations

import threading
import time

import pytest

from parallel_mnk import GameSpec, Limit, MnkError, OptionError, Options, Position, Value, Watch, analyze, best_move, solve
from parallel_mnk.api.options import SolveOptions
from parallel_mnk.engines.limited import choose_move

C4 = GameSpec(7, 6, 4, True)
HARD = Position.from_moves(C4, "4453")        # about 38 M nodes serially
EASY = Position.from_moves(GameSpec(4, 4, 3, True), "2233")
TT_BITS = 18


@pytest.mark.parametrize("kwargs, fragment", [
    ({"time": 0}, "time limit must be a positive number"),
    ({"time": -1.5}, "time limit must be a positive number"),
    ({"time": "5"}, "time limit must be a positive number"),
    ({"time": float("nan")}, "time limit must be a positive number"),
    ({"depth": 0}, "depth limit"),
    ({"depth": 2.5}, "depth limit"),
    ({"depth": True}, "depth limit"),
    ({"nodes": 0}, "node limit"),
    ({"nodes": "10"}, "node limit"),
])
def test_bad_limits_are_refused(kwargs, fragment):
    with pytest.raises(OptionError, match=fragment):
        Limit(**kwargs)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"workers": 0}, "workers"),
    ({"workers": True}, "workers"),
    ({"workers": 100_000}, "at most"),                      # found by tests/test_fuzz_options.py: forked for ever
    ({"workers": 5000, "backend": "ray"}, "at most 4096"),
    ({"limit": Limit(depth=3)}, "no depth"),
    ({"split_depth": -1}, "split depth"),
    ({"split_depth": 9}, "split depth"),
    ({"serial_budget": -1}, "serial budget"),
    ({"backend": "dask"}, "unknown backend"),
    ({"address": "h:1"}, "ray backend"),
    ({"split_depth": 0, "backend": "ray"}, "Lazy SMP"),
])
def test_bad_solve_options_are_refused(kwargs, fragment):
    with pytest.raises(MnkError, match=fragment):
        SolveOptions(**kwargs)
    if "limit" not in kwargs:   # the same fields of the public Options
        with pytest.raises(OptionError, match=fragment):
            Options(**kwargs)


def test_which_solves_are_parallel():
    assert not SolveOptions().parallel
    assert SolveOptions(workers=2).parallel
    assert SolveOptions(backend="ray").parallel
    assert SolveOptions(checkpoint="x.ckpt").parallel


def test_a_time_limit_answers_unknown_with_bounds_and_a_move_so_far():
    r = solve(HARD, Limit(time=0.05), options=Options(tt_size=8 << TT_BITS, progress=False))
    assert r.value is Value.UNKNOWN and r.score is None and r.pv == []
    assert r.best_move in HARD.legal_moves and r.bounds is not None
    with pytest.raises(MnkError, match="no depth"):
        solve(EASY, Limit(depth=4))


@pytest.mark.parametrize("workers", [1, 2])
def test_node_limit_stops_an_exact_solve_without_a_guess(workers):
    r = solve(HARD, Limit(nodes=20_000), options=Options(workers=workers, tt_size=8 << TT_BITS, progress=False))
    assert r.value is Value.UNKNOWN and r.score is None and r.pv == []
    assert r.nodes >= 20_000
    if workers == 1:   # the kernel checks every 1024 nodes
        assert r.nodes < 20_000 + 2048
    # a generous limit changes nothing
    full = solve(EASY, options=Options(tt_size=8 << TT_BITS))
    r = solve(EASY, Limit(nodes=10_000_000), options=Options(workers=workers, tt_size=8 << TT_BITS, progress=False))
    assert (r.value, r.score) == (full.value, full.score)


def test_analyze_takes_a_time_limit_only():
    a = analyze(EASY, Limit(time=30), options=Options(tt_size=8 << TT_BITS))
    assert a.complete and a.value == solve(EASY, options=Options(tt_size=8 << TT_BITS)).value
    with pytest.raises(MnkError, match="time limit only"):
        analyze(EASY, Limit(nodes=100))


def test_best_move_limits():
    gomoku = GameSpec(15, 15, 5)
    pos = Position.from_moves(gomoku, "h8,i9,h9,h10,g10,i8")
    by_limit = choose_move(pos, Limit(depth=3), fours=False)
    assert by_limit.depth == 3
    # a node budget ends the iterations early, keeping the deepest finished one
    deep = choose_move(pos, Limit(depth=6), fours=False)
    cut = choose_move(pos, Limit(depth=6, nodes=max(1, deep.nodes // 20)), fours=False)
    assert 1 <= cut.depth < deep.depth


def _stopped_after(seconds: float, run):
    """``(answer, seconds it took, watch)`` of ``run(watch)`` with the watch stopped
    from another thread after ``seconds``."""
    watch = Watch()
    timer = threading.Timer(seconds, watch.stop)
    t0 = time.perf_counter()
    timer.start()
    try:
        answer = run(watch)
    finally:
        timer.cancel()
    return answer, time.perf_counter() - t0, watch


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_watch_ends_an_exact_solve_without_a_guess(workers):
    r, took, watch = _stopped_after(0.4, lambda w: solve(HARD, options=Options(workers=workers, tt_size=8 << TT_BITS, progress=False, watch=w)))
    assert r.value is Value.UNKNOWN and r.score is None and r.pv == []
    assert took < 5, took   # a 7 s solve, stopped within a fraction of a second (generous for a busy machine)
    assert watch.stopped and watch.nodes > 0
    # an unstopped watch changes nothing and sees the nodes
    watch = Watch()
    full = solve(EASY, options=Options(tt_size=8 << TT_BITS))
    r = solve(EASY, options=Options(workers=workers, tt_size=8 << TT_BITS, watch=watch))
    assert (r.value, r.score) == (full.value, full.score)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_watch_ends_an_analysis_with_unknown_moves(workers):
    a, took, watch = _stopped_after(0.4, lambda w: analyze(HARD, options=Options(workers=workers, tt_size=8 << TT_BITS, progress=False, watch=w)))
    assert not a.complete and a.value is Value.UNKNOWN and a.score is None and a.best_moves == []
    assert took < 5, took
    assert watch.nodes > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_watch_ends_best_move_at_its_deepest_finished_depth(workers):
    pos = Position.from_moves(GameSpec(15, 15, 5), "h8,i9,h9,h10,g10,i8")
    r, took, watch = _stopped_after(0.5, lambda w: best_move(pos, Limit(depth=30),
                                                             options=Options(workers=workers, watch=w)))
    assert 1 <= r.depth < 30 and r.move in pos.legal_moves
    assert took < 5, took
    assert watch.nodes > 0
    # a watch stopped before the search starts still gets a move (depth 1 always completes)
    early = Watch()
    early.stop()
    r = best_move(pos, Limit(depth=30), options=Options(workers=workers, watch=early))
    assert r.depth == 1 and r.move in pos.legal_moves
