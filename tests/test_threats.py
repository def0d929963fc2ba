"""Wins by continuous fours (parallel_mnk.kernels.proofs.threats via prover.threats):
every line the kernel returns passes the independent checker and is a win of
at most its length by the naive solver; the kernel finds every VCF a plain
reference search finds; refusals of bad requests."""
from __future__ import annotations

from functools import lru_cache
import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec, MnkError
from parallel_mnk.engines.provers.pairing import windows
from parallel_mnk.engines.provers.threats import check_vcf_line, find_vcf
from parallel_mnk.game.rules import win_score

BOARDS = [GameSpec(4, 4, 3), GameSpec(5, 4, 4), GameSpec(5, 5, 4), GameSpec(6, 4, 4), GameSpec(4, 7, 4),
          GameSpec(6, 5, 5), GameSpec(6, 6, 5), GameSpec(8, 8, 5), GameSpec(4, 3, 2)]


def reference_vcf(spec: GameSpec, own: int, opp: int, moves: int) -> bool:
    """Whether ``own`` (to move) wins by continuous fours within ``moves`` fours:
    the note's definition, over window sets (no bitboard tricks)."""
    wins = windows(spec)

    def completions(a: int, b: int) -> set[int]:
        out = set()
        for w in wins:
            if not any(b >> c & 1 for c in w):
                empty = [c for c in w if not a >> c & 1]
                if len(empty) == 1:
                    out.add(empty[0])
        return out

    @lru_cache(maxsize=None)
    def vcf(a: int, b: int, left: int) -> bool:
        if completions(a, b):
            return True
        theirs = completions(b, a)
        if left == 0 or len(theirs) > 1:
            return False
        for c in range(spec.cells):
            if (a | b) >> c & 1 or (theirs and c not in theirs):
                continue
            mine = completions(a | 1 << c, b)
            if len(mine) >= 2:
                return True
            if len(mine) == 1 and vcf(a | 1 << c, b | 1 << next(iter(mine)), left - 1):
                return True
        return False

    return vcf(own, opp, moves)


def sides(pos) -> tuple[int, int]:
    return (pos.x, pos.o) if pos.turn == 1 else (pos.o, pos.x)


@pytest.mark.parametrize("spec", BOARDS, ids=str)
def test_every_line_is_checked_and_found_exactly_when_the_reference_finds_one(spec):
    found = 0
    stones = (spec.cells // 4, spec.cells // 2 + 2)
    for pos in random_positions(spec, 40, stones, seed=spec.cells * 7 + spec.k, quiet=True, exact=False):
        own, opp = sides(pos)
        for moves in (1, 3):
            line = find_vcf(spec, own, opp, max_moves=moves)
            assert (line is not None) == reference_vcf(spec, own, opp, moves), (pos.board_text(), moves)
            if line is None:
                continue
            found += 1
            assert len(line) <= 2 * moves + 1
            assert check_vcf_line(spec, own, opp, line) is None, (pos.board_text(), line)
    assert found > 0


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 3), GameSpec(5, 4, 4), GameSpec(4, 4, 4), GameSpec(5, 5, 4),
                                  GameSpec(6, 4, 4)], ids=str)
def test_every_line_is_a_win_of_at_most_its_length_by_the_naive_solver(spec):
    found = 0
    for pos in random_positions(spec, 40, (spec.cells - 12, spec.cells - 3), seed=spec.cells + 3, quiet=True,
                                exact=False):
        own, opp = sides(pos)
        line = find_vcf(spec, own, opp)
        if line is None:
            continue
        found += 1
        assert naive_score(spec, pos.x, pos.o) >= win_score(spec, pos.ply + len(line)), pos.board_text()
    assert found > 0


def test_a_known_double_four_and_a_blocked_one():
    spec = GameSpec(7, 1, 4)   # one row: X on cells 2 and 3
    assert find_vcf(spec, 0b0001100, 0) == [1, 0, 4]   # X on 1 threatens 0 and 4
    assert find_vcf(spec, 0b0001100, 0b1100001) is None  # only cells 1..4 stay live: one four, blocked


def test_the_checker_rejects_broken_lines():
    spec = GameSpec(7, 1, 4)
    own = 0b0001100
    assert "odd" in check_vcf_line(spec, own, 0, [1, 4])
    assert "not forced" in check_vcf_line(spec, 0b0000110, 0, [3, 6, 4])
    assert "not empty" in check_vcf_line(spec, own, 0, [2, 1, 5])


@pytest.mark.parametrize("args,message", [
    ((GameSpec(4, 4, 4, True), 0, 0), "free placement"),
    ((GameSpec(4, 4, 4), 1, 1), "disjoint"),
])
def test_bad_requests_are_refused(args, message):
    with pytest.raises(MnkError, match=message):
        find_vcf(*args)


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 3), GameSpec(5, 4, 4), GameSpec(6, 5, 5),
                                  pytest.param(GameSpec(5, 5, 4), marks=pytest.mark.slow),
                                  pytest.param(GameSpec(6, 4, 4), marks=pytest.mark.slow)], ids=str)
def test_every_move_outside_a_threat_zone_loses_to_the_line(spec):
    """The side to move S, were it to pass, would lose to the opponent's VCF line:
    the naive solver says each S move outside the line's threat zone loses, by at
    least that line's worth (kernels.proofs.threats.threat_zone, as the search uses it)."""
    from parallel_mnk.engines.provers.threats import threat_zone

    zones = outside = 0
    for pos in random_positions(spec, 80, (spec.cells - 12, spec.cells - 4), seed=spec.cells + 11, quiet=True,
                                exact=False):
        mover, other = sides(pos)
        line = find_vcf(spec, other, mover)
        if line is None:
            continue
        zone = threat_zone(spec, other, mover, line)
        assert all(zone >> c & 1 for c in line), (pos.board_text(), line)
        zones += 1
        for m in range(spec.cells):
            if (pos.x | pos.o | zone) >> m & 1:
                continue
            outside += 1
            x, o = (pos.x | 1 << m, pos.o) if pos.turn == 1 else (pos.x, pos.o | 1 << m)
            # the opponent to move after m; its line ends on stone ply + 1 + len(line)
            assert naive_score(spec, x, o) >= win_score(spec, pos.ply + 1 + len(line)), (pos.board_text(), line, m)
    assert zones >= 5 and outside >= 10, (zones, outside)


def test_a_threat_zone_needs_a_line():
    from parallel_mnk.engines.provers.threats import threat_zone

    with pytest.raises(MnkError, match="not a VCF line"):
        threat_zone(GameSpec(5, 5, 4), 0, 0, [12])
