"""Alpha-beta negamax with a transposition table: the exact engine's search.

Scores are from the side to move (docs/design.md): a win completed on ply p is worth
``(cells + 2 - p) // 2``, a draw 0, a loss the negated worth of the opponent's win.

Contract of :func:`negamax` (fail-soft), for a window ``alpha < beta`` and true
score ``s`` of the position:

* returned ``v <= alpha``  ->  ``s <= v``  (an upper bound),
* returned ``v >= beta``   ->  ``s >= v``  (a lower bound),
* otherwise               ->  ``s == v``  (exact);

and what it proves (1 lower bound, 2 upper bound, 3 exact) is left in
``ctx[C_RESULT_KIND]``, exact also when a bound meets the node's known bounds.

Calls: Python asks :func:`negamax` (the family's entry point, :mod:`.entry`) for a
position that is not over (``cell`` -1) or for its move to the empty cell ``cell``, in
the window ``(alpha, beta)``; :func:`_root` plays the move, scores a win at once and
sets the root's hashes. Its recursion passes ``cell = INSIDE`` with a node whose
preconditions hold (:func:`check_preconditions`: the game is not over, the side to
move cannot win with its next stone, ``alpha < beta``; ``ctx``'s hash slot ``ply``
holds the position's hashes), and exact argument types (a cached recursive kernel
called with a cast segfaults when loaded from the cache: numba issue 6713). One
function for both: numba optimizes all that a compiled function links, and an entry
point calling the search would optimize the whole search twice (about 2 s of a cold
start).

Live windows (parallel task roots): ``live_slot`` is the index in ``ctl`` of a
window ``pack_window(task_id, A, B)`` another process may narrow while the task
runs (-1 below the task root); it is applied before each move, and a value is
still only returned when proven (a window closed without a proof abandons the
task). Abort: when ``ctl[CTL_ABORT]`` is set, this searcher's task-abort slot
names its task, or ``ctx[C_NODE_LIMIT]`` nodes are spent, the search unwinds
without storing anything, sets ``ctx[C_ABORTED]`` and returns 0 (meaningless).

Pruning rules (each preserves the exact score):

* forced lines: two opponent threats lose at once, one must be blocked; with
  gravity, a cell right under an opponent's winning cell is never played;
* score bounds: the side to move cannot win before its next-but-one stone, nor
  lose before the opponent's second stone; with free placement, a side with no
  line left it could complete cannot win at all;
* free placement: cells on no line that either side could still complete are
  never played (a dead cell is a pass, and an extra stone never hurts in a
  game without gravity); when only dead cells are left the game is a draw;
* free placement: the empty board is never lost by the first player (strategy
  stealing: a second-player win could be stolen, and an extra stone never hurts);
* free placement: a pairing certificate for one side proves that the other
  cannot win (:mod:`..proofs.pairing`; at nodes with enough empty cells, where it would cut);
  a win by continuous fours (:mod:`..proofs.threats`) proves a win of its length;
* free placement: where the window asks only whether the side to move wins
  (``alpha >= 0``), a remembered certificate of the opponent that one reply
  completes answers every move outside its cells and that reply (a *reply zone*,
  :func:`..proofs.pairing.reply_zone`): those moves score ``<= 0`` unsearched;
* free placement: were the side to move to pass and the opponent win by continuous
  fours, each move outside that line's *threat zone* (:func:`..proofs.threats.threat_zone`)
  loses to the same line: unsearched where that loss fails low;
* a transposition table of bounds keyed by symmetry-canonical hashes.

The preconditions of :func:`negamax` are written as code in
:func:`check_preconditions`, which tests run at every node in plain Python
(``NUMBA_DISABLE_JIT=1``).

Helpers that the search inlines take and return plain numbers: an array handed
to an inlined helper costs numba a reference count update per call, which made
a node dearer when helpers took ``ctx``/``ctl`` per node.
"""
import numpy as np

from parallel_mnk.settings import POLL_MASK
from ..core.bits import lowest_bit_index, popcount, unowned
from ..core.bounds import NO_SCORE, narrow, node_kind, result_kind, table_bound, take_child, win_in
from ..core.jit import called, entry, expanded, inlined, inlined_copy
from ..core.layout import (
    C_ABORTED, C_BOARD, C_CELLS, C_GRAVITY, C_NODES, C_RESULT_KIND, C_TASK_ID, MAX_CELLS, OFF_MOVES, TT_EXACT,
    TT_LOWER, TT_UPPER,
)
from ..core.lines import has_k_run, playable_cells, winning_cells
from ..core.node_rules import INSIDE, node_prelude, order_moves, play_first, signed_result
from ..core.sharing import (
    LIVE_ABANDON, LIVE_CUT, busy_marks, mark_child, narrow_to_live_window, path_word, poll_abort, publish_step,
    unmark_child,
)
from ..core.table import canonical_key, probe, push_hashes, set_root_hashes, store, work_of
from ..proofs.layout import (
    OFF_PROFILE, P_DFS_NODES, P_FOUND, P_MIN_EMPTY, P_THREAT_ZONES, P_VCF_MIN_EMPTY, P_VCF_MOVES, P_VCF_NODE_CAP,
    P_VCF_NODES, P_VCF_TOTAL, P_ZONE_NODES, P_ZONE_ON, P_ZONE_SKIPS,
    PROF_ALL, PROF_CUT, PROF_KINDS, PROF_PAIRING, PROF_PRELUDE, PROF_TABLE, PROF_THREATS,
)
from ..proofs.pairing import pairing_bounds, reply_zone
from ..proofs.threats import threat_zone, vcf_bound, vcf_win

ZERO = np.uint64(0)
ONE = np.uint64(1)
ABORT_POLL_MASK = np.uint64(POLL_MASK)


@inlined
def _count(ctx, ply, kind):
    """One more node of ``ply`` that ended as ``kind`` (``PROF_*``, :mod:`..proofs.layout`)."""
    ctx[OFF_PROFILE + ply * PROF_KINDS + kind] += ONE


@expanded
def _table_and_proofs(ctx, tt, own, opp, cand, ply, flag, tt_score, alpha, beta, lower, upper):
    """What the table's bound (:func:`..core.bounds.table_bound`), then, while the window
    stays open, a VCF and pairing certificates (free placement: :func:`_proofs`)
    add to the known bounds and the window; returns as :func:`_proofs`."""
    alpha, beta, lower, upper, kind, value = table_bound(flag, tt_score, alpha, beta, lower, upper)
    if kind != 0:
        _count(ctx, ply, np.int64(PROF_TABLE))
    elif (ctx[P_MIN_EMPTY] | ctx[P_VCF_MIN_EMPTY]) != ZERO:
        return _proofs(ctx, tt, own, opp, cand, ply, alpha, beta, lower, upper)
    return alpha, beta, lower, upper, kind, value


@inlined
def _proofs(ctx, tt, own, opp, cand, ply, alpha, beta, lower, upper):
    """What a VCF (:func:`..proofs.threats.vcf_bound`) and pairing certificates
    (:func:`..proofs.pairing.pairing_bounds`) add to the known bounds and the window.
    Returns ``(alpha, beta, lower, upper, kind, value)`` with ``kind``/``value`` as
    for :func:`..core.bounds.narrow`; a closed window is stored in the table (the bound
    is proven), with the proof searches' nodes as its work."""
    searched = ctx[P_DFS_NODES] + ctx[P_VCF_TOTAL]
    lower2, upper2 = vcf_bound(ctx, own, opp, ply, lower), upper
    if lower2 <= 0:  # (a win rules certificates out)
        lower2, upper2 = pairing_bounds(ctx, own, opp, cand, ply, alpha, beta, lower2, upper)
    if lower2 == lower and upper2 == upper:
        return alpha, beta, lower, upper, 0, 0
    alpha, beta, kind, value = narrow(alpha, beta, lower2, upper2)
    if kind != 0:
        _count(ctx, ply, PROF_THREATS if lower2 > lower and lower2 > 0 else PROF_PAIRING)
        kind = result_kind(kind, value, lower2, upper2)
        key, sym = canonical_key(ctx, ply)
        store(ctx, tt, key, sym, kind, value, -1, work_of(ctx[P_DFS_NODES] + ctx[P_VCF_TOTAL] - searched + ONE))
    return alpha, beta, lower2, upper2, kind, value


@inlined
def _zone_of(ctx, own, opp, ply, alpha):
    """The moves of the side to move still to search: all (the board) unless the window
    asks only whether it wins (``alpha >= 0``) and a remembered certificate of the
    opponent gives a reply zone (:func:`..proofs.pairing.reply_zone`): then only the
    moves inside the zone can win."""
    if alpha < 0 or ctx[P_ZONE_ON] == ZERO or ctx[P_MIN_EMPTY] == ZERO or np.int64(ctx[C_CELLS]) - ply < np.int64(ctx[P_MIN_EMPTY]):
        return ctx[C_BOARD]
    zone = reply_zone(ctx, own, opp, 1 - (ply & 1))
    if zone == ZERO:
        return ctx[C_BOARD]
    ctx[P_ZONE_NODES] += ONE
    return zone


@inlined
def _threat_zone_of(ctx, own, opp, ply, alpha):
    """``(zone, bound)``: the moves of the side to move that can score above ``bound``,
    all (the board) unless, were it to pass, the opponent would win by continuous
    fours (:func:`..proofs.threats.vcf_win`) and such a win from a child is worth no
    more than ``alpha``: then each move outside the line's threat zone
    (:func:`..proofs.threats.threat_zone`) loses to that line, scoring ``<= bound <= alpha``."""
    cells = np.int64(ctx[C_CELLS])
    if ctx[P_ZONE_ON] == ZERO or ctx[P_VCF_MIN_EMPTY] == ZERO or cells - ply < np.int64(ctx[P_VCF_MIN_EMPTY]):
        return ctx[C_BOARD], 0
    if -win_in(cells, ply + 1, np.int64(1)) > alpha:
        return ctx[C_BOARD], 0   # (no win of the opponent's could be worth that little)
    plies = vcf_win(ctx, opp, own, np.int64(ctx[P_VCF_MOVES]), np.int64(ctx[P_VCF_NODE_CAP]))
    ctx[P_VCF_TOTAL] += ctx[P_VCF_NODES]
    bound = -win_in(cells, ply + 1, plies)
    if plies == 0 or bound > alpha:
        return ctx[C_BOARD], 0
    ctx[P_THREAT_ZONES] += ONE
    return threat_zone(ctx, opp, own, plies), bound


@inlined
def _skip(ctx, paired, bound, skip_bound):
    """A move a zone closed: the bound of the closed moves' scores with it (0 for a
    reply zone's, ``paired``; ``bound`` for a threat zone's)."""
    ctx[P_ZONE_SKIPS] += ONE
    return max(skip_bound, 0 if paired else bound)


@inlined
def _root(ctx, own, opp, ply, cell, alpha, beta, live_slot):
    """What :func:`negamax` searches when Python asks for the position ``own``/``opp``
    (``cell`` -1) or for its move to ``cell`` (:func:`..core.node_rules.play_first`):
    ``(own, opp, ply, alpha, beta, live_slot, sign, settled, value)``, the node and its
    window, ``sign`` -1 for a move (the node's value negated is the move's), and
    ``settled`` when there is nothing to search (the move wins or fills the board, or
    the node's side to move wins at once): then ``value`` is the answer (signed) and
    ``ctx[C_RESULT_KIND]`` says it is exact. Else the node's hashes are set."""
    own, opp, ply, alpha, beta, live_slot, sign, settled, value = play_first(ctx, own, opp, ply, cell, alpha,
                                                                             beta, live_slot)
    if not settled:
        if winning_cells(ctx, own, ctx[C_BOARD] & ~(own | opp)) != ZERO:
            ctx[C_RESULT_KIND] = TT_EXACT
            settled, value = True, signed_result(ctx, sign, (np.int64(ctx[C_CELLS]) + 1 - ply) // 2)
        elif ply & 1 == 0:
            set_root_hashes(ctx, own, opp, ply)
        else:
            set_root_hashes(ctx, opp, own, ply)
    return own, opp, ply, alpha, beta, live_slot, sign, settled, value


# the core helpers other searches paste in (``expanded``), here LLVM-inlined copies: numba
# types this search again at each pass over its recursion (four in all), and a pasted
# helper with it, but a copy once, in the cold start's first step (parts of :mod:`.entry`)
_node_prelude, _probe, _store, _canonical_key = (inlined_copy(k, "free") for k in (node_prelude, probe, store,
                                                                                  canonical_key))


# ------------------------------------------------------------------ the search
@entry
def negamax(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    """Value of the position ``own`` (side to move) / ``opp`` with ``ply`` stones, or of its move to
    ``cell`` >= 0: the contract and the calls of the module docstring (its recursion: ``INSIDE``)."""
    sign = np.int64(1)   # -1: the value asked is the move's, the negated value of the node searched
    if cell != INSIDE:   # the call from Python
        ctx, tt, ctl = unowned(ctx), unowned(tt), unowned(ctl)   # no reference counting in the recursion
        own, opp, ply, alpha, beta, live_slot, sign, settled, value = _root(ctx, own, opp, ply, cell, alpha, beta,
                                                                            live_slot)
        if settled:
            return value
    ctx[C_NODES] += ONE
    nodes_before = ctx[C_NODES]
    if (ctx[C_NODES] & ABORT_POLL_MASK) == ZERO and poll_abort(ctx, ctl):
        ctx[C_ABORTED] = ONE
    if ctx[C_ABORTED] != ZERO:
        return 0
    # 1. forced lines and the static bounds: lower <= score <= upper (a result meeting one is exact)
    cand, lower, upper = _node_prelude(ctx, own, opp, ply)
    if cand == ZERO:
        _count(ctx, ply, np.int64(PROF_PRELUDE))
        ctx[C_RESULT_KIND] = TT_EXACT
        return signed_result(ctx, sign, lower)
    alpha, beta, kind, value = narrow(alpha, beta, lower, upper)
    if kind != 0:
        _count(ctx, ply, np.int64(PROF_PRELUDE))
        ctx[C_RESULT_KIND] = result_kind(kind, value, lower, upper)
        return signed_result(ctx, sign, value)
    # 2. the table's bound, then proofs (a VCF, pairing certificates)
    key, sym = _canonical_key(ctx, ply)
    flag, tt_score, tt_move = _probe(ctx, tt, key, sym)
    if flag == TT_EXACT:
        _count(ctx, ply, np.int64(PROF_TABLE))
        ctx[C_RESULT_KIND] = TT_EXACT
        return signed_result(ctx, sign, tt_score)
    alpha, beta, lower, upper, kind, value = _table_and_proofs(ctx, tt, own, opp, cand, ply, flag, tt_score,
                                                               alpha, beta, lower, upper)
    if kind != 0:
        ctx[C_RESULT_KIND] = result_kind(kind, value, lower, upper)
        return signed_result(ctx, sign, value)
    # 3. the moves, best first; ABDADA's busy marks put one another searcher is in off to a second pass
    path_at, path_end = path_word(ctx, ply)   # (near a task's root, the move searched is published)
    mbase = OFF_MOVES + ply * MAX_CELLS
    if cand & (cand - ONE) == ZERO:
        ctx[mbase] = np.uint64(lowest_bit_index(cand))  # a single move: nothing to order
        n = 1
    else:
        n = order_moves(ctx, tt, own, opp, cand, ply, tt_move, ctx[C_GRAVITY] != ZERO)
    player, task = ply & 1, np.int64(ctx[C_TASK_ID])
    busy_base, busy_mask = busy_marks(ctx, ctl, np.int64(ctx[C_CELLS]) - ply)
    best, best_move, best_exact, deferred, second_pass = -NO_SCORE, np.int64(-1), np.bool_(False), ZERO, False  # typed
    # 4. zones: one answer to all the moves outside their cells (a pairing reply, a threat line)
    zone, zone_seen, skip_bound = _zone_of(ctx, own, opp, ply, alpha), ctx[P_FOUND], -NO_SCORE
    tzone, tbound = _threat_zone_of(ctx, own, opp, ply, alpha)
    i = 0
    while True:
        if i == n:
            if deferred == ZERO or second_pass:
                break
            second_pass, i = True, 0
        cell = np.int64(ctx[mbase + i])
        i += 1
        bit = ONE << np.uint64(cell)
        if second_pass and (deferred & bit) == ZERO:
            continue
        if bit & zone & tzone == ZERO:
            skip_bound = _skip(ctx, bit & zone == ZERO, tbound, skip_bound)
            continue
        alpha, beta, step = narrow_to_live_window(ctx, ctl, live_slot, task, alpha, beta, best, best_exact)
        if step == LIVE_CUT:
            break
        if step == LIVE_ABANDON:
            return 0
        push_hashes(ctx, ply, cell, player)
        mark, mark_key = -1, np.int64(0)
        if busy_base > 0:
            child_key, _ = _canonical_key(ctx, ply + 1)
            mark, mark_key = mark_child(ctl, child_key, busy_base, busy_mask, not second_pass and i > 1)
            if mark == -2:
                deferred |= bit
                continue
        if path_at >= 0:
            publish_step(ctl, path_at, task, i - 1, ply, ply + 1, cell, path_end)
        v = -negamax(ctx, tt, ctl, opp, own | bit, np.int64(ply + 1), INSIDE,
                     np.int64(-beta), np.int64(-alpha), np.int64(-1))
        if mark >= 0:
            unmark_child(ctl, mark, mark_key)
        if ctx[C_ABORTED] != ZERO:
            return 0
        best, best_move, best_exact, alpha, cut = take_child(v, cell, best, best_move, best_exact, alpha, beta)
        if cut:
            break
        if zone == ctx[C_BOARD] and ctx[P_FOUND] != zone_seen:   # a new certificate: a zone now?
            zone, zone_seen = _zone_of(ctx, own, opp, ply, alpha), ctx[P_FOUND]
    best = max(best, skip_bound)   # (the moves zones closed)
    # 5. store what was proven (exact when a bound meets the node's known bounds), with what it cost
    kind = node_kind(best, best_exact, beta, lower, upper)
    _count(ctx, ply, PROF_CUT if kind == TT_LOWER else PROF_ALL)
    _store(ctx, tt, key, sym, kind, best, best_move if kind != TT_UPPER else -1, work_of(ctx[C_NODES] - nodes_before))
    ctx[C_RESULT_KIND] = kind
    return signed_result(ctx, sign, best)



@called
def check_preconditions(ctx, own, opp, ply, alpha, beta):
    """Raise ValueError unless :func:`negamax` may be called on this node. Not
    called by the search (it would cost); tests wrap :func:`negamax` with it under
    ``NUMBA_DISABLE_JIT=1``, so that every node of their searches is checked."""
    if alpha >= beta:
        raise ValueError("negamax: the window must be open (alpha < beta)")
    if (own & opp) != ZERO or popcount(own | opp) != ply:
        raise ValueError("negamax: own and opp must be disjoint with ply stones between them")
    if ply >= np.int64(ctx[C_CELLS]) or has_k_run(ctx, opp) or has_k_run(ctx, own):
        raise ValueError("negamax: the game is over")
    mask = own | opp
    legal = playable_cells(ctx, mask) if ctx[C_GRAVITY] != ZERO else ctx[C_BOARD] & ~mask
    if winning_cells(ctx, own, legal) != ZERO:
        raise ValueError("negamax: the side to move wins with its next stone (score it before calling)")
