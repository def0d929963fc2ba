"""Paths of the value-deciding kernels that the other small-board tests do not reach, against
naive.py: the free-placement search's zones (kernels/free/search.py: ``_zone_of``,
``_threat_zone_of``, ``_skip``) on small random free positions of k = 4 boards, its pairings on
k = 3 and k >= 8 boards, and the winning cells of lines of 6, 7 and 8 (kernels/core/lines.py
beyond its unrolled k = 3-5);
and the helpers of kernels/core/bounds.py against their contracts over every small case.

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
import types

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
SPECS = [GameSpec(5, 4, 4), GameSpec(4, 5, 4), GameSpec(6, 4, 4), GameSpec(5, 5, 4)]


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


def check_positions(spec: GameSpec, search, positions) -> None:
    """:func:`check_position` on each of ``positions``, every disagreement in one
    failure; naive.py's cache of ``spec`` cleared after (its memory)."""
    failures = []
    try:
        for pos in positions:
            failures += check_position(spec, search, pos)
    finally:
        naive_solver(spec).score.cache_clear()
    assert not failures, f"{len(failures)} disagreements on {spec}:\n" + "\n".join(failures[:15])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.cols}x{s.rows}k{s.k}")
def test_zones_keep_the_naive_scores(spec):
    """Exact scores, weak values and best moves with the zones on from ``ZONES_FROM``
    empty cells equal naive.py's; on every board the searches found reply zones and threat
    zones, and zones closed moves."""
    search = zone_search(spec)
    positions = root_families(spec, seed=spec.cols * 100 + spec.rows * 10 + spec.k)
    assert len(positions) >= ROOTS * 4
    check_positions(spec, search, positions)
    ctx = search.ctx
    counts = {"reply-zone nodes": int(ctx[PL.P_ZONE_NODES]), "threat-zone nodes": int(ctx[PL.P_THREAT_ZONES]),
              "moves closed": int(ctx[PL.P_ZONE_SKIPS])}
    assert min(counts.values()) > 0, f"the searches of {spec} did not go through both kinds of zones: {counts}"


EDGE_K_SPECS = [GameSpec(7, 2, 3), GameSpec(2, 7, 3), GameSpec(13, 1, 3), GameSpec(4, 3, 3),
                GameSpec(9, 2, 8), GameSpec(2, 9, 8), GameSpec(10, 2, 9)]


@pytest.mark.parametrize("spec", EDGE_K_SPECS, ids=lambda s: f"{s.cols}x{s.rows}k{s.k}")
def test_edge_k_pairings_keep_the_naive_scores(spec):
    """Pairing certificates act on k = 3 boards and past k = 7 too (one- and two-row boards
    are draws by a pairing that a search without them proves in exponential time; past
    k = 7 the finder pairs a window's first 7 free cells): exact scores, weak values and
    best moves with pairings on from ``ZONES_FROM`` empty cells equal naive.py's, and the
    searches found certificates."""
    search = zone_search(spec)
    check_positions(spec, search, root_families(spec, seed=spec.cols * 100 + spec.rows * 10 + spec.k))
    assert search.ctx[PL.P_FOUND] > 0, f"no pairing certificate found on {spec}: nothing tested"


# ---------------------------------------------------------------- lines of 6 and more (kernels/core/lines.py)
LONG_LINES = [GameSpec(6, 3, 6), GameSpec(3, 6, 6), GameSpec(6, 6, 6), GameSpec(7, 2, 7), GameSpec(2, 7, 7),
              GameSpec(8, 2, 8)]


def near_lines(spec: GameSpec, count: int, seed: int, most_empty: int = 10) -> list[Position]:
    """``count`` distinct positions (2 to ``most_empty`` empty cells, not over) in which one
    side holds ``k - 1``, ``k - 2`` or ``k - 3`` cells of a line whose other cells are empty
    (a win at once, a block forced, a double threat to make or stop), the rest of the stones
    at random: random play on boards of long lines gives draws only."""
    rng = random.Random(seed)
    naive = naive_solver(spec)
    out, seen = [], set()
    while len(out) < count:
        line = rng.choice(naive.lines)
        cells = [c for c in range(spec.cells) if line >> c & 1]
        empty_cells = rng.randint(2, most_empty)
        stones = spec.cells - empty_cells
        counts = [(stones + 1) // 2, stones // 2]        # X, O
        side = rng.randrange(2)
        mine = rng.sample(cells, spec.k - rng.choice((1, 2, 3)))
        off_line = [c for c in range(spec.cells) if not line >> c & 1]
        if len(mine) > counts[side] or stones - len(mine) > len(off_line):
            continue
        rest = rng.sample(off_line, stones - len(mine))
        bits = [0, 0]
        for c in mine:
            bits[side] |= 1 << c
        for c in rest:
            who = side if bits[side].bit_count() < counts[side] else 1 - side
            bits[who] |= 1 << c
        x, o = bits
        if naive.has_line(x) or naive.has_line(o) or (x, o) in seen:
            continue
        seen.add((x, o))
        pos = Position(spec)
        pos.x, pos.o = x, o
        out.append(pos)
    return out


@pytest.mark.parametrize("spec", LONG_LINES, ids=lambda s: f"{s.cols}x{s.rows}k{s.k}")
def test_lines_of_six_and_more_keep_the_naive_scores(spec):
    """``lines.winning_cells`` is unrolled for k = 3, 4 and 5 and generic beyond: exact
    scores, weak values and best moves of positions near a line (:func:`near_lines`) of
    boards with k = 6, 7, 8 along rows, columns and diagonals equal naive.py's."""
    search = Search(spec, np.zeros(1 << 12, dtype=np.uint64))
    positions = near_lines(spec, 16, seed=spec.cells * 10 + spec.k)
    check_positions(spec, search, positions)
    # not all draws: a solver that always said draw would pass otherwise
    assert any(naive_solver(spec).score(p.x, p.o) != 0 for p in positions), "every position is a draw"


# ---------------------------------------------------------------- bounds.py's helpers against their contracts
def plain(kernel):
    """The Python function of a kernel (itself under ``NUMBA_DISABLE_JIT=1``), the kernels
    it calls plain too (a kernel that only kernels call refuses Python: core/jit.py): its
    contract checked over a grid, with no compile of a signature the searches never use."""
    func = getattr(kernel, "py_func", None)
    if func is None:
        return kernel
    calls = {name: plain(value) for name, value in func.__globals__.items()
             if name in func.__code__.co_names and hasattr(value, "py_func")}
    return types.FunctionType(func.__code__, {**func.__globals__, **calls}, func.__name__, func.__defaults__,
                              func.__closure__)


def test_bound_helpers_keep_their_contracts():
    """``kernels/core/bounds.py`` over every small case, against the contracts of their
    docstrings written out plainly: a win's worth (never below 0), a window narrowed to
    known bounds (or closed, with the bound it proved), what a bound proves at a node of
    known bounds, a child folded into its node, the kind a node's loop proved, and the
    kind seen from the other side. The searches reach these only through a few windows
    each; a bound made looser or an exact score claimed from a bound changes answers."""
    from parallel_mnk.kernels.core import bounds as Bd
    from parallel_mnk.kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER
    win_in, narrow, result_kind = plain(Bd.win_in), plain(Bd.narrow), plain(Bd.result_kind)
    take_child, node_kind, flip_kind = plain(Bd.take_child), plain(Bd.node_kind), plain(Bd.flip_kind)
    table_bound = plain(Bd.table_bound)
    for cells in range(1, 13):
        spec = GameSpec(cells, 1, 1)
        for ply in range(cells):
            for plies in range(1, cells + 4):
                worth = win_score(spec, ply + plies) if ply + plies <= cells else 0
                assert win_in(cells, ply, plies) == worth, (cells, ply, plies)
    scores = range(-4, 5)
    for lower in scores:
        for upper in (u for u in scores if u >= lower):
            for alpha in scores:
                for beta in (b for b in scores if b > alpha):
                    a, b = max(alpha, lower), min(beta, upper)
                    if lower >= beta:
                        want = (TT_LOWER, lower)
                    elif upper <= a:
                        want = (TT_UPPER, upper)
                    else:
                        want = (0, 0)
                    got = narrow(alpha, beta, lower, upper)
                    assert got[2:] == want, (alpha, beta, lower, upper, got)
                    if want[0] == 0:
                        assert got[:2] == (a, b), (alpha, beta, lower, upper, got)
                    for v in scores:
                        for kind in (TT_LOWER, TT_UPPER):
                            exact = v >= upper if kind == TT_LOWER else v <= lower
                            assert result_kind(kind, v, lower, upper) == (TT_EXACT if exact else kind), \
                                (kind, v, lower, upper)
                        for best_exact in (False, True):
                            if v >= beta:
                                want_kind = TT_EXACT if v >= upper else TT_LOWER
                            elif best_exact:
                                want_kind = TT_EXACT
                            else:
                                want_kind = TT_EXACT if v <= lower else TT_UPPER
                            assert node_kind(v, best_exact, beta, lower, upper) == want_kind, \
                                (v, best_exact, beta, lower, upper)
                    # lower/upper as a table entry's bound (``flag``, ``tt_score``) at a node of bounds (-3, 3)
                    for flag, tt_score in ((TT_LOWER, lower), (TT_UPPER, upper), (0, 0)):
                        got = table_bound(flag, tt_score, alpha, beta, -3, 3)
                        known = ((max(-3, tt_score), 3) if flag == TT_LOWER else
                                 (-3, min(3, tt_score)) if flag == TT_UPPER else (-3, 3))
                        window = (narrow(alpha, beta, tt_score, Bd.NO_SCORE) if flag == TT_LOWER else
                                  narrow(alpha, beta, -Bd.NO_SCORE, tt_score) if flag == TT_UPPER else
                                  (alpha, beta, 0, 0))
                        assert got == (window[0], window[1], *known, window[2], window[3]), (flag, tt_score, got)
            for alpha in scores:
                for beta in (b for b in scores if b > alpha):
                    for best in scores:
                        for v in scores:
                            got = take_child(v, 7, best, 3, False, alpha, beta)
                            want = (v, 7, alpha < v < beta) if v > best else (best, 3, False)
                            assert got == (*want, max(alpha, v), v >= beta), (v, best, alpha, beta, got)
    assert [flip_kind(k) for k in (0, TT_LOWER, TT_UPPER, TT_EXACT)] == [0, TT_UPPER, TT_LOWER, TT_EXACT]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.cols}x{s.rows}k{s.k}")
def test_each_move_a_zone_closes_scores_as_the_zone_says(spec):
    """The zones' own contracts, move by move, against naive.py: after a search of each
    position (the certificates it found are remembered), a reply zone for the side to move
    (``_zone_of`` with ``alpha = 0``) leaves out only moves that do not win (naive score of
    the move <= 0), and a threat zone (``_threat_zone_of`` with ``alpha = -1``) only moves
    that score at most its bound; both kinds are found on every board, reply zones for
    either side to move (each side's zone comes from the other's certificates)."""
    from parallel_mnk.kernels.core import layout as L
    from parallel_mnk.kernels.free import search as S
    from parallel_mnk.kernels.proofs.pairing import reply_zone
    from parallel_mnk.kernels.core.jit import callable_from_python
    # (compiled copies: their Python functions call kernels that only kernels may call)
    zone_of, threat_zone_of = callable_from_python(S._zone_of), callable_from_python(S._threat_zone_of)
    search = zone_search(spec)
    naive = naive_solver(spec)
    ctx, board = search.ctx, int(search.ctx[L.C_BOARD])
    found = {"reply, X to move": 0, "reply, O to move": 0, "threat": 0}
    failures = []
    try:
        for pos in root_families(spec, seed=spec.cols * 100 + spec.rows * 10 + spec.k + 1):
            scores = naive.child_scores(pos.x, pos.o)
            if max(scores.values()) == naive.worth(pos.ply + 1):
                continue   # a win at once: the search scores it before any zone (negamax's precondition)
            own, opp = pos.stones()
            search.score(own, opp, pos.ply, True)
            args = (ctx, np.uint64(own), np.uint64(opp), np.int64(pos.ply))
            reply = int(zone_of(*args, np.int64(0)))
            # the opponent's certificates (ring ``1 - player``) give the side to move's zone
            theirs = int(reply_zone(ctx, np.uint64(own), np.uint64(opp), 1 - pos.ply % 2))
            assert reply == (theirs or board), (pos.move_stack, reply, theirs)
            tzone, tbound = threat_zone_of(*args, np.int64(-1))
            reply_name = "reply, X to move" if pos.ply % 2 == 0 else "reply, O to move"
            for name, zone, bound in ((reply_name, reply, 0), ("threat", int(tzone), int(tbound))):
                if zone == board:
                    continue
                found[name] += 1
                for cell, v in scores.items():
                    if not zone >> cell & 1 and v > bound:
                        failures.append(f"moves {pos.move_stack}: the {name} zone leaves out {cell}, "
                                        f"which scores {v} > {bound}")
    finally:
        naive.score.cache_clear()
    assert not failures, f"{len(failures)} wrong zones on {spec}:\n" + "\n".join(failures[:15])
    assert min(found.values()) > 0, f"zones found on {spec}: {found}"
