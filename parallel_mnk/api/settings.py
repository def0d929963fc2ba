"""The runtime sheet: every tunable the kernels do not compile in, as one frozen
record, :class:`Settings`, with a line of reason each and the range it may take
(as Steininger's c4 keeps its ``settings.h``; the constants compiled into the
kernels are the other sheet, :mod:`parallel_mnk.settings`). What each was
measured at, and what the other values gave, is in bench/README.md ("Settings and
their figures").

A solve may change any of them: ``Options(settings=Settings(SPLIT_MIN_EMPTY=12))``
(or ``parallel-mnk solve --setting SPLIT_MIN_EMPTY=12``). The modules read them where
they use them, from :func:`current`: the settings of the search running in this
process (:func:`applied`, which the library's functions open for their options'
settings), the defaults (:data:`DEFAULTS`) otherwise. A process runs with one set
of settings at a time (a second search with other settings while one runs is
refused); a pool's workers run each task with the settings it came with
(:mod:`parallel_mnk.parallel.pools`). Every check raises :class:`OptionError`, one
line each.
"""
from __future__ import annotations

import difflib
import math
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Iterator, Optional, TypeVar

from ..game.rules import MAX_CELLS, OptionError

T = TypeVar("T")
TABLE_BITS = (10, 34)   # a table of 2**bits 8-byte entries (runtime.ttable's MIN_TT_BITS, MAX_TT_BITS)
COUNT = 1 << 62         # the most nodes, tasks or entries any budget or cap may be (the kernels count in int64)
SECONDS = 1e6           # the longest wait or period, in seconds (11 days)
FOURS = 62              # the most fours of a continuous-four search past 64 cells (kernels/grid/tss.py MAX_FOURS: its line's room)


def setting(default: T, lo: Any, hi: Any, *, power_of_two: bool = False, by_board: bool = False) -> T:
    """A field of :class:`Settings`: its default and the range ``lo <= value <= hi``
    it may take (``power_of_two``: and a power of two; ``by_board``: or
    :data:`BY_BOARD`, a value the board decides)."""
    return field(default=default, metadata={"lo": lo, "hi": hi, "power_of_two": power_of_two, "by_board": by_board})


BY_BOARD = -1   # a setting's value that the board decides (:meth:`Settings.big_pn_budget`)
# The pn prover's threat budgets past 64 cells by the board, ``(threes, nodes)``: on boards of fewer
# than BIG_PN_WIDE_CELLS cells, and from it. Wins on the wide boards need threat sequences of three
# threes found within 65,536 nodes; on the smaller ones such searches cost the draws more than they
# save (bench/README.md, "Threat budgets by the board").
BIG_PN_BUDGETS = ((1, 1 << 12), (3, 1 << 16))


@dataclass(frozen=True, init=False)
class Settings:
    """The runtime settings, each a field named as the sheet names it (bench/README.md
    uses the same names). ``Settings(NAME=value, ...)``: the defaults with those
    changed, each checked (:class:`OptionError`: an unknown name, with the closest
    one; a value of the wrong type or out of its range). :meth:`replace` changes
    some of another; :meth:`as_dict` is what ``--version`` prints, :meth:`changes`
    what a result's ``--json`` does.
    """

    # -------------------------------------------------------------- the exact search
    DFPN_AUTO_MIN_EMPTY: int = setting(20, 0, MAX_CELLS)       # prover "auto" asks df-pn first from this many empty cells (free boards, weak, serial)
    DFPN_AUTO_BUDGET: int = setting(1 << 19, 1, COUNT)         # and caps it at this many nodes a question (then alpha-beta)
    MOVE_SEARCH_TT_BITS: int = setting(20, *TABLE_BITS)        # the table of a book answer's best-move search: small (a big new table costs page faults)

    # -------------------------------------------------------------- the proof-number prover
    PN_AUTO_MIN_CELLS: int = setting(50, 1, 26 * 26 + 1)     # prover "auto" answers weak solves of free boards of this many cells or more by the pn prover (677: never)
    PN_PAIRING_MIN_EMPTY: int = setting(8, 0, MAX_CELLS)      # pairings (and the scan) at nodes with this many empty cells or more (0: never)
    PN_VCF_MIN_EMPTY: int = setting(8, 0, MAX_CELLS)          # wins by continuous fours looked for from here (a node's first visit; 0: never)
    PN_SCAN_TOP: int = setting(3, 0, MAX_CELLS)               # the scan's fresh pairing searches: this many of D's moves, best first (all: 3-5x the time)
    PN_INIT_WIDTH: int = setting(200, 1, 1 << 16)             # a new child's numbers: this % of its empty cells for the side that must answer every move
    PN_STORE_BITS: int = setting(24, 4, 31)                   # the settled store: 2**24 entries (512 MiB); a certificate needs every settled node there
    PN_STORE_MAX_BITS: int = setting(27, 16, 31)              # a solve's store: as many entries as its table, at most this many (4 GiB, its pool 3 GiB)
    PN_LINE_MAX_EMPTY: int = setting(24, 0, MAX_CELLS)        # a proof-number answer's line is completed by alpha-beta from this few empty cells
    PN_JOB_NODES: int = setting(1 << 18, 1, COUNT)            # a parallel proof's job: about this many nodes of df-pn on one leaf of the coordinator's tree
    PN_JOB_TT_BITS: int = setting(22, 12, 30)                 # each worker's own table (32-byte entries: 128 MiB), kept from job to job
    PN_REPLICAS: bool = setting(False, False, True)           # each worker a replica of the settled store, kept in step by the coordinator's log (the Ray backend: always; on this machine's pool the workers map the store itself)
    PN_REPLICA_SYNC_NODES: int = setting(1 << 13, 1, COUNT)   # with replicas: a job takes the store's newest additions (what other jobs settled meanwhile) every this many nodes, where its backend posts them (Ray, threads)
    PN_JOB_STORE_BITS: int = setting(20, 12, 28)              # with replicas: the store of one job's settled nodes (sent back for the coordinator to merge), 2**20 entries
    PN_OPEN_DEPTH: int = setting(2, 0, MAX_CELLS)             # the coordinator's tree is split this many plies deep before any job
    PN_MANY_WORKERS: int = setting(8, 2, 1 << 16)             # from this many workers the tree is split a ply deeper, every attacker's move handed out at once (no zone wait)
    PN_SNAPSHOT_S: float = setting(300.0, 0.0, SECONDS)       # a journaled proof saves its store this often (a kill loses at most this much)
    PN_SLICE_NODES: int = setting(1 << 22, 1, COUNT)          # the serial prover drains its records and reports at least this often

    # -------------------------------------------------------------- the transposition table
    DEFAULT_TT_BITS: int = setting(22, *TABLE_BITS)           # a fixed 32 MiB table for callers that want one (the NMK protocol)
    DEFAULT_TT_CAP: int = setting(256 << 20, 8 << TABLE_BITS[0], 8 << TABLE_BITS[1])   # bytes: the default table of big free boards (more buys little, costs page faults)
    LIMITED_TT_BITS: int = setting(20, *TABLE_BITS)           # the depth-limited engine's table
    BOARD_BUILD_MIN_CELLS: int = setting(36, 1, MAX_CELLS)    # gravity boards of this many cells or more get a build with their geometry compiled in

    # -------------------------------------------------------------- the parallel split
    DEFAULT_SPLIT_DEPTH: int = setting(1, 0, 8)               # plies always split; more while there are fewer than MIN_TASKS tasks (api.options.MAX_SPLIT_DEPTH)
    MIN_TASKS: int = setting(8, 0, 1 << 20)                   # (whatever the number of workers: more workers join running tasks)
    SERIAL_BUDGET: int = setting(1 << 13, 0, COUNT)           # nodes (about 2 ms) a parallel solve tries serially before it splits
    SPLITS: bool = setting(True, False, True)                 # split running tasks for idle workers (False: idle workers help a running task instead)
    SPLIT_MIN_EMPTY: int = setting(16, 0, MAX_CELLS)          # no split at nodes with fewer empty cells (their subtrees are too small to share)
    SPLIT_AFTER_S: float = setting(0.002, 0.0, SECONDS)       # a task runs this long before it may be split (what it finished is in the table)
    SETTLE_AT_HAND_OUT: bool = setting(True, False, True)     # a task the shared table decides in one node is settled by the coordinator instead
    MAX_SIBLINGS: tuple[int, int] = setting((1, 0), 0, 1 << 20)   # running children of one split node, (free, gravity) (0: no limit): free boards do better with helpers
    MAX_SPECULATIVE: int = setting(1, 0, 1 << 20)             # running tasks young-brothers-wait does not allow yet; other idle workers help
    MAX_HELPERS: int = setting(64, 0, 1 << 20)                # at most this many workers on one task
    DEFER_MIN_EMPTY: int = setting(8, 0, MAX_CELLS)           # ABDADA: workers put off children another is inside from this many empty cells (0: never)
    BUSY_MARKS: int = setting(1 << 12, 1, 1 << 24, power_of_two=True)   # ABDADA's marks in shared memory: room for every node the workers are inside at once
    SPLIT_POLL_S: float = setting(0.001, 0.0, SECONDS)        # how often the coordinator looks for a task to split while workers are idle
    TURN_S: float = setting(0.05, 0.0, SECONDS)               # the longest the coordinator waits for results before it looks at its limits again

    # -------------------------------------------------------------- the pools and their faults
    LOCAL_WORKERS_PER_CPU: int = setting(8, 1, 1 << 10)       # process and thread pools: at most this many workers per usable CPU (and 64)
    MAX_CLUSTER_WORKERS: int = setting(4096, 1, 1 << 20)      # Ray tasks in flight at once
    MAX_RESTARTS_PER_WORKER: int = setting(3, 0, 1 << 20)     # a worker that dies more often than this ends the solve with an error
    DRAIN_TIMEOUT_S: float = setting(10.0, 0.0, SECONDS)      # how long abandoned tasks may take to answer before their worker is reset
    READY_WAIT_S: float = setting(60.0, 0.0, SECONDS)         # how long a new pool waits for its workers to map the table
    CLOSE_WAIT_S: float = setting(1.0, 0.0, SECONDS)          # how long closing a pool waits for workers to leave before killing them
    PARENT_POLL_S: float = setting(0.5, 0.001, SECONDS)       # how often a worker checks that its parent is alive
    SIDE_POOL_TT_BITS: int = setting(16, *TABLE_BITS)         # the pool's own table when its tasks do not use it (depth-limited, big boards)
    RAY_POLL_S: float = setting(0.005, 0.0, SECONDS)          # a Ray task starts watching its actor this long after it starts (short ones never do)
    RAY_WATCH_S: float = setting(1.0, 0.001, SECONDS)         # a Ray watch returns after this long without a change
    RAY_REACH_TIMEOUT_S: float = setting(5.0, 0.001, SECONDS)   # how long a Ray address may take to answer before it is refused (Ray would retry for minutes)
    RAY_FORGET_AFTER: int = setting(100_000, 1, COUNT)        # finished Ray tasks remembered (their watches answer "done")
    CERTIFY_TASKS_PER_WORKER: int = setting(8, 1, 1 << 20)    # a parallel certificate walk cuts its frontier into this many tasks a worker

    # -------------------------------------------------------------- proofs and boards past 64 cells
    BIG_FOURS: int = setting(20, 0, FOURS)                    # fours a search for a win by continuous fours may play past 64 cells
    BIG_THREES: int = setting(3, 0, 1 << 10)                  # three-moves the threat-space search tries at the root, fewest first
    BIG_THREAT_SHARE: float = setting(0.25, 0.0, 1.0)         # of a node limit for that search
    BIG_THREAT_NODES: int = setting(1 << 22, 1, COUNT)        # its nodes without a node limit
    BIG_FAIL_BITS: int = setting(16, 4, TABLE_BITS[1])        # failures of the searches for wins by fours remembered
    BIG_FIRST_BUDGET: int = setting(1 << 12, 1, COUNT)        # analyze past 64 cells: nodes a move in the first pass
    CERTIFICATE_PAIRING_CAP: int = setting(1 << 16, 1, COUNT)   # certificates: pairing-finder nodes at a refuter position no lookahead tried
    LOOKAHEAD_CAP: int = setting(1 << 12, 1, COUNT)           # certificates: finder nodes per defender move tried for a pairing after it
    VCF_CAP: int = setting(1 << 14, 1, COUNT)                 # certificates: VCF search nodes at a position where the claimant moves
    CERTIFICATE_FRONTIER: int = setting(16, 1, 1 << 20)       # the certificate walk's first levels go breadth first down to this many positions
    PLAN_MAX: int = setting(1 << 16, 1, COUNT)                # VCF moves a certificate walk remembers ahead (more: found again if needed)
    BIG_VCT_NODES: int = setting(1 << 18, 1, COUNT)           # certificates past 64 cells: threat-space search nodes at a claimant's position
    BIG_PN_THREES: int = setting(BY_BOARD, 0, 1 << 10, by_board=True)   # the pn prover past 64 cells: three-moves its threat-space search tries at an attacker's node (-1: by the board, BIG_PN_BUDGETS)
    BIG_PN_VCT_NODES: int = setting(BY_BOARD, 1, COUNT, by_board=True)  # its nodes a search (at an attacker's node; the fours after a pass at a defender's; -1: by the board)
    BIG_PN_WIDE_CELLS: int = setting(100, 65, 26 * 26 + 1)    # boards of this many cells or more take the wider of BIG_PN_BUDGETS
    BIG_PN_ZONE_THREES: int = setting(0, 0, 1 << 10)          # its threes a win after a pass may take to cut a defender's node to that win's zone (0: continuous fours only; more measured slower, bench/README.md)
    BIG_PN_ZONE_NODES: int = setting(1 << 12, 1, COUNT)       # its kernel nodes for one such zone (the win found and proven again)
    BIG_PN_PAIRING_LINES: int = setting(64, 0, COUNT)          # its search for the defender's pairing (a disproof) looks past this many live lines of the attacker only until a search there fails (0: never, nor a big-board solve's draw by pairings)
    BIG_PN_PAIRING_NODES: int = setting(512, 1, COUNT)        # its pairs tried in one such search
    BIG_PN_CHUNK_MIN: int = setting(8, 1, COUNT)              # its moves at least in one worker's chunk of a leaf (a leaf's moves are cut into one chunk a worker)
    BIG_PN_DFPN_NODES: int = setting(1 << 20, 0, COUNT)       # its job on one leaf of the tree in one process: df-pn below it for about this many nodes (0: the leaf's moves judged, one ply, as on the workers)
    BIG_PN_TREE_EPS: float = setting(0.25, 0.0, 1e6)          # its tree: a node keeps to the child it last chose while that child's number is at most (1 + this) times its best sibling's (the 1+epsilon trick; 0: plain best first)
    BIG_PN_BUSY_PROVES: int = setting(2, 2, 1 << 16)          # its pool of this many workers or more: a job under way counts as its leaf's proof first (the spare workers take the defender's other moves)
    BIG_PN_POOL_DFPN: bool = setting(False, False, True)      # with workers too, df-pn in the coordinator, the moves of each node it expands judged on the workers (fewest nodes, one process's search; False: the tree's judgement jobs, measured faster on workers)
    BIG_PN_DFPN_TABLE: int = setting(1 << 18, 1, COUNT)       # the open positions one df-pn keeps (numbers, judgement, children; full: cleared)
    BIG_PN_SLICE_EXPANSIONS: int = setting(16, 1, COUNT)      # its nodes expanded (their moves judged) on one question before the other's turn (doubling each round; a campaign's class likewise)
    CAMPAIGN_TREE_NODES: int = setting(2_000_000, 0, COUNT)   # a campaign keeps its open classes' trees (and df-pn tables) between slices up to these nodes and entries in all (past them the largest are dropped and rebuilt from their journals)

    # -------------------------------------------------------------- the depth-limited engine (best, play)
    DEFAULT_DEPTH: int = setting(4, 1, 64)                    # plies searched when neither a depth nor a time is given (engines.limited.MAX_DEPTH)
    BIG_BOARD_WIDTH: int = setting(14, 0, 26 * 26)            # moves tried per node on boards over 64 cells (forced moves excepted; 0: all)
    FOURS_MOVES: int = setting(12, 0, 1 << 10)                # attacker moves tried by the search for a win by continuous fours
    LIMITED_THREES: int = setting(3, 0, 1 << 10)              # three-moves tried by the threat-space search (free placement)
    LIMITED_THREAT_NODES: int = setting(1 << 19, 1, COUNT)    # its node budget when no smaller one is given (about 1 s)
    THREAT_TIME_SHARE: float = setting(0.25, 0.0, 1.0)        # of a time limit
    THREAT_TABLE_BITS: int = setting(16, 4, TABLE_BITS[1])    # failures remembered by the threat-space search

    # -------------------------------------------------------------- journals, the server, the game
    COMMIT_EVERY_S: float = setting(0.25, 0.0, SECONDS)       # a checkpoint journal commits at most this often
    SNAPSHOT_EVERY_S: float = setting(30.0, 0.0, SECONDS)     # and journals what running tasks finished this often
    SERVE_MAX_TIME: float = setting(60.0, 0.001, SECONDS)     # serve: seconds any one search may take (--max-time)
    SERVE_MAX_WAITING: int = setting(8, 0, 1 << 20)           # serve: searches queued behind the running one
    SERVE_WAIT_S: float = setting(30.0, 0.0, SECONDS)         # serve: how long a queued search waits for its turn before it is refused
    SERVE_POLL_S: float = setting(0.02, 0.001, SECONDS)       # serve: how often a search asks whether its client is gone
    PLAY_TIME_LIMIT: float = setting(3.0, 0.001, SECONDS)     # play: seconds per engine move (or hint)
    PLAY_EXACT_SHARE: float = setting(0.7, 0.0, 1.0)          # play: of them for the exact solver; the rest for the heuristic fallback

    def __init__(self, **changes: Any) -> None:
        for name in changes:
            if name not in NAMES:
                raise OptionError(f"unknown setting {name!r}{_did_you_mean(name)} (parallel-mnk --version lists them)")
        for f in fields(self):
            value = changes.get(f.name, f.default)
            _check(f.name, value, f.default, f.metadata)
            object.__setattr__(self, f.name, tuple(value) if isinstance(f.default, tuple) else value)

    def big_pn_budget(self, cells: int) -> tuple[int, int]:
        """The pn prover's threat budget past 64 cells on a board of ``cells`` cells,
        ``(threes, nodes)``: ``BIG_PN_THREES`` and ``BIG_PN_VCT_NODES``, each where it is
        :data:`BY_BOARD` taken from :data:`BIG_PN_BUDGETS` (the wider from
        ``BIG_PN_WIDE_CELLS`` cells)."""
        board = BIG_PN_BUDGETS[1 if cells >= self.BIG_PN_WIDE_CELLS else 0]
        return (board[0] if self.BIG_PN_THREES == BY_BOARD else self.BIG_PN_THREES,
                board[1] if self.BIG_PN_VCT_NODES == BY_BOARD else self.BIG_PN_VCT_NODES)

    def replace(self, **changes: Any) -> "Settings":
        """These settings with ``changes`` (names as the fields), checked as the constructor does."""
        return Settings(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        """Every setting by name (in the sheet's order): what ``--version`` prints."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def changes(self) -> dict[str, Any]:
        """The settings that differ from :data:`DEFAULTS`, by name: what a result's
        ``--json`` prints (``settings``)."""
        return {n: v for n, v in self.as_dict().items() if v != getattr(DEFAULTS, n)}

    def with_assignments(self, assignments: Iterable[str]) -> "Settings":
        """These settings with ``NAME=VALUE`` texts applied in turn (the command line's
        ``--setting``): a whole number, a number, true/false, or for a pair ``A,B``."""
        changes: dict[str, Any] = {}
        for text in assignments:
            name, sep, value = str(text).partition("=")
            name = name.strip()
            if not sep or not name:
                raise OptionError(f"--setting takes NAME=VALUE, got {text!r}")
            if name not in NAMES:
                raise OptionError(f"unknown setting {name!r}{_did_you_mean(name)} (parallel-mnk --version lists them)")
            changes[name] = _parse(name, value.strip(), getattr(DEFAULTS, name))
        return self.replace(**changes)


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(str(name).upper(), NAMES, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _kind(default: Any) -> str:
    if isinstance(default, bool):
        return "True or False"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, tuple):
        return "a pair of whole numbers (free, gravity)"
    return "a whole number"


def _check(name: str, value: Any, default: Any, spec: Any) -> None:
    """Raise :class:`OptionError` unless ``value`` is of ``default``'s type and in
    ``spec``'s range (:func:`setting`)."""
    lo, hi = spec["lo"], spec["hi"]
    what = _kind(default)
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, tuple):
        ok = (isinstance(value, (tuple, list)) and len(value) == len(default)
              and all(_whole(v) and lo <= v <= hi for v in value))
        what += f", each from {lo} to {hi}"
    else:
        if isinstance(default, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else:
            ok = _whole(value)
        ok = ok and lo <= value <= hi
        what += f" from {lo} to {hi}" if hi < COUNT else f", at least {lo}"
        if spec["power_of_two"]:
            ok = ok and value & (value - 1) == 0
            what = "a power of two " + what.removeprefix("a whole number ")
        if spec["by_board"]:
            ok = ok or (_whole(value) and value == BY_BOARD)
            what += f", or {BY_BOARD} (by the board)"
    if not ok:
        raise OptionError(f"setting {name} must be {what}, got {value!r}")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse(name: str, text: str, default: Any) -> Any:
    """The value of ``--setting NAME=text`` for a setting whose default is ``default``."""
    try:
        if isinstance(default, bool):
            words = {"true": True, "1": True, "on": True, "yes": True, "false": False, "0": False, "off": False,
                     "no": False}
            return words[text.lower()]
        if isinstance(default, tuple):
            return tuple(int(part, 0) for part in text.split(","))
        if isinstance(default, float):
            return float(text)
        return int(text, 0)
    except (KeyError, ValueError):
        raise OptionError(f"setting {name} must be {_kind(default)}, got {text!r}") from None


NAMES = tuple(f.name for f in fields(Settings))
DEFAULTS = Settings()
# Settings a pool keeps from when it is made (its shared memory, its workers' watchdogs, the Ray
# actor): a solve with others gets a new pool (parallel.scheduling.registry).
POOL_SETTINGS = ("BUSY_MARKS", "PARENT_POLL_S", "RAY_FORGET_AFTER")
_lock = threading.Lock()
_active = DEFAULTS   # the settings of the searches running in this process (DEFAULTS when none)
_holders = 0         # the open blocks of :func:`applied`


def current() -> Settings:
    """The settings in force in this process: those of the :func:`applied` block open
    (a running search's), else :data:`DEFAULTS`."""
    return _active


@contextmanager
def applied(settings: Optional[Settings] = None) -> Iterator[Settings]:
    """Make ``settings`` (None: those in force now) :func:`current` for the block, in
    every thread of the process. Blocks nest and may run in several threads at once
    with the same settings; one with other settings while another is open raises
    :class:`OptionError` (a process runs with one set at a time)."""
    global _active, _holders
    if settings is not None and not isinstance(settings, Settings):
        raise OptionError(f"settings must be a Settings(NAME=value, ...), got {type(settings).__name__}")
    with _lock:
        wanted = _active if settings is None else settings
        if _holders and wanted != _active:
            raise OptionError("another search of this process runs with other settings "
                              f"({_difference(wanted, _active)}): one set of settings at a time")
        if not _holders:
            _active = wanted
        _holders += 1
    try:
        yield wanted
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                _active = DEFAULTS


def _difference(a: Settings, b: Settings) -> str:
    names = [n for n in NAMES if getattr(a, n) != getattr(b, n)]
    return ", ".join(f"{n} {getattr(a, n)!r} against {getattr(b, n)!r}" for n in names[:3]) + \
        (", ..." if len(names) > 3 else "")


def to_carry() -> Optional[Settings]:
    """The settings in force, as a task sent to another process carries them (a worker
    runs it with them: :func:`applied`); None for the defaults (nothing to send)."""
    settings = _active
    return None if settings is DEFAULTS or settings == DEFAULTS else settings


def forget_after_fork() -> None:
    """In a process just forked from a searching one: no block is open here (the
    parent's are the parent's); the worker applies each task's settings itself."""
    global _lock, _active, _holders
    _lock, _active, _holders = threading.Lock(), DEFAULTS, 0
