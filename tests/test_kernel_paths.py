"""The free-placement search's zones (kernels/free/search.py: ``_zone_of``, ``_threat_zone_of``,
``_skip``) against naive.py, on small random free positions of k = 4 boards.

A reply zone (a remembered pairing certificate of the opponent answers every move outside
its cells) and a threat zone (were the side to move to pass, the opponent would win by
continuous fours; each move outside that line's zone loses to it) switch on at nodes with
at least ``PAIRING_MIN_EMPTY`` (8) and ``VCF_MIN_EMPTY`` (12) empty cells: positions that
naive.py cannot solve in a test's time. Both thresholds are settings with the range
0..cells (a performance knob: every value must give the same answers), so these searches
lower them in the context (``ZONES_FROM`` empty cells) to reach the zones on positions
naive.py solves at once.

Positions: a few seeded random roots of ``ROOT_EMPTY`` empty cells, each with seeded random
continuations of one to three moves (naive.py solves a root once; its continuations come
from its cache). Each position's exact score (null-window probes on both sides of 0),
weak value (windows (-1, 0) and (0, 1): reply zones act at ``alpha >= 0``, threat zones
where a loss fails low) and a best move are checked; the zones' counters show that the
searches went through them (a test of zones that no search reached would prove nothing).
Runs in plain Python as well (``NUMBA_DISABLE_JIT=1``, bench/mutation.py's kernel targets).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from checks import push_quiet, random_positions, sign
from naive import naive_solver

from parallel_mnk import GameSpec, Position
from parallel_mnk.engines.exact.search import Search
from parallel_mnk.game.rules import win_score
from parallel_mnk.kernels.proofs import layout as PL

ZONES_FROM = 4            # empty cells from which the searches test pairings, scan moves and look for VCFs
ROOT_EMPTY = 11
ROOTS = 6
CONTINUATIONS = 6         # per root
SPECS = [GameSpec(5, 4, 4), GameSpec(4, 5, 4), GameSpec(4, 4, 4), GameSpec(6, 4, 4), GameSpec(5, 5, 4)]


def zone_search(spec: GameSpec) -> Search:
    """A search of ``spec`` whose proofs and zones switch on from ``ZONES_FROM`` empty cells."""
    search = Search(spec, np.zeros(1 << 12, dtype=np.uint64))
    assert search.ctx[PL.P_ZONE_ON] == 1, "zones are off on this board: nothing to test"
    for slot in (PL.P_MIN_EMPTY, PL.P_SCAN_MIN_EMPTY, PL.P_VCF_MIN_EMPTY):
        search.ctx[slot] = ZONES_FROM
    return search


def root_families(spec: GameSpec, seed: int) -> list[Position]:
    """``ROOTS`` random roots of ``ROOT_EMPTY`` empty cells (not over, no win at once for
    nobody: quiet play) and ``CONTINUATIONS`` distinct quiet continuations of 1-3 moves
    of each, roots first; seeded."""
    rng = random.Random(seed)
    roots = random_positions(spec, ROOTS, spec.cells - ROOT_EMPTY, rng=rng, quiet=True)
    out, seen = [], set()
    for root in roots:
        out.append(root)
        seen.add((root.x, root.o))
        added = 0
        for _ in range(4 * CONTINUATIONS):
            if added == CONTINUATIONS:
                break
            pos = root.copy()
            for _ in range(rng.randint(1, 3)):
                moves = list(pos.legal_moves)
                rng.shuffle(moves)
                if not push_quiet(pos, moves):
                    break
            if pos.ply > root.ply and (pos.x, pos.o) not in seen:
                seen.add((pos.x, pos.o))
                out.append(pos)
                added += 1
    return out


def check_position(spec: GameSpec, search: Search, pos: Position) -> list[str]:
    """Where the zone search disagrees with naive.py at ``pos`` (empty: nowhere)."""
    naive = naive_solver(spec)
    expected = naive.score(pos.x, pos.o)
    own, opp = pos.stones()
    errors = []
    score = search.score(own, opp, pos.ply, False)
    if score != expected:
        errors.append(f"score {score}, naive {expected}")
    weak = search.score(own, opp, pos.ply, True)
    if weak != sign(expected):
        errors.append(f"weak {weak}, naive {expected}")
    cell = search.best_cell(own, opp, pos.ply, expected, False)
    child = pos.copy()
    child.push(child.move_of_cell(cell))
    end = child.outcome()
    kept = -naive.score(child.x, child.o) if end is None else (win_score(spec, end.ply) if end.winner else 0)
    if kept != expected:
        errors.append(f"best cell {cell} scores {kept}, not {expected}")
    return [f"moves {pos.move_stack}: {e}" for e in errors]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.cols}x{s.rows}k{s.k}")
def test_zones_keep_the_naive_scores(spec):
    """Exact scores, weak values and best moves with the zones on from ``ZONES_FROM``
    empty cells equal naive.py's; on every board the searches found reply zones and threat
    zones, and zones closed moves."""
    search = zone_search(spec)
    positions = root_families(spec, seed=spec.cols * 100 + spec.rows * 10 + spec.k)
    assert len(positions) >= ROOTS * 4
    failures = []
    try:
        for pos in positions:
            failures += check_position(spec, search, pos)
    finally:
        naive_solver(spec).score.cache_clear()
    assert not failures, f"{len(failures)} disagreements on {spec}:\n" + "\n".join(failures[:15])
    ctx = search.ctx
    counts = {"reply-zone nodes": int(ctx[PL.P_ZONE_NODES]), "threat-zone nodes": int(ctx[PL.P_THREAT_ZONES]),
              "moves closed": int(ctx[PL.P_ZONE_SKIPS])}
    assert min(counts.values()) > 0, f"the searches of {spec} did not go through both kinds of zones: {counts}"
