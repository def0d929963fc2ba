"""Zones carried up the tree (kernels/proofs/zones.py in kernels/free/search.py)
against the naive solver.

The search returns, with a proof that one side A cannot win, a zone Z: every
position that agrees with the searched one on the cells of Z (the same side to
move, anything outside Z) must be one A cannot win either. Checked directly: on
random small positions, each window that asks whether a side wins ((0, 1) for the
side to move, (-1, 0) for the other), the root's zone is taken and positions that
agree on it are made (stones outside Z moved about, added, taken away, the
outside filled at random) and scored by tests/naive.py. Also: the null child's
pruning keeps every score, and it fires.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from checks import random_positions
from naive import naive_score, naive_solver
from parallel_mnk import GameSpec
from parallel_mnk.kernels.proofs import layout as PL
from test_proof_search import searcher

BOARDS = [GameSpec(4, 4, 4), GameSpec(5, 4, 4), GameSpec(4, 5, 4), GameSpec(5, 5, 4), GameSpec(6, 4, 4),
          GameSpec(5, 5, 5), GameSpec(6, 5, 5), GameSpec(6, 6, 5)]
VARIANTS = 6   # agreeing positions tried per zone


def count(b: int) -> int:
    return bin(b).count("1")


def agreeing(spec: GameSpec, x: int, o: int, zone: int, rng: random.Random) -> list[tuple[int, int]]:
    """Positions that agree with ``(x, o)`` on ``zone`` with the same side to move
    (the same difference of stone counts), none over."""
    full = (1 << spec.cells) - 1
    outside = [c for c in range(spec.cells) if not zone >> c & 1]
    solver = naive_solver(spec)
    diff = count(x) - count(o)
    xin, oin = x & zone, o & zone
    out: list[tuple[int, int]] = []
    for t in range(VARIANTS * 4):
        if len(out) >= VARIANTS:
            break
        kind = t % 4
        cells = outside[:]
        rng.shuffle(cells)
        nx, no = count(x & ~zone), count(o & ~zone)
        if kind == 1:     # a stone of each side more
            nx, no = nx + 1, no + 1
        elif kind == 2:   # a stone of each side fewer
            nx, no = nx - 1, no - 1
        elif kind == 3:   # the outside filled at random (at most two more empty cells: naive.py's time)
            stones = rng.randint(max(0, nx + no - 2), len(cells))
            t_diff = diff - (count(xin) - count(oin))
            stones += (stones - t_diff) % 2 * (1 if stones < len(cells) else -1)
            no = (stones - t_diff) // 2
            nx = stones - no
        if nx < 0 or no < 0 or nx + no > len(cells):
            continue
        qx = xin | sum(1 << c for c in cells[:nx])
        qo = oin | sum(1 << c for c in cells[nx:nx + no])
        assert count(qx) - count(qo) == diff and qx & qo == 0 and (qx | qo) & ~full == 0
        if solver.has_line(qx) or solver.has_line(qo):
            continue
        out.append((qx, qo))
    return out


def check_zone(spec: GameSpec, x: int, o: int, attacker_is_x: bool, zone: int, rng: random.Random) -> int:
    """Assert the zone's claim on positions agreeing with ``(x, o)`` on it; the number checked."""
    solver = naive_solver(spec)
    x_to_move = count(x) == count(o)
    checked = 0
    for qx, qo in agreeing(spec, x, o, zone, rng):
        att = qx if attacker_is_x else qo
        assert not solver.has_line(att)
        s = naive_score(spec, qx, qo)
        if attacker_is_x == x_to_move:
            assert s <= 0, (spec, x, o, zone, qx, qo, s)
        else:
            assert s >= 0, (spec, x, o, zone, qx, qo, s)
        checked += 1
    return checked


@pytest.mark.parametrize("spec", BOARDS, ids=str)
def test_every_zone_the_search_returns_holds_for_agreeing_positions(spec):
    rng = random.Random(spec.cells * 7 + spec.k)
    stones = (spec.cells - 9, spec.cells - 4)
    positions = random_positions(spec, 40, stones, seed=spec.cells + 3 * spec.k, quiet=True, exact=False)
    zones = checked = free = 0
    for settings in ((2000, 16, 0, 0), (3, 6, 1, 1)):
        cap, tt_bits, scan, vcf = settings
        s = searcher(spec, 1, cap, tt_bits, scan, vcf)
        s.ctx[PL.P_TREE_ZONES] = 1
        for pos in positions:
            own, opp = pos.stones()
            x_to_move = pos.ply % 2 == 0
            for alpha, beta in ((0, 1), (-1, 0)):
                s.ctx[PL.P_ZONE_RESULT] = np.uint64((1 << spec.cells) - 1)
                v = s.window(own, opp, pos.ply, alpha, beta)
                zone = int(s.ctx[PL.P_ZONE_RESULT])
                if zone == (1 << spec.cells) - 1:
                    continue
                # the value proves the claim the zone comes with
                assert (v <= 0) if alpha >= 0 else (v >= 0), (pos.board_text(), alpha, v)
                zones += 1
                free += count(~zone & ((1 << spec.cells) - 1)) >= 2
                attacker_is_x = x_to_move if alpha >= 0 else not x_to_move
                checked += check_zone(spec, pos.x, pos.o, attacker_is_x, zone, rng)
    assert zones >= 10 and checked >= 50, (zones, checked)
    print(f"{spec}: {zones} zones, {checked} agreeing positions scored")
    assert free > 0, "no zone leaves two cells out: the check proves little"


@pytest.mark.parametrize("spec", [GameSpec(5, 5, 4), GameSpec(5, 4, 4)], ids=str)
def test_null_children_close_moves_and_keep_the_naive_scores(spec):
    """With the reply zones off, the moves outside a null child's zone are closed by
    it alone: the scores (exact and weak) stay the naive solver's, and it fires
    (on these k = 4 boards; among k = 5 positions this small it closes nothing the
    reply zones leave)."""
    positions = random_positions(spec, 30, (spec.cells - 11, spec.cells - 5), seed=spec.cells * 5 + spec.k,
                                 quiet=True, exact=False)
    skips = 0
    for zone in (0, 1):
        s = searcher(spec, 1, 2000, 16, 1, 1, zone=zone)
        s.ctx[PL.P_TREE_ZONES] = 1
        for pos in positions:
            own, opp = pos.stones()
            expected = naive_score(spec, pos.x, pos.o)
            assert s.score(own, opp, pos.ply, False) == expected, (pos.board_text(), zone)
            assert s.score(own, opp, pos.ply, True) == (expected > 0) - (expected < 0), (pos.board_text(), zone)
        skips += int(s.ctx[PL.P_NULL_SKIPS])
    assert skips > 0
