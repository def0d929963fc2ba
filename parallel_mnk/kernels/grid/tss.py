"""Threat-space search on the array board (the depth-limited engine's, any free-
placement board up to 26x26): wins by fours and threes for a side X, with
every answer of the defender Y accounted for, so that a win found is a win in
the strong game (``docs/proofs.md``).

* A *four* is a line with ``k - 1`` X stones and no Y stone; a *three-move* is a
  move after which X would win by continuous fours (:func:`vcf`) if Y passed.
* :func:`vcf` (victory by continuous fours) is exact: every X move makes a four,
  Y's reply is forced, and Y never has a win in one on the way (4.3).
* :func:`vct` adds three-moves. After one, Y may play *any* empty cell ``m``;
  ``m`` is refuted when X still wins by continuous fours or, with threes left,
  by :func:`vct`. Cells need no search when they lie on no line through a cell
  of the null-move line ``T`` (X's moves, Y's replies, X's completion cells) and
  make no Y four: such a stone changes no line ``T`` uses and gives Y no win in
  one along ``T`` (a Y line through it holds no cell of ``T``, and it does not
  reach ``k - 1`` Y stones), so ``T`` still wins.
* Fours are also tried as steps between threes (the reply is forced). When Y
  has a four, X's block is its only move, tried as a three-move whatever lines it
  makes (X's earlier threats may still stand after it).
* Failures of :func:`vct` found within the limits are remembered in a table
  (position hash, threes and fours left): the same position reached by another
  order of the same threats is not searched again. A failure only ever stops a
  search (never proves anything), so a collision costs a missed win at worst.

Returned: the plies to the win against the defence of the proof (odd, >= 1;
an upper bound on how long Y can hold out against it), 0 when none was found
within the limits (nothing is proven then). The first move goes to
``st[S_BEST]``. Scratch (int64, :func:`scratch_size`): the null-move line and
the zone marks of each recursion level.
"""
import numpy as np
from parallel_mnk.settings import POLL_MASK
from ..core.jit import allocating, allocating_expanded   # the family makes arrays (core/jit.py)

from ..core.bits import lowest_bit_index
from ..core.common import budget_spent, stop_requested
from .stones import ONE, ZERO, clear_line_stone, makes_four, set_line_stone, winning_cells, winning_cells_after
from .layout import (
    G_CELLS, G_K, G_NLINES, G_OFF_CLINES, G_OFF_CSTART, G_OFF_LINES, G_S_BOARD, G_S_CNT, G_S_SETS, G_SET_WORDS,
    S_ABORTED, S_BEST, S_HASH, S_NODE_LIMIT, S_NODES, SET_THREES,
)

LINE_MAX = 128            # cells of a recorded line (X's moves and Y's replies)
MAX_FOURS = (LINE_MAX - 3) // 2   # so that a line always fits
MAX_LEVELS = 64
THREES_MIX = 0x5851F42D4C957F2D   # mixes the threes left into a failure's key
SEEN = 3                  # a board cell's mark while :func:`moves_making` lists it (0 empty, 1 and 2 stones)


def scratch_size(cells: int) -> int:
    """int64 words of scratch :func:`vct` needs on a board of ``cells`` cells."""
    return MAX_LEVELS * (LINE_MAX + cells + 1)


@allocating_expanded
def _tick(st, ctl):
    """Count a node; True when the search must stop (abort word or node limit)."""
    st[S_NODES] += 1
    if (st[S_NODES] & POLL_MASK) == 0 and (stop_requested(ctl) or budget_spent(st[S_NODES], st[S_NODE_LIMIT])):
        st[S_ABORTED] = 1
    return st[S_ABORTED] != 0


@allocating
def moves_making(geo, st, player, stones, out):
    """Empty cells on a line holding ``stones`` stones of ``player`` and none of the
    other's (``k - 2``: moves that make a four, its lines read off the state's line
    set; ``k - 3``: moves that make a line one move from a four, every line read),
    each once, in the order of the lines and their cells, written to ``out``; returns
    how many."""
    k = geo[G_K]
    cnt = geo[G_S_CNT]
    board = geo[G_S_BOARD]
    lines = geo[G_OFF_LINES]
    n = 0
    if stones == k - 2:   # the state's set of those lines (stones.py), in order
        words = geo[G_SET_WORDS]
        at = geo[G_S_SETS] + (SET_THREES + player - 1) * words
        for wi in range(words):
            w = np.uint64(st[at + wi])
            while w != ZERO:
                ln = wi * 64 + lowest_bit_index(w)
                w &= w - ONE
                n = _list_empty_cells(geo, st, ln, out, n)
    else:
        for ln in range(geo[G_NLINES]):
            if st[cnt + 2 * ln + player - 1] == stones and st[cnt + 2 * ln + 2 - player] == 0:
                n = _list_empty_cells(geo, st, ln, out, n)
    for j in range(n):
        st[board + out[j]] = 0
    return n


@allocating_expanded
def _list_empty_cells(geo, st, ln, out, n):
    """Append to ``out[:n]`` the empty cells of line ``ln`` not listed yet (marked
    :data:`SEEN` on the board, which :func:`moves_making` clears); the new count."""
    k = geo[G_K]
    board = geo[G_S_BOARD]
    lines = geo[G_OFF_LINES]
    for t in range(k):
        c = geo[lines + ln * k + t]
        if st[board + c] == 0:
            st[board + c] = SEEN   # (a mark on the board, taken off before returning: no array to allocate)
            out[n] = c
            n += 1
    return n


@allocating
def vcf(geo, st, ctl, player, moves_left, line, pos, fail):
    """Plies to a win of ``player`` (to move) by continuous fours within
    ``moves_left`` fours (at most :data:`MAX_FOURS`), 0 when none (module
    docstring); the line is written to ``line[pos:]`` (X's moves, Y's replies,
    then the winning cell and, after a double four, the other completion cell).
    Failures go to the table ``fail`` as those of :func:`vct` with no threes."""
    pair = np.empty(2, dtype=np.int64)
    if winning_cells(geo, st, player, pair) > 0:
        line[pos] = pair[0]
        return 1
    other = 3 - player
    theirs = winning_cells(geo, st, other, pair)
    if moves_left <= 0 or theirs >= 2 or _tick(st, ctl):
        return 0
    slot, failed = _failed_before(fail, st, 0, moves_left)
    if failed:
        return 0
    block = pair[0] if theirs == 1 else -1
    cand = np.empty(geo[G_CELLS], dtype=np.int64)
    n = moves_making(geo, st, player, geo[G_K] - 2, cand)
    for j in range(n):
        cell = cand[j]
        if block >= 0 and cell != block:
            continue
        set_line_stone(geo, st, cell, player)
        threats = winning_cells_after(geo, st, cell, player, pair)   # (none before: the check above)
        d = 0
        if threats >= 2:
            line[pos + 1], line[pos + 2] = pair[0], pair[1]
            d = 3
        elif threats == 1:
            reply = pair[0]
            set_line_stone(geo, st, reply, other)
            d = vcf(geo, st, ctl, player, moves_left - 1, line, pos + 2, fail)
            clear_line_stone(geo, st, reply)
            if d > 0:
                line[pos + 1] = reply
                d += 2
        clear_line_stone(geo, st, cell)
        if d > 0:
            line[pos] = cell
            return d
        if st[S_ABORTED] != 0:
            return 0
    _remember_failure(fail, slot, st, 0, moves_left)
    return 0


@allocating
def _mark_zone(geo, zone, line, plies):
    """Mark in ``zone`` (one word per cell, set to 1; the rest 0) every cell of
    every line through a cell of ``line[:plies]``."""
    k = geo[G_K]
    lines = geo[G_OFF_LINES]
    for c in range(geo[G_CELLS]):
        zone[c] = 0
    for j in range(min(plies, LINE_MAX)):
        cell = line[j]
        for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
            ln = geo[geo[G_OFF_CLINES] + i]
            for t in range(k):
                zone[geo[lines + ln * k + t]] = 1


@allocating_expanded
def _remember_failure(fail, slot, st, threes, fours):
    """Store at ``slot`` that this search failed here with ``threes`` and ``fours`` left."""
    fail[2 * slot] = st[S_HASH] ^ (threes * THREES_MIX)
    fail[2 * slot + 1] = fours


@allocating_expanded
def _failed_before(fail, st, threes, fours):
    """The table slot of this search and whether it failed here before with at
    least as many threes and fours left."""
    key = st[S_HASH] ^ (threes * THREES_MIX)
    i = key & (len(fail) // 2 - 1)
    return i, fail[2 * i] == key and fail[2 * i + 1] >= fours


@allocating
def vct(geo, st, ctl, player, threes, fours, scratch, fail, level):
    """Plies to a win of ``player`` (to move) by fours and at most ``threes``
    three-moves (``fours`` fours per continuous-four search), 0 when none was
    found (module docstring). ``fail``: the failure table (int64, a power of two
    of (key, fours) pairs). ``level`` indexes the scratch (0 at the root, where
    the first move goes to ``st[S_BEST]``)."""
    cells = geo[G_CELLS]
    base = level * (LINE_MAX + cells + 1)
    if level + 2 >= MAX_LEVELS:
        return 0
    d = vcf(geo, st, ctl, player, fours, scratch, base, fail)
    if d > 0 or threes <= 0 or st[S_ABORTED] != 0:
        if d > 0 and level == 0:
            st[S_BEST] = scratch[base]
        return d
    slot, failed = _failed_before(fail, st, threes, fours)
    if failed:
        return 0
    pair = np.empty(2, dtype=np.int64)
    other = 3 - player
    theirs = winning_cells(geo, st, other, pair)
    if theirs >= 2:
        return 0
    block = pair[0] if theirs == 1 else -1
    board = geo[G_S_BOARD]
    zone = scratch[base + LINE_MAX:base + LINE_MAX + cells]
    nxt = (level + 1) * (LINE_MAX + cells + 1)
    cand = np.empty(cells, dtype=np.int64)
    if block >= 0:   # Y's four: the block is the only move; it is a threat if X then wins when Y passes
        cand[0] = block
        n4 = 1 if makes_four(geo, st, block, player) else 0
        n = 1
    else:
        n4 = moves_making(geo, st, player, geo[G_K] - 2, cand)
        n = n4 + moves_making(geo, st, player, geo[G_K] - 3, cand[n4:])
    for j in range(n):
        cell = cand[j]
        if st[board + cell] != 0 or _tick(st, ctl):
            continue
        set_line_stone(geo, st, cell, player)
        d = 0
        # a four: the reply is forced (X had no winning cell before it: vcf above)
        if j < n4 and winning_cells_after(geo, st, cell, player, pair) == 1:
            reply = pair[0]
            set_line_stone(geo, st, reply, other)
            d = vct(geo, st, ctl, player, threes, fours - 1, scratch, fail, level + 1)
            clear_line_stone(geo, st, reply)
            d = d + 2 if d > 0 else 0
        elif j >= n4:
            t = vcf(geo, st, ctl, player, fours, scratch, base, fail)   # Y passes: the null-move line T
            if t > 0:
                # every Y answer m must be refuted (one function: numba's cache loses mutual recursion)
                _mark_zone(geo, zone, scratch[base:base + LINE_MAX], t)
                worst = t
                for i in range(t + cells):   # the cells of T first: the likeliest defences
                    m = scratch[base + i] if i < t else i - t
                    if st[board + m] != 0 or zone[m] == 2 or (zone[m] == 0 and not makes_four(geo, st, m, other)):
                        continue
                    zone[m] = 2   # tried
                    set_line_stone(geo, st, m, other)
                    dm = vcf(geo, st, ctl, player, fours, scratch, nxt, fail)
                    if dm == 0 and threes > 1:
                        dm = vct(geo, st, ctl, player, threes - 1, fours, scratch, fail, level + 1)
                    clear_line_stone(geo, st, m)
                    if dm == 0:
                        worst = 0
                        break
                    worst = max(worst, dm)
                d = worst + 2 if worst > 0 else 0
        clear_line_stone(geo, st, cell)
        if d > 0:
            if level == 0:
                st[S_BEST] = cell
            return d
        if st[S_ABORTED] != 0:
            return 0
    if st[S_ABORTED] != 0:
        return 0
    _remember_failure(fail, slot, st, threes, fours)
    return 0

