"""Depth-first proof-number search with relevance zones, threats and pairings: does
the attacker A win a free-placement position? (``docs/proofs.md``, section 8.)

A's nodes are OR nodes (one winning move proves them), the defender D's AND nodes.
Each node has a proof number ``pn`` and a disproof number ``dn`` (proven: ``(0,
INF)``, disproven: ``(INF, 0)``); :func:`_mid` works on a node while its numbers stay
under the thresholds, always in the most-proving child (Nagai's df-pn, with the
1 + 1/4 trick against see-saws), keeping the numbers in the table ``pt`` and every
settled node in the store ``st`` (:mod:`.settled_store`; layouts: :mod:`.layout`).

A node is settled without children by exact rules only (:func:`.settling._evaluate`): a win
in one; two completion cells of the side not to move; A with no live window left;
a VCF of the side to move (:mod:`..proofs.threats`: A's proves, D's disproves); a
pairing certificate of D (:mod:`..proofs.pairing`), at once or (the *scan*) after
one of D's moves. Three rules cut the moves searched, each exact:

* **zones at A's nodes** (:mod:`.zones`): a disproven child's zone refutes every A
  move outside it, so once a child is disproven only A's moves inside the zones of
  all disproven children are searched (the post-hoc null move: an A stone outside
  the zone is as good as a pass); the node's zone is the union of those zones;
* **threat zones at D's nodes**: were D to pass, A would win by continuous fours
  with the line ``V``; every D move outside ``V``'s threat zone
  (:func:`..proofs.threats.threat_zone`: ``V``'s cells and every cell where a D stone
  makes a four of D) loses to ``V``, so only the moves inside are searched;
* dead cells (on no window live for either side) are never played, and one
  stone's forced replies (block a completion cell) are the only moves.

Every node settled goes to the store with what its certificate record needs
(:mod:`.settled_store`): the claimant's move, the defender's pairing, at an A node some of
whose moves a zone answered the moves walked first; the certificate is written
from it (:mod:`.certificate_walk`). A node is stored by the searcher that settles it first;
one settled again takes the stored zone and move, so that every record and the
zones its ancestors used agree.
"""
import numpy as np

from parallel_mnk.settings import POLL_MASK
from ..core.bits import popcount
from ..core.common import stop_requested
from ..core.jit import called, entry, inlined
from ..core.layout import C_BOARD, MAX_CELLS, OFF_INVPERM, OFF_MOVES, OFF_PERM
from ..core.lines import winning_cells
from ..core.table import canonical_key, push_hashes
from ..proofs.threats import threat_zone
from .layout import (
    CH_CELL, CH_KEY, CH_NUMS, CH_SYM, CH_WORDS, CH_ZONE, INF, KIND_FIRST, KIND_MOVE, KIND_NONE, OFF_CHILDREN,
    PLY_WORDS, PT_WORDS, SETTLED_PROVEN, STOP_ABORT, STOP_LIMIT, STOP_THRESHOLD, W_EVALUATED, W_EXCUSED, W_HALT,
    W_INIT_WIDTH, W_NODE_LIMIT, W_NODES, W_ROOT_DN, W_ROOT_MOVE, W_ROOT_PN, W_ROOT_ZONE, W_SHARED, W_SOFT_LIMIT,
    W_STOP, W_STORE_HITS, W_ZONES_ON,
)
from .settling import _evaluate, _live, _order, _put, _threat_entries, _vcf
from .settled_store import store_find
from .zones import from_canonical, hit_twice, to_canonical

ZERO = np.uint64(0)
ONE = np.uint64(1)
# typed constants for kernel-to-kernel calls (numba types a plain int or bool argument as a
# literal: a compile of the callee for each value)
FALSE, TRUE = np.bool_(False), np.bool_(True)
I0, I1 = np.int64(0), np.int64(1)
NO_MOVE = np.int64(-1)
T_KIND_MOVE = np.int64(KIND_MOVE)
T_KIND_NONE = np.int64(KIND_NONE)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
NUM_MASK = np.uint64(INF)
EVALUATED = np.uint64(1) << np.uint64(60)
POLL = np.uint64(POLL_MASK)
WORK_MAX = np.uint64(0xFFFFFFFF)


# ------------------------------------------------------------------ the table
@inlined
def _pack(pn, dn):
    """``pn | dn << 30`` (each capped at INF)."""
    return np.uint64(min(pn, INF)) | (np.uint64(min(dn, INF)) << np.uint64(30))


@inlined
def _unpack(w):
    """``(pn, dn)`` of a packed pair (0: ``(1, 1)``, a node never searched)."""
    if w & ~EVALUATED == ZERO:
        return 1, 1
    return np.int64(w & NUM_MASK), np.int64((w >> np.uint64(30)) & NUM_MASK)


@inlined
def _pt_slot(pt, key):
    """The entry of ``key`` in ``pt``: its index (word 0), or -1 - the index of the
    bucket's entry to replace (the one with less work)."""
    b = np.int64(key & np.uint64(len(pt) // (2 * PT_WORDS) - 1)) * 2 * PT_WORDS
    if pt[b] == key:
        return b
    if pt[b + PT_WORDS] == key:
        return b + PT_WORDS
    if (pt[b + 3] & WORK_MAX) <= (pt[b + PT_WORDS + 3] & WORK_MAX):
        return -1 - b
    return -1 - (b + PT_WORDS)


@inlined
def _pt_put(pt, key, pn, dn, evaluated, zone, move, work):
    """Store a node's numbers (``zone`` and ``move`` in the canonical frame; ``move``
    -1: none) and the ``work`` its search took."""
    i = _pt_slot(pt, key)
    if i < 0:
        i = -1 - i
    pt[i] = key
    pt[i + 1] = _pack(pn, dn) | (EVALUATED if evaluated else ZERO)
    pt[i + 2] = zone
    pt[i + 3] = min(np.uint64(work), WORK_MAX) | (np.uint64(move + 1) << np.uint64(32))


# ------------------------------------------------------------------ the children
@called
def _expand(ctx, wk, own, opp, ply, or_node):
    """Write the node's children (its candidate moves, best first) to its slots in
    ``wk`` and return ``(n, pruned, plies)``: their number, and at D's nodes the moves
    a threat zone answered (``plies`` of the VCF ``V`` that wins for A were D to pass;
    0 when none). Precondition: :func:`_evaluate` did not settle the node."""
    empty = ctx[C_BOARD] & ~(own | opp)
    theirs = winning_cells(ctx, opp, empty)
    if theirs != ZERO:
        cand = theirs
    else:
        att, dfn = (own, opp) if or_node == 1 else (opp, own)
        _, live_empty = _live(ctx, att, dfn)
        cand = empty & live_empty
    pruned = ZERO
    plies = 0
    if or_node == 0 and (wk[W_ZONES_ON] & np.uint64(2)) != ZERO and theirs == ZERO:
        plies = _vcf(ctx, wk, opp, own, ply)   # A's VCF as if D passed
        if plies > 0:
            zone = threat_zone(ctx, opp, own, plies)
            pruned = cand & ~zone
            cand &= zone
    n = _order(ctx, own, opp, cand, ply)
    mbase = OFF_MOVES + ply * MAX_CELLS
    base = OFF_CHILDREN + ply * PLY_WORDS
    player = ply & 1
    width = max(1, (popcount(empty) - 1) * np.int64(wk[W_INIT_WIDTH]) // 100)
    for i in range(n):
        cell = np.int64(ctx[mbase + i])
        bit = ONE << np.uint64(cell)
        push_hashes(ctx, ply, cell, player)
        key, sym = canonical_key(ctx, ply + 1)
        slot = base + i * CH_WORDS
        wk[slot + CH_CELL] = np.uint64(cell)
        wk[slot + CH_KEY] = key
        wk[slot + CH_SYM] = np.uint64(sym)
        # a new child's numbers: the side that must answer every move of the other needs about
        # ``width`` of them, one when the move leaves a completion cell (a forced reply)
        wide = 1 if winning_cells(ctx, own | bit, empty & ~bit) != ZERO else width
        wk[slot + CH_NUMS] = _pack(wide, I1) if or_node == 1 else _pack(I1, wide)
        wk[slot + CH_ZONE] = ZERO
    return n, pruned, plies


@inlined
def _child(ctx, pt, st, ss, wk, slot):
    """``(pn, dn)`` of the child at ``wk[slot:]``, also left in its ``CH_NUMS``: a
    settled child's from its slot, others' from the table, the store, or the numbers
    its last search returned; a child found disproven gets its zone (node's frame)."""
    nums = wk[slot + CH_NUMS]
    pn, dn = _unpack(nums)
    if nums != ZERO and (pn == 0 or dn == 0):
        return pn, dn
    key = wk[slot + CH_KEY]
    i = _pt_slot(pt, key)
    zone = ZERO
    if i >= 0:
        pn, dn = _unpack(pt[i + 1])
        zone = pt[i + 2]
    if i < 0 or (pn != 0 and dn != 0 and wk[W_SHARED] != ZERO):   # (another searcher may have settled it)
        found, info, szone, _ = store_find(wk, st, ss, key)
        if found:
            zone = szone
            if info & np.uint64(3) == np.uint64(SETTLED_PROVEN):
                pn, dn = 0, INF
            else:
                pn, dn = INF, 0
        elif i < 0:
            return pn, dn
    wk[slot + CH_NUMS] = _pack(pn, dn)
    if dn == 0:
        wk[slot + CH_ZONE] = from_canonical(ctx, np.int64(wk[slot + CH_SYM]), zone)
    return pn, dn


@called
def _aggregate(ctx, pt, st, ss, wk, ply, n, or_node, probe):
    """The node's numbers from its children and the child to search: returns ``(pn,
    dn, best, best_pn, best_dn, second)`` where ``second`` is the second smallest pn
    (OR) or dn (AND). At A's nodes a move outside the zone of a disproven child counts
    as disproven (answered by that zone). With ``probe`` the children's numbers are
    read again from the table and the stores (a node's first aggregation: children
    met before by other paths); otherwise their slots hold them (the searched child's
    were put there by the search)."""
    base = OFF_CHILDREN + ply * PLY_WORDS
    allowed = ALL
    zones = (wk[W_ZONES_ON] & ONE) != ZERO and or_node == 1
    for i in range(n):
        slot = base + i * CH_WORDS
        if probe:
            pn, dn = _child(ctx, pt, st, ss, wk, slot)
        else:
            pn, dn = _unpack(wk[slot + CH_NUMS])
        if zones and dn == 0:
            allowed &= wk[slot + CH_ZONE]
    agg_min, agg_sum = INF, 0
    best, best_pn, best_dn, second = -1, INF, INF, INF
    for i in range(n):
        slot = base + i * CH_WORDS
        pn, dn = _unpack(wk[slot + CH_NUMS])
        if or_node == 1 and (dn == 0 or (ONE << wk[slot + CH_CELL]) & allowed == ZERO):
            continue   # (disproven, or answered by a zone)
        small, big = (pn, dn) if or_node == 1 else (dn, pn)
        agg_sum = min(INF, agg_sum + big)
        if small < agg_min or best < 0:
            second = agg_min
            agg_min, best, best_pn, best_dn = small, i, pn, dn
        elif small < second:
            second = small
    if or_node == 1:
        if best < 0:
            return INF, 0, -1, INF, 0, INF
        return agg_min, agg_sum, best, best_pn, best_dn, second
    return agg_sum, agg_min, best, best_pn, best_dn, second


# ------------------------------------------------------------------ settling
@called
def _settle(ctx, pt, st, ss, wk, own, opp, ply, or_node, n, pruned, plies, key, sym, work):
    """Settle a node whose aggregated numbers are ``(0, INF)`` or ``(INF, 0)``: its
    store entry (or the stored one's zone and move, when another search stored it
    first) and its table entry. Returns its ``(pn, dn)``."""
    base = OFF_CHILDREN + ply * PLY_WORDS
    proven_child, disproven_child = -1, -1
    union = ZERO
    walked = ZERO
    excused = 0
    for i in range(n):
        slot = base + i * CH_WORDS
        pn, dn = _unpack(wk[slot + CH_NUMS])
        settled = wk[slot + CH_NUMS] != ZERO
        if settled and pn == 0 and proven_child < 0:
            proven_child = i
        if settled and dn == 0:
            if disproven_child < 0:
                disproven_child = i
            union |= wk[slot + CH_ZONE]
            walked |= ONE << wk[slot + CH_CELL]
        else:
            excused += 1   # (at a disproven A node: a move a zone answered)
    if (or_node == 1 and proven_child >= 0) or (or_node == 0 and disproven_child < 0):
        if or_node == 1:
            move = np.int64(wk[base + proven_child * CH_WORDS + CH_CELL])
            mine, _, move = _put(ctx, st, ss, wk, ply, key, sym, TRUE, T_KIND_MOVE, ZERO, move, ZERO, I0)
        else:
            move = -1
            mine, _, _ = _put(ctx, st, ss, wk, ply, key, sym, TRUE, T_KIND_NONE, ZERO, NO_MOVE, ZERO, I0)
            if mine and pruned != ZERO:
                _threat_entries(ctx, st, ss, wk, own, opp, ply, pruned, plies)
        _pt_put(pt, key, I0, np.int64(INF), TRUE, ZERO,
                -1 if move < 0 else np.int64(ctx[OFF_PERM + sym * MAX_CELLS + move]), work)
        return 0, INF
    if or_node == 1:
        zone = union
        theirs = winning_cells(ctx, opp, ctx[C_BOARD] & ~(own | opp))
        if theirs != ZERO:   # a forced block: A's other moves lose to D's completion
            zone |= theirs | hit_twice(ctx, wk, own, opp)
        if excused > 0:
            wk[W_EXCUSED] += np.uint64(excused)
        mine, zone, move = _put(ctx, st, ss, wk, ply, key, sym, FALSE, KIND_FIRST if excused > 0 else KIND_NONE, zone,
                                NO_MOVE, walked if excused > 0 else ZERO, I0)
    else:
        move = np.int64(wk[base + disproven_child * CH_WORDS + CH_CELL])
        zone = wk[base + disproven_child * CH_WORDS + CH_ZONE] | (ONE << np.uint64(move))
        mine, zone, move = _put(ctx, st, ss, wk, ply, key, sym, FALSE, T_KIND_MOVE, zone, move, ZERO, I0)
    _pt_put(pt, key, np.int64(INF), I0, TRUE, to_canonical(ctx, sym, zone),
            -1 if move < 0 else np.int64(ctx[OFF_PERM + sym * MAX_CELLS + move]), work)
    return INF, 0


@inlined
def _halted(wk, ctl):
    """Poll the stop conditions every POLL_MASK + 1 nodes; True once the search must unwind."""
    if wk[W_HALT] != ZERO:
        return True
    if (wk[W_NODES] & POLL) == ZERO:
        if stop_requested(ctl):
            wk[W_STOP], wk[W_HALT] = np.uint64(STOP_ABORT), ONE
        elif wk[W_NODE_LIMIT] != ZERO and wk[W_NODES] >= wk[W_NODE_LIMIT]:
            wk[W_STOP], wk[W_HALT] = np.uint64(STOP_LIMIT), ONE
    return wk[W_HALT] != ZERO


@inlined
def _spent(wk):
    """Whether a job's budget is spent: past ``wk[W_SOFT_LIMIT]`` nodes every node
    returns its numbers as they are (valid numbers: the job's root reports its own)."""
    return wk[W_SOFT_LIMIT] != ZERO and wk[W_NODES] >= wk[W_SOFT_LIMIT]


@called
def _mid(ctx, pt, st, ss, wk, ctl, own, opp, ply, thpn, thdn, or_node):
    """Work on the node (``own`` to move, ``ply`` stones, hashes at slot ``ply``;
    ``or_node`` 1: A to move) until ``pn >= thpn`` or ``dn >= thdn`` or it is settled;
    returns its ``(pn, dn)``, also stored in ``pt`` (and, settled, in ``st``). When the
    search halts the numbers are meaningless and nothing is stored."""
    wk[W_NODES] += ONE
    if _halted(wk, ctl):
        return 1, 1
    key, sym = canonical_key(ctx, ply)
    nodes0 = wk[W_NODES]
    i = _pt_slot(pt, key)
    evaluated = False
    if i >= 0:
        pn, dn = _unpack(pt[i + 1])
        if pn == 0 or dn == 0:
            return pn, dn
        evaluated = (pt[i + 1] & EVALUATED) != ZERO
    if i < 0 or wk[W_SHARED] != ZERO:   # (another searcher may have settled it)
        found, info, zone, _ = store_find(wk, st, ss, key)
        if found:
            wk[W_STORE_HITS] += ONE
            m = np.int64((info >> np.uint64(8)) & np.uint64(255)) - 1
            if info & np.uint64(3) == np.uint64(SETTLED_PROVEN):
                _pt_put(pt, key, I0, np.int64(INF), TRUE, ZERO, m, ONE)
                return 0, INF
            _pt_put(pt, key, np.int64(INF), I0, TRUE, zone, m, ONE)
            return INF, 0
    if not evaluated:
        wk[W_EVALUATED] += ONE
        pn, dn, zone, move, kind = _evaluate(ctx, st, ss, wk, own, opp, ply, or_node, key, sym)
        if kind != 0:
            m = -1 if move < 0 else np.int64(ctx[OFF_PERM + sym * MAX_CELLS + move])
            _pt_put(pt, key, pn, dn, TRUE, to_canonical(ctx, sym, zone), m, ONE)
            return pn, dn
    n, pruned, plies = _expand(ctx, wk, own, opp, ply, or_node)
    base = OFF_CHILDREN + ply * PLY_WORDS
    player = ply & 1
    probe = True
    while True:
        pn, dn, best, bpn, bdn, second = _aggregate(ctx, pt, st, ss, wk, ply, n, or_node, probe)
        probe = False
        if pn == 0 or dn == 0:
            return _settle(ctx, pt, st, ss, wk, own, opp, ply, or_node, n, pruned, plies, key, sym,
                           wk[W_NODES] - nodes0)
        if pn >= thpn or dn >= thdn or _spent(wk):
            break
        slot = base + best * CH_WORDS
        cell = np.int64(wk[slot + CH_CELL])
        grow = min(INF, second + max(1, second // 4))   # 1 + 1/4: fewer see-saws between siblings
        if or_node == 1:
            cth_pn, cth_dn = min(thpn, grow), min(INF, thdn - dn + bdn)
        else:
            cth_pn, cth_dn = min(INF, thpn - pn + bpn), min(thdn, grow)
        push_hashes(ctx, ply, cell, player)
        cpn, cdn = _mid(ctx, pt, st, ss, wk, ctl, opp, np.uint64(own | (ONE << np.uint64(cell))),
                        np.int64(ply + 1), np.int64(cth_pn), np.int64(cth_dn), np.int64(1 - or_node))
        if wk[W_HALT] != ZERO:
            return 1, 1
        wk[slot + CH_NUMS] = _pack(cpn, cdn)
        if cdn == 0:
            j = _pt_slot(pt, wk[slot + CH_KEY])
            if j >= 0:
                wk[slot + CH_ZONE] = from_canonical(ctx, np.int64(wk[slot + CH_SYM]), pt[j + 2])
            else:   # (its entry was replaced below it: the store has it)
                _, _, z, _ = store_find(wk, st, ss, wk[slot + CH_KEY])
                wk[slot + CH_ZONE] = from_canonical(ctx, np.int64(wk[slot + CH_SYM]), z)
    _pt_put(pt, key, pn, dn, TRUE, ZERO, NO_MOVE, wk[W_NODES] - nodes0)
    return pn, dn


@entry
def pns_search(ctx, pt, st, ss, wk, ctl, own, opp, ply, or_node, thpn, thdn):
    """Search the position ``own`` (to move) / ``opp`` with ``ply`` stones (hashes at
    slot ``ply``: ``table.set_root_hashes``), the attacker to move when ``or_node`` is
    1, until it is settled, its thresholds ``(thpn, thdn)`` are reached (``INF``: none),
    the soft limit ``wk[W_SOFT_LIMIT]`` is passed (then, as at a threshold, every node
    returns its numbers) or the search halts (``wk[W_STOP]`` says why: node limit or
    abort; the numbers are then lost). Returns 1 proven (A wins), 0 disproven (A
    cannot win), -1 not settled; the root's numbers in ``wk[W_ROOT_PN]``/``wk[W_ROOT_DN]``,
    when disproven its zone in ``wk[W_ROOT_ZONE]`` and its settling move + 1 in
    ``wk[W_ROOT_MOVE]`` (actual frame). Precondition: the game is not over. ``pt``,
    ``st`` and ``ss`` hold nothing of another question (another ``ctx[C_SALT]`` or cleared)."""
    wk[W_HALT] = ZERO
    wk[W_STOP] = ZERO
    # exact argument types: a cached recursive kernel called with other types segfaults (numba issue 6713)
    pn, dn = _mid(ctx, pt, st, ss, wk, ctl, np.uint64(own), np.uint64(opp), np.int64(ply), np.int64(thpn),
                  np.int64(thdn), np.int64(or_node))
    if wk[W_HALT] != ZERO:
        return -1
    wk[W_ROOT_PN] = np.uint64(pn)
    wk[W_ROOT_DN] = np.uint64(dn)
    if pn != 0 and dn != 0:
        wk[W_STOP] = np.uint64(STOP_THRESHOLD)
        return -1
    key, sym = canonical_key(ctx, ply)
    i = _pt_slot(pt, key)
    zone, move = ZERO, -1
    if i >= 0:
        zone = pt[i + 2]
        move = np.int64(pt[i + 3] >> np.uint64(32)) - 1
    else:
        found, info, zone, _ = store_find(wk, st, ss, key)
        move = np.int64((info >> np.uint64(8)) & np.uint64(255)) - 1 if found else -1
    wk[W_ROOT_ZONE] = from_canonical(ctx, sym, zone)
    wk[W_ROOT_MOVE] = ZERO if move < 0 else ctx[OFF_INVPERM + sym * MAX_CELLS + move] + ONE
    return 1 if pn == 0 else 0


# ------------------------------------------------------------------ for a coordinator's tree
@entry
def pns_expand(ctx, st, ss, wk, own, opp, ply, or_node, out):
    """A coordinator's expansion of a node (hashes at slot ``ply``; not over): the
    node looked up in the stores, else its exact rules (with their store entries, as
    :func:`pns_search` would), else its children. Returns -1 (proven) or -2
    (disproven) when settled, else the number ``n`` of children, written as
    ``out[i] = cell``, ``out[n + i] = pn | dn << 30`` (their numbers before any search
    of theirs), best first; ``out`` has room for ``2 * MAX_CELLS`` words."""
    key, sym = canonical_key(ctx, ply)
    found, info, _, _ = store_find(wk, st, ss, key)
    if found:
        return -1 if info & np.uint64(3) == np.uint64(SETTLED_PROVEN) else -2
    pn, dn, zone, move, kind = _evaluate(ctx, st, ss, wk, np.uint64(own), np.uint64(opp), np.int64(ply),
                                         np.int64(or_node), key, sym)
    if kind != 0:   # (rule leaves without a record too: the coordinator reads zones from the store)
        _put(ctx, st, ss, wk, ply, key, sym, kind == 1, T_KIND_NONE, zone, move, ZERO, I0)
        return -1 if kind == 1 else -2
    n, _, _ = _expand(ctx, wk, np.uint64(own), np.uint64(opp), np.int64(ply), np.int64(or_node))
    base = OFF_CHILDREN + ply * PLY_WORDS
    for i in range(n):
        out[i] = wk[base + i * CH_WORDS + CH_CELL]
        out[n + i] = wk[base + i * CH_WORDS + CH_NUMS]
    return n


@entry
def pns_settled(ctx, st, ss, wk, ply, out):
    """Whether the node (hashes at slot ``ply``) is settled in the stores: 1 proven, 0
    disproven (its zone in its frame at ``out[0]``), -1 not stored; ``out[1]`` its
    move + 1 in its frame (0: none)."""
    key, sym = canonical_key(ctx, ply)
    found, info, zone, _ = store_find(wk, st, ss, key)
    if not found:
        return -1
    out[0] = from_canonical(ctx, sym, zone)
    m = np.int64((info >> np.uint64(8)) & np.uint64(255)) - 1
    out[1] = ZERO if m < 0 else ctx[OFF_INVPERM + sym * MAX_CELLS + m] + ONE
    return 1 if info & np.uint64(3) == np.uint64(SETTLED_PROVEN) else 0
