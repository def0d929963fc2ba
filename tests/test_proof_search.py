"""The exact search with its proof bounds (kernels.free.search with kernels.proofs.pairing
and kernels.proofs.threats) and the empty board's strategy-stealing bound: the same
scores as the naive solver with certificates and VCF tried at every node (also
with caps so small that the proof searches give up, with a tiny table, and with
every move tried for a certificate), and the same scores as the search without
them on bigger boards, both sides to move."""
from __future__ import annotations

import numpy as np
import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec
from parallel_mnk.kernels.proofs import layout as PL
from parallel_mnk.engines.exact.search import Search
from parallel_mnk import Options

SMALL = [GameSpec(4, 4, 4), GameSpec(5, 4, 4), GameSpec(4, 5, 4), GameSpec(5, 5, 4), GameSpec(5, 5, 5),
         GameSpec(6, 4, 4), GameSpec(6, 5, 5), GameSpec(6, 6, 5), GameSpec(4, 4, 3), GameSpec(7, 4, 4),
         GameSpec(3, 3, 3), GameSpec(4, 3, 3)]


def searcher(spec: GameSpec, min_empty: int, cap: int, tt_bits: int = 16, scan: int = 0, vcf: int = 0,
             vcf_moves: int = 8, vcf_cap: int = 50, zone: int = 1) -> Search:
    """A search of ``spec`` testing certificates at nodes with ``min_empty`` empty cells
    (0: never), fresh searches capped at ``cap`` nodes, each move tried for one at
    nodes with ``scan`` empty cells (0: never), VCF at nodes with ``vcf`` empty
    cells (0: never) with ``vcf_moves`` fours and ``vcf_cap`` nodes, and reply
    zones where certificates are tested (``zone`` 1) or not."""
    s = Search(spec, np.zeros(1 << tt_bits, dtype=np.uint64))
    s.ctx[PL.P_ZONE_ON] = zone
    s.ctx[PL.P_MIN_EMPTY] = min_empty
    s.ctx[PL.P_CAP] = cap
    s.ctx[PL.P_SCAN_MIN_EMPTY] = scan
    s.ctx[PL.P_VCF_MIN_EMPTY] = vcf
    s.ctx[PL.P_VCF_MOVES] = vcf_moves
    s.ctx[PL.P_VCF_NODE_CAP] = vcf_cap
    return s


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


@pytest.mark.parametrize("spec", SMALL, ids=str)
def test_proofs_at_every_node_match_the_naive_solver(spec):
    # k = 3: with more stones almost every position has a win in one, and no search is needed
    stones = (spec.cells - 11, spec.cells - 3) if spec.k > 3 else (max(0, spec.cells - 13), max(4, spec.cells - 10))
    positions = random_positions(spec, 30, stones, seed=spec.cells + spec.k, quiet=True, exact=False)
    assert len(positions) >= 20
    fired = wins = zoned = threats = 0
    for cap, tt_bits, scan, vcf, vcf_moves, vcf_cap, zone in ((2000, 16, 0, 0, 8, 50, 1), (1, 16, 0, 0, 8, 50, 1),
                                                              (2000, 6, 0, 0, 8, 50, 1), (2000, 16, 1, 0, 8, 50, 1),
                                                              (3, 6, 1, 1, 1, 3, 1), (0, 16, 0, 1, 20, 10000, 1),
                                                              (2000, 6, 1, 1, 8, 50, 1), (2000, 16, 0, 0, 8, 50, 0)):
        s = searcher(spec, 1 if cap else 0, cap, tt_bits, scan, vcf, vcf_moves, vcf_cap, zone)
        for pos in positions:
            own, opp = pos.stones()
            expected = naive_score(spec, pos.x, pos.o)
            settings = (pos.board_text(), cap, tt_bits, scan, vcf, vcf_moves, vcf_cap, zone)
            assert s.score(own, opp, pos.ply, False) == expected, settings
            assert s.score(own, opp, pos.ply, True) == sign(expected), settings
        fired += int(s.ctx[PL.P_FOUND]) + int(s.ctx[PL.P_REUSED])
        wins += int(s.ctx[PL.P_VCF_WINS])
        zoned += int(s.ctx[PL.P_ZONE_SKIPS])
        threats += int(s.ctx[PL.P_THREAT_ZONES])
    assert fired > 0 or spec.k < 4   # k = 3: windows of three rarely pair
    assert zoned > 0 or spec.k == 3 or spec.rows == 4   # (6x4, 7x4: no zone among these positions)
    assert wins > 0 and threats > 0   # threat zones found (where VCF is tried), checked by the scores above


@pytest.mark.parametrize("spec,stones", [(GameSpec(5, 5, 4), (8, 12)), (GameSpec(4, 7, 4), (10, 14)),
                                         (GameSpec(6, 6, 5), (14, 20)), (GameSpec(6, 5, 4), (6, 10)),
                                         (GameSpec(7, 7, 5), (26, 32))], ids=str)
def test_proofs_keep_the_plain_searchs_scores_on_bigger_boards(spec, stones):
    plain = searcher(spec, 0, 0, 20)
    proofs = Search(spec, np.zeros(1 << 20, dtype=np.uint64))   # the default policy
    assert proofs.ctx[PL.P_MIN_EMPTY] > 0 and proofs.ctx[PL.P_SCAN_MIN_EMPTY] == PL.PAIRING_MIN_EMPTY
    assert proofs.ctx[PL.P_VCF_MIN_EMPTY] > 0
    for pos in random_positions(spec, 12, stones, seed=7 * spec.cells + spec.k, quiet=True):
        own, opp = pos.stones()
        for weak in (True, False):
            assert proofs.score(own, opp, pos.ply, weak) == plain.score(own, opp, pos.ply, weak), \
                (pos.board_text(), weak)
    assert int(proofs.ctx[PL.P_FOUND]) + int(proofs.ctx[PL.P_REUSED]) > 0


def test_a_parallel_solve_counts_the_workers_proofs(use_settings):
    """Always split: the certificates the workers cut with come back in their
    figures; with the look-up of each task in the table at hand-out, the
    coordinator's one-node searches find them first on the empty (6,6,5) board (no
    task is left to hand out) and its own figures count them."""
    from parallel_mnk import Position, solve

    use_settings(SETTLE_AT_HAND_OUT=False)
    r = solve(Position(GameSpec(6, 6, 5)), weak=True, options=Options(workers=2, serial_budget=0, tt_size="2M", pv=False))
    assert (r.value, r.proof) == ("draw", "pairing")
    assert sum(w.certificates for w in r.workers[1:]) > 0
    use_settings(SETTLE_AT_HAND_OUT=True)
    r = solve(Position(GameSpec(6, 6, 5)), weak=True, options=Options(workers=2, serial_budget=0, tt_size="2M", pv=False))
    assert (r.value, r.proof) == ("draw", "pairing")
    assert r.workers[0].certificates > 0 and r.parallel is not None
