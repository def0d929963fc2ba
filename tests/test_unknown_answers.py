"""What a solve stopped by its limit still says (``SolveResult.bounds`` and the best
move so far), on random small positions: the true score (weak: its sign; tests/naive.py's
where it answers at once, else the full solve's: ``checks.serial_score``) always lies
within the bounds, a best move so far is legal, and the bounds do narrow (the check is
not empty). Serial and parallel, exact and weak."""
from __future__ import annotations

import pytest

from checks import random_positions, serial_score, sign, split_solve
from parallel_mnk import Options, GameSpec, Limit, solve
from parallel_mnk.engines.exact.probes import narrowed
from parallel_mnk.game.rules import generic_bounds

BOARDS = [(GameSpec(5, 5, 4), (2, 5)), (GameSpec(6, 5, 4, gravity=True), (6, 12))]
NODE_LIMITS = (300, 1000, 3000, 10000)


def test_narrowed_keeps_what_each_window_proves():
    assert narrowed((-5, 5), 0, 1, -2, weak=False) == (-5, -2)   # failed low: at most -2
    assert narrowed((-5, 5), 0, 1, 3, weak=False) == (3, 5)      # failed high: at least 3
    assert narrowed((-5, 5), -3, 3, 1, weak=False) == (1, 1)     # inside: exact
    assert narrowed((-1, 1), -1, 0, -4, weak=True) == (-1, -1)   # weak: the sign
    assert narrowed((-1, 1), 0, 1, 0, weak=True) == (-1, 0)
    assert narrowed((2, 4), 0, 1, 7, weak=False) == (4, 4)       # never outside what was known


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: str(b[0]))
@pytest.mark.parametrize("workers", [1, 2])
def test_an_unknown_answer_bounds_the_true_score(board, workers):
    spec, stones = board
    positions = random_positions(spec, 6, stones, seed=46 + workers, quiet=True)
    narrowed_seen = moves_seen = unknown = 0
    for pos in positions:
        truth = serial_score(pos)
        for weak in (False, True):
            for nodes in NODE_LIMITS:
                r = solve(pos, Limit(nodes=nodes), weak=weak, options=Options(tt_size="512K", progress=False)) \
                    if workers == 1 else split_solve(pos, workers, limit=Limit(nodes=nodes), weak=weak, tt_bits=16)
                where = f"{spec} {pos.move_stack} weak={weak} nodes={nodes} workers={workers}: {r.bounds}"
                if r.value.known:
                    assert r.bounds is None, where
                    continue
                unknown += 1
                lo, hi = r.bounds
                assert lo <= (sign(truth) if weak else truth) <= hi, where
                widest = (-1, 1) if weak else generic_bounds(spec.cells, pos.ply)
                assert widest[0] <= lo <= hi <= widest[1], where
                narrowed_seen += (lo, hi) != widest
                if r.best_move is not None:
                    assert r.best_move in pos.legal_moves and r.pv == [], where
                    moves_seen += 1
    assert unknown and narrowed_seen, (unknown, narrowed_seen)
    if workers > 1:
        assert moves_seen, unknown
