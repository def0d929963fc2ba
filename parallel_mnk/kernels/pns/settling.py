"""The exact rules of the proof-number search (:mod:`.search`): what settles a
node without children, and what goes to the store when a node is settled.

:func:`_evaluate` settles a node by a win in one, two completion cells of the side
not to move, A with no live window left, a VCF of the side to move, or a pairing
certificate of D (at once, or after one of D's moves: :func:`_pairing_reply`);
:func:`_put` writes a settled node to the store (:mod:`.settled_store`) with what its
certificate record needs; :func:`_line_entries` and :func:`_threat_entries` store the
nodes of a VCF line and of A's wins after D's pruned moves, so that the certificate
walk (:mod:`.certificate_walk`) finds a record at every position it reaches.
"""
import numpy as np

from ..core.bits import lowest_bit_index, popcount
from ..core.common import insert_descending
from ..core.jit import called, inlined
from ..core.layout import (
    C_BOARD, C_CELLS, C_NLINES, C_WEIGHT, MAX_CELLS, OFF_INVPERM, OFF_LINES, OFF_MOVES, OFF_PERM, OFF_SCORES,
    OFF_STATIC,
)
from ..core.lines import line_move_scores, winning_cells
from ..core.table import canonical_key, push_hashes
from ..proofs.pairing import certificate_holds, ring_reply, search_certificate
from ..proofs.layout import (
    CERT_SIZE, OFF_FOUND, OFF_RING, OFF_VCF_LINE, P_CAP, P_RING_NEXT, P_VCF_MOVES, P_VCF_NODE_CAP, RING,
)
from ..proofs.threats import vcf_win
from .layout import (
    INF, KIND_MOVE, KIND_PAIRS, OFF_VLINE, SETTLED_DISPROVEN, SETTLED_PROVEN, W_PAIR_MIN_EMPTY, W_PAIRINGS,
    W_SCAN_ON, W_SCAN_TOP, W_SCAN_TRIES, W_ST_MASK, W_STORE_FULL, W_THREAT_CUTS, W_VCF_DISPROOFS, W_VCF_MIN_EMPTY,
    W_VCF_PROOFS,
)
from .settled_store import pool_alloc, pool_base, store_find, store_put
from .zones import from_canonical, hit_once, hit_twice, to_canonical, zone_to_canonical

ZERO = np.uint64(0)
ONE = np.uint64(1)
# typed constants for kernel-to-kernel calls (numba types a plain int or bool argument as a
# literal: a compile of the callee for each value)
FALSE, TRUE = np.bool_(False), np.bool_(True)
I0 = np.int64(0)
NO_MOVE = np.int64(-1)
T_KIND_MOVE = np.int64(KIND_MOVE)
T_KIND_PAIRS = np.int64(KIND_PAIRS)


# ------------------------------------------------------------------ the store's entries
@inlined
def _info(ctx, sym, proven, kind, move, pool):
    """A store entry's word 1: the value, the kind of its record, the move (-1: none)
    in the canonical frame of ``sym``, the pairing's offset in the pool."""
    info = np.uint64(SETTLED_PROVEN if proven else SETTLED_DISPROVEN) | (np.uint64(kind) << np.uint64(2))
    if move >= 0:
        info |= (ctx[OFF_PERM + sym * MAX_CELLS + move] + ONE) << np.uint64(8)
    return info | (np.uint64(pool) << np.uint64(16))


@called
def _put(ctx, st, ss, wk, ply, key, sym, proven, kind, zone, move, aux, pool):
    """Store a settled node (hashes at slot ``ply``; ``zone``, ``move`` and ``aux``, a
    set of cells, in its frame; ``kind`` what its record is, ``pool`` its pairing's
    offset) unless it is stored already. Returns ``(mine, zone, move)``: True and the arguments when this call
    stored it, else False and the stored zone and move in the node's frame (a full
    store: False and the arguments, ``wk[W_STORE_FULL]`` set)."""
    czone = zone_to_canonical(ctx, ply, sym, zone)
    mine, info, szone, _ = store_put(wk, st, ss, key, _info(ctx, sym, proven, kind, move, pool), czone,
                                     to_canonical(ctx, sym, aux))
    if mine or info == ZERO:
        return mine, from_canonical(ctx, sym, czone), move
    m = np.int64((info >> np.uint64(8)) & np.uint64(255)) - 1
    return False, from_canonical(ctx, sym, szone), -1 if m < 0 else np.int64(ctx[OFF_INVPERM + sym * MAX_CELLS + m])


@called
def _pool_pairing(ctx, st, wk, cert, stones, sym):
    """The pairs of the certificate at ``ctx[cert]`` with no stone of ``stones``, copied
    to the store's pool in the canonical frame of ``sym``: their offset (0: none
    copied, the pool is full or there are no pairs: an empty pairing)."""
    n = 0
    for j in range(np.int64(ctx[cert])):
        if ctx[cert + 1 + j] & stones == ZERO:
            n += 1
    if n == 0 or wk[W_ST_MASK] == ZERO:
        return 0
    at = pool_alloc(wk, st, n + 1)
    if at == 0:
        return 0
    base = pool_base(wk[W_ST_MASK]) + at
    st[base] = np.uint64(n)
    i = 1
    for j in range(np.int64(ctx[cert])):
        pair = ctx[cert + 1 + j]
        if pair & stones == ZERO:
            st[base + i] = to_canonical(ctx, sym, pair)
            i += 1
    return at


# ------------------------------------------------------------------ exact rules
@inlined
def _live(ctx, att, dfn):
    """``(att_live, live_empty)``: whether some window holds no ``dfn`` stone (``att``
    can still complete it), and the empty cells on a window free of one side's
    stones (the others are dead: a stone there is a pass)."""
    empty = ctx[C_BOARD] & ~(att | dfn)
    att_live = False
    live_empty = ZERO
    for i in range(np.int64(ctx[C_NLINES])):
        line = ctx[OFF_LINES + i]
        if line & dfn == ZERO:
            att_live = True
            live_empty |= line & empty
        elif line & att == ZERO:
            live_empty |= line & empty
    return att_live, live_empty


@called
def _pairing(ctx, att, dfn, defender, cap):
    """The offset in ``ctx`` of a pairing certificate of the side ``defender`` (stones
    ``dfn``) against ``att`` in this position: a remembered one that holds, or one a
    fresh search capped at ``cap`` nodes finds (then remembered); -1 when none is known."""
    ring = OFF_RING + defender * RING * CERT_SIZE
    for r in range(RING):
        cert = ring + r * CERT_SIZE
        if ctx[cert] != ZERO and certificate_holds(ctx, cert, att, dfn):
            return cert
    n = search_certificate(ctx, att, dfn, cap)
    if n < 0:
        return -1
    slot = np.int64(ctx[P_RING_NEXT + defender])
    ctx[P_RING_NEXT + defender] = np.uint64((slot + 1) % RING)
    dst = ring + slot * CERT_SIZE
    for j in range(n + 1):
        ctx[dst + j] = ctx[OFF_FOUND + j]
    return dst


@inlined
def _vcf(ctx, wk, own, opp, ply):
    """Plies of a VCF win of ``own`` (to move) found within the caps, 0 when none
    (only at nodes with at least ``wk[W_VCF_MIN_EMPTY]`` empty cells)."""
    if wk[W_VCF_MIN_EMPTY] == ZERO or np.int64(ctx[C_CELLS]) - ply < np.int64(wk[W_VCF_MIN_EMPTY]):
        return 0
    return vcf_win(ctx, own, opp, np.int64(ctx[P_VCF_MOVES]), np.int64(ctx[P_VCF_NODE_CAP]))


@inlined
def _pairs_here(ctx, wk, ply):
    """Whether pairings are tried at a node of ``ply`` stones."""
    return wk[W_PAIR_MIN_EMPTY] != ZERO and np.int64(ctx[C_CELLS]) - ply >= np.int64(wk[W_PAIR_MIN_EMPTY])


@called
def _line_entries(ctx, st, ss, wk, own, opp, ply, plies, proven):
    """Store the claimant's (``own``, to move) later positions along the VCF line at
    ``ctx[OFF_VCF_LINE:]`` of ``plies`` plies, each with its move (the first position
    is the caller's), proven (A's line) or disproven (D's; zone: its empty cells);
    stops at one stored before (the line from there is stored already)."""
    for i in range(plies):   # (the line outlives the searches below: keep it)
        wk[OFF_VLINE + i] = ctx[OFF_VCF_LINE + i]
    player = ply & 1
    a, b, p = own, opp, ply
    for i in range(0, plies - 1, 2):
        cell = np.int64(wk[OFF_VLINE + i])
        if i > 0:
            key, sym = canonical_key(ctx, p)
            mine, _, _ = _put(ctx, st, ss, wk, p, key, sym, proven, T_KIND_MOVE,
                              ZERO if proven else ctx[C_BOARD] & ~(a | b), cell, ZERO, I0)
            if not mine:
                return
        reply = np.int64(wk[OFF_VLINE + i + 1])
        push_hashes(ctx, p, cell, player)
        push_hashes(ctx, p + 1, reply, 1 - player)
        a |= ONE << np.uint64(cell)
        b |= ONE << np.uint64(reply)
        p += 2


@inlined
def _settled(proven, zone, move):
    """``(pn, dn, zone, move, kind)`` of a node settled at once."""
    if proven:
        return 0, INF, ZERO, move, 1
    return INF, 0, zone, move, 2


@called
def _evaluate(ctx, st, ss, wk, own, opp, ply, or_node, key, sym):
    """The exact rules of a node met for the first time (module docstring), with the
    store entries its record needs (hashes at slot ``ply``, its canonical ``key`` and
    ``sym``). Returns ``(pn, dn, zone, move, kind)``: ``kind`` 0 when they do not
    settle it (then ``(1, 1)``), 1 proven, 2 disproven (``zone`` in the node's frame);
    ``move`` the settling move (-1: none)."""
    empty = ctx[C_BOARD] & ~(own | opp)
    player = ply & 1
    mine_wins = winning_cells(ctx, own, empty)
    if mine_wins != ZERO:   # the side to move completes a line (the checker's rule 2: no record)
        if or_node == 1:
            return _settled(TRUE, ZERO, np.int64(lowest_bit_index(mine_wins)))
        return _settled(FALSE, mine_wins | hit_once(ctx, wk, opp, own), NO_MOVE)
    theirs = winning_cells(ctx, opp, empty)
    if theirs & (theirs - ONE) != ZERO:   # two completion cells of the side not to move (no record)
        if or_node == 1:
            return _settled(FALSE, theirs | hit_twice(ctx, wk, own, opp), NO_MOVE)
        return _settled(TRUE, ZERO, NO_MOVE)
    att, dfn = (own, opp) if or_node == 1 else (opp, own)
    att_live, live_empty = _live(ctx, att, dfn)
    if not att_live:   # A cannot win: the empty pairing (after one D move when D is to move)
        if or_node == 1:
            _, zone, move = _put(ctx, st, ss, wk, ply, key, sym, FALSE, T_KIND_PAIRS, ZERO, NO_MOVE, ZERO, I0)
            return _settled(FALSE, zone, move)
        first = lowest_bit_index(to_canonical(ctx, sym, empty))   # D: the first empty cell of the canonical frame
        cell = np.int64(ctx[OFF_INVPERM + sym * MAX_CELLS + first])
        push_hashes(ctx, ply, cell, player)
        akey, asym = canonical_key(ctx, ply + 1)
        _put(ctx, st, ss, wk, ply + 1, akey, asym, FALSE, T_KIND_PAIRS, ZERO, NO_MOVE, ZERO, I0)
        _, zone, move = _put(ctx, st, ss, wk, ply, key, sym, FALSE, T_KIND_MOVE, ONE << np.uint64(cell), cell, ZERO, I0)
        return _settled(FALSE, zone, move)
    plies = _vcf(ctx, wk, own, opp, ply)
    if plies > 0:   # the side to move wins by continuous fours
        first = np.int64(ctx[OFF_VCF_LINE])
        proven = or_node == 1
        wk[W_VCF_PROOFS if proven else W_VCF_DISPROOFS] += ONE
        mine, zone, move = _put(ctx, st, ss, wk, ply, key, sym, proven, T_KIND_MOVE, ZERO if proven else empty, first,
                                ZERO, I0)
        if mine:
            _line_entries(ctx, st, ss, wk, own, opp, ply, plies, proven)
        return _settled(proven, zone, move)
    if not _pairs_here(ctx, wk, ply):
        return 1, 1, ZERO, -1, 0
    if or_node == 1:
        cert = _pairing(ctx, own, opp, 1 - player, np.int64(ctx[P_CAP]))
        if cert >= 0:
            wk[W_PAIRINGS] += ONE
            pool = _pool_pairing(ctx, st, wk, cert, own | opp, sym)
            _, zone, move = _put(ctx, st, ss, wk, ply, key, sym, FALSE, T_KIND_PAIRS, _pair_cells(ctx, cert, own | opp),
                                 NO_MOVE, ZERO, pool)
            return _settled(FALSE, zone, move)
        return 1, 1, ZERO, -1, 0
    cert = _pairing(ctx, opp, own, player, np.int64(ctx[P_CAP]))
    if cert >= 0:   # D holds a pairing: it plays one of its cells (any cell, when no pair is left)
        pair_cells = _pair_cells(ctx, cert, own | opp)
        cell = np.int64(lowest_bit_index(pair_cells if pair_cells != ZERO else empty))
        return _pairing_reply(ctx, st, ss, wk, own, opp, ply, cell, cert, key, sym)
    if wk[W_SCAN_ON] != ZERO:   # the scan: a D move after which D holds one
        cand = theirs if theirs != ZERO else empty & live_empty
        cell, cert = ring_reply(ctx, opp, own, player, cand)
        if cell >= 0:
            return _pairing_reply(ctx, st, ss, wk, own, opp, ply, cell, cert, key, sym)
        n = _order(ctx, own, opp, cand, ply)
        mbase = OFF_MOVES + ply * MAX_CELLS
        for i in range(min(n, np.int64(wk[W_SCAN_TOP]))):
            cell = np.int64(ctx[mbase + i])
            wk[W_SCAN_TRIES] += ONE
            cert = _pairing(ctx, opp, own | (ONE << np.uint64(cell)), player, np.int64(ctx[P_CAP]))
            if cert >= 0:
                return _pairing_reply(ctx, st, ss, wk, own, opp, ply, cell, cert, key, sym)
    return 1, 1, ZERO, -1, 0


@inlined
def _pair_cells(ctx, cert, stones):
    """The cells of the pairs of the certificate at ``ctx[cert]`` with no stone of ``stones``."""
    cells = ZERO
    for j in range(np.int64(ctx[cert])):
        if ctx[cert + 1 + j] & stones == ZERO:
            cells |= ctx[cert + 1 + j]
    return cells


@called
def _pairing_reply(ctx, st, ss, wk, own, opp, ply, cell, cert, key, sym):
    """D (``own``, to move) plays ``cell``, after which the certificate at ``ctx[cert]``
    holds against A: settled disproven; the position after the move is stored first
    with its pairing (one stored before keeps its own), then the node with its move."""
    wk[W_PAIRINGS] += ONE
    bit = ONE << np.uint64(cell)
    after = own | bit
    push_hashes(ctx, ply, cell, ply & 1)
    akey, asym = canonical_key(ctx, ply + 1)
    found, _, _, _ = store_find(wk, st, ss, akey)
    azone = _pair_cells(ctx, cert, opp | after)
    if found:
        _, azone, _ = _put(ctx, st, ss, wk, ply + 1, akey, asym, FALSE, T_KIND_PAIRS, azone, NO_MOVE, ZERO, I0)
    else:
        pool = _pool_pairing(ctx, st, wk, cert, opp | after, asym)
        _, azone, _ = _put(ctx, st, ss, wk, ply + 1, akey, asym, FALSE, T_KIND_PAIRS, azone, NO_MOVE, ZERO, pool)
    _, zone, move = _put(ctx, st, ss, wk, ply, key, sym, FALSE, T_KIND_MOVE, azone | bit, cell, ZERO, I0)
    return _settled(FALSE, zone, move)


@called
def _threat_entries(ctx, st, ss, wk, own, opp, ply, pruned, plies):
    """Store A's wins after each D move of ``pruned`` (D, ``own``, to move): the VCF
    line ``V`` that wins were D to pass, found again (the same search on the same
    position finds the same line), played after each such move: every position of A
    on it with its move."""
    found = vcf_win(ctx, opp, own, np.int64(ctx[P_VCF_MOVES]), np.int64(ctx[P_VCF_NODE_CAP]))
    if found != plies:
        wk[W_STORE_FULL] = ONE   # (cannot happen: the search is deterministic; the certificate would lack them)
        return
    wk[W_THREAT_CUTS] += np.uint64(popcount(pruned))
    for i in range(plies):
        wk[OFF_VLINE + i] = ctx[OFF_VCF_LINE + i]
    player = ply & 1
    c = pruned
    while c != ZERO:
        cell = np.int64(lowest_bit_index(c))
        c &= c - ONE
        a, b = opp, own | (ONE << np.uint64(cell))   # A to move, D with the extra stone
        push_hashes(ctx, ply, cell, player)
        p = ply + 1
        for i in range(0, plies - 1, 2):
            m = np.int64(wk[OFF_VLINE + i])
            key, sym = canonical_key(ctx, p)
            mine, _, _ = _put(ctx, st, ss, wk, p, key, sym, TRUE, T_KIND_MOVE, ZERO, m, ZERO, I0)
            if not mine:
                break
            reply = np.int64(wk[OFF_VLINE + i + 1])
            push_hashes(ctx, p, m, 1 - player)
            push_hashes(ctx, p + 1, reply, player)
            a |= ONE << np.uint64(m)
            b |= ONE << np.uint64(reply)
            p += 2


# ------------------------------------------------------------------ the search


@called
def _order(ctx, own, opp, cand, ply):
    """Write the cells of ``cand`` best first to ``ctx[OFF_MOVES + ply * MAX_CELLS:]``
    (by the live lines through them, then nearness to the centre) and return how many."""
    sbase = OFF_SCORES + ply * 2 * MAX_CELLS   # ctx's scratch of this ply: per-cell scores, then sorted ones
    mbase = OFF_MOVES + ply * MAX_CELLS
    line_move_scores(ctx, own, opp, cand, np.int64(C_WEIGHT), sbase)
    n = 0
    c = cand
    while c != ZERO:
        cell = lowest_bit_index(c)
        c &= c - ONE
        score = ctx[sbase + cell] * np.uint64(64) + ctx[OFF_STATIC + cell]
        insert_descending(ctx, ctx, mbase, sbase + MAX_CELLS, n, np.uint64(cell), score)
        n += 1
    return n
