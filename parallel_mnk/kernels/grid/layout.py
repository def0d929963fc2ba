"""The layout of the depth-limited engine's arrays (:mod:`.stones`, :mod:`.search`, :mod:`.tss`),
and its flags and score scale. Plain Python (no numba), like :mod:`..core.layout`.

Two int64 arrays describe a search:

``geo`` (read-only, built by :func:`parallel_mnk.game.geometry.build_grid_geometry`)::

    G_COLS, G_ROWS, G_K, G_GRAVITY, G_CELLS, G_NLINES, G_MAX_PLY  scalars
    G_OFF_LINES   nlines * k cell ids, one line after the other
    G_OFF_CSTART  cells + 1 starts into the cell-to-line list
    G_OFF_CLINES  the lines through each cell (CSR order)
    G_OFF_W       k + 2 line weights: W[j] = worth of a line holding j stones of
                  one player and none of the other (W[0] = 0)
    G_OFF_CENTRE  cells: small static bonus of a cell (centre first)
    G_OFF_ZOB     2 * cells + 1 Zobrist keys (cell, player) and the side-to-move key
    G_S_*         offsets of the parts of ``st``
    G_SET_WORDS   int64 words of one line set of ``st`` (``ceil(nlines / 64)``)

``st`` (the mutable position)::

    S_TURN (1 = first player, 2 = second), S_PLY (stones), S_EVAL (sum of line
    worths from the first player's view), S_HASH, S_THREAT + p (lines where player
    p has k-1 stones and the other none), S_NODES, S_EVALS, S_ABORTED, S_BEST,
    S_NODE_LIMIT (0: none), then board[cells] (0 empty, 1, 2), cnt[nlines * 2],
    height[cols] (stones per column), near[cells] (stones within 2 cells),
    four line sets (bit ``line`` of word ``line // 64`` of each: the lines holding
    ``k - 1`` stones of player 1 and none of the other's, the same of player 2, then
    ``k - 2`` of player 1, of player 2; :data:`SET_FOURS`, :data:`SET_THREES`), the
    per-ply move and score lists.

A cell index is ``row * cols + col`` with row 0 at the top, as everywhere.
"""

G_COLS = 0
G_ROWS = 1
G_K = 2
G_GRAVITY = 3
G_CELLS = 4
G_NLINES = 5
G_MAX_PLY = 6
G_OFF_LINES = 7
G_OFF_CSTART = 8
G_OFF_CLINES = 9
G_OFF_W = 10
G_OFF_CENTRE = 11
G_OFF_ZOB = 12
G_S_BOARD = 13
G_S_CNT = 14
G_S_HEIGHT = 15
G_S_NEAR = 16
G_S_MOVES = 17
G_S_MSCORE = 18
G_S_SIZE = 19
G_S_SETS = 20
G_SET_WORDS = 21
G_HEADER = 24

S_TURN = 0
S_PLY = 1
S_EVAL = 2
S_HASH = 3
S_THREAT = 4      # S_THREAT + 1, S_THREAT + 2: threat line counts of players 1 and 2
S_NODES = 7
S_EVALS = 8
S_ABORTED = 9
S_BEST = 10
S_NODE_LIMIT = 11
S_HEADER = 16

NEAR_RADIUS = 2   # F_NEAR: cells within this many rows and columns of a stone
SET_FOURS = 0     # the line set of ``k - 1`` stones of player p (and none of the other's): set p - 1
SET_THREES = 2    # ... of ``k - 2`` stones: set 2 + p - 1

# search features (flags of negamax_limited)
F_PRUNE = 1       # alpha-beta cut-offs (without it: plain minimax, every child searched)
F_ORDER = 2       # move ordering (table move, then grid.move_score)
F_TT = 4          # transposition table
F_THREATS = 8     # win in one found without search, the only block forced, a double threat lost
F_FAST = 16       # a win on search ply p is worth WIN - p (prefer quick wins, slow losses)
F_NEAR = 32       # free placement: only cells within NEAR_RADIUS of a stone are tried

WIN = 1 << 40          # worth of a win (minus its ply with F_FAST)
INF = 1 << 50
MATE_ZONE = 1 << 20    # scores within this of WIN are wins
