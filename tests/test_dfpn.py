"""df-pn (parallel_mnk.kernels.proofs.dfpn through engines.provers.dfpn): "does the side to move
win?" and the weak value (with "does it lose?") answered as the naive solver
does on random small positions, both sides to move, with a roomy and a small
table, also with VCF and pairing certificates tried at every node (and with caps
so small that they give up); empty boards of known value; refusals."""
from __future__ import annotations

import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec, MnkError, Position
from parallel_mnk.kernels.proofs import layout as PL
from parallel_mnk.engines.provers.dfpn import Dfpn, dfpn_value, dfpn_wins
from parallel_mnk.game.rules import value_of_score
from parallel_mnk import Options

SMALL = [GameSpec(3, 3, 3), GameSpec(4, 3, 3), GameSpec(4, 4, 3), GameSpec(4, 4, 4), GameSpec(5, 4, 4),
         GameSpec(5, 5, 4), GameSpec(5, 5, 5), GameSpec(6, 4, 4), GameSpec(6, 5, 5)]


@pytest.mark.parametrize("spec", SMALL, ids=str)
def test_answers_match_the_naive_solver(spec):
    stones = (max(0, spec.cells - 12), spec.cells - 2)
    positions = random_positions(spec, 25, stones, seed=spec.cells * 5 + spec.k, quiet=True, exact=False)
    assert len(positions) >= 15
    for tt_bits in (16, 8):
        for pos in positions:
            score = naive_score(spec, pos.x, pos.o)
            r = dfpn_wins(pos, tt_bits=tt_bits, node_limit=5_000_000)
            assert r.answer == (score > 0), (pos.board_text(), tt_bits)
            assert dfpn_value(pos, tt_bits=tt_bits, node_limit=5_000_000).value == value_of_score(score)


PROOF_SPECS = [GameSpec(4, 4, 4), GameSpec(5, 4, 4), GameSpec(5, 5, 4), GameSpec(5, 5, 5), GameSpec(6, 4, 4),
               GameSpec(6, 5, 5), GameSpec(6, 6, 5), GameSpec(7, 4, 4)]


@pytest.mark.parametrize("spec", PROOF_SPECS, ids=str)
def test_proofs_at_every_node_match_the_naive_solver(spec):
    positions = random_positions(spec, 20, (spec.cells - 12, spec.cells - 5), seed=spec.cells + 7 * spec.k,
                                 quiet=True, exact=False)
    assert len(positions) >= 15
    vcf_wins = certificates = 0
    for tt_bits, cap, vcf_moves, vcf_cap in ((16, 2000, 20, 10_000), (4, 3, 1, 3)):
        for pos in positions:
            search = Dfpn(pos, tt_bits=tt_bits, node_limit=5_000_000)
            ctx = search.ctx
            ctx[PL.P_MIN_EMPTY], ctx[PL.P_CAP] = 1, cap
            ctx[PL.P_VCF_MIN_EMPTY], ctx[PL.P_VCF_MOVES], ctx[PL.P_VCF_NODE_CAP] = 1, vcf_moves, vcf_cap
            score = naive_score(spec, pos.x, pos.o)
            settings = (pos.board_text(), tt_bits, cap, vcf_moves, vcf_cap)
            assert search.ask(True).answer == (score > 0), settings
            assert search.ask(False).answer == (score < 0), settings
            vcf_wins += int(ctx[PL.P_VCF_WINS])
            certificates += int(ctx[PL.P_FOUND] + ctx[PL.P_REUSED])
    # both rules settled nodes (a VCF needs room: none on 5x5 k=5 positions this full)
    assert certificates > 0 and (vcf_wins > 0 or spec == GameSpec(5, 5, 5))


@pytest.mark.parametrize("spec,wins", [(GameSpec(3, 3, 3), False), (GameSpec(4, 3, 3), True),
                                       (GameSpec(4, 4, 4), False), (GameSpec(5, 5, 4), False),
                                       (GameSpec(6, 5, 4), True), (GameSpec(6, 6, 5), False)], ids=str)
def test_empty_boards_of_known_value(spec, wins):
    assert dfpn_wins(Position(spec)).answer is wins


def test_a_node_limit_gives_no_answer():
    r = dfpn_wins(Position(GameSpec(4, 7, 4)), node_limit=2000)
    assert r.answer is None and r.nodes >= 2000


@pytest.mark.parametrize("spec,message", [(GameSpec(4, 4, 4, True), "free placement"), (GameSpec(9, 9, 5), "64")])
def test_bad_requests_are_refused(spec, message):
    with pytest.raises(MnkError, match=message):
        dfpn_wins(Position(spec))


@pytest.mark.parametrize("spec,stones", [(GameSpec(4, 8, 4), (6, 10)), (GameSpec(7, 7, 5), (16, 24)),
                                         (GameSpec(9, 4, 4), (6, 10))], ids=str)
def test_weak_values_match_the_exact_engine_on_bigger_boards(spec, stones):
    from parallel_mnk import solve

    for pos in random_positions(spec, 8, stones, seed=spec.cells + 1, quiet=True):
        expected = solve(pos, weak=True, options=Options(pv=False, tt_size="8M")).value
        assert dfpn_value(pos, tt_bits=20).value == expected, pos.board_text()
