"""Draws by two pairings at the root (parallel_mnk/engines/provers/big_draws.py), the
answer of the exact and weak searches past 64 cells where each side holds a pairing:
on small boards against naive.py (the value and every position of its perfect line),
and past 64 cells through the library (exact score 0, a whole game's line, the
certificate verified), where alpha-beta alone answered nothing."""
from __future__ import annotations

import io

import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec, Limit, Options, Position, analyze, proofcheck, solve
from parallel_mnk.engines.provers.big_draws import pairing_draw
from parallel_mnk.game.rules import Value


@pytest.mark.parametrize("spec", [GameSpec(9, 2, 8), GameSpec(5, 4, 5), GameSpec(5, 5, 5), GameSpec(4, 4, 4)],
                         ids=str)
def test_a_pairing_draw_and_every_position_of_its_line_are_naive_draws(spec):
    """Where both pairings are found the position is a draw (naive.py), and so is every
    position of the perfect line, which ends on a full board with no winner; where
    naive.py says a side wins, no draw is claimed."""
    drawn = refused = 0
    for pos in random_positions(spec, 30, (spec.cells - 11, spec.cells - 3), seed=spec.cells, quiet=True):
        result = pairing_draw(pos, 512, False, True)
        if result is None:
            refused += 1
            continue
        drawn += 1
        assert result.value is Value.DRAW and result.score == 0 and result.best_move == result.pv[0]
        walk = pos.copy()
        for move in result.pv:
            assert naive_score(spec, walk.x, walk.o) == 0, (pos.board_text(), [str(m) for m in result.pv])
            walk.push(move)
        end = walk.outcome()
        assert end is not None and end.winner is None and walk.ply == spec.cells, pos.board_text()
    assert drawn > 0 and (refused > 0 or spec.k > 5)


def test_no_draw_is_claimed_with_gravity_or_a_game_over():
    assert pairing_draw(Position(GameSpec(7, 6, 4, True)), 512, False, True) is None
    over = Position.from_moves(GameSpec(3, 3, 3), "a1 b1 a2 b2 a3")
    assert pairing_draw(over, 512, False, True) is None


@pytest.mark.parametrize("board,moves", [((12, 12, 9), ""), ((12, 12, 9), "a1 f6 l12"), ((20, 20, 12), "")])
def test_past_64_cells_the_exact_solve_answers_a_pairing_draw(tmp_path, board, moves):
    """12x12 k=9 and 20x20 k=12 (alpha-beta alone: unknown after 20 s): score 0, a perfect
    line to the full board, the certificate verified; on the pool the same."""
    spec = GameSpec(*board)
    pos = Position.from_moves(spec, moves)
    result = solve(pos, Limit(time=60), options=Options(certificate=tmp_path))
    assert result.value is Value.DRAW and result.score == 0 and result.proof == "pairing"
    assert len(result.pv) == spec.cells - pos.ply
    assert proofcheck.main([str(tmp_path)], out=io.StringIO()) == 0
    weak = solve(pos, Limit(time=60), weak=True, options=Options(prover="search", workers=2, pv=False))
    assert weak.value is Value.DRAW and weak.score is None and len(weak.pv) == 1


def test_past_64_cells_analyze_gives_every_move_the_pairing_draw():
    """12x12 k=9 after f6: every move keeps the draw, score 0 (alpha-beta alone: every
    move unknown at the limit)."""
    pos = Position.from_moves(GameSpec(12, 12, 9), "f6")
    result = analyze(pos, Limit(time=30))
    assert len(result.moves) == 143 and all(m.value is Value.DRAW and m.score == 0 for m in result.moves)
