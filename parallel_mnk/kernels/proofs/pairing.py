"""Pairing (Hales-Jewett) certificates on bitboards: the exact finder, the check
of a remembered certificate, and the bound they give the exact search.

A *pairing certificate for the defender D against the attacker A* in a position
is a set of disjoint pairs of empty cells such that every window live for A
(holding no D stone) contains both cells of some pair. D answers A's move on a
paired cell with its partner; then A never owns both cells of a pair, so A never
completes a live window: **A cannot win, whoever is to move** (an extra D stone
only kills windows; the strong game's D threats only end the game sooner for D).
So a certificate proves ``score <= 0`` for A, never a draw by itself
(``docs/proofs.md``).

The finder (note 2.3a) is an exact, complete search: take the uncovered window
with the fewest free cells (none with fewer than two, or it fails); some pair of
the certificate lies inside it, so try each 2-subset of its free cells (best
first: the one covering most uncovered windows), remove what it covers, recurse.
It runs on an explicit stack in ``ctx`` (:mod:`.layout`) with a node cap:
``-1`` means "no certificate exists", ``-2`` "capped", unknown. A window with
more than ``PAIR_CELLS`` free cells (only when ``k > PAIR_CELLS``) offers pairs
of its first ``PAIR_CELLS`` free cells only; a search that skipped some and found
nothing says ``-3``, "incomplete", unknown too.

Window sets are bitsets of ``WORDS`` words (:mod:`.layout`).
"""
import numpy as np
from ..core.jit import called, entry, inlined

from ..core.bits import lowest_bit_index, popcount
from ..core.common import insert_descending
from ..core.layout import C_BOARD, C_CELLS, C_NLINES, OFF_LINES
from .layout import (
    CERT_SIZE, LEVEL_CAND, LEVEL_F, LEVEL_I, LEVEL_N, LEVEL_SIZE, LEVEL_U, OFF_CELL_WIN, OFF_FOUND, OFF_RING,
    OFF_RING_SCORE, OFF_STACK, PAIR_CELLS, P_CAP, P_CAPPED, P_DFS_NODES, P_FOUND, P_FRESH, P_MIN_EMPTY, P_REUSED, P_SCAN_MIN_EMPTY, P_RING_NEXT, RING, WORDS,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)
NONE_EXISTS = -1
CAPPED = -2
INCOMPLETE = -3


@inlined
def _pair_covers(ctx, a, b, w):
    """Word ``w`` of the windows holding both cells ``a`` and ``b``."""
    return ctx[OFF_CELL_WIN + a * WORDS + w] & ctx[OFF_CELL_WIN + b * WORDS + w]


@called
def live_windows(ctx, dfn, base):
    """Write to ``ctx[base:base + WORDS]`` the windows holding no stone of ``dfn``."""
    for w in range(WORDS):
        ctx[base + w] = ZERO
    for i in range(np.int64(ctx[C_NLINES])):
        if ctx[OFF_LINES + i] & dfn == ZERO:
            ctx[base + (i >> 6)] |= ONE << np.uint64(i & 63)


@called
def _narrowest_window(ctx, base):
    """The uncovered window (at stack level ``base``) with the fewest free cells.

    Returns ``(status, free)``: status 0 when no window is uncovered (a
    certificate), -1 when one has fewer than two free cells (a dead end), else 1
    and that window's free cells."""
    free_cells = ctx[base + LEVEL_F]
    best, best_free = 1000, ZERO
    for w in range(WORDS):
        u = ctx[base + LEVEL_U + w]
        while u != ZERO:
            i = w * 64 + lowest_bit_index(u)
            u &= u - ONE
            free = ctx[OFF_LINES + i] & free_cells
            n = popcount(free)
            if n < 2:
                return -1, ZERO
            if n < best:
                best, best_free = n, free
    if best == 1000:
        return 0, ZERO
    return 1, best_free


@called
def _push_candidates(ctx, base, free):
    """Write every pair of the first ``PAIR_CELLS`` cells of ``free`` to stack level
    ``base``, covering most uncovered windows first; returns how many."""
    n = np.int64(0)
    x = free
    for _ in range(PAIR_CELLS):
        x &= x - ONE
    x = free & ~x
    while x != ZERO:
        a = lowest_bit_index(x)
        x &= x - ONE
        y = x
        while y != ZERO:
            b = lowest_bit_index(y)
            y &= y - ONE
            gain = 0
            for w in range(WORDS):
                gain += popcount(_pair_covers(ctx, a, b, w) & ctx[base + LEVEL_U + w])
            pair = (ONE << np.uint64(a)) | (ONE << np.uint64(b))
            insert_descending(ctx, ctx, base + LEVEL_CAND, OFF_RING_SCORE, n, pair, np.uint64(gain))
            n += 1
    ctx[base + LEVEL_N] = np.uint64(n)
    ctx[base + LEVEL_I] = ZERO
    return n


@called
def _write_found(ctx, levels):
    """Copy the pairs chosen on the first ``levels`` stack levels to ``OFF_FOUND``."""
    ctx[OFF_FOUND] = np.uint64(levels)
    for lvl in range(levels):
        base = OFF_STACK + lvl * LEVEL_SIZE
        ctx[OFF_FOUND + 1 + lvl] = ctx[base + LEVEL_CAND + np.int64(ctx[base + LEVEL_I]) - 1]


@entry
def search_certificate(ctx, att, dfn, cap):
    """Search a certificate for the side with stones ``dfn`` against ``att`` (the
    module docstring), visiting at most ``cap`` nodes.

    Returns the number of pairs (>= 0; the pair masks are then at
    ``ctx[OFF_FOUND + 1:]``), :data:`NONE_EXISTS` when the complete search found
    none, :data:`CAPPED`, or :data:`INCOMPLETE` (the module docstring). Counts its
    nodes in ``ctx[P_DFS_NODES]``.
    """
    ctx[OFF_STACK + LEVEL_F] = ctx[C_BOARD] & ~(att | dfn)
    live_windows(ctx, dfn, OFF_STACK + LEVEL_U)
    lvl = np.int64(0)   # (not a literal: _write_found would be typed for 0 too)
    nodes = 0
    fresh = True
    skipped = False     # some window's cells past the first PAIR_CELLS went unpaired
    while True:
        base = OFF_STACK + lvl * LEVEL_SIZE
        if fresh:
            fresh = False
            nodes += 1
            if nodes > cap:
                ctx[P_DFS_NODES] += np.uint64(nodes - 1)
                return CAPPED
            status, free = _narrowest_window(ctx, base)
            if status == 0:
                ctx[P_DFS_NODES] += np.uint64(nodes)
                _write_found(ctx, lvl)
                return lvl
            if status < 0:
                ctx[base + LEVEL_N] = ZERO
                ctx[base + LEVEL_I] = ZERO
            else:
                skipped |= popcount(free) > PAIR_CELLS
                _push_candidates(ctx, base, free)
        i = ctx[base + LEVEL_I]
        if i < ctx[base + LEVEL_N]:
            ctx[base + LEVEL_I] = i + ONE
            pair = ctx[base + LEVEL_CAND + np.int64(i)]
            a = lowest_bit_index(pair)
            b = lowest_bit_index(pair & (pair - ONE))
            nxt = base + LEVEL_SIZE
            for w in range(WORDS):
                ctx[nxt + LEVEL_U + w] = ctx[base + LEVEL_U + w] & ~_pair_covers(ctx, a, b, w)
            ctx[nxt + LEVEL_F] = ctx[base + LEVEL_F] & ~pair
            lvl += 1
            fresh = True
        else:
            if lvl == 0:
                ctx[P_DFS_NODES] += np.uint64(nodes)
                return INCOMPLETE if skipped else NONE_EXISTS
            lvl -= 1


@inlined
def _empty_pairs_cover(ctx, cert, stones):
    """The pairs of the certificate at ``ctx[cert]`` (count, then pair masks) with
    both cells empty (no bit of ``stones``): ``(cells, w0, w1, w2, w3)``, their
    cells and the four words of the windows they cover."""
    cells = c0 = c1 = c2 = c3 = ZERO
    for j in range(np.int64(ctx[cert])):
        pair = ctx[cert + 1 + j]
        if pair & stones != ZERO:
            continue
        cells |= pair
        a = lowest_bit_index(pair)
        b = lowest_bit_index(pair & (pair - ONE))
        c0 |= _pair_covers(ctx, a, b, np.int64(0))
        c1 |= _pair_covers(ctx, a, b, np.int64(1))
        c2 |= _pair_covers(ctx, a, b, np.int64(2))
        c3 |= _pair_covers(ctx, a, b, np.int64(3))
    return cells, c0, c1, c2, c3


@called
def certificate_holds(ctx, cert, att, dfn):
    """Whether the certificate stored at ``ctx[cert]`` (count, then pair masks) is
    one in the position ``att``/``dfn``: its pairs with both cells empty cover
    every window live for ``att`` (checked in full, so any earlier certificate
    may be tried in any position)."""
    _, c0, c1, c2, c3 = _empty_pairs_cover(ctx, cert, att | dfn)
    for i in range(np.int64(ctx[C_NLINES])):
        if ctx[OFF_LINES + i] & dfn == ZERO:
            w = i >> 6
            c = c0 if w == 0 else (c1 if w == 1 else (c2 if w == 2 else c3))
            if (c >> np.uint64(i & 63)) & ONE == ZERO:
                return False
    return True


@entry
def reply_zone(ctx, att, dfn, defender):
    """A *reply zone* for the side ``defender`` (stones ``dfn``) against ``att``,
    ``att`` to move: a mask ``Z`` of empty cells such that every move of ``att``
    outside ``Z`` is answered by one defender move after which a remembered
    certificate holds, so that none of those moves wins for ``att`` (score <= 0).
    0 when no remembered certificate gives one.

    For a remembered certificate, the windows live for ``att`` that its pairs of
    empty cells leave uncovered must all hold one empty cell ``d`` (the reply):
    a defender stone on ``d`` kills them. Then ``Z`` is ``d`` and the cells of
    those pairs: after a move ``a`` outside ``Z`` and the reply ``d``, the pairs
    are still empty and cover every window live for ``att`` (``a`` kills none of
    them, ``d`` kills the rest), so the certificate holds (the module docstring).
    This is Shih et al.'s post-hoc null move with a pairing as the proof: the
    certificate that refuted one move usually refutes all moves outside its cells."""
    stones = att | dfn
    empty = ctx[C_BOARD] & ~stones
    ring = OFF_RING + defender * RING * CERT_SIZE
    for r in range(RING):
        cert = ring + r * CERT_SIZE
        if ctx[cert] == ZERO:
            continue
        cells, c0, c1, c2, c3 = _empty_pairs_cover(ctx, cert, stones)
        common = empty
        for i in range(np.int64(ctx[C_NLINES])):
            line = ctx[OFF_LINES + i]
            if line & dfn == ZERO:
                w = i >> 6
                c = c0 if w == 0 else (c1 if w == 1 else (c2 if w == 2 else c3))
                if (c >> np.uint64(i & 63)) & ONE == ZERO:
                    common &= line
                    if common == ZERO:
                        break
        if common != ZERO:
            return cells | (common & (ZERO - common))
    return ZERO


@called
def ring_reply(ctx, att, dfn, defender, cand):
    """A move of ``cand`` for the side ``defender`` (stones ``dfn``, to move) after which
    one of its remembered certificates holds against ``att``: ``(cell, cert)``, the
    cell and the certificate's offset in ``ctx``, or ``(-1, -1)``. A certificate fits
    when the windows live for ``att`` that its pairs of empty cells leave uncovered all
    hold one cell of ``cand`` (a stone there kills them; the pairs stay empty and cover
    the rest): :func:`reply_zone`'s test, for every move at once."""
    stones = att | dfn
    ring = OFF_RING + defender * RING * CERT_SIZE
    for r in range(RING):
        cert = ring + r * CERT_SIZE
        if ctx[cert] == ZERO:
            continue
        cells, c0, c1, c2, c3 = _empty_pairs_cover(ctx, cert, stones)
        common = cand
        for i in range(np.int64(ctx[C_NLINES])):
            line = ctx[OFF_LINES + i]
            if line & dfn == ZERO:
                w = i >> 6
                c = c0 if w == 0 else (c1 if w == 1 else (c2 if w == 2 else c3))
                if (c >> np.uint64(i & 63)) & ONE == ZERO:
                    common &= line
                    if common == ZERO:
                        break
        if common != ZERO:
            free = common & ~cells   # (a cell off the pairs keeps them all)
            pick = free if free != ZERO else common
            return np.int64(lowest_bit_index(pick)), np.int64(cert)
    return -1, -1


@called
def defender_has_certificate(ctx, att, dfn, defender, fresh):
    """Whether the side ``defender`` (0 first player, 1 second) with stones ``dfn``
    holds a certificate against ``att``: one of its remembered certificates
    holds, or (with ``fresh``) a search capped at ``ctx[P_CAP]`` nodes finds one,
    which is then remembered. False means only "none known"."""
    ring = OFF_RING + defender * RING * CERT_SIZE
    for r in range(RING):
        if ctx[ring + r * CERT_SIZE] != ZERO and certificate_holds(ctx, ring + r * CERT_SIZE, att, dfn):
            ctx[P_REUSED] += ONE
            return True
    if not fresh:
        return False
    ctx[P_FRESH] += ONE
    n = search_certificate(ctx, att, dfn, np.int64(ctx[P_CAP]))
    if n == CAPPED:
        ctx[P_CAPPED] += ONE
    if n < 0:
        return False
    ctx[P_FOUND] += ONE
    slot = np.int64(ctx[P_RING_NEXT + defender])
    ctx[P_RING_NEXT + defender] = np.uint64((slot + 1) % RING)
    dst = ring + slot * CERT_SIZE
    for j in range(n + 1):
        ctx[dst + j] = ctx[OFF_FOUND + j]
    if n == 0:
        ctx[dst] = ZERO   # no live window at all: nothing worth remembering
    return True


@called
def pairing_bounds(ctx, own, opp, cand, ply, alpha, beta, lower, upper):
    """The exact search's bounds ``lower <= score <= upper`` of the side to move
    (stones ``own``, ``ply`` stones on the board) tightened to 0 by certificates,
    tried only where 0 would close the window ``(alpha, beta)`` and the node has
    at least ``ctx[P_MIN_EMPTY]`` empty cells: a certificate for the opponent
    gives ``upper = 0``, one for the side to move ``lower = 0``."""
    if np.int64(ctx[C_CELLS]) - ply < np.int64(ctx[P_MIN_EMPTY]):
        return lower, upper
    player = ply & 1
    if upper > 0 and alpha >= 0 and defender_has_certificate(ctx, own, opp, 1 - player, np.bool_(True)):
        upper = 0
    if lower < 0 and beta <= 0:
        if defender_has_certificate(ctx, opp, own, player, np.bool_(True)) or certificate_move(ctx, own, opp, ply, cand) >= 0:
            lower = 0
    return lower, upper


@called
def certificate_move(ctx, own, opp, ply, cand):
    """A cell of ``cand`` after which the side to move (stones ``own``) holds a
    certificate against ``opp`` (so it cannot lose: note 2.5), or -1 when none
    is known; only at nodes with at least ``ctx[P_SCAN_MIN_EMPTY]`` empty cells."""
    if ctx[P_SCAN_MIN_EMPTY] == ZERO or np.int64(ctx[C_CELLS]) - ply < np.int64(ctx[P_SCAN_MIN_EMPTY]):
        return -1
    player = ply & 1
    c = cand
    while c != ZERO:
        cell = lowest_bit_index(c)
        c &= c - ONE
        if defender_has_certificate(ctx, opp, own | (ONE << np.uint64(cell)), player, np.bool_(True)):
            return cell
    return -1
