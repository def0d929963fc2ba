"""kernels/core/node_rules.py, the free-placement search's node rules, against the naive
solver: ``node_prelude``'s forced lines and score bounds hold on random small
positions of many boards, both sides to move; among them positions where the
opponent has no stone on a line free of the mover's stones, whose bound "the
opponent cannot win" rests on strategy stealing (``lines.live_line_summary``)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from checks import random_positions
from naive import naive_score

from parallel_mnk import GameSpec, Position
from parallel_mnk.game.geometry import build_context, has_line
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.kernels.core import lines
from parallel_mnk.kernels.core.jit import callable_from_python
from parallel_mnk.kernels.core.node_rules import node_prelude

# helpers only kernels call, as copies Python may call (core/jit.py)
live_line_summary = callable_from_python(lines.live_line_summary)
winning_cells = callable_from_python(lines.winning_cells)

SPECS = [GameSpec(3, 3, 3), GameSpec(4, 3, 3), GameSpec(4, 4, 3), GameSpec(4, 4, 4), GameSpec(5, 3, 3),
         GameSpec(5, 4, 4), GameSpec(3, 5, 3), GameSpec(6, 3, 3)]
MAX_EMPTY = 10


def scattered_positions(spec: GameSpec, count: int, rng: random.Random) -> list[tuple[int, int]]:
    """Random ``(x, o)`` boards (stone counts of a legal position, nobody has k in
    a row, at most MAX_EMPTY empty cells) on which the side not to move has no
    stone on a line free of the other side's stones, and the side to move cannot
    win at once."""
    ctx = build_context(spec)
    out: list[tuple[int, int]] = []
    for _ in range(20000):
        if len(out) == count:
            break
        stones = rng.randint(max(1, spec.cells - MAX_EMPTY), spec.cells - 1)
        cells = rng.sample(range(spec.cells), stones)
        x = sum(1 << c for c in cells[: (stones + 1) // 2])
        o = sum(1 << c for c in cells[(stones + 1) // 2:])
        if has_line(x, spec.rows, spec.cols, spec.k) or has_line(o, spec.rows, spec.cols, spec.k):
            continue
        own, opp = (x, o) if stones % 2 == 0 else (o, x)
        own, opp = np.uint64(own), np.uint64(opp)
        own_live, opp_live, _ = live_line_summary(ctx, own, opp)
        if own_live and not opp_live and winning_cells(ctx, own, ctx[L.C_BOARD] & ~(own | opp)) == 0:
            out.append((x, o))
    return out


def check_node(spec: GameSpec, ctx, x: int, o: int) -> bool:
    """Assert the prelude's bounds at ``(x, o)`` against the naive score; False when
    the node breaks the prelude's precondition (the mover wins at once)."""
    own, opp = (x, o) if (x.bit_count() + o.bit_count()) % 2 == 0 else (o, x)
    own, opp = np.uint64(own), np.uint64(opp)
    if winning_cells(ctx, own, ctx[L.C_BOARD] & ~(own | opp)) != 0:
        return False
    cand, lo, hi = node_prelude(ctx, own, opp, np.int64(x.bit_count() + o.bit_count()))
    score = naive_score(spec, x, o)
    where = (spec, bin(x), bin(o), lo, hi, score)
    assert lo <= score <= hi, where
    if cand == 0:
        assert score == lo, where
    return True


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_prelude_bounds_hold_on_random_games(spec):
    ctx = build_context(spec)
    fewest = max(0, spec.cells - MAX_EMPTY)
    games = random_positions(spec, 40, (fewest, spec.cells - 1), seed=spec.cells * 7 + spec.k, quiet=True,
                             min_stones=fewest, exact=False)
    assert sum(check_node(spec, ctx, p.x, p.o) for p in games) > 0


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(4, 4, 4), GameSpec(5, 4, 4),
                                  GameSpec(4, 5, 4), GameSpec(6, 4, 4)], ids=str)
def test_an_opponent_without_a_line_of_its_own_cannot_win(spec):
    ctx = build_context(spec)
    boards = scattered_positions(spec, 30, random.Random(spec.cells * 11 + spec.k))
    assert len(boards) >= 10
    for x, o in boards:
        assert check_node(spec, ctx, x, o)
    # the bound is not vacuous: the mover does not win some of them
    assert any(naive_score(spec, x, o) <= 0 for x, o in boards)
