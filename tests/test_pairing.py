"""Pairing certificates: the kernel's exact finder (parallel_mnk.kernels.proofs.pairing)
against the research note's fixtures, an exhaustive reference, the naive solver,
and play-outs of the pairing strategy; and the independent checker itself."""
from __future__ import annotations

import random

import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec, MnkError
from parallel_mnk.engines.provers.pairing import check_certificate, find_certificate
from proof_refs import pairing_exists, pairing_survives_play, parse_pair_diagram

SIX = GameSpec(6, 6, 5)
# the two certificates of free-proofs.md 2.2 (checked there by 20,000 random play-outs each)
P1_AGAINST_P2 = """
. a a . . .
g b c d d j
n b X e h k
n l f e l k
. f i i h c
. j m m g .
"""
P2_AGAINST_P1 = """
X a a . k .
g O c j f m
b e d e h n
b i d i h n
k f l j l c
. m o o g .
"""


def test_the_notes_certificates_pass_the_checker_and_the_finder_finds_one_there():
    x, o, pairs = parse_pair_diagram(SIX, P1_AGAINST_P2)
    assert check_certificate(SIX, o, x, pairs) is None
    found = find_certificate(SIX, o, x)
    assert found.status == "found" and check_certificate(SIX, o, x, found.pairs) is None
    x, o, pairs = parse_pair_diagram(SIX, P2_AGAINST_P1)
    assert check_certificate(SIX, x, o, pairs) is None
    found = find_certificate(SIX, x, o)
    assert found.status == "found" and check_certificate(SIX, x, o, found.pairs) is None


def test_the_checker_rejects_broken_certificates():
    x, o, pairs = parse_pair_diagram(SIX, P1_AGAINST_P2)
    assert "holds no pair" in check_certificate(SIX, o, x, pairs[1:])
    assert "not empty" in check_certificate(SIX, o | 1 << pairs[0][0], x, pairs)
    assert "two pairs" in check_certificate(SIX, o, x, pairs + [(pairs[0][0], 0)])
    assert "holds no pair" in check_certificate(SIX, x, o, pairs)   # the other side's live windows


@pytest.mark.parametrize("cols,rows,k,exists", [
    (5, 5, 5, True), (6, 6, 6, True), (7, 7, 7, True), (6, 6, 5, False), (7, 7, 5, False), (8, 8, 5, False),
    (9, 6, 5, False), (4, 4, 4, False), (5, 5, 4, False), (7, 4, 4, False), (8, 4, 4, False), (9, 4, 4, False),
    (3, 3, 3, False),
])
def test_empty_boards_match_the_notes_table(cols, rows, k, exists):
    spec = GameSpec(cols, rows, k)
    found = find_certificate(spec, 0, 0)
    assert found.status == ("found" if exists else "none")
    if exists:
        assert check_certificate(spec, 0, 0, found.pairs) is None


SMALL = [GameSpec(3, 3, 3), GameSpec(4, 3, 3), GameSpec(4, 4, 3), GameSpec(4, 4, 4), GameSpec(5, 4, 4),
         GameSpec(5, 5, 4), GameSpec(5, 5, 5), GameSpec(6, 4, 4), GameSpec(6, 5, 5), GameSpec(4, 3, 2)]


def _positions(spec: GameSpec, count: int, max_empty: int, seed: int):
    return random_positions(spec, count, (spec.cells - max_empty, spec.cells - 2), seed=seed, exact=False)


@pytest.mark.parametrize("spec", SMALL, ids=str)
def test_the_finder_is_exact_and_sound_on_random_positions(spec):
    """Found or proven absent exactly when the exhaustive reference says so; every
    certificate passes the checker and bounds the naive solver's score, both
    sides to move (a certificate holds whoever moves)."""
    rng = random.Random(spec.cells * 31 + spec.k)
    found = 0
    for pos in _positions(spec, 40, 11, rng.randrange(1 << 30)):
        for attacker, defender in ((pos.x, pos.o), (pos.o, pos.x)):
            r = find_certificate(spec, attacker, defender)
            assert r.status in ("found", "none")
            assert (r.status == "found") == pairing_exists(spec, attacker, defender), (pos.board_text(), attacker)
            if r.status != "found":
                continue
            found += 1
            assert check_certificate(spec, attacker, defender, r.pairs) is None
            attacker_to_move = (attacker == pos.x) == (pos.turn == 1)
            score = naive_score(spec, pos.x, pos.o)
            assert (score <= 0) if attacker_to_move else (score >= 0), (pos.board_text(), r.pairs, score)
    assert found > 0 or spec.k < 4


@pytest.mark.parametrize("spec", [GameSpec(9, 2, 8), GameSpec(8, 3, 8), GameSpec(10, 2, 9)], ids=str)
def test_past_k7_the_finder_is_sound_on_random_positions(spec):
    """Past k = 7 the finder pairs the first 7 free cells of a wider window: a certificate
    it finds passes the checker and bounds the naive solver's score; "none" only where the
    exhaustive reference finds none; otherwise "incomplete" (unknown), never a wrong "none"."""
    rng = random.Random(spec.cells * 37 + spec.k)
    statuses: dict[str, int] = {}
    for pos in _positions(spec, 40, 12, rng.randrange(1 << 30)):
        for attacker, defender in ((pos.x, pos.o), (pos.o, pos.x)):
            r = find_certificate(spec, attacker, defender)
            statuses[r.status] = statuses.get(r.status, 0) + 1
            assert r.status in ("found", "none", "incomplete")
            if r.status == "none":
                assert not pairing_exists(spec, attacker, defender), (pos.board_text(), attacker)
            if r.status != "found":
                continue
            assert check_certificate(spec, attacker, defender, r.pairs) is None
            attacker_to_move = (attacker == pos.x) == (pos.turn == 1)
            score = naive_score(spec, pos.x, pos.o)
            assert (score <= 0) if attacker_to_move else (score >= 0), (pos.board_text(), r.pairs, score)
    for _ in range(100):   # attacker-heavy stones (not positions of a game): where none exists too
        cells = rng.sample(range(spec.cells), spec.cells - rng.randint(6, 12))
        cut = rng.randint(0, 3)
        defender, attacker = sum(1 << c for c in cells[:cut]), sum(1 << c for c in cells[cut:])
        r = find_certificate(spec, attacker, defender)
        statuses[r.status] = statuses.get(r.status, 0) + 1
        exists = pairing_exists(spec, attacker, defender)
        assert r.status in (("found", "incomplete") if exists else ("none", "incomplete")), (attacker, defender)
        assert r.status != "found" or check_certificate(spec, attacker, defender, r.pairs) is None
    assert statuses.get("found", 0) > 0 and statuses.get("none", 0) > 0, statuses


def test_past_k7_empty_boards_have_certificates():
    """8x8 k=8 and 26x2 k=8 (windows of 8 free cells: the finder pairs their first 7)."""
    for spec in (GameSpec(8, 8, 8), GameSpec(26, 2, 8)):
        found = find_certificate(spec, 0, 0)
        assert found.status == "found" and check_certificate(spec, 0, 0, found.pairs) is None


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 4), GameSpec(5, 4, 4), GameSpec(5, 5, 5), GameSpec(6, 4, 4)],
                         ids=str)
def test_every_certificate_survives_play_against_every_attacker_line(spec):
    rng = random.Random(spec.cells)
    played = 0
    for pos in _positions(spec, 30, 11, rng.randrange(1 << 30)):
        for attacker, defender in ((pos.x, pos.o), (pos.o, pos.x)):
            r = find_certificate(spec, attacker, defender)
            if r.status != "found":
                continue
            for attacker_to_move in (True, False):
                played += 1
                assert pairing_survives_play(spec, attacker, defender, r.pairs, attacker_to_move) is None
    assert played > 0


@pytest.mark.slow
@pytest.mark.minutes
def test_the_5x5_certificate_survives_play_from_the_empty_board():
    """Every attacker line and every free defender move from the empty 5x5 board (2 min)."""
    spec = GameSpec(5, 5, 5)
    r = find_certificate(spec, 0, 0)
    assert pairing_survives_play(spec, 0, 0, r.pairs, True) is None


def test_a_capped_search_says_unknown():
    r = find_certificate(GameSpec(7, 7, 5), 0, 0, cap=50)
    assert r.status == "capped" and r.pairs is None


@pytest.mark.parametrize("args,message", [
    ((GameSpec(4, 4, 4, True), 0, 0), "free placement"),
    ((GameSpec(4, 4, 4), 1, 1), "disjoint"),
    ((GameSpec(4, 4, 4), 1 << 16, 0), "disjoint"),
])
def test_bad_requests_are_refused(args, message):
    with pytest.raises(MnkError, match=message):
        find_certificate(*args)


@pytest.mark.parametrize("spec", [GameSpec(5, 4, 4), GameSpec(5, 5, 4), GameSpec(6, 5, 5), GameSpec(6, 6, 5)],
                         ids=str)
def test_every_move_outside_a_reply_zone_cannot_win(spec):
    """The zone of a certificate found after a defender reply ``d`` (attacker to move):
    it holds the certificate's cells, and the naive solver says that no attacker move
    outside it wins."""
    from parallel_mnk.engines.provers.pairing import reply_zone

    rng = random.Random(spec.cells * 7 + spec.k)
    zones = outside = 0
    for pos in _positions(spec, 40, 11, rng.randrange(1 << 30)):
        attacker, defender = (pos.x, pos.o) if pos.turn == 1 else (pos.o, pos.x)
        empty = [c for c in range(spec.cells) if not (pos.x | pos.o) >> c & 1]
        for d in empty:
            r = find_certificate(spec, attacker, defender | 1 << d)
            if r.status != "found" or not r.pairs:
                continue
            zone = reply_zone(spec, attacker, defender, r.pairs)
            assert zone is not None and all(zone >> a & 1 for pair in r.pairs for a in pair), pos.board_text()
            zones += 1
            for a in empty:
                if zone >> a & 1:
                    continue
                outside += 1
                x, o = (pos.x | 1 << a, pos.o) if pos.turn == 1 else (pos.x, pos.o | 1 << a)
                assert naive_score(spec, x, o) >= 0, (pos.board_text(), d, r.pairs, a)   # the defender's view
            break
    assert zones >= 10 and outside >= 20, (zones, outside)


def test_a_reply_zone_needs_a_reply_or_says_none():
    spec = GameSpec(5, 5, 4)
    # x to move on the empty board: one pair per row covers no column: no single reply kills them all
    assert reply_zone_of(spec, 0, 0, [(5 * r, 5 * r + 1) for r in range(5)]) is None
    with pytest.raises(MnkError):
        reply_zone_of(spec, 0, 0, [(0, 0)])
    with pytest.raises(MnkError):
        reply_zone_of(spec, 0, 0, [(0, 1), (1, 2)])


def reply_zone_of(spec, attacker, defender, pairs):
    from parallel_mnk.engines.provers.pairing import reply_zone

    return reply_zone(spec, attacker, defender, pairs)
