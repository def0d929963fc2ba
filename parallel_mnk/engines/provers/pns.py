"""The proof-number prover from Python (:mod:`parallel_mnk.kernels.pns`): "does the
attacker win this free-placement position?" by df-pn with relevance zones, threats
and pairings (``docs/proofs.md``, section 8), and the weak value from two such
questions (:func:`pn_value`).

:class:`PnProver` owns one searcher's arrays: its table, its settled store (every
node it settled, kept for the whole question), its work array and its record
buffer. A question runs in slices in a helper thread (a time limit or Ctrl-C stops
it through the control word); once settled, its certificate is written from the
store (:func:`write_certificate`, :mod:`.pn_certificate`) when one is asked for.
A parallel proof's workers search with :class:`PnJobSearcher` (on the question's
shared store) or :class:`~.pn_replica.ReplicaSearcher` (on a replica of it: Ray).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ...api.options import Watch
from ...api.settings import current
from ...game.geometry import build_context, line_masks, symmetries
from ...game.position import Position
from ...game.rules import GameSpec, MnkError, UnsupportedError, Value
from ...kernels.core import layout as L
from ...kernels.pns import layout as PL
from ...kernels.proofs.layout import MIN_PAIR_K
from ...runtime import families, running
from ...runtime.ttable import new_salt
from .pn_certificate import CertificateFile

RECORD_WORDS = 1 << 22   # a certificate walk's record buffer (32 MiB), drained when nearly full


@dataclass(frozen=True)
class PnRules:
    """Which of the prover's rules are on (each can be switched off to measure or test
    it): pairings and the scan from ``pairing_min_empty`` empty cells (0: never), VCF
    from ``vcf_min_empty`` (0: never), zones at the attacker's nodes
    (``attacker_zones``) and threat zones at the defender's (``threat_zones``), the
    scan's fresh searches on ``scan_top`` moves, and new children's numbers
    (``init_width``, % of the empty cells). A number left None is the runtime
    setting's (``PN_PAIRING_MIN_EMPTY``, ``PN_VCF_MIN_EMPTY``, ``PN_SCAN_TOP``,
    ``PN_INIT_WIDTH``) where the prover is made (:meth:`numbers`)."""

    pairing_min_empty: Optional[int] = None
    vcf_min_empty: Optional[int] = None
    attacker_zones: bool = True
    threat_zones: bool = True
    scan: bool = True
    scan_top: Optional[int] = None
    init_width: Optional[int] = None

    def numbers(self) -> tuple[int, int, int, int]:
        """``(pairing_min_empty, vcf_min_empty, scan_top, init_width)``, each left None
        taken from the settings in force."""
        s = current()
        given = (self.pairing_min_empty, self.vcf_min_empty, self.scan_top, self.init_width)
        defaults = (s.PN_PAIRING_MIN_EMPTY, s.PN_VCF_MIN_EMPTY, s.PN_SCAN_TOP, s.PN_INIT_WIDTH)
        a, b, c, d = (default if value is None else value for value, default in zip(given, defaults))
        return a, b, c, d


@dataclass
class PnAnswer:
    """One question's answer: ``wins`` True (the attacker wins), False (it cannot), or
    None (a limit stopped it); ``nodes`` visited (re-expansions included); when
    settled, the root's ``move`` (a cell: the attacker's winning move, or the
    defender's refutation when the defender was to move; None when a rule settled
    it at once) and, disproven, its ``zone`` (cells); ``stats`` the search's counters;
    ``certificate`` the file written (when asked for and settled)."""

    wins: Optional[bool]
    nodes: int
    seconds: float
    move: Optional[int] = None
    zone: int = 0
    stats: dict = field(default_factory=dict)
    certificate: Optional[Path] = None


STAT_NAMES = {
    "evaluated": PL.W_EVALUATED, "vcf_proofs": PL.W_VCF_PROOFS, "vcf_disproofs": PL.W_VCF_DISPROOFS,
    "pairings": PL.W_PAIRINGS, "excused": PL.W_EXCUSED, "threat_cuts": PL.W_THREAT_CUTS,
    "store_hits": PL.W_STORE_HITS, "stored": PL.W_ST_USED, "records": PL.W_RECORDS, "scan_tries": PL.W_SCAN_TRIES,
}


def check_game(spec: GameSpec) -> None:
    """Raise :class:`UnsupportedError` unless the prover takes ``spec``: free placement,
    at most 64 cells."""
    if spec.gravity:
        raise UnsupportedError("the proof-number prover is for free placement (gravity boards: --prover search)")
    if not spec.exact_solvable:
        raise UnsupportedError(f"the proof-number prover takes boards of at most 64 cells, not {spec.cells}")


def new_store(store_bits: int) -> np.ndarray:
    """An empty store of ``2**store_bits`` entries and its pairing pool (:mod:`...kernels.pns.settled_store`)."""
    return np.zeros((PL.ST_WORDS << store_bits) + PL.pool_words(1 << store_bits), dtype=np.uint64)


class PnProver:
    """Questions about positions of one free-placement game (at most 64 cells) on one
    searcher's arrays: a table of ``2**tt_bits`` entries (32 bytes each) and a store
    of ``2**store_bits`` (32 bytes each, and a pool for pairings: every node a
    question settles stays there; a full store loses the certificate, not the
    answer; None: the setting ``PN_STORE_BITS``)."""

    def __init__(self, spec: GameSpec, tt_bits: int = 22, store_bits: Optional[int] = None,
                 rules: PnRules = PnRules()) -> None:
        check_game(spec)
        store_bits = current().PN_STORE_BITS if store_bits is None else store_bits
        pairing_min_empty, vcf_min_empty, scan_top, init_width = rules.numbers()
        if not 4 <= tt_bits <= 30 or not 4 <= store_bits <= 31:
            raise MnkError(f"table bits must be between 4 and 30, store bits 4 and 31, got {tt_bits}, {store_bits}")
        self.spec, self.rules = spec, rules
        self.kernels = families.pns_kernels()
        self.ctx = build_context(spec)
        self.ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
        self.pt = np.zeros(PL.PT_WORDS * (1 << tt_bits), dtype=np.uint64)
        self.store_bits = store_bits
        self.st = np.zeros(0, dtype=np.uint64)
        self.ss = np.zeros(PL.ST_WORDS, dtype=np.uint64)   # a second store read first (none: wk[W_SS_MASK] 0)
        self.wk = np.zeros(PL.WK_SIZE, dtype=np.uint64)
        self.maps = np.array(symmetries(spec), dtype=np.int64)
        for i, mask in enumerate(line_masks(spec)):
            cells = [c for c in range(spec.cells) if mask >> c & 1]
            for r, ring in enumerate(PL.line_rings(cells, spec.k)):
                self.wk[PL.OFF_RINGS + i * PL.RING_WORDS + r] = ring
        wk = self.wk
        pairing = pairing_min_empty if spec.k >= MIN_PAIR_K else 0
        wk[PL.W_PAIR_MIN_EMPTY] = pairing
        wk[PL.W_SCAN_ON] = int(rules.scan and pairing > 0)
        wk[PL.W_SCAN_TOP] = scan_top
        wk[PL.W_VCF_MIN_EMPTY] = vcf_min_empty if spec.k >= 3 else 0
        wk[PL.W_ZONES_ON] = int(rules.attacker_zones) | int(rules.threat_zones) << 1
        wk[PL.W_INIT_WIDTH] = init_width

    def stats(self) -> dict:
        """The last question's counters (:data:`STAT_NAMES`)."""
        return {name: int(self.wk[slot]) for name, slot in STAT_NAMES.items()}

    def reset_counters(self) -> None:
        """Zero the counters of a question about to start."""
        for slot in list(STAT_NAMES.values()) + [PL.W_NODES, PL.W_STORE_FULL, PL.W_WALK_MISSING, PL.W_NODE_LIMIT,
                                                   PL.W_SOFT_LIMIT]:
            self.wk[slot] = 0

    def ask(self, position: Position, attacker_moves: bool, *, node_limit: Optional[int] = None,
            time_limit: Optional[float] = None, certificate: Optional[Path] = None,
            progress: Optional[bool] = None, watch: Optional[Watch] = None) -> PnAnswer:
        """Whether the side to move (``attacker_moves``) or the other side wins
        ``position`` (not over), within the limits (None: none; the node limit counts
        this question's nodes). With ``certificate`` (a folder), the settled answer's
        certificate is written there as ``<attacker>-wins.jsonl.xz`` or
        ``<attacker>-cannot-win.jsonl.xz`` (``docs/proof-format.md``, mnk-proof/2), from
        the store (:func:`write_certificate`)."""
        if position.spec != self.spec:
            raise MnkError("the position is of another game than the prover's")
        if position.is_game_over():
            raise MnkError("the game is over")
        started = time.perf_counter()
        ctx, wk = self.ctx, self.wk
        ctx[L.C_SALT] = new_salt()
        if len(self.st) == 0 or certificate is not None:   # (a certificate reads the store: only its question there)
            self.st = new_store(self.store_bits)
        wk[PL.W_ST_MASK] = (1 << self.store_bits) - 1
        wk[PL.W_SS_MASK] = 0
        self.reset_counters()
        wk[PL.W_NODE_LIMIT] = 0 if node_limit is None else node_limit
        own, opp = position.stones()
        K = self.kernels

        def run() -> int:
            while True:   # slices: every node keeps its numbers between them
                K.set_root_hashes(ctx, np.uint64(position.x), np.uint64(position.o), position.ply)
                wk[PL.W_SOFT_LIMIT] = int(wk[PL.W_NODES]) + current().PN_SLICE_NODES
                found = int(K.pns_search(ctx, self.pt, self.st, self.ss, wk, self.ctl, np.uint64(own),
                                         np.uint64(opp), position.ply, int(attacker_moves), PL.INF, PL.INF))
                if found >= 0 or int(wk[PL.W_STOP]) in (PL.STOP_ABORT, PL.STOP_LIMIT):
                    return found

        def status() -> str:
            elapsed = time.perf_counter() - started
            return (f"pn: {int(wk[PL.W_NODES]) / 1e6:.1f} M nodes, {int(wk[PL.W_ST_USED]):,} settled, "
                    f"{elapsed:.1f} s")

        try:
            found, _ = running.run_with_status(run, self.ctl, time_limit, progress, status, watch,
                                               lambda: int(wk[PL.W_NODES]))
        finally:
            self.ctl[L.CTL_ABORT] = 0
        seconds = time.perf_counter() - started
        nodes = int(wk[PL.W_NODES])
        if found is None or found < 0:
            return PnAnswer(None, nodes, seconds, stats=self.stats())
        move = int(wk[PL.W_ROOT_MOVE]) - 1
        answer = PnAnswer(found == 1, nodes, seconds, None if move < 0 else move,
                          int(wk[PL.W_ROOT_ZONE]) if found == 0 else 0, self.stats())
        if certificate is not None:
            if int(wk[PL.W_STORE_FULL]):
                raise MnkError(f"the certificate was lost: the store of 2**{self.store_bits} entries is full "
                               "(a bigger table gets a bigger store)")
            mover = "x" if position.ply % 2 == 0 else "o"
            attacker = mover if attacker_moves else ("o" if mover == "x" else "x")
            answer.certificate = write_certificate(self, self.st, position, attacker, found == 1, Path(certificate),
                                                   nodes, seconds)
        return answer


def write_certificate(prover: PnProver, st: np.ndarray, position: Position, attacker: str, wins: bool,
                      folder: Path, nodes: int, seconds: float, progress: Optional[bool] = None) -> Path:
    """Write the certificate of a settled question (``attacker`` wins, or cannot win)
    from the store ``st`` it settled into (``prover``'s context and salt: the
    question's), into ``folder`` as ``<attacker>-<claim>.jsonl.xz``, by a walk of the
    positions the checker will walk (:mod:`...kernels.pns.certificate_walk`), no search.
    :class:`MnkError` if the store lacks a position (a bug)."""
    K, wk, ctx = prover.kernels, prover.wk, prover.ctx
    entries = int(K.count_entries(st, np.uint64(int(wk[PL.W_ST_MASK]))))
    memo = np.zeros(1 << max(12, (4 * entries + 4096).bit_length()), dtype=np.uint64)
    stk = np.zeros(2 * L.MAX_CELLS * (L.MAX_CELLS + 2) + 8, dtype=np.uint64)
    stk[0], stk[1], stk[2] = 1, position.x, position.o
    rb = np.zeros(RECORD_WORDS, dtype=np.uint64)
    rb[0] = 1
    wk[PL.W_WALK_MISSING] = 0
    wk[PL.W_RECORDS] = 0
    claim = "wins" if wins else "cannot-win"
    writer = CertificateFile(prover.spec, position.board_text(), attacker, claim, folder, K, prover.maps)
    line = running.StatusLine(progress)
    try:
        while True:
            done = int(K.walk_records(ctx, st, prover.ss, wk, rb, stk, memo, 0 if attacker == "x" else 1, int(wins)))
            writer.drain(rb)
            line.update(lambda: f"certificate: {int(wk[PL.W_RECORDS]):,} records")
            if done == PL.STOP_DONE:
                break
            if done < 0:
                raise MnkError("the certificate walk's memo is full (an internal error)")
        if int(wk[PL.W_WALK_MISSING]):
            raise MnkError(f"the certificate walk met {int(wk[PL.W_WALK_MISSING])} positions the store does not "
                           "settle (an internal error)")
        return writer.finish(nodes, seconds)
    except BaseException:
        writer.discard()
        raise
    finally:
        line.finish()


@dataclass
class PnValue:
    """The weak ``value`` of a position from two questions (:func:`pn_value`), the
    ``nodes`` of both, the ``move`` that keeps it (a cell, None when unknown or the
    game offers none), and the certificates written."""

    value: Value
    nodes: int
    move: Optional[int] = None
    answers: list[PnAnswer] = field(default_factory=list)

    @property
    def certificates(self) -> list[Path]:
        """The certificate files the questions wrote."""
        return [a.certificate for a in self.answers if a.certificate is not None]


def pn_value(prover: PnProver, position: Position, *, node_limit: Optional[int] = None,
             time_limit: Optional[float] = None, certificate: Optional[Path] = None,
             progress: Optional[bool] = None, watch: Optional[Watch] = None,
             need_move: bool = True) -> PnValue:
    """The weak value of ``position`` (not over) for the side to move: "does it win?",
    then, unless it does, "does the other side win?" (a loss if so, else a draw). From
    the empty board the second question is asked only for a move (``need_move``):
    strategy stealing gives the value. The limits hold for both questions together;
    the certificates are those of the value (``certificate`` a folder)."""
    started = time.perf_counter()
    answers: list[PnAnswer] = []

    def left() -> Optional[float]:
        return None if time_limit is None else max(1e-3, time_limit - (time.perf_counter() - started))

    def nodes_left() -> Optional[int]:
        return None if node_limit is None else max(1, node_limit - sum(a.nodes for a in answers))

    def ask(attacker_moves: bool, cert: Optional[Path]) -> PnAnswer:
        answers.append(prover.ask(position, attacker_moves, node_limit=nodes_left(), time_limit=left(),
                                  certificate=cert, progress=progress, watch=watch))
        return answers[-1]

    wins = ask(True, certificate)
    total: Callable[[], int] = lambda: sum(a.nodes for a in answers)
    if wins.wins is None:
        return PnValue(Value.UNKNOWN, total(), answers=answers)
    if wins.wins:
        return PnValue(Value.WIN, total(), wins.move, answers)
    if position.ply == 0 and not need_move:
        return PnValue(Value.DRAW, total(), None, answers)
    loses = ask(False, None if position.ply == 0 else certificate)
    if loses.wins is None:
        return PnValue(Value.DRAW if position.ply == 0 else Value.UNKNOWN, total(), None, answers)
    if loses.wins:
        return PnValue(Value.LOSS, total(), None, answers)
    return PnValue(Value.DRAW, total(), loses.move, answers)


@dataclass
class JobOutcome:
    """What one bounded job of a parallel proof did (:meth:`PnJobSearcher.run`): the
    node's answer (``found`` 1 proven, 0 disproven, -1 open), its numbers, the nodes
    it took, whether the stop word ended it."""

    found: int
    pn: int
    dn: int
    nodes: int
    stopped: bool
    stats: dict


class PnJobSearcher:
    """A worker's searcher of one question of a parallel proof, kept from job to job:
    its own table (what it learnt stays) and the question's shared store ``st``
    (every searcher's settled nodes; it writes there what it settles)."""

    def __init__(self, spec: GameSpec, salt: int, tt_bits: int, st: np.ndarray, store_bits: int,
                 rules: PnRules, writer: int) -> None:
        self.prover = PnProver(spec, tt_bits, store_bits, rules)
        p = self.prover
        p.ctx[L.C_SALT] = salt
        p.wk[PL.W_WRITER] = writer   # (its busy marks: a dead worker's are found by its number)
        p.wk[PL.W_SHARED] = 1
        p.st = st
        p.wk[PL.W_ST_MASK] = (1 << store_bits) - 1
        p.wk[PL.W_SS_MASK] = 0

    def run(self, x: int, o: int, ply: int, attacker_moves: bool, budget: int, ctl: np.ndarray) -> JobOutcome:
        """Search the node ``(x, o)`` (``ply`` stones; the attacker to move or not) for
        about ``budget`` nodes (every node then returns its numbers) or until settled,
        stopped by ``ctl``'s stop word."""
        return run_job(self.prover, x, o, ply, attacker_moves, budget, ctl)


def run_job(p: PnProver, x: int, o: int, ply: int, attacker_moves: bool, budget: int, ctl: np.ndarray) -> JobOutcome:
    """One bounded job of ``p`` on its table and stores as they are set: the node ``(x,
    o)`` (``ply`` stones) searched for about ``budget`` nodes or until settled, stopped
    by ``ctl``'s stop word."""
    ctx, wk, K = p.ctx, p.wk, p.kernels
    p.reset_counters()
    own, opp = (x, o) if ply % 2 == 0 else (o, x)
    K.set_root_hashes(ctx, np.uint64(x), np.uint64(o), ply)
    wk[PL.W_SOFT_LIMIT] = budget
    found = int(K.pns_search(ctx, p.pt, p.st, p.ss, wk, ctl, np.uint64(own), np.uint64(opp), ply,
                             int(attacker_moves), PL.INF, PL.INF))
    stopped = found < 0 and int(wk[PL.W_STOP]) in (PL.STOP_ABORT, PL.STOP_LIMIT)
    return JobOutcome(found, int(wk[PL.W_ROOT_PN]), int(wk[PL.W_ROOT_DN]), int(wk[PL.W_NODES]), stopped,
                      {**p.stats(), "full": int(wk[PL.W_STORE_FULL])})
