"""The one sheet of settings: every tunable of the search, the parallel pool, the
provers and the front ends, in rough order of importance, with a line of reason
each (as Steininger's c4 keeps its ``settings.h``). What each was measured at, and
what the other values gave, is in bench/README.md ("Settings and their figures").

The modules read their settings from here (the layer under all others: plain
numbers, no imports). The kernels compile theirs in as constants: the cache guard
(:mod:`parallel_mnk.runtime.cache_guard`) counts this file among every kernel
family's sources, so an edit here compiles the kernels again, once.
"""

# ------------------------------------------------------------------ the exact search
GRAVITY_RULES_OFF = 0          # gravity: bits of the search's rules (kernels/core/layout RULE_*) off by default: none, each pays
ETC_MIN_EMPTY = 14             # gravity: enhanced transposition cutoff from this many empty cells (each probe a cache miss)
POLL_MASK = 1023               # the kernels read the abort word once every POLL_MASK + 1 nodes
PREFETCH_CHILDREN = 4          # children whose table entries a node prefetches before it searches them
MAX_WORK = 15                  # the table's work counter saturates here (replacement keeps the bigger subtree)
GRAVITY_ORDER_WEIGHTS = (1200, 500, 300, 500)   # gravity move order: next-ply threats, the ply after, useful threats, the table's move (c4's, x1000)
PAIRING_MIN_EMPTY = 8          # free boards, 4 <= k <= 6: the search tests pairing certificates (and scans moves) from here
PAIRING_CAP = 100              # search nodes a pairing test may take at a node
VCF_MIN_EMPTY = 12             # free boards, k >= 3: wins by continuous fours looked for at nodes from here
VCF_MOVES = 8                  # fours a node's VCF search may try
VCF_NODE_CAP = 50              # nodes one VCF search may take
DFPN_AUTO_MIN_EMPTY = 20       # prover "auto" asks df-pn first from this many empty cells (free boards, weak, serial)
DFPN_AUTO_BUDGET = 1 << 19     # and caps it at this many nodes a question (then alpha-beta)
MOVE_SEARCH_TT_BITS = 20       # the table of a book answer's best-move search: small (a big new table costs page faults)

# ------------------------------------------------------------------ the proof-number prover (kernels/pns)
PN_AUTO_MIN_CELLS = 50        # prover "auto" answers weak solves of free boards of this many cells (to 64) by the pn prover
PN_PAIRING_MIN_EMPTY = 8       # pairings (and the scan) at nodes with this many empty cells or more
PN_VCF_MIN_EMPTY = 8           # wins by continuous fours looked for from here (a node's first visit)
PN_SCAN_TOP = 3                # the scan's fresh pairing searches: this many of D's moves, best first (all: 3-5x the time)
PN_INIT_WIDTH = 200            # a new child's numbers: this % of its empty cells for the side that must answer every move
PN_STORE_BITS = 24             # the settled store: 2**24 entries (512 MiB); a certificate needs every settled node there
PN_STORE_MAX_BITS = 27         # a solve's store: as many entries as its table, at most this many (4 GiB, its pool 3 GiB)
PN_LINE_MAX_EMPTY = 24         # a proof-number answer's line is completed by alpha-beta from this few empty cells
PN_JOB_NODES = 1 << 18         # a parallel proof's job: about this many nodes of df-pn on one leaf of the coordinator's tree
PN_JOB_TT_BITS = 22            # each worker's own table (32-byte entries: 128 MiB), kept from job to job
PN_OPEN_DEPTH = 2              # the coordinator's tree is split this many plies deep before any job
PN_SNAPSHOT_S = 300.0          # a journaled proof saves its store this often (a kill loses at most this much)
PN_SLICE_NODES = 1 << 22       # the serial prover drains its records and reports at least this often

# ------------------------------------------------------------------ the transposition table
DEFAULT_TT_BITS = 22           # a fixed 32 MiB table for callers that want one (the NMK protocol)
DEFAULT_TT_CAP = 256 << 20     # bytes: the default table of big free boards (more buys little, costs page faults)
LIMITED_TT_BITS = 20           # the depth-limited engine's table
BOARD_BUILD_MIN_CELLS = 36     # gravity boards of this many cells or more get a build with their geometry compiled in

# ------------------------------------------------------------------ the parallel split
DEFAULT_SPLIT_DEPTH = 1        # plies always split; more while there are fewer than MIN_TASKS tasks
MIN_TASKS = 8                  # (whatever the number of workers: more workers join running tasks)
SERIAL_BUDGET = 1 << 13        # nodes (about 2 ms) a parallel solve tries serially before it splits
SPLITS = True                  # split running tasks for idle workers (False: idle workers help a running task instead)
SPLIT_MIN_EMPTY = 16           # no split at nodes with fewer empty cells (their subtrees are too small to share)
SPLIT_AFTER_S = 0.002          # a task runs this long before it may be split (what it finished is in the table)
SETTLE_AT_HAND_OUT = True      # a task the shared table decides in one node is settled by the coordinator instead
MAX_SIBLINGS = {False: 1, True: 0}   # running children of one split node, by gravity (0: no limit): free boards do better with helpers
MAX_SPECULATIVE = 1            # running tasks young-brothers-wait does not allow yet; other idle workers help
MAX_HELPERS = 64               # at most this many workers on one task
DEFER_MIN_EMPTY = 8            # ABDADA: workers put off children another is inside from this many empty cells
BUSY_MARKS = 1 << 12           # ABDADA's marks in shared memory: room for every node the workers are inside at once
SPLIT_POLL_S = 0.001           # how often the coordinator looks for a task to split while workers are idle
TURN_S = 0.05                  # the longest the coordinator waits for results before it looks at its limits again

# ------------------------------------------------------------------ the pools and their faults
LOCAL_WORKERS_PER_CPU = 8      # process and thread pools: at most this many workers per usable CPU (and 64)
MAX_CLUSTER_WORKERS = 4096     # Ray tasks in flight at once
MAX_RESTARTS_PER_WORKER = 3    # a worker that dies more often than this ends the solve with an error
DRAIN_TIMEOUT_S = 10.0         # how long abandoned tasks may take to answer before their worker is reset
READY_WAIT_S = 60.0            # how long a new pool waits for its workers to map the table
CLOSE_WAIT_S = 1.0             # how long closing a pool waits for workers to leave before killing them
PARENT_POLL_S = 0.5            # how often a worker checks that its parent is alive
SIDE_POOL_TT_BITS = 16         # the pool's own table when its tasks do not use it (depth-limited, big boards)
RAY_POLL_S = 0.005             # a Ray task starts watching its actor this long after it starts (short ones never do)
RAY_WATCH_S = 1.0              # a Ray watch returns after this long without a change
RAY_REACH_TIMEOUT_S = 5.0      # how long a Ray address may take to answer before it is refused (Ray would retry for minutes)
RAY_FORGET_AFTER = 100_000     # finished Ray tasks remembered (their watches answer "done")
CERTIFY_TASKS_PER_WORKER = 8   # a parallel certificate walk cuts its frontier into this many tasks a worker

# ------------------------------------------------------------------ proofs and boards past 64 cells
BIG_FOURS = 20                 # fours a search for a win by continuous fours may play past 64 cells
BIG_THREES = 3                 # three-moves the threat-space search tries at the root, fewest first
BIG_THREAT_SHARE = 0.25        # of a node limit for that search
BIG_THREAT_NODES = 1 << 22     # its nodes without a node limit
BIG_FAIL_BITS = 16             # failures of the searches for wins by fours remembered
BIG_FIRST_BUDGET = 1 << 12     # analyze past 64 cells: nodes a move in the first pass
CERTIFICATE_PAIRING_CAP = 1 << 16   # certificates: pairing-finder nodes at a refuter position no lookahead tried
LOOKAHEAD_CAP = 1 << 12        # certificates: finder nodes per defender move tried for a pairing after it
VCF_CAP = 1 << 14              # certificates: VCF search nodes at a position where the claimant moves
CERTIFICATE_FRONTIER = 16      # the certificate walk's first levels go breadth first down to this many positions
PLAN_MAX = 1 << 16             # VCF moves a certificate walk remembers ahead (more: found again if needed)
BIG_VCT_NODES = 1 << 18        # certificates past 64 cells: threat-space search nodes at a claimant's position

# ------------------------------------------------------------------ the depth-limited engine (best, play)
DEFAULT_DEPTH = 4              # plies searched when neither a depth nor a time is given
BIG_BOARD_WIDTH = 14           # moves tried per node on boards over 64 cells (forced moves excepted)
FOURS_MOVES = 12               # attacker moves tried by the search for a win by continuous fours
LIMITED_THREES = 3             # three-moves tried by the threat-space search (free placement)
LIMITED_THREAT_NODES = 1 << 19 # its node budget when no smaller one is given (about 1 s)
THREAT_TIME_SHARE = 0.25       # of a time limit
THREAT_TABLE_BITS = 16         # failures remembered by the threat-space search

# ------------------------------------------------------------------ journals, the server, the game
COMMIT_EVERY_S = 0.25          # a checkpoint journal commits at most this often
SNAPSHOT_EVERY_S = 30.0        # and journals what running tasks finished this often
SERVE_MAX_TIME = 60.0          # serve: seconds any one search may take (--max-time)
SERVE_MAX_WAITING = 8          # serve: searches queued behind the running one
SERVE_WAIT_S = 30.0            # serve: how long a queued search waits for its turn before it is refused
SERVE_POLL_S = 0.02            # serve: how often a search asks whether its client is gone
PLAY_TIME_LIMIT = 3.0          # play: seconds per engine move (or hint)
PLAY_EXACT_SHARE = 0.7         # play: of them for the exact solver; the rest for the heuristic fallback
