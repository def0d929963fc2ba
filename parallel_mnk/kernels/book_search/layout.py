"""The book search's arrays. Plain Python (no numba), like :mod:`..core.layout`.

The board is drawn column by column, ``rows + 1`` bits a column (the extra bit
stays empty so that shifts never carry a line from one column into the next), the
bottom cell of a column in its lowest bit, as in Pons' solver::

      6 13 20 27 34 41 48      (the spare row)
      5 12 19 26 33 40 47      top
      4 11 18 25 32 39 46
      3 10 17 24 31 38 45
      2  9 16 23 30 37 44
      1  8 15 22 29 36 43
      0  7 14 21 28 35 42      bottom

A position is ``cur`` (the side to move's stones) and ``mask`` (every stone);
``cur + mask`` is a unique key (the bottom bit of each column's empty part marks
its height). ``st`` (uint64) holds the board's shape and the search's counters:
"""

MAX_COLS = 8       # boards up to 8 columns
MAX_PLY = 56       # and 56 cells
S_COLS = 0         # columns
S_ROWS = 1         # rows
S_BOOK_PLY = 2     # stones on the book's positions (its leaves)
S_BOTTOM = 3       # the bottom cell of every column
S_BOARD = 4        # every cell of the board
S_NODES = 5        # nodes searched (cumulative)
S_LOOKUPS = 6      # database lookups (cumulative)
S_MISSING = 7      # set when a leaf was not in the database: the search's values mean nothing
S_ORDER = 8        # the columns, centre first (cols words)
S_MOVES = S_ORDER + MAX_COLS   # per ply: MAX_COLS moves then their MAX_COLS scores (move ordering)
S_SIZE = S_MOVES + 2 * MAX_COLS * (MAX_PLY + 1)

# a table entry: key (cur + mask) << 8 | kind << 7 | (value + VALUE_OFFSET)
KIND_UPPER = 0
KIND_LOWER = 1
VALUE_OFFSET = 64

# the database's values (from the side to move): 0 a draw, 100 - d a win and
# -(100 - d) a loss, the game ending d plies after the book's position
DISTANCE_BASE = 100
