"""The layout of the bitboard kernels' arrays: the context ``ctx``, the control
array ``ctl`` and the transposition-table entry. Plain Python (no numba): the
layers above read these constants without loading the kernels.

Offsets into the kernel context array ``ctx`` (``uint64[CTX_SIZE]``).

The kernels see the game only through ``ctx``: board constants, shift masks, line
masks, Zobrist keys, symmetry maps, and per-ply scratch space. It is built by
:func:`parallel_mnk.game.geometry.build_context`; each search owns its own copy
(the scratch part is written during the search).

All entries are non-negative ``uint64``. Module-level ints are compile-time
constants for numba.
"""
from parallel_mnk.settings import GRAVITY_RULES_OFF   # (absolute: per-board builds copy this module)

MAX_CELLS = 64
MAX_PLY = MAX_CELLS + 2
MAX_SYM = 8
MAX_LINES = 4 * MAX_CELLS
N_DIR = 4  # E, S, SE, SW

# scalar slots
C_COLS = 0
C_ROWS = 1
C_K = 2
C_GRAVITY = 3
C_CELLS = 4
C_NSYM = 5
C_NLINES = 6
C_BOARD = 7          # mask of all cells
C_BOTTOM = 8         # mask of the bottom row (gravity)
C_NODES = 9          # node counter (written by the search)
C_ABORTED = 10       # set to 1 when the search was aborted; results are then void
C_SALT = 11          # XORed into every table key (a new salt = a cleared table)
C_NODE_LIMIT = 12    # abort once C_NODES reaches this (0: no limit); checked every 1024 nodes
C_TASK_ID = 13       # id of the task being searched (0: none); see CTL_* below
C_CTL_SLOT = 14      # this searcher's slots in ctl (abort id, then the live window)
C_RESULT_KIND = 15   # kind of the last task-root result: 1 lower, 2 upper, 3 exact
C_WEIGHT = 16        # 16..16+MAX_CELLS: move-ordering weight of a line holding j stones
C_DEFER_MIN_EMPTY = C_WEIGHT + MAX_CELLS + 2  # ABDADA deferral at nodes with at least this many
                     # empty cells (0: off); the busy marks live in ``ctl`` (CTL_BUSY_*)
C_EVEN = C_DEFER_MIN_EMPTY + 1      # gravity: cells on an even row counted from the bottom (1-based)
C_RULES = C_EVEN + 1                # gravity: the search's rules that are on (RULE_* bits; RULES_DEFAULT)
C_ETC_MIN_EMPTY = C_RULES + 1       # gravity: probe the children's table entries at nodes with at least this
                                    # many empty cells (enhanced transposition cutoff)
C_PATH_SLOT = C_ETC_MIN_EMPTY + 1   # index in ``ctl`` of this searcher's path words (0: its line is not published)
C_PATH_ROOT = C_PATH_SLOT + 1       # ply of the task root the path words count from
C_SCALARS_END = C_PATH_ROOT + 1

# shift masks: for direction d, way w (0 = forward, 1 = backward) and step j (1..MAX):
#   forward:  (b & PRE[d,0,j]) << SHIFT[d,j]   moves each stone j cells along d
#   backward: (b & PRE[d,1,j]) >> SHIFT[d,j]   moves each stone j cells against d
OFF_PRE = C_SCALARS_END
OFF_SHIFT = OFF_PRE + N_DIR * 2 * (MAX_CELLS + 1)
OFF_LINES = OFF_SHIFT + N_DIR * (MAX_CELLS + 1)
OFF_STATIC = OFF_LINES + MAX_LINES          # static ordering bonus per cell (< 64, centre first)
OFF_ZOBRIST = OFF_STATIC + MAX_CELLS        # [sym][cell][player]
OFF_PERM = OFF_ZOBRIST + MAX_SYM * MAX_CELLS * 2   # [sym][cell] -> cell under the symmetry
OFF_INVPERM = OFF_PERM + MAX_SYM * MAX_CELLS
OFF_HASH = OFF_INVPERM + MAX_SYM * MAX_CELLS       # scratch [ply][sym]
OFF_MOVES = OFF_HASH + MAX_PLY * MAX_SYM          # scratch [ply][i]
OFF_SCORES = OFF_MOVES + MAX_PLY * MAX_CELLS      # scratch [ply][cell] per-cell scores, then [ply][i] sorted
OFF_TMP = OFF_SCORES + MAX_PLY * 2 * MAX_CELLS    # scratch for one kernel call (no recursion)
OFF_PROOF = OFF_TMP + MAX_CELLS + 2               # the proof machinery's region (kernels/proofs/layout.py)
PROOF_SIZE = 4096
# gravity search: per ply, the table lookup a parent already made for the node at that
# ply (GN_SIZE words), then per ply and child of the node at that ply a record of
# GC_SIZE words: what the child's static analysis found (kernels/gravity/search.py).
# The records take (cells + 2) * cols * GC_SIZE words after CTX_SIZE, in gravity
# contexts only (gravity_records_size).
OFF_GNODE = OFF_PROOF + PROOF_SIZE
GN_KEY, GN_ENTRY, GN_LO, GN_HI = range(4)   # GN_LO 0: nothing known (else bounds + SCORE_BIAS)
GN_SIZE = 4
OFF_GCHILD = OFF_GNODE + MAX_PLY * GN_SIZE
GC_OWN, GC_OPP, GC_PLY, GC_LO, GC_HI, GC_H0, GC_H1, GC_KEY, GC_ENTRY, GC_CELL = range(10)
GC_SIZE = 10
CTX_SIZE = OFF_GCHILD


def gravity_records_size(cells: int, cols: int) -> int:
    """Words of child records a gravity context needs after ``CTX_SIZE``."""
    return (cells + 2) * cols * GC_SIZE


# the gravity search's rules (bits of ctx[C_RULES]), all on; each can be switched off to measure it
RULE_STATIC = 1      # children resolved statically (forced lines played out, bounds) before any is searched
RULE_EVENS = 2       # the even-squares (claimeven) bound on boards of even height
RULE_ETC = 4         # enhanced transposition cutoff (children's table entries probed first)
RULE_THREAT_ORDER = 16   # move ordering by useful threats weighted by how soon they can be played
RULES_ALL = RULE_STATIC | RULE_EVENS | RULE_ETC | RULE_THREAT_ORDER
RULES_DEFAULT = RULES_ALL & ~GRAVITY_RULES_OFF   # (the settings sheet)
SCORE_BIAS = 1024    # signed scores stored in ctx (uint64) with this added

# control array ``ctl`` (int64, may live in shared memory): polled by the search
CTL_ABORT = 0        # non-zero: every search stops as soon as possible
CTL_BUSY_BASE = 1    # busy marks shared by the searchers of one table (ABDADA): ctl[CTL_BUSY_BASE]
CTL_BUSY_MASK = 2    #   is the index of the first mark (0: none) and ctl[CTL_BUSY_MASK] the number
                     #   of marks - 1 (a power of two); a mark holds the key of a node some
                     #   searcher is inside, so that the others search their other moves first
CTL_WORKERS = 8      # then CTL_PER_WORKER words per searcher, from ctx[C_CTL_SLOT]:
CTL_TASK_ABORT = 0   #   the id of a task to abandon (its result is no longer needed)   } written by the
CTL_LIVE_WINDOW = 1  #   live window of the task root: pack_window(task_id, alpha, beta) } coordinator
CTL_PATH = 8         #   the searcher's line below its task root, one word a ply (PATH_DEPTH plies):
PATH_DEPTH = 24      #   pack_step(...) of the move it is inside at that ply, 0 where none (written by the
                     #   searcher, read by the coordinator to split a running task where its first move is done)
CTL_PER_WORKER = 32  # (four cache lines: no searcher's words share a line with another's)
CTL_SIZE = CTL_WORKERS + CTL_PER_WORKER   # one searcher; a pool allocates more
WINDOW_BIAS = 1024   # alpha and beta are stored + WINDOW_BIAS in 16 bits each
BUSY_MARK_STRIDE = 8  # words from one busy mark to the next: a cache line each


def pack_window(task_id: int, alpha: int, beta: int) -> int:
    """The live-window word of a task: its id and window in one int64, so that a
    reader sees both at once (the kernel unpacks it, ``sharing.live_window``)."""
    return (task_id << 32) | ((alpha + WINDOW_BIAS) << 16) | (beta + WINDOW_BIAS)


def pack_step(task_id: int, done: int, ply: int, child_ply: int, cell: int) -> int:
    """A path word (``CTL_PATH``): task ``task_id``'s search is at a node of ``ply``
    stones, inside its move to ``cell`` (whose forced line, if any, reaches a node of
    ``child_ply`` stones), after ``done`` moves of that node finished. The kernels
    write the same packing (``sharing.publish_step``)."""
    return (task_id << 32) | (min(done, 255) << 24) | (child_ply << 16) | (ply << 8) | cell


def unpack_step(word: int) -> tuple[int, int, int, int, int]:
    """``(task_id, done, ply, child_ply, cell)`` of a path word (:func:`pack_step`)."""
    return word >> 32, (word >> 24) & 255, (word >> 8) & 255, (word >> 16) & 255, word & 255


# transposition-table entry (one uint64), in buckets of two (entries 2i and 2i+1):
#   bits 63..23  key check (high 41 bits of the salted canonical hash)
#   bits 22..20  generation (low 3 bits of the solve's salt): an entry of an
#                older solve counts as empty when a slot is chosen
#   bits 19..16  work: log8 of the nodes its search took (saturating at 15);
#                a new entry replaces the one of the two with less work
#   bits 15..9   best move + 1 (cell in the canonical orientation; 0 = none)
#   bits  8..7   flag: 0 empty, 1 lower bound, 2 upper bound, 3 exact
#   bits  6..0   score + 64
TT_EMPTY = 0
TT_LOWER = 1
TT_UPPER = 2
TT_EXACT = 3
TT_KEY_SHIFT = 23
TT_GEN_SHIFT = 20
TT_WORK_SHIFT = 16
TT_MOVE_SHIFT = 9
TT_FLAG_SHIFT = 7
TT_SCORE_BIAS = 64
