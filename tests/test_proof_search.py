"""The exact search with pairing bounds (kernels.negamax + kernels.pairing) and
the empty board's strategy-stealing bound: the same scores as the naive solver
with certificates tried at every node (also with a cap so small that every
fresh search gives up, with a tiny table, and with every move tried for one),
and the same scores as the search without pairings on bigger boards, both
sides to move."""
from __future__ import annotations

import numpy as np
import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec
from parallel_mnk.kernels import proof_layout as PL
from parallel_mnk.search import Search

SMALL = [GameSpec(4, 4, 4), GameSpec(5, 4, 4), GameSpec(4, 5, 4), GameSpec(5, 5, 4), GameSpec(5, 5, 5),
         GameSpec(6, 4, 4), GameSpec(6, 5, 5), GameSpec(6, 6, 5), GameSpec(4, 4, 3), GameSpec(7, 4, 4)]


def searcher(spec: GameSpec, min_empty: int, cap: int, tt_bits: int = 16, scan: int = 0) -> Search:
    """A search of ``spec`` testing certificates at nodes with ``min_empty`` empty cells
    (0: never), fresh searches capped at ``cap`` nodes, each move tried for one at
    nodes with ``scan`` empty cells (0: never)."""
    s = Search(spec, np.zeros(1 << tt_bits, dtype=np.uint64))
    s.ctx[PL.P_MIN_EMPTY] = min_empty
    s.ctx[PL.P_CAP] = cap
    s.ctx[PL.P_SCAN_MIN_EMPTY] = scan
    return s


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


@pytest.mark.parametrize("spec", SMALL, ids=str)
def test_pairing_at_every_node_matches_the_naive_solver(spec):
    positions = random_positions(spec, 30, (spec.cells - 11, spec.cells - 3), seed=spec.cells + spec.k, quiet=True,
                                 exact=False)
    assert len(positions) >= 20
    fired = 0
    for cap, tt_bits, scan in ((2000, 16, 0), (1, 16, 0), (2000, 6, 0), (2000, 16, 1), (3, 6, 1)):
        s = searcher(spec, 1, cap, tt_bits, scan)
        for pos in positions:
            own, opp = pos.stones()
            expected = naive_score(spec, pos.x, pos.o)
            assert s.score(own, opp, pos.ply, False) == expected, (pos.board_text(), cap, tt_bits)
            assert s.score(own, opp, pos.ply, True) == sign(expected), (pos.board_text(), cap, tt_bits)
        fired += int(s.ctx[PL.P_FOUND]) + int(s.ctx[PL.P_REUSED])
    assert fired > 0 or spec.k < 4   # k = 3: windows of three rarely pair


@pytest.mark.parametrize("spec,stones", [(GameSpec(5, 5, 4), (8, 12)), (GameSpec(4, 7, 4), (10, 14)),
                                         (GameSpec(6, 6, 5), (14, 20)), (GameSpec(6, 5, 4), (6, 10)),
                                         (GameSpec(7, 7, 5), (26, 32))], ids=str)
def test_pairing_keeps_the_plain_searchs_scores_on_bigger_boards(spec, stones):
    plain = searcher(spec, 0, 0, 20)
    proofs = Search(spec, np.zeros(1 << 20, dtype=np.uint64))   # the default policy
    assert proofs.ctx[PL.P_MIN_EMPTY] > 0 and (proofs.ctx[PL.P_SCAN_MIN_EMPTY] > 0) == (spec.k >= 5)
    for pos in random_positions(spec, 12, stones, seed=7 * spec.cells + spec.k, quiet=True):
        own, opp = pos.stones()
        for weak in (True, False):
            assert proofs.score(own, opp, pos.ply, weak) == plain.score(own, opp, pos.ply, weak), \
                (pos.board_text(), weak)
    fired = int(proofs.ctx[PL.P_FOUND]) + int(proofs.ctx[PL.P_REUSED])
    assert fired > 0
