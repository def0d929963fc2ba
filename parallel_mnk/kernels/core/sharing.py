"""What a searcher reads from and writes to the control array ``ctl`` while it
searches (:mod:`.layout`): the abort words, the live window of a parallel task's
root, the ABDADA busy marks of the nodes searchers are inside, and the line it
is on near its task root (path words). Shared by both exact engines.

Helpers that the searches inline take plain numbers where they can: an array
handed to an inlined helper costs numba a reference count update per call.
"""
import numpy as np
from .jit import expanded, inlined

from .bits import atomic_load
from .common import budget_spent, stop_requested
from .layout import (
    BUSY_MARK_STRIDE, C_ABORTED, C_CTL_SLOT, C_DEFER_MIN_EMPTY, C_NODE_LIMIT, C_NODES, C_PATH_ROOT, C_PATH_SLOT,
    C_TASK_ID, CTL_BUSY_BASE, CTL_BUSY_MASK, CTL_TASK_ABORT, PATH_DEPTH, WINDOW_BIAS,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)
# what a node's move loop does after :func:`narrow_to_live_window`
LIVE_GO = 0        # search the move
LIVE_CUT = 1       # the best move already fails high against the narrowed window: stop the loop
LIVE_ABANDON = 2   # the window closed with nothing proven: the search is abandoned (ctx's aborted flag)


@inlined
def poll_abort(ctx, ctl):
    """True when the whole search or this searcher's current task must stop, or
    the node budget is spent."""
    if stop_requested(ctl) or budget_spent(ctx[C_NODES], ctx[C_NODE_LIMIT]):
        return True
    task = np.int64(ctx[C_TASK_ID])
    return task != 0 and atomic_load(ctl, np.int64(ctx[C_CTL_SLOT]) + CTL_TASK_ABORT) == task


@inlined
def live_window(word, task, alpha, beta):
    """The window intersected with the live window ``word`` (``layout.pack_window``,
    read from ``ctl``), unless that word is another task's."""
    if (word >> 32) == task:
        alpha = max(alpha, ((word >> 16) & 0xFFFF) - WINDOW_BIAS)
        beta = min(beta, (word & 0xFFFF) - WINDOW_BIAS)
    return alpha, beta


@inlined
def narrow_to_live_window(ctx, ctl, live_slot, task, alpha, beta, best, best_exact):
    """``(alpha, beta, step)`` before a move of a task's root (``live_slot >= 0``;
    elsewhere the window as it is and ``LIVE_GO``): the window narrowed to the live
    window the coordinator publishes (:func:`live_window`), and ``LIVE_CUT`` when the
    node's exact ``best`` already fails high against it, ``LIVE_ABANDON`` (with
    ``ctx[C_ABORTED]`` set) when the window closed, else ``LIVE_GO``."""
    if live_slot < 0:
        return alpha, beta, LIVE_GO
    alpha, beta = live_window(atomic_load(ctl, live_slot), task, alpha, beta)
    if best_exact and best >= beta:
        return alpha, beta, LIVE_CUT
    if alpha >= beta:
        ctx[C_ABORTED] = ONE   # no longer needed, and nothing proven
        return alpha, beta, LIVE_ABANDON
    return alpha, beta, LIVE_GO


@inlined
def busy_marks(ctx, ctl, empty):
    """``(busy_base, busy_mask)`` of the ABDADA busy marks for a node with ``empty``
    empty cells: the control array's, where deferral is on and the node has at
    least ``ctx[C_DEFER_MIN_EMPTY]`` empty cells; else ``(0, 0)``, no marks."""
    if ctx[C_DEFER_MIN_EMPTY] != ZERO and empty >= np.int64(ctx[C_DEFER_MIN_EMPTY]):
        return ctl[CTL_BUSY_BASE], ctl[CTL_BUSY_MASK]
    return np.int64(0), np.int64(0)


@inlined
def mark_child(ctl, child_key, busy_base, busy_mask, may_defer):
    """Claim the busy mark of the child whose table key is ``child_key`` (with marks
    in use: ``busy_base`` > 0).

    Returns ``(mark, key)``: the mark's index and the key written there; ``mark``
    is -2 when another searcher is inside that child and ``may_defer`` allows
    putting it off to the second pass (nothing is claimed then)."""
    mark_key = np.int64(child_key >> ONE)  # non-zero for any key that matters
    mark = busy_base + (mark_key & busy_mask) * BUSY_MARK_STRIDE   # a cache line each
    if may_defer and atomic_load(ctl, mark) == mark_key:
        return -2, mark_key
    ctl[mark] = mark_key
    return mark, mark_key


@inlined
def unmark_child(ctl, mark, mark_key):
    """Release a busy mark claimed by :func:`mark_child` (if still ours)."""
    if ctl[mark] == mark_key:
        ctl[mark] = 0


@expanded
def path_word(ctx, ply):
    """``(at, end)``: the index in ``ctl`` of the path word of a node of ``ply`` stones
    (the line of a task's search near its root is published there) and the end
    of the searcher's path words; ``at`` is -1 when the searcher publishes no
    line, or the node is more than ``PATH_DEPTH`` plies below the root."""
    slot = np.int64(ctx[C_PATH_SLOT])
    depth = ply - np.int64(ctx[C_PATH_ROOT])
    if slot == 0 or depth < 0 or depth >= PATH_DEPTH:
        return -1, 0
    return slot + depth, slot + PATH_DEPTH


@expanded
def publish_step(ctl, at, task, done, ply, child_ply, cell, end):
    """Write the path word ``at`` (:func:`path_word`) of a node of ``ply`` stones whose
    search enters its move to ``cell`` (reaching a node of ``child_ply`` stones),
    ``done`` of its moves taken before (finished, or put off by a busy mark;
    ``layout.pack_step``), and clear the words below it up to ``child_ply``
    (before ``end``): the line below is not known yet."""
    ctl[at] = (task << 32) | (min(done, 255) << 24) | (child_ply << 16) | (ply << 8) | cell
    for j in range(at + 1, min(at + 1 + child_ply - ply, end)):
        ctl[j] = 0
