"""The proof-number prover (kernels/pns, engines/provers/pns): its answers against
tests/naive.py on random small positions with each rule on and off, its zones
(every fill of the attacker's stones outside a zone keeps the disproof; a zone one
cell smaller would not: the check is shown to catch that), its certificates (the
independent checker accepts them), serial and by jobs on the pool.
"""
from __future__ import annotations

import itertools
import random
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from checks import random_positions
from naive import all_lines, naive_score

from parallel_mnk import GameSpec
from parallel_mnk.engines.provers.pns import PnProver, PnRules, pn_value
from parallel_mnk.game.position import Position
from parallel_mnk.game.rules import Value
from parallel_mnk.proofcheck import check_file

SMALL = [(GameSpec(4, 4, 3), (5, 8)), (GameSpec(4, 4, 4), (6, 8)), (GameSpec(5, 4, 4), (10, 12)),
         (GameSpec(5, 5, 4), (15, 16)), (GameSpec(6, 4, 4), (14, 15)), (GameSpec(5, 5, 5), (15, 16)),
         (GameSpec(7, 2, 3), (3, 6)), (GameSpec(9, 2, 8), (7, 9))]
# (at most 11 empty cells: naive.py answers each in a fraction of a second)
# every rule on, and each switched off (zones, threat zones, the scan, pairings and VCF); small boards
# reach the pairing and VCF rules only when they apply from few empty cells
RULES = {
    "all": PnRules(pairing_min_empty=1, vcf_min_empty=1),
    "no zones": PnRules(pairing_min_empty=1, vcf_min_empty=1, attacker_zones=False, threat_zones=False),
    "no scan": PnRules(pairing_min_empty=1, vcf_min_empty=1, scan=False),
    "search only": PnRules(pairing_min_empty=0, vcf_min_empty=0),
    "zones only": PnRules(pairing_min_empty=0, vcf_min_empty=0, scan=False),
    "defaults": PnRules(),
}


def _positions(count: int, seed: int) -> list[Position]:
    out: list[Position] = []
    for spec, stones in SMALL:
        out += random_positions(spec, count, stones, seed=seed, quiet=True)
    return out


def _check_answers(rules: str, count: int, seed: int) -> None:
    provers: dict[GameSpec, PnProver] = {}
    for pos in _positions(count, seed):
        prover = provers.setdefault(pos.spec, PnProver(pos.spec, 12, 14, RULES[rules]))
        score = naive_score(pos.spec, pos.x, pos.o)
        assert prover.ask(pos, True).wins == (score > 0), (pos.board_text(), rules)
        assert prover.ask(pos, False).wins == (score < 0), (pos.board_text(), rules)


@pytest.mark.parametrize("rules", list(RULES), ids=list(RULES))
def test_answers_are_naive_ones(rules):
    """Both questions (the side to move wins? the other side?) as naive.py answers them
    (the same positions for each rule set: naive.py's answers are cached)."""
    _check_answers(rules, 6, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("rules", list(RULES), ids=list(RULES))
def test_answers_are_naive_ones_many(rules):
    """The same on more positions."""
    _check_answers(rules, 25, seed=2)


def test_weak_values_and_moves():
    """The weak value and a move that keeps it (a win's wins; a draw's draws)."""
    for pos in _positions(6, seed=5):
        found = pn_value(PnProver(pos.spec, 12, 14, RULES["all"]), pos)
        score = naive_score(pos.spec, pos.x, pos.o)
        assert found.value == (Value.WIN if score > 0 else Value.LOSS if score < 0 else Value.DRAW)
        if found.move is not None and found.value is not Value.LOSS:
            after = pos.copy()
            after.push(after.move_of_cell(found.move))
            assert -naive_score(pos.spec, after.x, after.o) == score or (score > 0) == (
                -naive_score(pos.spec, after.x, after.o) > 0)


# ------------------------------------------------------------------ zones
@lru_cache(maxsize=None)
def _lines(spec: GameSpec) -> tuple[int, ...]:
    return tuple(all_lines(spec.cols, spec.rows, spec.k))


def attacker_wins(spec: GameSpec, att: int, dfn: int, att_to_move: bool) -> bool:
    """Whether the attacker (stones ``att``) wins, whoever's stones, the side to move
    given (the counts may be anything): a plain memoised minimax, independent of
    the kernels."""
    lines = _lines(spec)
    full = (1 << spec.cells) - 1

    @lru_cache(maxsize=None)
    def wins(a: int, d: int, a_moves: bool) -> bool:
        if any(a & l == l for l in lines):
            return True
        if any(d & l == l for l in lines) or a | d == full:
            return False
        empty = [c for c in range(spec.cells) if not (a | d) >> c & 1]
        if a_moves:
            return any(wins(a | 1 << c, d, False) for c in empty)
        return all(wins(a, d | 1 << c, True) for c in empty)

    return wins(att, dfn, att_to_move)


def _zone_cases(count: int, seed: int):
    """Disproven questions of random positions: ``(spec, att, dfn, att_to_move, zone)``."""
    out = []
    for pos in _positions(count, seed):
        prover = PnProver(pos.spec, 12, 14, RULES["all"])
        for attacker_moves in (True, False):
            answer = prover.ask(pos, attacker_moves)
            if answer.wins is False:
                own, opp = pos.stones()
                att, dfn = (own, opp) if attacker_moves else (opp, own)
                out.append((pos.spec, att, dfn, attacker_moves, answer.zone))
    return out


def _fills(empty_outside: list[int], rng: random.Random):
    """Some sets of cells: each single cell, all of them, and random subsets."""
    yield from ([c] for c in empty_outside)
    yield empty_outside
    for _ in range(4):
        yield [c for c in empty_outside if rng.random() < 0.5]


def _violated(spec, att, dfn, att_to_move, zone, rng) -> bool:
    empty_outside = [c for c in range(spec.cells) if not (att | dfn | zone) >> c & 1]
    for fill in _fills(empty_outside, rng):
        extra = sum(1 << c for c in fill)
        if attacker_wins(spec, att | extra, dfn, att_to_move):
            return True
    return False


def test_zones_hold_for_every_fill():
    """A disproof's zone: the attacker still cannot win with its stones on any empty
    cells outside it (the same side to move), checked against a plain minimax; and the
    check would catch a zone one cell smaller: for some case, dropping one cell of its
    zone lets a fill win."""
    rng = random.Random(3)
    cases = _zone_cases(4, seed=11)
    assert len(cases) > 15
    caught = 0
    for spec, att, dfn, att_to_move, zone in cases:
        assert not _violated(spec, att, dfn, att_to_move, zone, rng), (spec, att, dfn, att_to_move, bin(zone))
        for c in range(spec.cells):
            if zone >> c & 1 and _violated(spec, att, dfn, att_to_move, zone & ~(1 << c), rng):
                caught += 1
                break
    assert caught > 0


# ------------------------------------------------------------------ certificates
def _verify(folder: Path) -> list[str]:
    return [check_file(p).line() for p in sorted(folder.glob("*.jsonl.xz"))]


def test_serial_certificates_verify(tmp_path):
    """Every settled question's certificate passes the independent checker."""
    n = 0
    for i, pos in enumerate(_positions(4, seed=21)):
        for attacker_moves in (True, False):
            folder = tmp_path / f"c{i}-{attacker_moves}"
            answer = PnProver(pos.spec, 12, 16, RULES["all"]).ask(pos, attacker_moves, certificate=folder)
            assert answer.wins is not None and answer.certificate is not None
            lines = _verify(folder)
            assert len(lines) == 1 and lines[0].startswith("verified:"), (pos.board_text(), lines)
            claim = "wins" if answer.wins else "cannot-win"
            assert f" {claim} from " in lines[0]
            n += 1
    assert n == 2 * 4 * len(SMALL)


@pytest.mark.parametrize("board", [(7, 7, 5), (8, 6, 5), (5, 5, 4)])
def test_empty_board_certificates(tmp_path, board):
    """The empty boards' draws, serial: mnk-proof/2 files the checker verifies."""
    spec = GameSpec(*board)
    answer = PnProver(spec, 18, 18).ask(Position(spec), True, certificate=tmp_path)
    assert answer.wins is False
    assert _verify(tmp_path)[0].startswith("verified: x cannot-win")


@pytest.mark.parametrize("board", [(20, 2, 3), (1, 26, 3), (8, 8, 8), (26, 2, 8), (9, 7, 8)])
def test_edge_k_boards_are_pairing_draws(tmp_path, board):
    """One- and two-row k = 3 boards (each row's cells paired (b, c), (d, e), ...) and boards
    with k past 7 (the finder pairs the first 7 free cells of a wider window) are draws by a
    pairing: both questions are disproven by pairings within a thousand nodes (with pairings
    off, the 14x2 k=3 board filled a store of 2**21 entries and 8x8 k=8 had no answer in
    60 s), and the certificate verifies."""
    spec = GameSpec(*board)
    for attacker_moves in (True, False):
        folder = tmp_path / str(attacker_moves)
        answer = PnProver(spec, 16, 16).ask(Position(spec), attacker_moves, node_limit=1000, certificate=folder)
        assert answer.wins is False and answer.stats["pairings"] > 0, answer
        assert _verify(folder)[0].startswith(f"verified: {'x' if attacker_moves else 'o'} cannot-win")


def test_certificate_fails_when_a_record_is_dropped(tmp_path):
    """A certificate without one of its records fails (the checker walks what the prover answered).
    (5x5 k=4's certificate: 2,000 move records, made in 0.1 s; 7x7 k=5's took 2 s.)"""
    import lzma
    spec = GameSpec(5, 5, 4)
    PnProver(spec, 18, 18).ask(Position(spec), True, certificate=tmp_path)
    path = tmp_path / "x-cannot-win.jsonl.xz"
    lines = lzma.open(path, "rt").read().splitlines()
    moves = [i for i, line in enumerate(lines) if '"m"' in line]
    del lines[moves[len(moves) // 2]]
    broken = tmp_path / "broken"
    broken.mkdir()
    with lzma.open(broken / "x-cannot-win.jsonl.xz", "wt") as f:
        f.write("\n".join(lines) + "\n")
    from parallel_mnk.proofcheck import Failed
    with pytest.raises(Failed):
        check_file(broken / "x-cannot-win.jsonl.xz")
