"""Depth-first proof-number search (df-pn, Nagai) for free placement: does the
side to move at the root (the attacker A) win? (``docs/proofs.md``)

A's nodes are OR nodes (one winning move proves them), the defender D's are AND
nodes. Each node has a proof number ``pn`` (leaves still to prove it) and a
disproof number ``dn``; proven is ``(0, INF)``, disproven ``(INF, 0)``. OR: pn =
min over children, dn = sum; AND: pn = sum, dn = min. ``_mid`` works on a node
while its numbers stay under the thresholds, always in the most-proving child
(with the 1 + 1/4 trick against see-saws); the numbers of every node it leaves
go to its own table (key, then ``pn | dn << 30 | evaluated << 60``), keyed by the
symmetry-canonical hash, so no proof tree is kept in memory.

A node is settled without children by exact rules only, so both answers are
facts: a win in one for the side to move, the negamax prelude's forced lines and
score bounds (:func:`..core.node_rules.node_prelude`: dead cells, a side with no live
line, strategy stealing on the empty board), a VCF for the side to move
(:mod:`.threats`: A's proves, D's disproves), and a pairing certificate for D
(:mod:`.pairing`: A cannot win; disproves). Moves are the prelude's candidates.
"""
import numpy as np
from parallel_mnk.settings import POLL_MASK
from ..core.jit import called, entry, inlined

from ..core.bits import lowest_bit_index, popcount
from ..core.layout import C_ABORTED, C_BOARD, C_CELLS, C_NODES, MAX_CELLS, OFF_MOVES, OFF_SCORES
from ..core.lines import winning_cells
from ..core.node_rules import node_prelude, order_moves
from .pairing import defender_has_certificate
from .layout import (
    P_MIN_EMPTY, P_VCF_MIN_EMPTY, P_VCF_MOVES, P_VCF_NODE_CAP, P_VCF_NODES, P_VCF_TOTAL, P_VCF_WINS,
)
from ..core.sharing import poll_abort
from ..core.table import canonical_key, push_hashes
from .threats import vcf_win

ZERO = np.uint64(0)
ONE = np.uint64(1)
INF = (1 << 30) - 1
NUM_MASK = np.uint64(INF)
EVALUATED = np.uint64(1) << np.uint64(60)
ABORT_POLL_MASK = np.uint64(POLL_MASK)


@inlined
def _unpack(e):
    """``(pn, dn, evaluated)`` of a packed entry."""
    return np.int64(e & NUM_MASK), np.int64((e >> np.uint64(30)) & NUM_MASK), (e & EVALUATED) != ZERO


@inlined
def _pack(pn, dn):
    """The packed numbers of an evaluated node."""
    return np.uint64(min(pn, INF)) | (np.uint64(min(dn, INF)) << np.uint64(30)) | EVALUATED


@inlined
def _probe(pt, key, fallback):
    """``(pn, dn, evaluated)`` of ``key`` in the table ``pt``; when absent, those of
    the packed ``fallback`` (0: ``(1, 1, False)``)."""
    i = np.int64(key & np.uint64(len(pt) // 2 - 1))
    if pt[2 * i] != key:
        return (1, 1, False) if fallback == ZERO else _unpack(fallback)
    return _unpack(pt[2 * i + 1])


@inlined
def _store(pt, key, pn, dn):
    """Store the numbers of an evaluated node (always replaces)."""
    i = np.int64(key & np.uint64(len(pt) // 2 - 1))
    pt[2 * i] = key
    pt[2 * i + 1] = _pack(pn, dn)


@called
def _evaluate(ctx, own, opp, ply, or_node):
    """Exact rules of a node met for the first time (module docstring): ``(pn, dn,
    cand)``, settled numbers with ``cand`` 0, or ``(1, 1, cand)`` with the moves."""
    empty = ctx[C_BOARD] & ~(own | opp)
    if winning_cells(ctx, own, empty) != ZERO:
        return (0, INF, ZERO) if or_node else (INF, 0, ZERO)
    cand, lo, hi = node_prelude(ctx, own, opp, ply)
    a_wins_surely = lo > 0 if or_node else hi < 0     # (scores from the side to move)
    a_cannot_win = hi <= 0 if or_node else lo >= 0
    if cand == ZERO or a_wins_surely or a_cannot_win:
        if a_wins_surely or (cand == ZERO and (lo > 0 if or_node else lo < 0)):
            return 0, INF, ZERO
        return INF, 0, ZERO
    cells = np.int64(ctx[C_CELLS])
    if ctx[P_VCF_MIN_EMPTY] != ZERO and cells - ply >= np.int64(ctx[P_VCF_MIN_EMPTY]):
        found = vcf_win(ctx, own, opp, np.int64(ctx[P_VCF_MOVES]), np.int64(ctx[P_VCF_NODE_CAP]))
        ctx[P_VCF_TOTAL] += ctx[P_VCF_NODES]
        if found > 0:
            ctx[P_VCF_WINS] += ONE
            return (0, INF, ZERO) if or_node else (INF, 0, ZERO)
    if ctx[P_MIN_EMPTY] != ZERO and cells - ply >= np.int64(ctx[P_MIN_EMPTY]):
        att, dfn = (own, opp) if or_node else (opp, own)
        defender = (ply + (1 if or_node else 0)) & 1
        if defender_has_certificate(ctx, att, dfn, defender, np.bool_(True)):
            return INF, 0, ZERO
    return 1, 1, cand


@called
def _children(ctx, pt, ply, n, or_node):
    """Numbers of the node from its ``n`` children's table entries (moves at
    ``ctx[OFF_MOVES + ply * MAX_CELLS:]``; an entry lost to the table falls back on
    the numbers its last search returned, kept at ``ctx[OFF_SCORES + ply * 2 *
    MAX_CELLS:]``, so that a small table cannot undo progress), and the
    most-proving child: returns ``(pn, dn, best, best_pn, best_dn, second)`` where
    ``second`` is the second smallest pn (OR) or dn (AND) among the children."""
    mbase = OFF_MOVES + ply * MAX_CELLS
    local = OFF_SCORES + ply * 2 * MAX_CELLS
    player = ply & 1
    agg_min, agg_sum = INF, 0
    best, best_pn, best_dn, second = -1, INF, INF, INF
    for i in range(n):
        push_hashes(ctx, ply, np.int64(ctx[mbase + i]), player)
        key, _ = canonical_key(ctx, ply + 1)
        cpn, cdn, _ = _probe(pt, key, ctx[local + i])
        small, big = (cpn, cdn) if or_node else (cdn, cpn)
        agg_sum = min(INF, agg_sum + big)
        if small < agg_min or best < 0:
            second = agg_min
            agg_min, best, best_pn, best_dn = small, i, cpn, cdn
        elif small < second:
            second = small
    if or_node:
        return agg_min, agg_sum, best, best_pn, best_dn, second
    return agg_sum, agg_min, best, best_pn, best_dn, second


@called
def _mid(ctx, pt, ctl, own, opp, ply, thpn, thdn, or_node):
    """Work on the node (``or_node`` 1: the attacker's, 0: the defender's) until its
    ``pn >= thpn`` or ``dn >= thdn``; returns its ``(pn, dn)``, also stored in
    ``pt``. Hashes of the node are at slot ``ply``."""
    ctx[C_NODES] += ONE
    if (ctx[C_NODES] & ABORT_POLL_MASK) == ZERO and poll_abort(ctx, ctl):
        ctx[C_ABORTED] = ONE
    if ctx[C_ABORTED] != ZERO:
        return 1, 1
    key, _ = canonical_key(ctx, ply)
    pn, dn, evaluated = _probe(pt, key, ZERO)
    if evaluated and (pn == 0 or dn == 0):
        return pn, dn
    if evaluated:   # its exact rules failed before: only the moves are needed
        cand = node_prelude(ctx, own, opp, ply)[0]
    else:
        pn, dn, cand = _evaluate(ctx, own, opp, ply, or_node == 1)
        if cand == ZERO:
            _store(pt, key, pn, dn)
            return pn, dn
    mbase = OFF_MOVES + ply * MAX_CELLS
    if cand & (cand - ONE) == ZERO:
        ctx[mbase] = np.uint64(lowest_bit_index(cand))
        n = 1
    else:   # the search's order (live-line scores): it breaks ties between equal numbers
        n = order_moves(ctx, pt, own, opp, cand, ply, np.int64(-1), np.bool_(False))
    local = OFF_SCORES + ply * 2 * MAX_CELLS   # (the ordering's scratch, no longer needed)
    for i in range(n):
        ctx[local + i] = ZERO
    player = ply & 1
    while True:
        pn, dn, best, bpn, bdn, second = _children(ctx, pt, ply, n, or_node == 1)
        if pn >= thpn or dn >= thdn or pn == 0 or dn == 0:
            break
        bit = ONE << np.uint64(ctx[mbase + best])
        push_hashes(ctx, ply, np.int64(ctx[mbase + best]), player)
        grow = min(INF, second + max(1, second // 4))   # 1 + 1/4: fewer see-saws between siblings
        if or_node == 1:
            cth_pn, cth_dn = min(thpn, grow), min(INF, thdn - dn + bdn)
        else:
            cth_pn, cth_dn = min(INF, thpn - pn + bpn), min(thdn, grow)
        cpn, cdn = _mid(ctx, pt, ctl, opp, np.uint64(own | bit), np.int64(ply + 1), np.int64(cth_pn),
                        np.int64(cth_dn), np.int64(1 - or_node))
        if ctx[C_ABORTED] != ZERO:
            return 1, 1
        ctx[local + best] = _pack(cpn, cdn)
    _store(pt, key, pn, dn)
    return pn, dn


@entry
def dfpn_prove(ctx, pt, ctl, own, opp, ply, mover_attacks):
    """Whether the attacker wins: the side to move (stones ``own``; ``ply`` stones
    on the board, hashes at slot ``ply``) when ``mover_attacks`` is 1, the other
    side when it is 0. Returns 1 (it does), 0 (it does not: a draw, or the other
    side wins) or -1 (the search was stopped: ``ctx[C_ABORTED]``). ``pt`` must
    hold nothing of another question (fresh, or another ``ctx[C_SALT]``). Nodes
    are counted in ``ctx[C_NODES]``."""
    local = OFF_SCORES + ply * 2 * MAX_CELLS   # (no stale fallback numbers for dfpn_move)
    for i in range(MAX_CELLS):
        ctx[local + i] = ZERO
    # exact argument types: a cached recursive kernel called with other types segfaults (numba issue 6713)
    pn, dn = _mid(ctx, pt, ctl, np.uint64(own), np.uint64(opp), np.int64(ply), np.int64(INF), np.int64(INF),
                  np.int64(mover_attacks))
    if ctx[C_ABORTED] != ZERO:
        return -1
    return 1 if pn == 0 else (0 if dn == 0 else -1)


@entry
def dfpn_move(ctx, pt, own, opp, ply, mover_attacks, root):
    """After :func:`dfpn_prove` settled a question (same ``ctx[C_SALT]``), a move of
    the side to move at this node (hashes at slot ``ply``) that keeps the answer:
    at the attacker's node of a proof (or the defender's of a disproof) a child the
    table holds as settled that way, elsewhere the most-proving settled child;
    -1 when the table holds none (a node settled by a rule, or entries lost).
    ``root`` 1: the node :func:`dfpn_prove` was asked about, right after it (the
    numbers its children last returned are used too); 0: any node below it."""
    cand = node_prelude(ctx, own, opp, ply)[0]
    if winning_cells(ctx, own, ctx[C_BOARD] & ~(own | opp)) != ZERO or cand == ZERO:
        return -1
    mbase = OFF_MOVES + ply * MAX_CELLS
    local = OFF_SCORES + ply * 2 * MAX_CELLS
    n = np.int64(popcount(cand))
    if root == 0:   # the moves in any order, no fallback numbers
        c = cand
        for i in range(n):
            ctx[mbase + i] = np.uint64(lowest_bit_index(c))
            ctx[local + i] = ZERO
            c &= c - ONE
    pn, dn, best, bpn, bdn, _ = _children(ctx, pt, ply, n, mover_attacks == 1)
    if best < 0 or (cand >> ctx[mbase + best]) & ONE == ZERO:
        return -1
    if (pn == 0 and bpn == 0) or (dn == 0 and bdn == 0):
        return np.int64(ctx[mbase + best])
    return -1
