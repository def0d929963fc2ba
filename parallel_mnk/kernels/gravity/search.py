"""The exact search of gravity boards (Connect Four and every gravity board of up to
64 cells, any k): alpha-beta negamax, fail-soft, with what makes Steininger's c4
strong, generalised.

Contract of :func:`gravity_negamax` for a window ``alpha < beta`` and true score
``s`` (docs/design.md's scores, from the side to move): returned ``v <= alpha`` means
``s <= v``, ``v >= beta`` means ``s >= v``, else ``s == v``; what it proves is left
in ``ctx[C_RESULT_KIND]`` (1 lower, 2 upper, 3 exact), exact also when a bound
meets the node's known bounds. Live windows, aborts and busy marks work as in
:mod:`..free.search` (module docstring there; helpers in :mod:`..core.sharing`).

A node, top-down (each step a helper of its own where it is more than a few lines):

1. *What is known* (:func:`_what_is_known`): static bounds of the node
   (:func:`.static_analysis.open_bounds`) and its table entry, both usually found already
   by its parent (step 2 there).
2. *Children resolved statically* (:func:`_resolve_children`, with
   :func:`.static_analysis.resolve` for each): for every move that is not directly under
   an opponent's threat (the only block, if the opponent has a playable threat),
   forced replies are played out without creating nodes, and the child gets
   proven bounds: a settled score (a forced loss, a full board), the 2-4 ply
   bounds, "cannot win any more", the even-squares bound, and far enough from the
   leaves its table entry (enhanced transposition cutoff). The node's score is at
   least the best child's lower bound and at most the best child's upper bound:
   this alone often closes the window, and settled children are never searched.
   The open ones are ordered by useful threats (threats not directly above an
   opponent's threat) weighted by how soon they can be played, the table's move
   and the centre.
3. *Search* the open children best first; a child whose upper bound cannot beat
   alpha is skipped.
4. *Store* the result (exact when a bound meets the node's known bounds), its
   best move and the work it took.

Calls: Python asks :func:`gravity_negamax` (the family's entry point, :mod:`.entry`) for
any position that is not over (``cell`` -1) or for its move to the playable cell
``cell``; :func:`_root` plays the move, scores a win at once, sets the root's hashes
and plays out the forced line to an open node. Its recursion passes ``cell = INSIDE``
and a node that is *open* (the precondition, :func:`check_preconditions`): the side to
move cannot win at once, the opponent has at most one playable threat, which is a
safe move, and the side to move has a safe move (a child left open by
:func:`.static_analysis.resolve`); the hashes of the position are at ``ctx``'s slot
``ply``. One function for both: numba optimizes all that a compiled function links, and
an entry point calling the search would optimize the whole search twice.
"""
import numpy as np
from parallel_mnk.settings import GRAVITY_ORDER_WEIGHTS, POLL_MASK
from ..core import board as B
from ..core.jit import called, entry, expanded, inlined

from ..core.bits import lowest_bit_index, popcount, prefetch, unowned
from ..core.bounds import NO_SCORE, narrow, node_kind, result_kind, take_child, win_in
from ..core.common import insert_descending
from .static_analysis import open_bounds, position_key, resolve, unpack_lookup
from ..core.layout import (
    C_ABORTED, C_ETC_MIN_EMPTY, C_NODES, C_RESULT_KIND, C_RULES,
    C_TASK_ID, GC_CELL, GC_ENTRY, GC_H0, GC_H1, GC_HI, GC_KEY, GC_LO, GC_OPP, GC_OWN,
    GC_PLY, GC_SIZE, GN_ENTRY, GN_HI, GN_KEY, GN_LO, GN_SIZE, MAX_CELLS, MAX_SYM, OFF_GCHILD, OFF_GNODE,
    OFF_HASH, OFF_MOVES, OFF_SCORES, RULE_ETC, RULE_THREAT_ORDER, SCORE_BIAS, TT_EXACT,
    TT_LOWER, TT_UPPER,
)
from ..core.lines import has_k_run, playable_cells, winning_cells
from ..core.sharing import (
    LIVE_ABANDON, LIVE_CUT, busy_marks, mark_child, narrow_to_live_window, path_word, poll_abort, publish_step,
    unmark_child,
)
from ..core.node_rules import INSIDE, play_first, signed_result
from ..core.table import canonical_key, probe, push_hashes, set_root_hashes, store, work_of

ZERO = np.uint64(0)
ONE = np.uint64(1)
ABORT_POLL_MASK = np.uint64(POLL_MASK)
# move-ordering weights (settings.GRAVITY_ORDER_WEIGHTS); the centre term (< 64) breaks ties
W_NEXT, W_NEXT_NEXT, W_USEFUL, W_TABLE_MOVE = GRAVITY_ORDER_WEIGHTS


@expanded
def _order_score(ctx, mine, theirs, mask, cell, tt_move):
    """Ordering score of the move to ``cell`` (higher first): ``mine`` are the mover's
    threats after it, ``theirs`` the opponent's threats."""
    cols = B.cols(ctx)
    if ctx[C_RULES] & np.uint64(RULE_THREAT_ORDER):
        useful = mine & ~(theirs >> cols)   # a threat right above an opponent's threat is useless
        next_up = playable_cells(ctx, mask | (ONE << np.uint64(cell))) >> cols
        score = W_NEXT * popcount(useful & next_up) + W_NEXT_NEXT * popcount(useful & (next_up >> cols)) \
            + W_USEFUL * popcount(useful) + (W_TABLE_MOVE if cell == tt_move else 0)
    else:
        score = (1 << 20 if cell == tt_move else 0) + 64 * popcount(mine)
    return np.uint64(score + np.int64(B.static_bonus(ctx, cell)))


@expanded
def _move_bounds(ctx, rec, ply):
    """Bounds of the value of the move whose child record is at ``rec`` (from the
    mover at ``ply``): the record holds them from the side to move in the position
    its forced line reached."""
    lo = np.int64(ctx[rec + GC_LO]) - SCORE_BIAS
    hi = np.int64(ctx[rec + GC_HI]) - SCORE_BIAS
    if (np.int64(ctx[rec + GC_PLY]) - ply) & 1:
        return -hi, -lo
    return lo, hi


@expanded
def _enter_child(ctx, rec):
    """Put the hashes of the position a child record reached in their slot, and what
    is known of it in the node slot its search reads first. Returns its table key."""
    f_ply = np.int64(ctx[rec + GC_PLY])
    src = OFF_HASH + f_ply * MAX_SYM
    ctx[src] = ctx[rec + GC_H0]
    ctx[src + 1] = ctx[rec + GC_H1]
    node = OFF_GNODE + f_ply * GN_SIZE
    ctx[node + GN_LO] = ctx[rec + GC_LO]
    ctx[node + GN_HI] = ctx[rec + GC_HI]
    ctx[node + GN_ENTRY] = ctx[rec + GC_ENTRY]
    if ctx[rec + GC_ENTRY] != ZERO:
        ctx[node + GN_KEY] = ctx[rec + GC_KEY]
        return ctx[rec + GC_KEY]
    key, _ = position_key(ctx, ctx[rec + GC_OWN], ctx[rec + GC_OPP], f_ply)
    return key


@inlined
def _what_is_known(ctx, tt, own, opp, ply, alpha, beta):
    """Step 1: ``(lower, upper, key, sym, flag, tt_score, tt_move)``: the node's static
    bounds with its table bound folded in, its table key, and its entry. Both are
    usually found by the parent already (its step 2) and read from the node slot."""
    node = OFF_GNODE + ply * GN_SIZE
    lookup = ZERO
    if ctx[node + GN_LO] != ZERO:
        lower = np.int64(ctx[node + GN_LO]) - SCORE_BIAS
        upper = np.int64(ctx[node + GN_HI]) - SCORE_BIAS
        lookup = ctx[node + GN_ENTRY]
        ctx[node + GN_LO] = ZERO
    else:
        lower, upper = open_bounds(ctx, own, opp, ply, alpha, beta)
    if lookup != ZERO:
        sym, flag, tt_score, tt_move = unpack_lookup(lookup)   # its bounds are in lower/upper already
        return lower, upper, ctx[node + GN_KEY], sym, flag, tt_score, tt_move
    key, sym = position_key(ctx, own, opp, ply)
    flag, tt_score, tt_move = probe(ctx, tt, key, sym)
    if flag == TT_EXACT:
        lower = upper = tt_score
    elif flag == TT_LOWER:
        lower = max(lower, tt_score)
    elif flag == TT_UPPER:
        upper = min(upper, tt_score)
    return lower, upper, key, sym, flag, tt_score, tt_move


@inlined
def _resolve_children(ctx, tt, own, opp, ply, alpha, beta, tt_move):
    """Step 2: resolve every child statically (:func:`.static_analysis.resolve`, a record each)
    and queue the open ones best first. Returns ``(n_open, best, best_move,
    best_exact, lower, upper, cut)``: the best settled move, bounds of the node
    (its best child's lower bound, its best child's upper bound), and ``cut`` when
    one move's lower bound alone reaches ``beta`` (then ``best`` is that bound and
    ``upper`` is ``NO_SCORE``: the children not resolved yet bound nothing)."""
    cells = B.cells(ctx)
    cols = B.cols(ctx)
    mask = own | opp
    empty = B.board(ctx) & ~mask
    theirs = winning_cells(ctx, opp, empty)
    play = playable_cells(ctx, mask)
    cand = theirs & play
    if cand == ZERO:
        cand = play & ~(theirs << cols)
    etc = (ctx[C_RULES] & np.uint64(RULE_ETC)) != ZERO and cells - ply - 1 >= np.int64(ctx[C_ETC_MIN_EMPTY])
    records = OFF_GCHILD + ply * np.int64(cols) * GC_SIZE
    mbase = OFF_MOVES + ply * MAX_CELLS
    sbase = OFF_SCORES + ply * 2 * MAX_CELLS + MAX_CELLS
    best, best_move, best_exact = -NO_SCORE, -1, False
    lower = upper = -NO_SCORE
    c = cand   # start fetching the children's entries: their probes (below, or in the child) then hit the cache
    while c != ZERO:
        push_hashes(ctx, ply, lowest_bit_index(c), ply & 1)
        c &= c - ONE
        key, _ = canonical_key(ctx, ply + 1)
        prefetch(tt, np.int64(key & np.uint64(len(tt) - 2)))
    n = n_open = np.int64(0)
    while cand != ZERO:
        cell = lowest_bit_index(cand)
        cand &= cand - ONE
        bit = ONE << np.uint64(cell)
        rec = records + n * GC_SIZE
        n += 1
        push_hashes(ctx, ply, cell, ply & 1)
        mine = winning_cells(ctx, own | bit, empty & ~bit)
        settled = resolve(ctx, tt, opp, own | bit, ply + 1, mine, rec, etc, -beta, -alpha)
        ctx[rec + GC_CELL] = np.uint64(cell)
        lo, hi = _move_bounds(ctx, rec, ply)
        lower = max(lower, lo)
        upper = max(upper, hi)
        if settled and lo > best:
            best, best_move, best_exact = lo, cell, True
        if lo >= beta:   # this move alone refutes the window (the children left unseen bound nothing)
            if not settled:
                best, best_move, best_exact = lo, cell, False
            return n_open, best, best_move, best_exact, lower, NO_SCORE, True
        if not settled:
            insert_descending(ctx, ctx, mbase, sbase, n_open, np.uint64(n - 1),
                              _order_score(ctx, mine, theirs, mask, cell, tt_move))
            n_open += 1
    return n_open, best, best_move, best_exact, lower, upper, False


@inlined
def _root(ctx, tt, own, opp, ply, cell, alpha, beta, live_slot):
    """What :func:`gravity_negamax` searches when Python asks for any position that is not
    over (``cell`` -1) or for its move to ``cell`` (:func:`..core.node_rules.play_first`):
    ``(own, opp, ply, alpha, beta, live_slot, sign, settled, value)``, the open node at the
    end of the forced line from there (:func:`.static_analysis.resolve`) with its window
    (live from ``ctl[live_slot]`` when that line has even length) and ``sign`` -1 when its
    value negated is the answer; ``settled`` when there is nothing to search: then
    ``value`` is the answer and ``ctx[C_RESULT_KIND]`` its kind. Sets the root hashes."""
    own, opp, ply, alpha, beta, live_slot, sign, settled, value = play_first(ctx, own, opp, ply, cell, alpha,
                                                                             beta, live_slot)
    if settled:
        return own, opp, ply, alpha, beta, live_slot, sign, settled, value
    mask = own | opp
    if winning_cells(ctx, own, playable_cells(ctx, mask)) != ZERO:
        ctx[C_RESULT_KIND] = TT_EXACT
        return own, opp, ply, alpha, beta, live_slot, sign, True, signed_result(ctx, sign, win_in(B.cells(ctx), ply,
                                                                                                       np.int64(1)))
    if ply & 1 == 0:
        set_root_hashes(ctx, own, opp, ply)
    else:
        set_root_hashes(ctx, opp, own, ply)
    rec = OFF_GCHILD + ply * np.int64(B.cols(ctx)) * GC_SIZE
    settled = resolve(ctx, tt, own, opp, ply, winning_cells(ctx, opp, B.board(ctx) & ~mask), rec, np.bool_(True),
                      alpha, beta)
    lo, hi = np.int64(ctx[rec + GC_LO]) - SCORE_BIAS, np.int64(ctx[rec + GC_HI]) - SCORE_BIAS
    f_ply = np.int64(ctx[rec + GC_PLY])
    if (f_ply - ply) & 1:
        alpha, beta, live_slot, sign = -beta, -alpha, np.int64(-1), -sign
    if settled:
        ctx[C_RESULT_KIND] = TT_EXACT
        return own, opp, ply, alpha, beta, live_slot, sign, True, signed_result(ctx, sign, lo)
    alpha, beta, kind, value = narrow(alpha, beta, lo, hi)
    if kind != 0:
        ctx[C_RESULT_KIND] = result_kind(kind, value, lo, hi)
        return own, opp, ply, alpha, beta, live_slot, sign, True, signed_result(ctx, sign, value)
    _enter_child(ctx, rec)
    return ctx[rec + GC_OWN], ctx[rec + GC_OPP], f_ply, alpha, beta, live_slot, sign, False, np.int64(0)


@entry
def gravity_negamax(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    """Score of the position ``own`` (side to move) / ``opp`` with ``ply`` stones, or of its
    move to ``cell`` >= 0 (module docstring: contract, calls, precondition, the steps)."""
    sign = np.int64(1)   # -1: the value asked is the negated value of the node searched
    if cell != INSIDE:   # the call from Python
        ctx, tt, ctl = unowned(ctx), unowned(tt), unowned(ctl)   # no reference counting in the recursion
        own, opp, ply, alpha, beta, live_slot, sign, settled, value = _root(ctx, tt, own, opp, ply, cell, alpha,
                                                                            beta, live_slot)
        if settled:
            return value
    ctx[C_NODES] += ONE
    nodes_before = ctx[C_NODES]
    if (ctx[C_NODES] & ABORT_POLL_MASK) == ZERO and poll_abort(ctx, ctl):
        ctx[C_ABORTED] = ONE
    if ctx[C_ABORTED] != ZERO:
        return 0
    # 1. what is known: static bounds and the table's entry
    lower, upper, key, sym, flag, tt_score, tt_move = _what_is_known(ctx, tt, own, opp, ply, alpha, beta)
    alpha, beta, kind, value = narrow(alpha, beta, lower, upper)
    if kind != 0:
        ctx[C_RESULT_KIND] = result_kind(kind, value, lower, upper)
        return signed_result(ctx, sign, value)
    # 2. the children, resolved statically: the node lies within their bounds
    n_open, best, best_move, best_exact, lo, hi, cut = _resolve_children(ctx, tt, own, opp, ply, alpha, beta, tt_move)
    lower, upper = max(lower, lo), min(upper, hi)
    if cut:
        ctx[C_RESULT_KIND] = result_kind(np.int64(TT_LOWER), best, lower, upper)
        return signed_result(ctx, sign, best)
    alpha, beta, kind, value = narrow(alpha, beta, lower, upper)
    if kind != 0:
        ctx[C_RESULT_KIND] = result_kind(kind, value, lower, upper)
        return signed_result(ctx, sign, value)
    # 3. the open children, best first (ordered in step 2); a move whose upper bound cannot
    #    beat alpha is skipped; with busy marks (ABDADA), one another searcher is inside
    #    waits for a second pass; near a task's root, the move searched is published
    #    (path words: where the coordinator may split the task)
    cells = B.cells(ctx)
    path_at, path_end = path_word(ctx, ply)
    records = OFF_GCHILD + ply * np.int64(B.cols(ctx)) * GC_SIZE
    mbase = OFF_MOVES + ply * MAX_CELLS
    task = np.int64(ctx[C_TASK_ID])
    busy_base, busy_mask = busy_marks(ctx, ctl, cells - ply)
    deferred = ZERO
    second_pass = False
    i = 0
    while True:
        if i == n_open:
            if deferred == ZERO or second_pass:
                break
            second_pass, i = True, 0
        rec = records + np.int64(ctx[mbase + i]) * GC_SIZE
        i += 1
        cell = np.int64(ctx[rec + GC_CELL])
        bit = ONE << np.uint64(cell)
        if second_pass and (deferred & bit) == ZERO:
            continue
        alpha, beta, step = narrow_to_live_window(ctx, ctl, live_slot, task, alpha, beta, best, best_exact)
        if step == LIVE_CUT:
            break
        if step == LIVE_ABANDON:
            return 0
        lo, hi = _move_bounds(ctx, rec, ply)
        if hi <= alpha:
            if hi > best:
                best, best_move, best_exact = hi, cell, False
            continue
        child_key = _enter_child(ctx, rec)
        f_ply = np.int64(ctx[rec + GC_PLY])
        mark, mark_key = -1, np.int64(0)
        if busy_base > 0:
            mark, mark_key = mark_child(ctl, child_key, busy_base, busy_mask, not second_pass and i > 1)
            if mark == -2:
                ctx[OFF_GNODE + f_ply * GN_SIZE + GN_LO] = ZERO
                deferred |= bit
                continue
        if path_at >= 0:
            publish_step(ctl, path_at, task, i - 1, ply, f_ply, cell, path_end)
        b = min(beta, hi)
        if (f_ply - ply) & 1:
            v = -gravity_negamax(ctx, tt, ctl, ctx[rec + GC_OWN], ctx[rec + GC_OPP], f_ply, INSIDE,
                                 np.int64(-b), np.int64(-alpha), np.int64(-1))
        else:
            v = gravity_negamax(ctx, tt, ctl, ctx[rec + GC_OWN], ctx[rec + GC_OPP], f_ply, INSIDE,
                                np.int64(alpha), np.int64(b), np.int64(-1))
        if mark >= 0:
            unmark_child(ctl, mark, mark_key)
        if ctx[C_ABORTED] != ZERO:
            return 0
        best, best_move, best_exact, alpha, cut = take_child(v, cell, best, best_move, best_exact, alpha, beta)
        if cut:
            break
    # 4. store what was proven (exact when a bound meets the node's known bounds), with what it cost
    kind = node_kind(best, best_exact, beta, lower, upper)
    store(ctx, tt, key, sym, kind, best, best_move, work_of(ctx[C_NODES] - nodes_before))
    ctx[C_RESULT_KIND] = kind
    return signed_result(ctx, sign, best)


@called
def check_preconditions(ctx, own, opp, ply, alpha, beta):
    """Raise ValueError unless :func:`gravity_negamax` may be called on this node
    (the module docstring's precondition). Not called by the search; tests wrap
    :func:`gravity_negamax` with it under ``NUMBA_DISABLE_JIT=1``."""
    if alpha >= beta:
        raise ValueError("gravity_negamax: the window must be open (alpha < beta)")
    mask = own | opp
    if (own & opp) != ZERO or popcount(mask) != ply:
        raise ValueError("gravity_negamax: own and opp must be disjoint with ply stones between them")
    cols = B.cols(ctx)
    if mask & ~(B.bottom(ctx) | (mask >> cols)) != ZERO:
        raise ValueError("gravity_negamax: a stone floats above an empty cell")
    if ply >= B.cells(ctx) or has_k_run(ctx, opp) or has_k_run(ctx, own):
        raise ValueError("gravity_negamax: the game is over")
    play = playable_cells(ctx, mask)
    if winning_cells(ctx, own, play) != ZERO:
        raise ValueError("gravity_negamax: the side to move wins with its next stone")
    theirs = winning_cells(ctx, opp, B.board(ctx) & ~mask)
    now = theirs & play
    safe = play & ~(theirs << cols)
    if (now != ZERO and (now & (now - ONE)) != ZERO) or (now & ~safe) != ZERO or safe == ZERO:
        raise ValueError("gravity_negamax: the position is not open (it is lost at once)")
