"""Relevance zones of "A cannot win" proofs, carried up the search tree
(``docs/proofs.md`` section 7).

A *zone* ``Z`` (a cell mask) of a proof that the side ``A`` cannot win a position
``P`` means: **every position that agrees with P on the cells of Z** (the same
stone or the same empty cell there, the same side to move; anything at all outside
Z) **is one A cannot win either.** The board mask is always a zone (only P itself
agrees on it): the search uses it for "no zone".

Every zone built here also has the *cover* property: each window holds a
defender stone or an empty cell inside Z, so no position agreeing on Z holds a
completed A window (the claim is never vacuous). Zones are built from two leaf
kinds and two steps (D is the defender, the side that is not A):

* a **pairing leaf** (a certificate of D: disjoint pairs of empty cells, every
  window without a D stone holding a pair): Z = the pairs' cells and one D stone of
  each window holding D stones (:func:`certificate_zone`). Any agreeing position
  has the same empty pairs and blocked windows, so D's pairing answer holds there;
* a **blocked leaf** (every window holds a D stone): Z = one D stone of each
  (:func:`blocked_zone`);
* **D to move**, answering with ``r`` into a child with zone ``Z_r``: ``Z_r + {r}``
  (``r`` is empty in every agreeing position; after it, the child's zone agrees);
* **A to move**, every move refuted: a *null child*, a move ``m0`` whose child's
  zone ``Z0`` does not hold ``m0``, refutes every A move ``c`` outside ``Z0`` (the
  position after ``c`` agrees with the one after ``m0`` on ``Z0``); the moves inside
  ``Z0`` are searched, and ``Z = Z0 + the zones of the children inside Z0``. Every
  empty cell inside ``Z0`` must have a refuted child, or the zone is the board.

The search (:mod:`..free.search`) uses the A-to-move step as a pruning rule:
once a null child is known, the moves outside its zone are not searched.
"""
import numpy as np

from ..core.jit import inlined
from ..core.layout import C_BOARD, C_NLINES, OFF_LINES
from .layout import (
    P_LOWER_CERT, P_LOWER_MOVE, P_NULL_NODES, P_NULL_SKIPS, P_TREE_ZONES, P_UPPER_CERT, P_ZONE_RESULT, P_ZONE_RETURNS,
    P_ZONE_SKIPS,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)


@inlined
def blocking_stones(ctx, dfn):
    """One stone of ``dfn`` on each window holding one (the lowest not already
    chosen): the stones that keep those windows dead in any agreeing position."""
    chosen = ZERO
    for i in range(np.int64(ctx[C_NLINES])):
        on = ctx[OFF_LINES + i] & dfn
        if on != ZERO and on & chosen == ZERO:
            chosen |= on & (ZERO - on)
    return chosen


@inlined
def blocked_zone(ctx, dfn):
    """The zone of "the side without ``dfn`` stones cannot win" when every window
    holds a stone of ``dfn`` (a blocked leaf), else the board (no zone)."""
    for i in range(np.int64(ctx[C_NLINES])):
        if ctx[OFF_LINES + i] & dfn == ZERO:
            return ctx[C_BOARD]
    return blocking_stones(ctx, dfn)


@inlined
def certificate_zone(ctx, cert, att, dfn):
    """The zone of the pairing leaf whose certificate is stored at ``ctx[cert]``
    (count, then pair masks; it holds in the position ``att``/``dfn``): the cells
    of its pairs with both cells empty, and the blocking stones of ``dfn``
    (:func:`blocking_stones`)."""
    stones, cells = att | dfn, ZERO
    for j in range(np.int64(ctx[cert])):
        pair = ctx[cert + 1 + j]
        if pair & stones == ZERO:
            cells |= pair
    return cells | blocking_stones(ctx, dfn)


@inlined
def zone_mode(ctx, alpha, beta):
    """Which "cannot win" a node searched with the window ``(alpha, beta)`` may prove
    with a zone: 1 the side to move's (``alpha >= 0``: the window asks whether it
    wins), 2 the opponent's (``beta <= 0``), 0 neither (or tree zones are off)."""
    if ctx[P_TREE_ZONES] == ZERO:
        return 0
    if alpha >= 0:
        return 1
    if beta <= 0:
        return 2
    return 0


@inlined
def proven(mode, value):
    """Whether a node's returned ``value`` proves the "cannot win" of ``mode``
    (:func:`zone_mode`): ``<= 0`` for the side to move, ``>= 0`` for the opponent."""
    return (mode == 1 and value <= 0) or (mode == 2 and value >= 0)


@inlined
def set_zone(ctx, zone):
    """Leave ``zone`` as the returning node's (the board: none)."""
    ctx[P_ZONE_RESULT] = zone
    if zone != ctx[C_BOARD]:
        ctx[P_ZONE_RETURNS] += ONE


@inlined
def closed_zone(ctx, own, opp, mode, value, static):
    """The zone of a node (the side to move has ``own``) closed before its moves,
    whose ``value`` proves the "cannot win" of ``mode``: a pairing leaf's when
    :func:`..proofs.pairing.pairing_bounds` left the certificate that proves it (the
    caller zeroed its slots before the node's proofs), else, where the static
    bounds closed it (``static``), a blocked leaf's; the board when none holds."""
    if not proven(mode, value):
        return ctx[C_BOARD]
    if mode == 1 and ctx[P_UPPER_CERT] != ZERO:
        return certificate_zone(ctx, np.int64(ctx[P_UPPER_CERT]), own, opp)
    if mode == 2 and ctx[P_LOWER_MOVE] != ZERO:
        reply = ONE << (ctx[P_LOWER_MOVE] - ONE)
        return certificate_zone(ctx, np.int64(ctx[P_LOWER_CERT]), opp, own | reply) | reply
    if mode == 2 and ctx[P_LOWER_CERT] != ZERO:
        return certificate_zone(ctx, np.int64(ctx[P_LOWER_CERT]), opp, own)
    if not static:
        return ctx[C_BOARD]
    return blocked_zone(ctx, opp if mode == 1 else own)


@inlined
def attacker_zone(ctx, mbase, zbase, n, null, empty):
    """The zone of a node where the side to move (the attacker, ``empty`` the empty
    cells) had all its ``n`` moves (cells at ``ctx[mbase + i]``, their children's
    zones at ``ctx[zbase + i]``) refuted or closed: the null child's zone ``null``
    and the zones of the moves inside it; the board when there is no null child or
    an empty cell inside it is not a refuted move."""
    board = ctx[C_BOARD]
    if null == board:
        return board
    zone, listed = null, ZERO
    for i in range(n):
        bit = ONE << ctx[mbase + i]
        listed |= bit
        if bit & null != ZERO:
            zone |= ctx[zbase + i]
    if null & empty & ~listed != ZERO:
        return board
    return zone


# ------------------------------------------------------------------ the search's steps (kernels/free/search.py)
@inlined
def begin(ctx, alpha, beta):
    """At the start of a node searched with ``(alpha, beta)``: no zone yet, no
    certificate of pairing_bounds seen here; returns its :func:`zone_mode`."""
    mode = zone_mode(ctx, alpha, beta)
    ctx[P_ZONE_RESULT] = ctx[C_BOARD]
    if mode != 0:
        ctx[P_UPPER_CERT] = ctx[P_LOWER_CERT] = ctx[P_LOWER_MOVE] = ZERO
    return mode


@inlined
def close(ctx, own, opp, mode, value, static):
    """A node closed before its moves with ``value``: leave its zone (:func:`closed_zone`)."""
    if mode != 0:
        set_zone(ctx, closed_zone(ctx, own, opp, mode, value, static))


@inlined
def with_reply_zone(ctx, mode, reply, opp, null, reply_full):
    """``(null, reply_full)`` once the search's reply zone is ``reply`` (the board:
    none): at an attacker's node (mode 1), the reply zone with the opponent's
    blocking stones is the zone of every child it closes, and a null child's."""
    board = ctx[C_BOARD]
    if mode == 1 and reply != board:
        reply_full = reply | blocking_stones(ctx, opp)
        if null == board:
            null = reply_full
    return null, reply_full


@inlined
def start_moves(ctx, mode, zbase, n, reply, opp):
    """Before a node's ``n`` moves: ``(null, reply_full)`` as :func:`with_reply_zone`
    finds them; at an attacker's node (mode 1) no child's zone is known yet."""
    board = ctx[C_BOARD]
    if mode == 1:
        for j in range(n):
            ctx[zbase + j] = board
    return with_reply_zone(ctx, mode, reply, opp, board, board)


@inlined
def closed_child(ctx, zslot, bit, reply, tzone, null, reply_full):
    """A move ``bit`` closed unsearched (outside the reply zone ``reply``, the threat
    zone ``tzone`` or the null child's ``null``): the zone of its child when the
    reply zone closed it; counted as a null child's when only that closed it, else
    as the reply and threat zones'."""
    if bit & reply == ZERO:
        ctx[zslot] = reply_full
    if bit & reply & tzone != ZERO:
        ctx[P_NULL_SKIPS] += ONE
    else:
        ctx[P_ZONE_SKIPS] += ONE


@inlined
def searched_child(ctx, mode, zslot, bit, v, null, answer):
    """After a move ``bit`` scored ``v`` (the child left its zone): ``(null, answer)``.
    Mode 1: the child's zone is kept at ``ctx[zslot]``; the first that leaves out
    its move is the null child. Mode 2: the first move scoring ``>= 0`` is the
    answer, its zone the child's plus the move."""
    board = ctx[C_BOARD]
    if mode == 1:
        child = ctx[P_ZONE_RESULT] if v <= 0 else board
        ctx[zslot] = child
        if null == board and child & bit == ZERO:
            null = child
            ctx[P_NULL_NODES] += ONE
    elif mode == 2 and answer == board and v >= 0:
        answer = ctx[P_ZONE_RESULT] | bit
    return null, answer


@inlined
def finish(ctx, mode, best, complete, mbase, zbase, n, null, answer, empty):
    """A node's zone after its moves (``complete``: all of them searched or closed):
    :func:`attacker_zone` where the side to move cannot win, the answer's where the
    opponent cannot, else none."""
    if mode == 1 and complete and best <= 0:
        set_zone(ctx, attacker_zone(ctx, mbase, zbase, n, null, empty))
    elif mode == 2 and best >= 0:
        set_zone(ctx, answer)
    else:
        ctx[P_ZONE_RESULT] = ctx[C_BOARD]
