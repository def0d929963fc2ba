"""The exact search of a Connect Four position down to the ply of an opening book
whose positions hold their exact value (Thill's 12-ply database with distances).

Alpha-beta negamax over null windows (the caller's probes), with the rules of
Pons' solver: a move the opponent answers with a win at once is never generated,
moves are tried by the threats they make (centre first on ties), a table of one
word an entry keeps bounds. At the book's ply a position is not searched: its value
is read from the database (a sorted array of 32-bit codes, both the position and
its mirror image tried). Board layout and ``st`` words: :mod:`.layout`.

Contract of every search here: the side to move cannot win at once (the caller
plays such a win itself), the game is not over, ``ply`` <= the book's ply.
"""
import numpy as np

from ..core.bits import popcount
from ..core.jit import called, entry, inlined
from .layout import (DISTANCE_BASE, KIND_LOWER, KIND_UPPER, S_BOARD, S_BOOK_PLY, S_BOTTOM, S_COLS, S_LOOKUPS,
                     MAX_COLS, S_MISSING, S_MOVES, S_NODES, S_ORDER, S_ROWS, VALUE_OFFSET)

ONE = np.uint64(1)
ZERO = np.uint64(0)


@inlined
def winning_cells(st, stones, mask):
    """The empty cells (of the board) that would complete 4 in a row of ``stones``."""
    h = np.int64(st[S_ROWS])
    # vertical: three stones straight below
    r = (stones << ONE) & (stones << np.uint64(2)) & (stones << np.uint64(3))
    for shift in (h + 1, h, h + 2):   # horizontal, and the two diagonals
        s = np.uint64(shift)
        p = (stones << s) & (stones << (s + s))
        r |= p & (stones << (s + s + s))
        r |= p & (stones >> s)
        p = (stones >> s) & (stones >> (s + s))
        r |= p & (stones << s)
        r |= p & (stones >> (s + s + s))
    return r & (st[S_BOARD] ^ mask)


@inlined
def playable(st, mask):
    """The cell each non-full column would take next."""
    return (mask + st[S_BOTTOM]) & st[S_BOARD]


@inlined
def can_win_now(st, cur, mask):
    """Whether the side to move completes 4 in a row with one move."""
    return winning_cells(st, cur, mask) & playable(st, mask) != ZERO


@inlined
def non_losing_moves(st, cur, mask):
    """The playable cells after which the opponent cannot win at once (0: every move
    loses; a move under an opponent's winning cell is no move)."""
    possible = playable(st, mask)
    threats = winning_cells(st, cur ^ mask, mask)
    forced = possible & threats
    if forced != ZERO:
        if forced & (forced - ONE) != ZERO:
            return ZERO   # two cells to block: lost
        possible = forced
    return possible & ~(threats >> ONE)


@inlined
def column_cells(st, col):
    """Every cell of column ``col``."""
    h = np.uint64(st[S_ROWS])
    return ((ONE << h) - ONE) << (np.uint64(col) * (h + ONE))


@inlined
def book_code(st, cur, mask, ply, mirror):
    """The position's 32-bit code in the database (Thill's Huffman code, as a signed
    int): columns left to right (right to left when ``mirror``), in each from the
    bottom a 2-bit code per stone (10 the first player's, 11 the second's) and a 0
    bit after the column's last stone; a final 0 bit."""
    cols = np.int64(st[S_COLS])
    h = np.int64(st[S_ROWS])
    first = cur if ply % 2 == 0 else cur ^ mask
    code = np.int64(0)
    for i in range(cols):
        col = cols - 1 - i if mirror else i
        for row in range(h):
            bit = ONE << np.uint64(col * (h + 1) + row)
            if mask & bit == ZERO:
                break
            code = (code << 2) | (2 if first & bit != ZERO else 3)
        code <<= 1
    code <<= 1
    if code >= np.int64(1) << 31:
        code -= np.int64(1) << 32
    return code


@inlined
def book_value(st, keys, values, cur, mask, ply):
    """The exact score of a book position (from the side to move) from the database;
    sets ``st[S_MISSING]`` and returns 0 when it is not there."""
    st[S_LOOKUPS] += ONE
    for mirror in (False, True):
        code = book_code(st, cur, mask, ply, mirror)
        i = np.searchsorted(keys, np.int32(code))
        if i < keys.shape[0] and keys[i] == code:
            v = np.int64(values[i])
            if v == 0:
                return np.int64(0)
            cells = np.int64(st[S_COLS] * st[S_ROWS])
            end = ply + DISTANCE_BASE - abs(v)   # stones on the board after the winning stone
            worth = (cells + 2 - end) // 2
            return worth if v > 0 else -worth
    st[S_MISSING] = ONE
    return np.int64(0)


@inlined
def move_order(st, cur, mask, moves, base):
    """The cells of ``moves`` (one per column) best first into ``st[base:]`` (their
    scores after them, from ``base + MAX_COLS``): most winning cells made, centre
    first on ties. Returns how many."""
    n = 0
    for i in range(np.int64(st[S_COLS])):
        m = moves & column_cells(st, np.int64(st[S_ORDER + i]))
        if m == ZERO:
            continue
        score = np.uint64(popcount(winning_cells(st, cur | m, mask)))
        j = n
        while j > 0 and st[base + MAX_COLS + j - 1] < score:
            st[base + j] = st[base + j - 1]
            st[base + MAX_COLS + j] = st[base + MAX_COLS + j - 1]
            j -= 1
        st[base + j] = m
        st[base + MAX_COLS + j] = score
        n += 1
    return n


@entry
def book_negamax(st, keys, values, tt, cur, mask, ply, alpha, beta):
    """The value of the position for the side to move in the window ``(alpha, beta)``
    (<= alpha: an upper bound, >= beta: a lower bound, else exact); meaningless when
    ``st[S_MISSING]`` is set. Preconditions: the module's contract. The family's entry
    point itself (:mod:`.entry`): numba optimizes all that a compiled function links, so
    an entry point calling it would optimize the search twice."""
    st[S_NODES] += ONE
    if ply == np.int64(st[S_BOOK_PLY]):
        return book_value(st, keys, values, cur, mask, ply)
    cells_n = np.int64(st[S_COLS] * st[S_ROWS])
    moves = non_losing_moves(st, cur, mask)
    if moves == ZERO:
        return -((cells_n - ply) // 2)
    if ply >= cells_n - 2:
        return np.int64(0)
    lo = -((cells_n - 2 - ply) // 2)
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (cells_n - 1 - ply) // 2
    key = cur + mask
    slot = np.int64(key % np.uint64(tt.shape[0]))
    entry = tt[slot]
    if entry != ZERO and entry >> np.uint64(8) == key:   # (the empty board's key is 0)
        v = np.int64(entry & np.uint64(127)) - VALUE_OFFSET
        if (entry >> np.uint64(7)) & ONE == KIND_LOWER:
            if alpha < v:
                alpha = v
                if alpha >= beta:
                    return alpha
        elif v < hi:
            hi = v
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    base = S_MOVES + 2 * MAX_COLS * ply
    n = move_order(st, cur, mask, moves, base)
    for i in range(n):
        child_mask = mask | st[base + i]
        v = -book_negamax(st, keys, values, tt, cur ^ mask, child_mask, ply + 1, -beta, -alpha)
        if st[S_MISSING] != ZERO:
            return np.int64(0)
        if v >= beta:
            tt[slot] = key << np.uint64(8) | np.uint64(KIND_LOWER << 7) | np.uint64(v + VALUE_OFFSET)
            return v
        if v > alpha:
            alpha = v
    tt[slot] = key << np.uint64(8) | np.uint64(KIND_UPPER << 7) | np.uint64(alpha + VALUE_OFFSET)
    return alpha
