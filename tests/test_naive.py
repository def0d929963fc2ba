"""The reference solver checked against its own definition: naive.py's search tests
only the lines through each new stone; :func:`naive.plain_score` tests every line at
every node. Equal on every position of tic-tac-toe and on random positions of small
free and gravity boards, over and not over."""
from __future__ import annotations

import random

import pytest

from checks import _random_moves, push_quiet, random_positions, spec_id
from naive import NaiveSolver, plain_score
from parallel_mnk import GameSpec, Position


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


# ---------------------------------------------------------------- checks.py's random games
def _game_on_a_position(spec: GameSpec, rng: random.Random, stones: int, quiet: bool) -> Position:
    """The reference of checks._random_moves: the same random game played on a Position."""
    pos = Position(spec)
    while pos.ply < stones and not pos.is_game_over():
        if not quiet:
            pos.push(rng.choice(pos.legal_moves))
            continue
        moves = list(pos.legal_moves)
        rng.shuffle(moves)
        if not push_quiet(pos, moves):
            break
    return pos


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(4, 4, 3), GameSpec(5, 4, 4), GameSpec(4, 3, 3, True),
                                  GameSpec(7, 6, 4, True), GameSpec(5, 5, 2, True), GameSpec(9, 9, 4)], ids=spec_id)
def test_random_games_on_bitboards_are_those_on_a_position(spec):
    """checks._random_moves plays the game a Position would, move for move (games that
    end, games stopped short, quiet games stopped where every move ends the game) and
    leaves the random generator as that game does, so that every test's positions stay
    those of its seed."""
    ended = short = 0
    for quiet in (False, True):
        ours, theirs = random.Random(11), random.Random(11)
        for i in range(150):
            stones = ours.randint(0, spec.cells)
            assert theirs.randint(0, spec.cells) == stones
            moves, x, o, over = _random_moves(spec, ours, stones, quiet)
            pos = _game_on_a_position(spec, theirs, stones, quiet)
            assert [int(m) for m in pos.move_stack] == moves, (quiet, i)
            assert (x, o, over) == (pos.x, pos.o, pos.is_game_over()), (quiet, i)
            assert ours.getstate() == theirs.getstate(), (quiet, i)
            ended += over
            short += not over and len(moves) < stones
    assert ended > 0 and short > 0
