"""df-pn as the solver's root driver (solve(prover=...), serial.solve_dfpn): the
same weak values as alpha-beta, proof "dfpn" when df-pn settled it, best moves
and lines that keep the value (checked with the naive solver), auto's rule, limits,
and refusals."""
from __future__ import annotations

import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec, Limit, MnkError, Position, solve
from parallel_mnk.api.options import SolveOptions
from parallel_mnk.api.settings import DEFAULTS
from parallel_mnk.game.rules import value_of_score
from parallel_mnk import Options


def sign(score: int) -> int:
    return (score > 0) - (score < 0)


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 4), GameSpec(5, 4, 4), GameSpec(5, 5, 4), GameSpec(6, 4, 4)],
                         ids=str)
def test_dfpn_values_and_lines_match_the_naive_solver(spec):
    positions = random_positions(spec, 12, (spec.cells - 12, spec.cells - 4), seed=spec.cells + 3, quiet=True,
                                 exact=False)
    assert len(positions) >= 8
    for pos in positions:
        expected = naive_score(spec, pos.x, pos.o)
        for tt_bits in (16, 10):   # (df-pn gets half the entries: 16 bytes each)
            r = solve(pos, weak=True, options=Options(prover="dfpn", tt_size=8 << tt_bits))
            assert (r.value, r.proof, r.score) == (value_of_score(expected), "dfpn", None), pos.board_text()
            assert r.pv and r.pv[0] == r.best_move
            p, want = pos.copy(), sign(expected)
            for move in r.pv:   # every move of the line keeps the weak value
                p.push(move)
                want = -want
                if p.is_game_over():
                    break
                assert sign(naive_score(spec, p.x, p.o)) == want, (pos.board_text(), r.pv)
            assert p.is_game_over()   # the line is played out


@pytest.mark.parametrize("spec,stones", [pytest.param(GameSpec(9, 4, 4), (3, 6), marks=pytest.mark.slow),   # 14 s
                                         (GameSpec(7, 7, 5), (14, 22))], ids=str)
def test_auto_and_dfpn_give_alpha_betas_values_on_bigger_boards(spec, stones):
    settled_by_dfpn = {"auto": 0, "dfpn": 0}
    for pos in random_positions(spec, 5, stones, seed=spec.cells, quiet=True):
        expected = solve(pos, weak=True, options=Options(pv=False, prover="search", tt_size="8M"))
        assert expected.proof != "dfpn"
        for prover in ("auto", "dfpn"):
            r = solve(pos, weak=True, options=Options(pv=False, prover=prover, tt_size="8M"))
            assert r.value == expected.value, (pos.board_text(), prover)
            settled_by_dfpn[prover] += r.proof == "dfpn"
            after = pos.copy()
            after.push(r.best_move)
            if not after.is_game_over():   # the best move keeps the value
                reply = solve(after, weak=True, options=Options(pv=False, prover="search", tt_size="8M")).value
                assert value_of_score(-{"win": 1, "draw": 0, "loss": -1}[reply.value]) == r.value
    assert settled_by_dfpn["dfpn"] == 5 and settled_by_dfpn["auto"] >= 1   # (auto: within its cap)


def test_auto_picks_dfpn_only_by_its_rule():
    spec = GameSpec(9, 4, 4)
    mid = Position(spec)
    mid.push(mid.move_of_cell(4))
    weak = SolveOptions(weak=True, tt_bits=16)
    assert weak.dfpn_first(mid)
    assert not weak.dfpn_first(Position(spec))                            # the empty board
    assert not SolveOptions(weak=False, tt_bits=16).dfpn_first(mid)      # an exact score
    small = GameSpec(5, 4, 4)
    small_mid = Position(small)
    small_mid.push(small_mid.move_of_cell(0))
    assert small.cells - 1 < DEFAULTS.DFPN_AUTO_MIN_EMPTY and not weak.dfpn_first(small_mid)
    gravity = Position(GameSpec(7, 6, 4, True))
    gravity.push("4")
    assert not weak.dfpn_first(gravity)
    assert SolveOptions(weak=True, prover="dfpn").dfpn_first(Position(spec))   # asked by name: always
    assert not SolveOptions(weak=True, prover="search").dfpn_first(mid)
    assert weak.may_ask_dfpn(spec) and not weak.may_ask_dfpn(gravity.spec)
    assert not SolveOptions(weak=True, workers=2).may_ask_dfpn(spec)           # df-pn runs in one process
    assert not SolveOptions(weak=True, prover="search").may_ask_dfpn(spec)
    assert solve(Position(GameSpec(6, 5, 4)), weak=True, options=Options(prover="auto")).proof != "dfpn"
    r = solve(Position(GameSpec(6, 5, 4)), weak=True, options=Options(prover="dfpn"))
    assert (r.value, r.proof) == ("win", "dfpn")


def test_a_limit_stops_dfpn_with_unknown():
    pos = Position(GameSpec(4, 8, 4))
    r = solve(pos, Limit(nodes=3000), weak=True, options=Options(prover="dfpn"))
    assert r.value == "unknown" and r.proof is None and 3000 <= r.nodes < 10_000
    assert r.best_move in pos.legal_moves and r.bounds == (0, 1)   # the empty board is never lost
    r = solve(pos, Limit(time=0.2), weak=True, options=Options(prover="dfpn"))
    assert r.value == "unknown" and r.time_s < 2


@pytest.mark.parametrize("kwargs,message", [
    ({"prover": "pns"}, "unknown prover 'pns'"),
    ({"prover": "dfpn"}, "weak"),
    ({"prover": "dfpn", "weak": True, "workers": 2}, "one process"),
])
def test_bad_prover_requests_are_refused(kwargs, message):
    weak = kwargs.pop("weak", False)
    with pytest.raises(MnkError, match=message):
        solve(Position(GameSpec(4, 4, 4)), weak=weak, options=Options(**kwargs))


def test_dfpn_refuses_gravity():
    with pytest.raises(MnkError, match="free placement"):
        solve(Position(GameSpec(4, 4, 4, True)), weak=True, options=Options(prover="dfpn"))


def test_auto_picks_the_pn_prover_only_by_its_rule():
    """``auto``'s pn prover: weak solves of free boards of ``PN_AUTO_MIN_CELLS`` cells or
    more, up to 64 cells off Ray, past 64 cells on any backend; exact solves and gravity
    stay alpha-beta; a higher ``PN_AUTO_MIN_CELLS`` keeps it off."""
    least = DEFAULTS.PN_AUTO_MIN_CELLS
    weak = SolveOptions(weak=True, tt_bits=16)
    ray = SolveOptions(weak=True, tt_bits=16, backend="ray", workers=2)

    def pos(cols: int, rows: int, gravity: bool = False) -> Position:
        return Position(GameSpec(cols, rows, 4, gravity))

    assert least == 50 and weak.pn_first(pos(10, 5)) and not weak.pn_first(pos(7, 7))
    assert weak.pn_first(pos(8, 8)) and not ray.pn_first(pos(8, 8))          # up to 64 cells: off Ray
    assert weak.pn_first(pos(9, 9)) and ray.pn_first(pos(9, 9))              # past them: on Ray too
    assert weak.may_ask_pn(GameSpec(15, 15, 5)) and not weak.may_ask_pn(GameSpec(9, 9, 4, True))
    assert not SolveOptions(weak=False, tt_bits=16).pn_first(pos(9, 9))      # an exact score
    assert not weak.pn_first(pos(9, 9, gravity=True))
    assert not SolveOptions(weak=True, prover="search").pn_first(pos(9, 9))
    high = SolveOptions(weak=True, tt_bits=16, settings=DEFAULTS.replace(PN_AUTO_MIN_CELLS=82))
    assert not high.pn_first(pos(9, 9)) and high.pn_first(pos(10, 9))
