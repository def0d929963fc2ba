"""The gravity search (kernels/gravity/static_analysis.py, kernels/gravity/search.py) against the
naive solver on random small gravity boards: every static bound on its own
(forced lines, the 2-4 ply bounds, the even-squares bound), and whole searches
with each rule switched off and with each rule alone, so that no rule's answer
rests on another's.

Boards: k = 3, 4, 5; even and odd heights; positions with at most 14 empty cells
(naive.py visits every reachable position).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from checks import random_positions
from naive import naive_solver

from parallel_mnk import GameSpec, Position
from parallel_mnk.game import geometry
from parallel_mnk.game.geometry import build_context
from parallel_mnk.kernels.gravity import static_analysis
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.kernels.core.bounds import NO_SCORE
from parallel_mnk.kernels.core import lines
from parallel_mnk.kernels.core.jit import callable_from_python
from parallel_mnk.kernels.core.table import set_root_hashes
from parallel_mnk.engines.exact.search import Search

# helpers only kernels call, as copies Python may call (core/jit.py)
playable_cells, winning_cells = callable_from_python(lines.playable_cells), callable_from_python(lines.winning_cells)


class G:
    """The static analysis' kernels, as copies Python may call."""

    open_bounds = callable_from_python(static_analysis.open_bounds)
    evens_bound = callable_from_python(static_analysis.evens_bound)
    resolve = callable_from_python(static_analysis.resolve)

# (cols, rows, k, max empty cells): even heights 4 and 6, odd heights 3 and 5
BOARDS = [(4, 4, 3, 14), (5, 4, 3, 13), (5, 4, 4, 14), (4, 5, 4, 14), (6, 4, 4, 13), (3, 6, 3, 14),
          (5, 3, 3, 13), (7, 4, 4, 12), (6, 5, 5, 13), (5, 6, 5, 13), (7, 6, 4, 12)]
SPECS = [GameSpec(c, r, k, True) for c, r, k, _ in BOARDS]
MAX_EMPTY = {(c, r, k): m for c, r, k, m in BOARDS}
RULES = {"static": L.RULE_STATIC, "evens": L.RULE_EVENS, "etc": L.RULE_ETC, "order": L.RULE_THREAT_ORDER}


def spec_id(spec: GameSpec) -> str:
    return f"{spec.cols}x{spec.rows}k{spec.k}{'g' if spec.gravity else ''}"


def positions(spec: GameSpec, count: int = 30, seed: int = 0) -> list[Position]:
    """Random positions that are not over with few enough empty cells for naive.py."""
    fewest = spec.cells - MAX_EMPTY[spec.cols, spec.rows, spec.k]
    return random_positions(spec, count, (fewest, spec.cells - 1), seed=seed + spec.cells * 31 + spec.k, quiet=True,
                            min_stones=fewest, tries=40, exact=False)


def sides(pos: Position) -> tuple[np.uint64, np.uint64]:
    own, opp = pos.stones()
    return np.uint64(own), np.uint64(opp)


def is_open(ctx, own, opp) -> bool:
    """The precondition of open_bounds: no win at once, no playable opponent threat, a safe move."""
    mask = own | opp
    play = playable_cells(ctx, mask)
    theirs = winning_cells(ctx, opp, ctx[L.C_BOARD] & ~mask)
    return (winning_cells(ctx, own, play) == 0 and theirs & play == 0
            and play & ~(theirs << ctx[L.C_COLS]) != 0)


def test_static_bounds_hold():
    """open_bounds (2-4 ply bounds, 'cannot win', even squares) bounds the naive
    score of every open position, on every board."""
    total = 0
    for spec in SPECS:
        naive = naive_solver(spec)
        ctx = build_context(spec)
        checked = 0
        for pos in positions(spec, 80):
            own, opp = sides(pos)
            if not is_open(ctx, own, opp):
                continue
            score = naive.score(pos.x, pos.o)
            lo, hi = G.open_bounds(ctx, own, opp, pos.ply, -NO_SCORE, NO_SCORE)
            assert lo <= score <= hi, (spec, pos.move_stack, lo, score, hi)
            checked += 1
        assert checked > 0, spec
        total += checked
    assert total >= 60, total


def test_even_squares_bound_holds():
    """evens_bound bounds the first player's naive score on boards of even height,
    from any position with the first player to move; both its draw bound (0) and
    its loss bounds fire on these boards."""
    fired = {"draw": 0, "loss": 0}
    for spec in [GameSpec(5, 4, 4, True), GameSpec(6, 4, 4, True), GameSpec(7, 4, 4, True),
                 GameSpec(5, 6, 5, True), GameSpec(4, 4, 3, True)]:
        naive = naive_solver(spec)
        ctx = build_context(spec)
        for pos in positions(spec, 120, seed=2):
            own, opp = sides(pos)
            if pos.ply % 2 or winning_cells(ctx, own, playable_cells(ctx, own | opp)) != 0:
                continue
            score = naive.score(pos.x, pos.o)
            bound = G.evens_bound(ctx, own, opp, pos.ply)
            assert score <= bound, (spec, pos.move_stack, score, bound)
            if bound == 0:
                fired["draw"] += 1
            elif bound < 0:
                fired["loss"] += 1
    assert fired["draw"] > 0 and fired["loss"] > 0, fired


def test_resolve_settles_or_bounds_the_score():
    """resolve(): forced lines played out; a settled score is the naive score, an
    open one lies within the bounds given for the position reached; every board."""
    settled_seen = forced_seen = 0
    for spec in SPECS:
        settled_seen, forced_seen = _check_resolve(spec, settled_seen, forced_seen)
    assert settled_seen >= 20 and forced_seen >= 20, (settled_seen, forced_seen)


def _check_resolve(spec: GameSpec, settled_seen: int, forced_seen: int) -> tuple[int, int]:
    naive = naive_solver(spec)
    ctx = build_context(spec)
    tt = np.zeros(1 << 10, dtype=np.uint64)
    for pos in positions(spec):
        own, opp = sides(pos)
        mask = own | opp
        if winning_cells(ctx, own, playable_cells(ctx, mask)) != 0:
            continue
        x, o = (own, opp) if pos.ply % 2 == 0 else (opp, own)
        set_root_hashes(ctx, x, o, pos.ply)
        rec = L.OFF_GCHILD
        theirs = winning_cells(ctx, opp, ctx[L.C_BOARD] & ~mask)
        settled = G.resolve(ctx, tt, own, opp, pos.ply, theirs, rec, False, -NO_SCORE, NO_SCORE)
        lo = int(ctx[rec + L.GC_LO]) - L.SCORE_BIAS
        hi = int(ctx[rec + L.GC_HI]) - L.SCORE_BIAS
        f_ply = int(ctx[rec + L.GC_PLY])
        f_own, f_opp = int(ctx[rec + L.GC_OWN]), int(ctx[rec + L.GC_OPP])
        fx, fo = (f_own, f_opp) if f_ply % 2 == 0 else (f_opp, f_own)
        reached = naive.score(fx, fo)
        assert lo <= reached <= hi, (pos.move_stack, lo, reached, hi)
        # a forced move is always a best move: the score only changes sides with each one
        expected = naive.score(pos.x, pos.o)
        assert expected == (reached if (f_ply - pos.ply) % 2 == 0 else -reached), pos.move_stack
        if settled:
            assert lo == hi == reached, (pos.move_stack, lo, hi, reached)
            settled_seen += 1
        forced_seen += f_ply != pos.ply
    return settled_seen, forced_seen


def rule_sets() -> list[tuple[str, int]]:
    out = [("all", L.RULES_ALL), ("none", 0)]
    out += [(f"{name} off", L.RULES_ALL & ~bit) for name, bit in RULES.items()]
    out += [(f"{name} alone", bit) for name, bit in RULES.items()]
    return out


@pytest.mark.parametrize("rules_name, rules", rule_sets(), ids=[n for n, _ in rule_sets()])
def test_whole_searches_with_each_rule_set(rules_name, rules):
    """Exact and weak scores of the search with these rules equal naive.py's, on
    every board, with a small table (so that entries are replaced too); and a
    search with a random window returns a true fail-soft value labelled as
    strongly as it may (what the parallel split tree relies on)."""
    rng = random.Random(rules)
    for spec in SPECS:
        naive = naive_solver(spec)
        search = Search(spec, np.zeros(1 << 12, dtype=np.uint64))
        search.ctx[L.C_RULES] = rules
        search.ctx[L.C_ETC_MIN_EMPTY] = 4   # let the enhanced transposition cutoff work on these small boards
        for pos in positions(spec, 12, seed=1):
            own, opp = pos.stones()
            expected = naive.score(pos.x, pos.o)
            assert search.score(own, opp, pos.ply, False) == expected, (spec, rules_name, pos.move_stack)
            weak = search.score(own, opp, pos.ply, True)
            assert weak == (expected > 0) - (expected < 0), (spec, rules_name, pos.move_stack)
            for _ in range(3):
                alpha = rng.randint(-spec.cells // 2 - 1, spec.cells // 2)
                beta = rng.randint(alpha + 1, spec.cells // 2 + 1)
                v = search.window(own, opp, pos.ply, alpha, beta)
                kind = int(search.ctx[L.C_RESULT_KIND])
                where = (spec, rules_name, pos.move_stack, (alpha, beta), v, kind, expected)
                assert kind == L.TT_EXACT or not alpha < v < beta, where
                if kind == L.TT_EXACT:
                    assert v == expected, where
                elif kind == L.TT_LOWER:
                    assert v >= beta and expected >= v, where
                else:
                    assert kind == L.TT_UPPER and v <= alpha and expected <= v, where


@pytest.mark.parametrize("gravity", [True, False])
def test_a_window_asks_for_a_position_or_a_move_only(gravity):
    """``cell`` below -1 is the searches' own recursion (nothing set up): the engine
    refuses it in one line instead of searching a node without its root hashes."""
    spec = GameSpec(4, 4, 3, gravity)
    search = Search(spec, np.zeros(1 << 10, dtype=np.uint64))
    assert search.window(0, 0, 0, -1, 1) >= 1   # (fail-soft: the first player wins 4x4 k=3, both rules)
    with pytest.raises(ValueError, match="cell must be -1 or a cell"):
        search.window(0, 0, 0, -1, 1, cell=-2)


def _generic_score(search: Search, own: int, opp: int, ply: int) -> int:
    """The exact score by the free-placement engine's generic search
    (kernels/free/search.py, which also plays gravity: its recursion's entry, ``INSIDE``, on a node
    set up here), independent of the gravity one."""
    from parallel_mnk.kernels.free import search as N
    from parallel_mnk.kernels.core.table import set_root_hashes as root_hashes
    cells = search.spec.cells
    own_b, opp_b = np.uint64(own), np.uint64(opp)
    if geometry.winning_cells(own, search.legal_mask(own, opp), search.spec.rows, search.spec.cols, search.spec.k):
        return (cells + 1 - ply) // 2
    x, o = (own_b, opp_b) if ply % 2 == 0 else (opp_b, own_b)
    lo, hi = -((cells - ply) // 2), (cells + 1 - ply) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        root_hashes(search.ctx, x, o, ply)
        r = int(N.negamax(search.ctx, search.tt, search.ctl, own_b, opp_b, np.int64(ply), N.INSIDE,
                          np.int64(med), np.int64(med + 1), np.int64(-1)))
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@pytest.mark.slow
@pytest.mark.parametrize("spec, empty", [(GameSpec(8, 8, 4, True), 16), (GameSpec(9, 7, 4, True), 16),
                                         (GameSpec(16, 4, 4, True), 16), (GameSpec(8, 7, 5, True), 18),
                                         (GameSpec(4, 16, 4, True), 16)], ids=lambda v: getattr(v, "describe", str)())
def test_big_gravity_boards_agree_with_the_generic_search(spec, empty):
    """Boards naive.py cannot reach (up to 64 cells): the gravity search and the
    generic one agree on random late positions."""
    found = random_positions(spec, 10, (spec.cells - empty, spec.cells - 1), seed=3, quiet=True,
                             min_stones=spec.cells - empty, exact=False)
    assert len(found) >= 5, len(found)
    for pos in found:
        own, opp = pos.stones()
        ours = Search(spec, np.zeros(1 << 18, dtype=np.uint64)).score(own, opp, pos.ply, False)
        generic = _generic_score(Search(spec, np.zeros(1 << 18, dtype=np.uint64)), own, opp, pos.ply)
        assert ours == generic, (spec, pos.move_stack)
