"""parallel_mnk.parallel.scheduling.split: the split tree, driven by fake games (pure Python,
no kernels, no pool): bound propagation, ``done``/``result()``,
young-brothers-wait order, cutoffs making tasks unneeded, static decisions,
``min_tasks``, the windows a result refreshes, and a randomised simulation of a
pool against exact minimax."""
from __future__ import annotations

import itertools
import random

import pytest

from checks import (ABC, FAKE_CELLS, WIDE, FakeGame, abc_nodes, all_nodes, check_fail_soft, count_refreshes,
                    make_tree)
from parallel_mnk.kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER
from parallel_mnk.parallel.scheduling.split import SplitTree
from parallel_mnk.game.rules import generic_bounds


def naive_next_tasks(tree: SplitTree) -> list:
    """Twin of SplitTree.next_tasks: open task leaves in move order (every
    ancestor needed, open and unsettled), those ``eligible`` allows first."""
    def open_(n):
        return n.needed and not n.settled() and n.alpha < n.beta

    def leaves(n):
        if not open_(n):
            return []
        if not n.children:
            return [n] if n.is_task and not n.running else []
        return [leaf for c in n.children for leaf in leaves(c)]

    found = leaves(tree.root)
    return [n for n in found if tree.eligible(n)] + [n for n in found if not tree.eligible(n)]


def paths(nodes) -> list[tuple[int, ...]]:
    return [n.path() for n in nodes]


def test_fake_game_is_built_as_intended():
    g = FakeGame(ABC)
    tree = make_tree(g, *WIDE, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert paths([a1, b1, b2, c1, c2]) == [(0, 1), (2, 3), (2, 4), (5, 6), (5, 7)]
    assert [g.true_value(n) for n in (tree.root, A, B, C, a1, b1, b2, c1, c2)] == [2, -2, 3, 0, 2, 1, -3, 5, 0]
    assert tree.depth == 2 and tree.tasks_total == 5
    assert all(n.is_task for n in (a1, b1, b2, c1, c2)) and not any(n.is_task for n in (tree.root, A, B, C))


def test_split_tree_bounds_propagate_and_root_is_exact():
    tree = make_tree(FakeGame(ABC), *WIDE, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert not tree.done
    lo0, hi0 = generic_bounds(FAKE_CELLS, 0)
    assert lo0 <= tree.root.lo <= 2 <= tree.root.hi <= hi0
    tree.record(a1, 2, TT_EXACT)
    assert (A.lo, A.hi) == (-2, -2) and tree.root.lo == 2
    assert (B.alpha, B.beta) == (-tree.root.hi, -2)  # a finished sibling lowers the others' beta
    assert not tree.done
    tree.record(b1, 1, TT_LOWER)       # b1 >= 1 says nothing about B's lower bound (that needs b1 <= ..)
    assert b1.lo == 1 and not B.settled() and b2.needed
    tree.record(b1, 1, TT_EXACT)       # B >= -1 >= B.beta = -2: B fails high, b2 is cut off
    assert B.lo == -1 and B.settled()
    assert not b2.needed and tree.live_window(b2) is None
    assert b2 not in list(tree.next_tasks())
    assert not tree.done               # C may still beat 2
    tree.record(c2, 0, TT_EXACT)       # C >= 0 >= C.beta = -2: C fails high too
    assert C.settled() and not c1.needed
    assert tree.done
    assert (tree.root.lo, tree.root.hi) == (2, 2) and tree.result() == 2
    assert tree.best_child() is A
    assert list(tree.next_tasks()) == []


def test_split_tree_null_window_fail_high_and_low():
    # is root > 1 ?  a1 >= 2 (a lower bound, as a fail-soft worker reports it) decides it at once
    tree = make_tree(FakeGame(ABC), 1, 2, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert (a1.alpha, a1.beta) == (1, 2)
    tree.record(a1, 2, TT_LOWER)
    assert tree.done and tree.result() >= 2
    assert not any(n.needed for n in (A, B, C, a1, b1, b2, c1, c2))
    assert list(tree.next_tasks()) == []
    # is root > 2 ?  no: every child must be refuted; upper bounds come back
    tree = make_tree(FakeGame(ABC), 2, 3, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert (a1.alpha, a1.beta) == (2, 3)
    tree.record(a1, 2, TT_UPPER)       # a1 <= 2 -> A >= -2 -> root via A <= 2
    assert A.settled() and not tree.done
    assert (B.alpha, B.beta) == (-3, -2)
    tree.record(b1, 1, TT_EXACT)       # B >= -1 >= B.beta = -2: root via B <= 1
    assert B.settled()
    assert not tree.done
    tree.record(c1, 5, TT_LOWER)       # c1 >= 5: only C <= ... bounds, C stays open
    assert not C.settled() and not tree.done
    assert (c2.alpha, c2.beta) == (2, 3)
    tree.record(c2, 2, TT_UPPER)       # c2 <= 2: C >= -2 = C.beta: settled
    assert C.settled() and tree.done
    assert tree.result() == 2 and tree.root.hi == 2  # fail low: root <= 2


def test_young_brothers_wait_order():
    tree = make_tree(FakeGame(ABC), *WIDE, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    # nothing settled: only the leftmost line is eligible, the rest follows as speculation
    assert list(tree.next_tasks()) == [a1, b1, b2, c1, c2]
    assert tree.eligible(a1) and not any(tree.eligible(n) for n in (b1, b2, c1, c2))
    tree.record(a1, 2, TT_EXACT)
    # A settled: B and C may start; their first children come first, then the waiting ones
    assert [n for n in (b1, b2, c1, c2) if tree.eligible(n)] == [b1, c1]
    assert list(tree.next_tasks()) == [b1, c1, b2, c2]
    b1.running = True                  # handed out: b2 still waits for it, c1 goes before b2
    assert list(tree.next_tasks()) == [c1, b2, c2]
    # without young-brothers-wait: plain depth-first order
    flat = make_tree(FakeGame(ABC), *WIDE, depth=2, ybw=False)
    fA, fB, fC, fa1, fb1, fb2, fc1, fc2 = abc_nodes(flat)
    flat.record(fa1, 2, TT_EXACT)
    fb1.running = True
    assert list(flat.next_tasks()) == [fb2, fc1, fc2]


def test_static_decisions_and_errors():
    # a root decided by the expander: nothing to do
    g = FakeGame(4)
    tree = make_tree(g, *WIDE, depth=2)
    assert tree.done and tree.result() == 4 and tree.tasks_total == 0 and list(tree.next_tasks()) == []
    # children decided at expansion (finished positions) take part in the bounds at once
    tree = make_tree(FakeGame([-3, [1, 2]]), *WIDE, depth=2)
    first, second = tree.root.children
    x1, x2 = second.children
    assert not first.is_task and (first.lo, first.hi) == (-3, -3) and tree.root.lo == 3
    assert tree.tasks_total == 2 and list(tree.next_tasks()) == [x1, x2]  # first is settled: no waiting
    tree.record(x1, 1, TT_EXACT)       # second >= -1: worse than first's 3 for the root
    assert second.settled() and not x2.needed
    assert tree.done and tree.result() == 3 and tree.best_child() is first
    # bad records
    tree = make_tree(FakeGame(ABC), *WIDE, depth=2)
    a1 = tree.root.children[0].children[0]
    with pytest.raises(ValueError):
        tree.record(a1, 1, 0)
    tree.record(a1, 2, TT_EXACT)
    with pytest.raises(RuntimeError):
        tree.record(a1, 3, TT_LOWER)


def test_min_tasks_expands_deeper():
    # a uniform tree of branching 3 and depth 4: 3, 9, 27, 81 nodes per ply
    def full(d):
        return 0 if d == 0 else [full(d - 1) for _ in range(3)]
    g = FakeGame(full(4))
    assert make_tree(g, *WIDE, depth=1).tasks_total == 3
    tree = make_tree(g, *WIDE, depth=1, min_tasks=20, max_depth=4)
    assert tree.depth == 3 and tree.tasks_total == 27
    assert make_tree(g, *WIDE, depth=1, min_tasks=1000, max_depth=2).depth == 2


def random_game(rng: random.Random, depth: int):
    if depth == 0 or (depth < 4 and rng.random() < 0.15):
        return rng.randint(-6, 6)
    return [random_game(rng, depth - 1) for _ in range(rng.randint(1, 4))]


def simulate(tree: SplitTree, game: FakeGame, rng: random.Random, slots: int) -> int:
    """A pool of ``slots`` fake workers: hand out tasks in next_tasks order, finish
    them in random order with fail-soft results for the window they ran with (the
    dispatch window, or a live window narrowed meanwhile), drop abandoned ones."""
    running = []
    steps = 0
    while not tree.done:
        steps += 1
        assert steps < 10_000
        offered = list(tree.next_tasks())
        assert offered == naive_next_tasks(tree)
        for node in offered:
            if len(running) >= slots:
                break
            node.running = True
            running.append((node, node.alpha, node.beta))
        assert running, "not done, but no task to run"
        node, a, b = running.pop(rng.randrange(len(running)))
        node.running = False
        live = tree.live_window(node)
        if live is None and rng.random() < 0.7:
            continue                                   # abandoned: no result
        if live is not None and rng.random() < 0.5:
            a, b = live
        v = game.true_value(node)
        if rng.random() < 0.1:
            value, kind = v, TT_EXACT
        elif v <= a:
            value, kind = rng.randint(v, a), TT_UPPER
        elif v >= b:
            value, kind = rng.randint(b, v), TT_LOWER
        else:
            value, kind = v, TT_EXACT
        tree.record(node, value, kind)
        for n in all_nodes(tree):                       # proven bounds stay proven
            assert n.lo <= game.true_value(n) <= n.hi, (n.path(), n.lo, n.hi, game.true_value(n))
    for node, _, _ in running:
        node.running = False
    return tree.result()


def test_split_tree_simulated_pool_matches_minimax():
    rng = random.Random(12345)
    for case in range(300):
        game = FakeGame(random_game(rng, rng.randint(1, 4)), rng=rng, static=rng.random() < 0.5)
        truth = FakeGame.value(game.tree)
        kind = rng.choice(["wide", "null", "random"])
        if kind == "wide":
            alpha, beta = WIDE
        elif kind == "null":
            alpha = rng.randint(-7, 6)
            beta = alpha + 1
        else:
            alpha = rng.randint(-8, 6)
            beta = rng.randint(alpha + 1, 8)
        depth = rng.randint(1, 3)
        ybw = rng.random() < 0.7
        tree = make_tree(game, alpha, beta, depth=depth, ybw=ybw)
        where = f"case {case}: tree={game.tree} window=({alpha},{beta}) depth={depth} ybw={ybw}"
        result = simulate(tree, game, rng, slots=rng.randint(1, 4))
        check_fail_soft(result, truth, alpha, beta, where)
        child = tree.best_child()
        if child is not None:
            assert -game.true_value(child) >= -child.hi >= tree.root.lo, where
            if kind == "wide":
                assert -game.true_value(child) == truth, where


def test_a_result_refreshes_only_the_windows_under_what_it_changed(monkeypatch):
    """The windows below a node depend only on its window and bounds, so a result
    refreshes the subtree of the highest node whose bounds it changed, not the
    whole tree (refreshing the whole tree after every result cost 3.2 ms of
    coordinator CPU per task on a split of 1450 tasks). Counted on uniform trees
    of 1365 nodes (branching 4, split depth 5), the results coming in a random
    order among the first four tasks offered, each a fail-soft bound for its window."""
    def full(rng, d):
        return rng.randint(-6, 6) if d == 0 else [full(rng, d - 1) for _ in range(4)]

    calls = count_refreshes(monkeypatch)
    rng = random.Random(4)
    for case in range(4):
        game = FakeGame(full(rng, 5))
        tree = make_tree(game, *WIDE, depth=5, ybw=case % 2 == 0)
        assert tree.tasks_total == 4 ** 5
        while not tree.done:
            offered = list(itertools.islice(tree.next_tasks(), 4))
            node = offered[rng.randrange(len(offered))]
            v = game.true_value(node)
            tree.record(node, v, TT_UPPER if v <= node.alpha else TT_LOWER if v >= node.beta else TT_EXACT)
        assert tree.result() == FakeGame.value(game.tree)
    assert len(calls) > 400
    for refreshed, under_top, size in calls:
        assert size == 1365
        assert refreshed <= under_top, f"a result refreshed {refreshed} nodes, only {under_top} can change"
    # most results change a small part of the tree
    assert sum(refreshed for refreshed, _, _ in calls) < len(calls) * 1365 // 10


def test_deepen_counts_its_tasks_and_reorder_puts_the_first_first():
    """Splitting a frontier task: its moves replace it as tasks (the count follows);
    reorder puts the chosen children first, the rest keeping their order."""
    g = FakeGame(ABC)
    tree = make_tree(g, *WIDE, depth=1)
    A, B, C = tree.root.children
    assert tree.tasks_total == 3 and all(n.is_task for n in (A, B, C))
    tree.deepen(B)
    b1, b2 = B.children
    assert paths([b1, b2]) == [(2, 3), (2, 4)] and not B.is_task and tree.tasks_total == 4
    tree.reorder(B, [b2])
    assert B.children == [b2, b1] and [b2.index, b1.index] == [0, 1]
    tree.reorder(tree.root, [C, A])
    assert tree.root.children == [C, A, B] and [n.index for n in (C, A, B)] == [0, 1, 2]


def test_best_child_is_the_one_whose_bound_proves_the_root():
    """Children one point apart: the best move is the child whose upper bound, negated,
    is the root's lower bound; none when no child proves it."""
    tree = make_tree(FakeGame(ABC), *WIDE, depth=1)
    A, B, C = tree.root.children
    for node, value in ((A, -1), (B, -2), (C, 0)):
        node.lo = node.hi = value
    tree.root.lo = 2
    assert tree.best_child() is B
    tree.root.lo = 3   # (a bound no child shows: the root's own)
    assert tree.best_child() is None


def test_a_move_that_fills_the_board_is_a_draw_without_a_task():
    """On a one-cell board the only move fills it: its node is settled at 0 (a draw,
    docs/design.md scores) and the tree is done with no task to run."""
    tree = SplitTree(1, FakeGame([0]).expander, 0, 0, 0, -5, 5, depth=1)
    assert [(c.lo, c.hi) for c in tree.root.children] == [(0, 0)]
    assert tree.done and tree.result() == 0 and tree.tasks_total == 0
