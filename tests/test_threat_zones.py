"""Zones of wins by threes (parallel_mnk/engines/provers/big_zones.py): at a defender
node whose attacker, given the move, wins by fours and a three but not by fours
alone, every defender move outside the zone loses (naive.py, move by move), and
zones made smaller in each of the rule's parts let a defence through."""
from __future__ import annotations

import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec
from parallel_mnk.engines.provers import big_zones
from parallel_mnk.engines.provers.big_threats import OPEN, Judge
from parallel_mnk.parallel.uses.big_pn import ThreatProof

# boards and stone counts where wins by one three after a pass are common and naive.py is quick
SETS = [(GameSpec(5, 4, 4), (9, 11)), (GameSpec(4, 5, 4), (9, 11))]
MUTANT_SETS = [(GameSpec(5, 4, 4), (7, 12)), (GameSpec(4, 5, 4), (7, 12))]


def _threat_zone_cases(spec: GameSpec, stones: tuple[int, int], seeds: range, strict: bool = True):
    """(position, zone, attacker) of random positions whose side to move (the
    defender) has its moves cut by the zone of a win by threes (none by fours after
    a pass); with ``strict``, only zones that leave out some empty cell."""
    judges = {a: Judge(spec, a, 0, 1 << 12, 20, zone_threes=1) for a in (1, 2)}
    for seed in seeds:
        for pos in random_positions(spec, 1500, stones, seed=seed, quiet=True, exact=False):
            attacker = 2 if pos.ply % 2 == 0 else 1
            judge = judges[attacker]
            cut = judge.threat_zone(pos.x, pos.o, judge.judge(pos.x, pos.o))
            if cut is None or cut.state != OPEN:
                continue
            if strict and cut.count == spec.cells - pos.ply:
                continue
            yield pos, cut.cells, attacker


def _attacker_wins_after(pos, cell: int, attacker: int) -> bool:
    after = pos.copy()
    after.push(after.move_of_cell(cell))
    if after.is_game_over():
        return after.outcome().winner == attacker
    return naive_score(pos.spec, after.x, after.o) > 0


def test_every_defence_outside_a_threat_zone_loses():
    """The rule, move by move, on every strict case of the sets: each defender move
    outside the zone loses (naive.py); some inside hold (the cases have defences)."""
    cases, outside, held_inside = 0, [], 0
    for spec, stones in SETS:
        for pos, zone, attacker in _threat_zone_cases(spec, stones, range(1, 4)):
            cases += 1
            for cell in range(spec.cells):
                if (pos.x | pos.o) >> cell & 1:
                    continue
                wins = _attacker_wins_after(pos, cell, attacker)
                if not zone >> cell & 1 and not wins:
                    outside.append((pos.board_text(), cell))
                held_inside += zone >> cell & 1 and not wins
    assert cases >= 8 and held_inside > 0
    assert outside == []


def _mutant_reach(real):
    def fours_zone(self, st, line, reach):   # the defender's lines at k - 2 only, for two stones too
        return real(self, st, line, max(reach, self.spec.k - 2))
    return "fours_zone", fours_zone


def _mutant_drop(real):
    def win_zone(self, x, o, threes):   # the zone's first empty cell left out
        zone = real(self, x, o, threes)
        if zone is None:
            return None
        free = zone & ~(x | o)
        return zone & ~(free & -free)
    return "win_zone", win_zone


def _mutant_no_defences(real):
    depth = [0]

    def zone_of_win(self, x, o, threes):   # the defences' own refutations' zones left out
        depth[0] += 1
        try:
            zone = real(self, x, o, threes)
        finally:
            depth[0] -= 1
        return zone if depth[0] == 0 or zone is None else 0
    return "_zone_of_win", zone_of_win


@pytest.mark.parametrize("mutant,name", [(_mutant_reach, "fours_zone"), (_mutant_drop, "win_zone"),
                                         (_mutant_no_defences, "_zone_of_win")],
                         ids=["two-stone-lines", "one-cell-less", "no-defence-zones"])
def test_smaller_threat_zones_let_a_defence_through(monkeypatch, mutant, name):
    """Each part of the rule is needed: a mutant zone misses a cell where the
    defence holds (naive.py), found among the cells the true zone has and the
    mutant's lacks."""
    real = getattr(big_zones.ThreatZones, name)
    _, fake = mutant(real)
    for spec, stones in MUTANT_SETS:
        judges = {a: Judge(spec, a, 0, 1 << 12, 20, zone_threes=1) for a in (1, 2)}
        for pos, zone, attacker in _threat_zone_cases(spec, stones, range(1, 8), strict=False):
            monkeypatch.setattr(big_zones.ThreatZones, name, fake)
            small = judges[attacker].zones.win_zone(pos.x, pos.o, 1)
            monkeypatch.setattr(big_zones.ThreatZones, name, real)
            if small is None:
                continue
            missed = zone & ~small & ~(pos.x | pos.o)
            for cell in range(spec.cells):
                if missed >> cell & 1 and not _attacker_wins_after(pos, cell, attacker):
                    return
    pytest.fail("no mutant zone let a defence through")


@pytest.mark.parametrize("spec,stones", [(GameSpec(5, 4, 4), (8, 11)), (GameSpec(4, 4, 3), (2, 6))], ids=str)
def test_answers_with_threat_zones_match_naive(spec, stones):
    """Both questions of random positions with zones of wins by up to two threes
    cutting the defender's nodes: naive.py's answers."""
    asked = 0
    for pos in random_positions(spec, 12, stones, seed=spec.cells + 3, quiet=True):
        score = naive_score(spec, pos.x, pos.o)
        mover = "x" if pos.ply % 2 == 0 else "o"
        for attacker, truth in ((mover, score > 0), ("o" if mover == "x" else "x", score < 0)):
            proof = ThreatProof(pos, attacker, threes=1, vct_nodes=64, zone_threes=2)
            assert proof.run(lambda: False, lambda s: None) == truth, (pos.board_text(), attacker)
            asked += 1
    assert asked == 24


@pytest.fixture
def zones_found(monkeypatch):
    """A list that gets, for each zone of threes looked for in this process, whether
    one was found."""
    found: list[bool] = []
    real = big_zones.ThreatZones.win_zone

    def counted(self, x, o, threes):
        zone = real(self, x, o, threes)
        found.append(zone is not None)
        return zone

    monkeypatch.setattr(big_zones.ThreatZones, "win_zone", counted)
    return found


def test_the_pool_with_threat_zones_gives_naive_answers(zones_found):
    """On two pool processes, zones of wins by up to two threes cutting the
    defender's nodes as they are expanded (in the coordinator): naive.py's answers,
    some nodes cut."""
    from parallel_mnk.parallel.scheduling.registry import get_coordinator
    backend = get_coordinator("process", 2, 12).backend
    spec = GameSpec(5, 4, 4)
    for pos in random_positions(spec, 5, (8, 11), seed=25, quiet=True):
        score = naive_score(spec, pos.x, pos.o)
        mover = "x" if pos.ply % 2 == 0 else "o"
        for attacker, truth in ((mover, score > 0), ("o" if mover == "x" else "x", score < 0)):
            proof = ThreatProof(pos, attacker, threes=1, vct_nodes=64, zone_threes=2)
            assert proof.run_on(backend, lambda: False, lambda s: None) == truth, (pos.board_text(), attacker)
    assert any(zones_found)


def test_a_proof_cut_by_threat_zones_is_certified(use_settings, zones_found, tmp_path):
    """A win past 64 cells proven with the defender's nodes cut by zones of wins by
    threes (some found): its certificate (the walk takes every defence there, the
    attacker's wins below found by its threat search) verifies."""
    import io
    from parallel_mnk import Options, proofcheck, solve
    from parallel_mnk.game.rules import Value
    from test_big_pn import threes_position
    use_settings(BIG_PN_ZONE_THREES=2, BIG_PN_THREES=0)
    r = solve(threes_position(9), weak=True, options=Options(prover="pn", workers=1, certificate=tmp_path))
    assert r.value == Value.WIN and any(zones_found)
    assert proofcheck.main([str(tmp_path)], out=io.StringIO()) == 0


def test_only_nodes_that_take_every_move_are_cut():
    """A defender's node cut already (its only move a block, or a zone of fours) is
    left as judged: the zone of threes would only widen it."""
    spec = GameSpec(5, 4, 4)
    seen = 0
    for attacker in (1, 2):
        judge = Judge(spec, attacker, 0, 1 << 12, 20, zone_threes=2)
        for pos in random_positions(spec, 300, (5, 11), seed=5, quiet=True, exact=False):
            if (pos.ply % 2 == 0) != (attacker == 2):
                continue
            j = judge.judge(pos.x, pos.o)
            if j.state == OPEN and j.count < spec.cells - pos.ply:
                seen += 1
                assert judge.threat_zone(pos.x, pos.o, j) is None
    assert seen > 20
