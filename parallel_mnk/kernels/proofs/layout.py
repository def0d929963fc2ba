"""The layout of the proof machinery's region of the kernel context ``ctx``
(``ctx[OFF_PROOF:OFF_PROOF + PROOF_SIZE]``, see :mod:`..core.layout`), and the
function that fills its read-only part. Plain Python (no numba).

Windows are the ``k``-cell lines of ``ctx[OFF_LINES + i]``; a set of windows
is a bitset of ``WORDS`` uint64 words (window ``i`` is bit ``i % 64`` of word
``i // 64``), enough for the at most ``4 * 64`` windows of a 64-cell board.

A pairing certificate is a list of disjoint *pair masks* (two cells' bits in
one uint64); see :mod:`.pairing`.
"""
from parallel_mnk.settings import PAIRING_CAP, PAIRING_MIN_EMPTY, VCF_MIN_EMPTY, VCF_MOVES, VCF_NODE_CAP
from ..core.layout import MAX_CELLS, MAX_LINES, OFF_PROOF, PROOF_SIZE

WORDS = 4                # words of a window bitset
MIN_PAIR_K = 3           # the provers search pairings for k >= MIN_PAIR_K (free placement)
PAIR_CELLS = 7           # the finder pairs at most this many free cells of a window (C(7, 2) = 21 candidates):
                         #   complete for k <= 7, past it (more free cells) it may miss a certificate
MAX_CAND = PAIR_CELLS * (PAIR_CELLS - 1) // 2
MAX_PAIRS = MAX_CELLS // 2
CERT_SIZE = MAX_PAIRS + 1   # a stored certificate: its pair count, then the pair masks
RING = 4                    # certificates remembered per defender (tried again at later nodes)

# scalar slots
P_MIN_EMPTY = OFF_PROOF + 0    # negamax tests pairings at nodes with at least this many empty cells (0: off)
P_CAP = OFF_PROOF + 1          # node cap of one fresh certificate search
P_FRESH = OFF_PROOF + 2        # counters: fresh searches run,
P_FOUND = OFF_PROOF + 3        #   fresh searches that found a certificate,
P_CAPPED = OFF_PROOF + 4       #   fresh searches stopped by the cap,
P_REUSED = OFF_PROOF + 5       #   nodes settled by a remembered certificate,
P_DFS_NODES = OFF_PROOF + 6    #   nodes of all certificate searches
P_SCAN_MIN_EMPTY = OFF_PROOF + 7   # at nodes with at least this many empty cells (0: never), a side to move
                                   # without a certificate tries each move for one (note 2.5)
P_RING_NEXT = OFF_PROOF + 8    # [defender]: the ring slot the next certificate goes to
P_VCF_MIN_EMPTY = OFF_PROOF + 10   # negamax looks for a VCF at nodes with at least this many empty cells
P_VCF_MOVES = OFF_PROOF + 11       #   (0: never), with at most this many fours,
P_VCF_NODE_CAP = OFF_PROOF + 12    #   visiting at most this many nodes
P_VCF_NODES = OFF_PROOF + 13       # nodes of the current VCF search
P_VCF_CAP = OFF_PROOF + 14         # its node cap
P_VCF_WINS = OFF_PROOF + 15        # counters: VCF wins found at negamax nodes,
P_VCF_TOTAL = OFF_PROOF + 16       #   nodes of all VCF searches there
P_ZONE_NODES = OFF_PROOF + 17      # nodes whose moves a reply zone cut (pairing.reply_zone),
P_ZONE_SKIPS = OFF_PROOF + 18      #   moves it closed without a search
P_ZONE_ON = OFF_PROOF + 19         # 1: the free-placement search looks for reply zones where it tests pairings,
                                   #   and for threat zones where it looks for VCFs
P_THREAT_ZONES = OFF_PROOF + 20    # nodes where the opponent's VCF (as if the side to move passed) gave a threat zone
P_SCALARS_END = OFF_PROOF + 24

OFF_CELL_WIN = P_SCALARS_END                 # [cell][word]: the windows through a cell (read-only)
LEVEL_U = 0                                  # a level of the search's stack: uncovered windows (WORDS),
LEVEL_F = WORDS                              #   free cells,
LEVEL_N = WORDS + 1                          #   candidate pairs,
LEVEL_I = WORDS + 2                          #   the next candidate to try,
LEVEL_CAND = WORDS + 3                       #   the candidate pair masks, best first
LEVEL_SIZE = LEVEL_CAND + MAX_CAND
OFF_STACK = OFF_CELL_WIN + MAX_CELLS * WORDS
OFF_FOUND = OFF_STACK + (MAX_PAIRS + 1) * LEVEL_SIZE   # the last certificate found (CERT_SIZE)
OFF_RING = OFF_FOUND + CERT_SIZE                       # [defender][RING] certificates (CERT_SIZE each)
OFF_RING_SCORE = OFF_RING + 2 * RING * CERT_SIZE       # scratch: move-ordering scores of the candidates
VCF_MAX_MOVES = MAX_CELLS // 2 - 1
OFF_VCF_LINE = OFF_RING_SCORE + MAX_CAND               # the last VCF's line (proofs/threats.py)
# where the free-placement search's nodes end, per ply (``[ply][kind]``, counted by the search):
PROF_PRELUDE = 0     # forced lines and static bounds (no move left, or the window closed)
PROF_TABLE = 1       # the table's bound
PROF_THREATS = 2     # a VCF closed the window
PROF_PAIRING = 3     # a pairing certificate closed it
PROF_CUT = 4         # a searched move failed high
PROF_ALL = 5         # every move searched (or closed by a reply zone), none failed high
PROF_KINDS = 8
OFF_PROFILE = OFF_VCF_LINE + 2 * VCF_MAX_MOVES + 3
PROOF_END = OFF_PROFILE + (MAX_CELLS + 2) * PROF_KINDS
assert PROOF_END <= OFF_PROOF + PROOF_SIZE, "the proof region of ctx is too small"
assert MAX_LINES <= WORDS * 64




def fill_proof_tables(ctx, lines, cells: int, k: int, gravity: bool) -> None:
    """Write the read-only part of the proof region of ``ctx`` for a board whose
    windows are the bit masks ``lines`` (in the order of ``ctx[OFF_LINES:]``),
    and where the exact search tests pairings: free placement with
    ``k >= MIN_PAIR_K``,
    with the move scan wherever pairings are tested;
    and where it looks for wins by continuous fours: free placement with ``k >= 3``."""
    if not gravity and k >= 3:
        ctx[P_VCF_MIN_EMPTY] = VCF_MIN_EMPTY
        ctx[P_VCF_MOVES] = VCF_MOVES
        ctx[P_VCF_NODE_CAP] = VCF_NODE_CAP
    if not gravity and k >= MIN_PAIR_K:
        ctx[P_MIN_EMPTY] = PAIRING_MIN_EMPTY
        ctx[P_CAP] = PAIRING_CAP
        ctx[P_ZONE_ON] = 1
        ctx[P_SCAN_MIN_EMPTY] = PAIRING_MIN_EMPTY
    for i, line in enumerate(lines):
        cell = 0
        while line:
            if line & 1:
                slot = OFF_CELL_WIN + cell * WORDS + i // 64
                ctx[slot] = int(ctx[slot]) | (1 << (i % 64))
            line >>= 1
            cell += 1
