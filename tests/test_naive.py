"""The reference solver checked against its own definition: naive.py's search tests
only the lines through each new stone; :func:`naive.plain_score` tests every line at
every node. Equal on every position of tic-tac-toe and on random positions of small
free and gravity boards, over and not over."""
from __future__ import annotations

import random

import pytest

from checks import random_positions, spec_id
from naive import NaiveSolver, plain_score
from parallel_mnk import GameSpec


def _every_position(solver: NaiveSolver):
    """Every position reachable from the empty board (the game going on past a line too)."""
    seen, todo = set(), [(0, 0)]
    while todo:
        x, o = todo.pop()
        if (x, o) in seen:
            continue
        seen.add((x, o))
        if x | o != solver.full:
            todo += [solver.play(x, o, move) for move, _ in solver.moves(x, o)]
    return seen


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(3, 3, 2, True)], ids=spec_id)
def test_every_position_scores_as_the_definition_says(spec):
    solver = NaiveSolver(spec)
    positions = _every_position(solver)
    assert len(positions) > 800   # (5,478 and 869)
    for x, o in positions:
        assert solver.score(x, o) == plain_score(solver, x, o), (x, o)


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 3), GameSpec(4, 3, 3), GameSpec(5, 3, 3, True),
                                  GameSpec(4, 4, 4, True), GameSpec(5, 4, 4)], ids=spec_id)
def test_random_positions_score_as_the_definition_says(spec):
    solver = NaiveSolver(spec)
    positions = random_positions(spec, 12, (spec.cells - 10, spec.cells - 1), seed=5, exact=False)
    values = set()
    for pos in positions:
        want = plain_score(solver, pos.x, pos.o)
        assert solver.score(pos.x, pos.o) == want, pos.board_text()
        values.add((want > 0) - (want < 0))
    assert len(values) >= 2, values
