"""parallel_mnk.parallel.scheduling.tasklog: where a parallel solve's time went, and its span.

* the span of a split tree follows young-brothers-wait (the eldest child, then
  the longest of the others) or not (the longest child), from the nodes of the
  searches that decided each leaf;
* a place's time in a probe is cut into phases that add up to the probe's time,
  each gap filed by what the coordinator saw (first task, its turn, nothing to
  hand out, the probe's tail);
* on real parallel solves (``checks.check_accounting``, which every parallel
  test calls) the phases add up to places x probe time and the span lies between
  the coordinator's serial nodes and the work.
"""
from __future__ import annotations

import pytest

from checks import ABC, FakeGame, abc_nodes, check_accounting, make_tree, split_solve
from parallel_mnk import GameSpec, Position
from parallel_mnk.parallel.scheduling.tasklog import PHASES, TaskLog, speedup_bound


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("ybw, expect", [(True, 10 + (5 + 7)), (False, 10)])
def test_span_follows_young_brothers_wait(ybw, expect):
    tree = make_tree(FakeGame(ABC), -100, 100, depth=2, ybw=ybw)
    _, _, _, a1, b1, b2, c1, c2 = abc_nodes(tree)
    log = TaskLog(2)
    log.probe_begin()
    for node, nodes in ((a1, 10), (b1, 5), (b2, 7), (c1, 3), (c2, 4), (c2, 99)):   # (the first result counts)
        log.decided(node, nodes)
    assert log.span_of(tree) == expect
    log.probe_end(tree)
    assert log.figures.span == expect


def test_a_leaf_no_search_decided_costs_nothing():
    tree = make_tree(FakeGame(ABC), -100, 100, depth=2)
    _, _, _, a1, b1, b2, c1, c2 = abc_nodes(tree)
    log = TaskLog(1)
    log.probe_begin()
    log.decided(b2, 8)
    assert log.span_of(tree) == 8


def test_phases_add_up_and_gaps_are_filed_by_what_the_coordinator_saw():
    clock = Clock()
    log = TaskLog(2, clock)
    log.probe_begin()
    clock.now = 1.0
    log.started(1, helper=False)          # place 1 waited 1 s for its first task
    clock.now = 1.5
    log.starving(2)                       # nothing for place 2 yet: not starved before its first task
    clock.now = 2.0
    log.started(2, helper=True)           # first_wait 2 s
    clock.now = 4.0
    log.answered(1, counted=True, abandoned=False)    # busy 3 s
    clock.now = 4.5
    log.started(1, helper=False)          # turn 0.5 s
    clock.now = 5.0
    log.answered(2, counted=False, abandoned=False, nodes=30)   # busy 3 s, all of it helping
    log.starving(2)
    clock.now = 6.0
    log.started(2, helper=False)          # starved 1 s
    clock.now = 7.0
    log.answered(2, counted=False, abandoned=True, nodes=10)    # busy 1 s, abandoned
    clock.now = 8.0
    log.answered(1, counted=True, abandoned=False)    # busy 3.5 s
    clock.now = 9.0
    log.probe_end(None)                   # tails: 2 s and 1 s
    s = log.figures.seconds
    assert set(s) == set(PHASES)
    assert s == pytest.approx({"busy": 10.5, "helping": 3.0, "abandoned": 1.0, "split": 0.0, "first_wait": 3.0, "turn": 0.5,
                               "starved": 1.0, "tail": 3.0})
    idle = s["first_wait"] + s["turn"] + s["starved"] + s["tail"]
    assert s["busy"] + idle == pytest.approx(2 * log.figures.probe_s)
    assert (log.figures.tasks, log.figures.helper_tasks, log.figures.probes) == (4, 1, 1)
    assert (log.figures.helping_nodes, log.figures.abandoned_nodes) == (30, 10)


def test_a_place_without_a_task_waits_the_whole_probe():
    clock = Clock()
    log = TaskLog(3, clock)
    log.probe_begin()
    clock.now = 2.0
    log.probe_end(None)
    assert log.figures.seconds["first_wait"] == pytest.approx(6.0)


def test_events_outside_a_probe_are_ignored():
    log = TaskLog(2)
    log.started(1, helper=False)
    log.answered(1, counted=True, abandoned=False)
    assert log.figures.tasks == 0 and log.figures.seconds["busy"] == 0


def test_speedup_bound():
    assert speedup_bound(100, 120, 10, 2) == pytest.approx(100 / 60)
    assert speedup_bound(100, 120, 10, 64) == pytest.approx(10.0)
    assert speedup_bound(100, 0, 0, 4) == 100


@pytest.mark.parametrize("workers, weak", [(2, False), (3, True)])
def test_a_real_solve_reports_its_phases_and_span(workers, weak):
    pos = Position(GameSpec(6, 5, 4, True))
    r = split_solve(pos, workers, pv=False, weak=weak)
    check_accounting(r, workers)
    p = r.parallel
    assert p["probes"] >= 1 and p["tasks"] >= workers
    assert 0 < p["span_nodes"] < p["work_nodes"] == r.nodes
    assert p["coordinator_s"] >= 0 and p["pool_start_s"] >= 0
    assert "parallel" in r.to_dict()
