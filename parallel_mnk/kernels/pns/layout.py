"""The layout of the proof-number prover's arrays (plain Python, no numba): its
table ``pt``, its stores ``st`` and ``ss``, its work array ``wk`` and the buffer
``rb`` its certificate walk writes records to (:mod:`.search`, :mod:`.certificate_walk`).

The table ``pt`` (``uint64``, private to one searcher): entries of ``PT_WORDS`` words
in buckets of two (one 64-byte line)::

    word 0  key: the salted canonical hash (0: empty)
    word 1  pn (bits 0..29) | dn << 30 | EVALUATED << 60 (the node's exact rules ran)
    word 2  zone of a disproven node, in the canonical frame (0 otherwise)
    word 3  work (nodes its last search took, saturating at 2**32 - 1)
            | (move + 1) << 32 (canonical frame; the proving or disproving move, 0: none)

The stores (``uint64``): every node settled, never replaced, with what its record
needs: a proof's certificate is written from them (:mod:`.certificate_walk`). ``st`` is
the searcher's own or one it shares with every searcher of the question (in
memory all processes map: workers claim a slot with a compare-and-swap, the first
writer of a node wins, the others take its result); ``ss`` a second one read
first (none: ``wk[W_SS_MASK]`` 0). Open addressing, ``ST_WORDS`` words an entry::

    word 0  key | 1 (odd; 0: empty; ST_BUSY | writer << 2 while its writer fills it;
            ST_DEAD: a slot whose writer died, skipped)
    word 1  value (1 proven, 2 disproven) | kind << 2 (what its record is: KIND_*)
            | (move + 1) << 8 (canonical frame) | pairing's offset in the pool << 16
    word 2  zone (canonical frame)
    word 3  the attacker's moves walked first (KIND_FIRST; canonical frame)

then the pairing pool: its first word the next free offset, then pairings of a
count and that many pair masks (canonical frame).

The work array ``wk`` (``uint64``): counters, then per ply the node's children
(``CH_WORDS`` words each: cell, canonical key, symmetry, the numbers its last search
returned, its zone in this node's frame once disproven), then per line of the board
its rings (``RING_WORDS`` masks: its cells nearest the middle first; see
:func:`line_rings`), then a VCF line kept while its positions are stored.

The record buffer ``rb`` (``uint64``): ``rb[0]`` the next free word; records of
``3 + n`` words: header ``kind | n << 8 | stream << 24``, the first player's stones,
the second's, then ``n`` payload words (cells, or pair masks for ``REC_PAIRS``).
"""
from ..core.layout import MAX_CELLS, MAX_LINES, MAX_PLY

INF = (1 << 30) - 1
PT_WORDS = 4
ST_WORDS = 4
ST_BUSY = 2
ST_DEAD = 4
SETTLED_PROVEN = 1
SETTLED_DISPROVEN = 2
KIND_NONE = 0        # no record: the checker walks every move (or a rule settles it)
KIND_MOVE = 1        # the claimant's move (word 1)
KIND_PAIRS = 2       # the defender's pairing, the attacker to move (in the pool)
KIND_FIRST = 3       # the attacker's moves walked first; zones answer the others (word 3)
POOL_PAIRING = 33    # words of a pairing in the pool at most (its count and 32 pair masks)


def pool_words(entries: int) -> int:
    """Words of a store's pairing pool for ``entries`` entries (a quarter of them pairings, 12 words each)."""
    return 3 * entries + 8

# counters (wk[0:W_COUNTERS])
W_NODES = 0          # nodes visited (re-expansions included)
W_NODE_LIMIT = 1     # stop once W_NODES reaches this (0: none)
W_STOP = 2           # why the last call stopped: STOP_*
W_ROOT_PN = 3        # the root's numbers when the last call returned
W_ROOT_DN = 4
W_EVALUATED = 5      # nodes whose exact rules ran
W_VCF_PROOFS = 6     # OR nodes proven by a VCF of the attacker
W_VCF_DISPROOFS = 7  # AND nodes disproven by a VCF of the defender
W_PAIRINGS = 8       # nodes disproven by a pairing certificate (at once, or after one defender move)
W_EXCUSED = 9        # attacker moves a zone answered without a search (counted at each settle)
W_THREAT_CUTS = 10   # defender moves a threat zone answered without a search (at each settle)
W_STORE_HITS = 11    # nodes settled from the store
W_STORE_FULL = 12    # 1: the store had no room (a certificate can no longer be written)
W_RECORDS = 13       # records a certificate walk wrote
W_SCAN_ON = 14       # 1: at the defender's nodes, moves are tried for a pairing after them (the scan)
W_PAIR_MIN_EMPTY = 15  # pairings and the scan from this many empty cells (0: never)
W_VCF_MIN_EMPTY = 16   # VCF searches from this many empty cells (0: never)
W_ZONES_ON = 17      # bit 0: zones answer the attacker's moves; bit 1: threat zones the defender's
W_WALK_DONE = 18     # a certificate walk: 1 once its stack is empty
W_ST_MASK = 19       # the store's entries - 1 (a power of two; 0: no store)
W_ROOT_ZONE = 20     # the root's zone when it was disproven (actual frame)
W_ROOT_MOVE = 21     # the root's settling move + 1 (actual frame; 0: none)
W_SCAN_TRIES = 22    # defender moves the scan tried
W_ST_USED = 23       # store entries written by this searcher
W_HALT = 24          # non-zero: the search is unwinding (W_STOP says why)
W_WALK_MISSING = 25  # a certificate walk met a position the store lacks (a bug: the certificate is lost)
W_SCAN_TOP = 26      # the scan's fresh pairing searches try this many of D's moves, best first
W_SS_MASK = 28       # the shared store's entries - 1 (0: none)
W_SOFT_LIMIT = 29    # past this many nodes (0: never) every node returns its numbers as they are (a job's end)
W_WRITER = 30        # this searcher's number in the store's busy marks (0: the coordinator or alone)
W_SHARED = 31        # 1: other searchers write the store too (a node the table holds open may be settled there)
W_INIT_WIDTH = 27    # a new child's number of the side that must refute every move: this percentage of
                     # the empty cells (1 when the move just made leaves a completion cell: one forced reply)
W_COUNTERS = 32

STOP_DONE = 0        # the root was settled
STOP_LIMIT = 1       # the node limit
STOP_ABORT = 2       # ctl's abort word
STOP_THRESHOLD = 3   # the root's thresholds were reached (a bounded job)
STOP_BUFFER = 4      # a certificate walk's record buffer is nearly full: drain it and call again

# per-ply children
CH_CELL = 0
CH_KEY = 1
CH_SYM = 2
CH_NUMS = 3          # pn | dn << 30 of the child's last search (0: none yet)
CH_ZONE = 4          # the child's zone in the node's frame, once disproven
CH_WORDS = 5
OFF_CHILDREN = W_COUNTERS
PLY_WORDS = MAX_CELLS * CH_WORDS
OFF_RINGS = OFF_CHILDREN + MAX_PLY * PLY_WORDS
RING_WORDS = 4
OFF_VLINE = OFF_RINGS + MAX_LINES * RING_WORDS   # a VCF line kept across calls (at most MAX_CELLS cells)
WK_SIZE = OFF_VLINE + MAX_CELLS + 8

# records
REC_MOVE = 1         # the claimant's move (payload: the cell)
REC_PAIRS = 2        # the defender's pairing, the attacker to move (payload: pair masks)
REC_FIRST = 3        # the attacker's moves walked first; the others answered by their zones (payload: cells)
STREAM_WINS = 0      # the attacker wins
STREAM_CANNOT = 1    # the attacker cannot win
RB_HEADROOM = 4 * MAX_CELLS   # a search stops (STOP_BUFFER) once fewer words than this are free


def line_rings(line_cells: list[int], k: int) -> list[int]:
    """The rings of a line of ``k`` cells (``line_cells`` in order along it): masks of
    its cells by distance from its middle, nearest first (a cell ``i`` of it is at
    ``|2i - (k - 1)|``); ``RING_WORDS`` masks, the last ones 0 when there are fewer."""
    by_distance: dict[int, int] = {}
    for i, cell in enumerate(line_cells):
        d = abs(2 * i - (k - 1))
        by_distance[d] = by_distance.get(d, 0) | (1 << cell)
    rings = [by_distance[d] for d in sorted(by_distance)]
    if len(rings) > RING_WORDS:   # (lines of more than 2 * RING_WORDS cells: the outer rings as one)
        outer = 0
        for r in rings[RING_WORDS - 1:]:
            outer |= r
        rings = rings[:RING_WORDS - 1] + [outer]
    return rings + [0] * (RING_WORDS - len(rings))
