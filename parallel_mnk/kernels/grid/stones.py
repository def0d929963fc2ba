"""Board-as-array kernels for boards of any size (up to 26x26): stones, line
counts, an incremental open-line evaluation, and threat (winning-cell) detection.

The bitboard kernels stop at 64 cells; the depth-limited search (used for big
boards, for the play engine when a position is out of exact reach, and for the
seed experiments) works on this representation instead. The arrays ``geo`` and
``st`` are described in :mod:`.layout`.
"""
import numpy as np

from ..core.bits import lowest_bit_index
from ..core.jit import allocating, allocating_expanded, called   # the family makes arrays (core/jit.py)

from .layout import (
    G_CELLS, G_COLS, G_GRAVITY, G_K, G_NLINES, G_OFF_CENTRE, G_OFF_CLINES, G_OFF_CSTART, G_OFF_LINES, G_OFF_W,
    G_OFF_ZOB, G_ROWS, G_S_BOARD, G_S_CNT, G_S_HEIGHT, G_S_NEAR, G_S_SETS, G_SET_WORDS, NEAR_RADIUS, S_EVAL, S_HASH,
    S_PLY, S_THREAT, S_TURN, SET_FOURS, SET_THREES,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)


@allocating_expanded
def _contribution(geo, x, o):
    """Worth of one line from the first player's view: x and o are its stone counts."""
    if o == 0:
        return geo[geo[G_OFF_W] + x]
    if x == 0:
        return -geo[geo[G_OFF_W] + o]
    return 0


@called
def set_line_stone(geo, st, cell, player):
    """Put a stone of ``player`` (1 or 2) on the empty ``cell``: its line counts, line
    sets and threats, the board, hash, heights and ply; not the evaluation and the
    neighbourhood counts (:func:`set_stone` does all). For a search that reads
    neither (the threat-space search, :mod:`.tss`) and takes each such stone off with
    :func:`clear_line_stone` before it returns, so that they hold the truth again.
    Returns 1 if the stone completes ``k`` in a row."""
    k = geo[G_K]
    cols = geo[G_COLS]
    other = 3 - player
    cnt = geo[G_S_CNT]
    sets, words = geo[G_S_SETS], geo[G_SET_WORDS]
    mine_fours, theirs_fours = (SET_FOURS + player - 1) * words, (SET_FOURS + other - 1) * words
    mine_threes, theirs_threes = (SET_THREES + player - 1) * words, (SET_THREES + other - 1) * words
    won = 0
    for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
        line = geo[geo[G_OFF_CLINES] + i]
        a = st[cnt + 2 * line + player - 1]
        b = st[cnt + 2 * line + other - 1]
        word, bit = sets + (line >> 6), np.int64(1) << (line & 63)
        if b == 0:
            if a == k - 1:
                st[S_THREAT + player] -= 1
                st[word + mine_fours] &= ~bit
                won = 1
            elif a + 1 == k - 1:
                st[S_THREAT + player] += 1
                st[word + mine_fours] |= bit
            if a == k - 2:
                st[word + mine_threes] &= ~bit
            elif a + 1 == k - 2:
                st[word + mine_threes] |= bit
        if a == 0:
            if b == k - 1:
                st[S_THREAT + other] -= 1
                st[word + theirs_fours] &= ~bit
            if b == k - 2:
                st[word + theirs_threes] &= ~bit
        st[cnt + 2 * line + player - 1] = a + 1
    st[geo[G_S_BOARD] + cell] = player
    st[S_HASH] ^= geo[geo[G_OFF_ZOB] + 2 * cell + player - 1]
    st[geo[G_S_HEIGHT] + cell % cols] += 1
    st[S_PLY] += 1
    return won


@called
def clear_line_stone(geo, st, cell):
    """Undo :func:`set_line_stone` on ``cell`` (which must hold a stone)."""
    k = geo[G_K]
    cols = geo[G_COLS]
    player = st[geo[G_S_BOARD] + cell]
    other = 3 - player
    cnt = geo[G_S_CNT]
    sets, words = geo[G_S_SETS], geo[G_SET_WORDS]
    mine_fours, theirs_fours = (SET_FOURS + player - 1) * words, (SET_FOURS + other - 1) * words
    mine_threes, theirs_threes = (SET_THREES + player - 1) * words, (SET_THREES + other - 1) * words
    for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
        line = geo[geo[G_OFF_CLINES] + i]
        a = st[cnt + 2 * line + player - 1] - 1  # count without this stone
        b = st[cnt + 2 * line + other - 1]
        word, bit = sets + (line >> 6), np.int64(1) << (line & 63)
        if b == 0:
            if a == k - 1:
                st[S_THREAT + player] += 1
                st[word + mine_fours] |= bit
            elif a + 1 == k - 1:
                st[S_THREAT + player] -= 1
                st[word + mine_fours] &= ~bit
            if a == k - 2:
                st[word + mine_threes] |= bit
            elif a + 1 == k - 2:
                st[word + mine_threes] &= ~bit
        if a == 0:
            if b == k - 1:
                st[S_THREAT + other] += 1
                st[word + theirs_fours] |= bit
            if b == k - 2:
                st[word + theirs_threes] |= bit
        st[cnt + 2 * line + player - 1] = a
    st[geo[G_S_BOARD] + cell] = 0
    st[S_HASH] ^= geo[geo[G_OFF_ZOB] + 2 * cell + player - 1]
    st[geo[G_S_HEIGHT] + cell % cols] -= 1
    st[S_PLY] -= 1


@allocating_expanded
def _evaluation_and_neighbours(geo, st, cell, sign):
    """Add (``sign`` 1) or take back (-1) what the stone on ``cell`` adds to the
    evaluation (each line through it worth its count with the stone less without)
    and to the neighbourhood counts; read while the stone is on the board."""
    cols = geo[G_COLS]
    rows = geo[G_ROWS]
    cnt = geo[G_S_CNT]
    player = st[geo[G_S_BOARD] + cell]
    delta = 0
    for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
        line = geo[geo[G_OFF_CLINES] + i]
        a = st[cnt + 2 * line + player - 1]   # (with the stone)
        b = st[cnt + 2 * line + 2 - player]
        if player == 1:
            delta += _contribution(geo, a, b) - _contribution(geo, a - 1, b)
        else:
            delta += _contribution(geo, b, a) - _contribution(geo, b, a - 1)
    centre = geo[geo[G_OFF_CENTRE] + cell]
    st[S_EVAL] += sign * (delta + (centre if player == 1 else -centre))
    row = cell // cols
    col = cell - row * cols
    near = geo[G_S_NEAR]
    for r in range(max(0, row - NEAR_RADIUS), min(rows, row + NEAR_RADIUS + 1)):
        for c in range(max(0, col - NEAR_RADIUS), min(cols, col + NEAR_RADIUS + 1)):
            st[near + r * cols + c] += sign


@allocating
def set_stone(geo, st, cell, player):
    """Put a stone of ``player`` (1 or 2) on the empty ``cell``; update line
    counts, evaluation, threats, hash, heights and neighbourhood. Does not
    change the side to move. Returns 1 if the stone completes ``k`` in a row."""
    won = set_line_stone(geo, st, cell, player)
    _evaluation_and_neighbours(geo, st, cell, 1)
    return won


@allocating
def clear_stone(geo, st, cell):
    """Undo :func:`set_stone` on ``cell`` (which must hold a stone)."""
    _evaluation_and_neighbours(geo, st, cell, -1)
    clear_line_stone(geo, st, cell)


@allocating
def play(geo, st, cell):
    """The side to move puts a stone on ``cell``; returns 1 if it wins."""
    player = st[S_TURN]
    won = set_stone(geo, st, cell, player)
    st[S_TURN] = 3 - player
    st[S_HASH] ^= geo[geo[G_OFF_ZOB] + 2 * geo[G_CELLS]]
    return won


@allocating
def unplay(geo, st, cell):
    """Undo :func:`play` of ``cell``."""
    clear_stone(geo, st, cell)
    st[S_TURN] = 3 - st[S_TURN]
    st[S_HASH] ^= geo[geo[G_OFF_ZOB] + 2 * geo[G_CELLS]]


@allocating_expanded
def is_playable(geo, st, cell):
    """True if a stone may go on ``cell`` now (empty; with gravity, supported)."""
    if st[geo[G_S_BOARD] + cell] != 0:
        return False
    if geo[G_GRAVITY] == 0:
        return True
    below = cell + geo[G_COLS]
    return below >= geo[G_CELLS] or st[geo[G_S_BOARD] + below] != 0


@allocating
def winning_cells(geo, st, player, out):
    """Distinct playable cells where ``player`` completes ``k`` in a row at once.

    Writes up to 2 of them to ``out`` and returns how many there are, capped at 2
    (2 means "at least two": an unstoppable double threat).
    """
    if st[S_THREAT + player] == 0:
        return 0
    k = geo[G_K]
    board = geo[G_S_BOARD]
    lines = geo[G_OFF_LINES]
    found = 0
    words = geo[G_SET_WORDS]
    at = geo[G_S_SETS] + (SET_FOURS + player - 1) * words
    for wi in range(words):   # the lines of k - 1 of its stones and none of the other's, in order
        w = np.uint64(st[at + wi])
        while w != ZERO:
            line = wi * 64 + lowest_bit_index(w)
            w &= w - ONE
            for j in range(k):
                cell = geo[lines + line * k + j]
                if st[board + cell] == 0:
                    if is_playable(geo, st, cell) and (found == 0 or out[0] != cell):
                        out[found] = cell
                        found += 1
                        if found == 2:
                            return 2
                    break
    return found


@called
def winning_cells_after(geo, st, cell, player, out):
    """:func:`winning_cells` of ``player`` just after its stone on ``cell``, when it had
    none before that stone (free placement): every line of ``k - 1`` of its stones and
    none of the other's then passes through ``cell``, so only those lines are read, in
    the same order (the same cells in ``out``, the same count). With gravity (a stone
    makes the cell above it playable) it reads every line."""
    if geo[G_GRAVITY] != 0:
        return winning_cells(geo, st, player, out)
    if st[S_THREAT + player] == 0:
        return 0
    k = geo[G_K]
    cnt = geo[G_S_CNT]
    board = geo[G_S_BOARD]
    lines = geo[G_OFF_LINES]
    found = 0
    for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
        line = geo[geo[G_OFF_CLINES] + i]
        if st[cnt + 2 * line + player - 1] != k - 1 or st[cnt + 2 * line + 2 - player] != 0:
            continue
        for j in range(k):
            c = geo[lines + line * k + j]
            if st[board + c] == 0:
                if found == 0 or out[0] != c:
                    out[found] = c
                    found += 1
                    if found == 2:
                        return 2
                break
    return found


@allocating
def evaluate(geo, st):
    """Static evaluation from the side to move's view: the sum of open-line worths."""
    return st[S_EVAL] if st[S_TURN] == 1 else -st[S_EVAL]


@allocating
def move_score(geo, st, cell, player):
    """Ordering score of ``cell`` for ``player``: what it builds plus what it blocks."""
    cnt = geo[G_S_CNT]
    w = geo[G_OFF_W]
    s = geo[geo[G_OFF_CENTRE] + cell]
    for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
        line = geo[geo[G_OFF_CLINES] + i]
        a = st[cnt + 2 * line + player - 1]
        b = st[cnt + 2 * line + 2 - player]
        if b == 0:
            s += 2 * geo[w + a + 1]   # building counts a little more than blocking
        if a == 0:
            s += geo[w + b + 1]
    return s


@allocating
def makes_four(geo, st, cell, player):
    """True if ``player`` on ``cell`` gives a line with k-1 of its stones and none of the other's."""
    k = geo[G_K]
    cnt = geo[G_S_CNT]
    for i in range(geo[geo[G_OFF_CSTART] + cell], geo[geo[G_OFF_CSTART] + cell + 1]):
        line = geo[geo[G_OFF_CLINES] + i]
        if st[cnt + 2 * line + player - 1] == k - 2 and st[cnt + 2 * line + 2 - player] == 0:
            return True
    return False


@allocating
def candidate_moves(geo, st, near_only, out):
    """Cells the side to move may play, in natural order (columns left to right
    with gravity, row-major otherwise), into ``out``; returns how many.

    ``near_only`` (free placement): only empty cells within two cells of a stone,
    or the centre on an empty board (the usual restriction on big boards).
    """
    cols = geo[G_COLS]
    rows = geo[G_ROWS]
    n = 0
    if geo[G_GRAVITY] != 0:
        height = geo[G_S_HEIGHT]
        for c in range(cols):
            h = st[height + c]
            if h < rows:
                out[n] = (rows - 1 - h) * cols + c
                n += 1
        return n
    board = geo[G_S_BOARD]
    near = geo[G_S_NEAR]
    if near_only and st[S_PLY] == 0:
        out[0] = (rows // 2) * cols + cols // 2
        return 1
    for cell in range(geo[G_CELLS]):
        if st[board + cell] == 0 and (not near_only or st[near + cell] > 0):
            out[n] = cell
            n += 1
    return n
