"""What the engines answer: :class:`SolveResult` (exact engine), :class:`WorkerStats`
(per-process accounting) and :class:`LimitedResult` (depth-limited engine).

Plain records: no numba, no search. Moves inside are :class:`~parallel_mnk.game.moves.Move`
(ints that print as the CLI writes them); ``to_dict`` writes them in the notation of
docs/design.md; ``str()`` is one line for people.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..game.moves import Move, move_of
from ..game.rules import GameSpec, Value, format_move
from ..kernels.limited.limited_layout import MATE_ZONE, WIN


@dataclass
class WorkerStats:
    """What one process did: tasks run, nodes searched, CPU seconds, peak memory
    (bytes). Worker 0 is the process that called :func:`solve` (the serial search,
    or the coordinator of a parallel one)."""

    worker: int
    tasks: int = 0
    nodes: int = 0
    cpu_s: float = 0.0
    peak_rss: int = 0
    certificates: int = 0   # nodes its search closed with pairing certificates
    vcf_wins: int = 0       # nodes its search closed with wins by continuous fours

    def to_dict(self) -> dict[str, Any]:
        return {"worker": self.worker, "tasks": self.tasks, "nodes": self.nodes,
                "cpu_s": round(self.cpu_s, 6), "peak_rss": self.peak_rss,
                "certificates": self.certificates, "vcf_wins": self.vcf_wins}


def prover_of(value: Value, workers: list[WorkerStats]) -> Optional[str]:
    """Which prover settled ``value``, from what the processes' searches used:
    ``"pairing"`` for a draw whose proof cut with pairing certificates,
    ``"threats"`` for a win or a loss whose proof closed nodes with wins by
    continuous fours, else ``"search"`` (alpha-beta alone); None when unknown."""
    if not value.known:
        return None
    if value is Value.DRAW and sum(w.certificates for w in workers) > 0:
        return "pairing"
    if value is not Value.DRAW and sum(w.vcf_wins for w in workers) > 0:
        return "threats"
    return "search"


@dataclass
class SolveResult:
    """The answer for one position, from the side to move.

    ``value`` is a :class:`Value` (``unknown`` when a limit stopped the search);
    ``score`` the exact docs/design.md score (None when weak or unknown);
    ``best_move`` and ``pv`` are moves (None/empty when the game is over; with
    an unknown value, ``best_move`` is the best move found so far, not proved,
    or None, and ``pv`` is empty); ``bounds``, with an unknown value, the
    lowest and highest score the finished searches left possible (weak: of
    -1/0/1; None where the engine does not say); ``nodes`` counts every node searched, also those of the
    best-move and variation searches; ``workers`` the per-process figures;
    ``proof`` which prover settled the value (:func:`prover_of`; None when the
    game is over, the value unknown, or it came from a checkpoint journal);
    ``parallel`` a parallel solve's figures: where its time went and its span
    (:mod:`parallel_mnk.parallel.scheduling.tasklog`), and its faults (``restarts``,
    ``lost_tasks``, ``lost_wanted``, ``rerun_tasks``, ``rerun_done``, ``lost``:
    :meth:`parallel_mnk.parallel.scheduling.coordinator.Coordinator.fault_figures`);
    None for a serial solve (also one the parallel driver settled alone before splitting).
    """

    spec: GameSpec
    value: Value
    score: Optional[int]
    best_move: Optional[Move]
    pv: list[Move]
    nodes: int
    time_s: float
    workers: list[WorkerStats] = field(default_factory=list)
    terminal: bool = False
    checkpoint: Optional[dict] = None  # journal figures of a solve with a checkpoint
    certificates: Optional[list] = None   # the mnk-proof/1 files written for the value (solve(certificate=))
    proof: Optional[str] = None        # which prover settled the value (:func:`prover_of`)
    parallel: Optional[dict] = None    # a parallel solve's phases and span (``parallel.tasklog``)
    bounds: Optional[tuple[int, int]] = None   # an unknown value: the score's proven bounds (weak: of -1/0/1)
    startup_s: float = field(default=0.0, repr=False)   # loading (compiling) the kernels first, not in time_s

    def __post_init__(self) -> None:
        self.best_move = move_of(self.spec, self.best_move)
        self.pv = [Move(self.spec, m) for m in self.pv]

    def __str__(self) -> str:
        """One line: ``loss, score -2, best move 6, line 6 5 ... (7,658,334 nodes, 1.40 s)``."""
        if self.value.known:
            head = f"{self.value}" + ("" if self.score is None else f", score {self.score:+d}")
        else:
            head = "unknown" + ("" if self.bounds is None else f", score between {self.bounds[0]:+d} and "
                                                                f"{self.bounds[1]:+d}")
        if self.terminal:
            head += ", the game is over"
        if self.best_move is not None:
            head += f", best move {self.best_move}" + ("" if self.value.known else " so far")
        if len(self.pv) > 1:
            head += f", line {' '.join(map(str, self.pv))}"
        return f"{head} ({self.nodes:,} nodes, {self.time_s:.2f} s)"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of docs/design.md (moves in the input's notation)."""
        return {
            "value": self.value.value,
            "score": self.score,
            "best_move": None if self.best_move is None else format_move(self.spec, self.best_move),
            "pv": [format_move(self.spec, m) for m in self.pv],
            "nodes": self.nodes,
            "workers": [w.to_dict() for w in self.workers],
            "time_s": round(self.time_s, 6),
            "proof": self.proof,
            **({} if self.checkpoint is None else {"checkpoint": self.checkpoint}),
            **({} if self.parallel is None else {"parallel": self.parallel}),
            **({} if self.certificates is None else {"certificates": self.certificates, "certified": "value"}),
            **({} if self.bounds is None else {"bounds": list(self.bounds)}),
        }


@dataclass
class LimitedResult:
    """A move chosen by depth-limited search.

    ``move`` is a :class:`Move` (as :class:`Position` gives them). ``score`` is the heuristic value from the side to move
    (``win_in``/``loss_in``: plies to a forced end, when the search proved one).
    ``depth`` is the last depth searched to the end.
    """

    move: Move
    score: int
    depth: int
    nodes: int
    evals: int
    time_s: float
    forced_fours: bool = False
    threat_space: bool = False     # a win by fours and threes proven by threat-space search
    depths: list = field(default_factory=list)
    per_worker: list = field(default_factory=list)   # [index, tasks, nodes, cpu_s] per pool worker

    def __str__(self) -> str:
        """One line: ``best move h8 (a win by continuous fours; depth 4, 1,234 nodes, 0.05 s)``."""
        return f"best move {self.move} ({self.describe()}; depth {self.depth}, {self.nodes:,} nodes, {self.time_s:.2f} s)"

    @property
    def win_in(self) -> Optional[int]:
        """Plies (own moves included) to a proven win (with :attr:`threat_space`, at
        most that many: the longest line of the proof), or None."""
        return WIN - self.score if self.score > WIN - MATE_ZONE else None

    @property
    def loss_in(self) -> Optional[int]:
        """Plies to a proven loss, or None."""
        return WIN + self.score if self.score < -WIN + MATE_ZONE else None

    def describe(self) -> str:
        """A short human reading of the score."""
        if self.forced_fours:
            return "a win by continuous fours"
        if self.threat_space and self.win_in is not None:
            return f"a win by fours and threes, in at most {(self.win_in + 1) // 2} move(s)"
        if self.win_in is not None:
            return f"wins in {(self.win_in + 1) // 2} move(s)"
        if self.loss_in is not None:
            return f"loses in {(self.loss_in + 1) // 2} move(s) against best play"
        return f"heuristic score {self.score:+d} at depth {self.depth}"

    def to_dict(self, spec: GameSpec) -> dict[str, Any]:
        """The JSON form of ``parallel-mnk best --json`` (the move in ``spec``'s notation)."""
        return {
            "best_move": format_move(spec, self.move), "score": self.score, "win_in": self.win_in,
            "loss_in": self.loss_in, "depth": self.depth, "forced_fours": self.forced_fours,
            "threat_space": self.threat_space, "nodes": self.nodes, "time_s": round(self.time_s, 6),
            "workers": [{"worker": i, "tasks": t, "nodes": n, "cpu_s": round(c, 6)} for i, t, n, c in self.per_worker],
        }
