"""What the engines answer: :class:`SolveResult` (the exact engine, ``solve``),
:class:`Analysis` and :class:`MoveAnalysis` (every move's value, ``analyze``),
:class:`LimitedResult` (the depth-limited engine, ``best_move``) and
:class:`WorkerStats` (per-process accounting).

Plain records: no numba, no search. Moves inside are :class:`~parallel_mnk.game.moves.Move`
(ints that print as the CLI writes them); ``to_dict`` writes them in the notation of
docs/design.md; ``str()`` is one line for people that says whose value it is the
same way in every type: ``loss for X, score -2, best move 6 ...``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..game.moves import Move, MoveLike, Side, as_move, move_of
from ..game.position import Position
from ..game.rules import GameSpec, Value, move_name, value_of_score
from ..kernels.grid.layout import MATE_ZONE, WIN
from .settings import Settings

ILLEGAL = -1000  # the plain line's entry for a full column / taken cell (Pons' INVALID_MOVE)
UNKNOWN = "?"    # the plain line's (and the grid's) entry for a move not solved in time


def counted(n: int, word: str, many: Optional[str] = None) -> str:
    """``n`` and ``word`` in the singular or plural: ``1 stone``, ``2 stones``,
    ``1,234 nodes`` (``many``: the plural when it is not ``word + "s"``)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def whose(value: Value, to_move: Optional[Side], score: Optional[int] = None) -> str:
    """The head of every result's line: ``loss for X, score -2`` (``for X`` when the
    side is known; the score when there is one)."""
    side = "" if to_move is None else f" for {to_move}"
    return f"{value}{side}" + ("" if score is None else f", score {score:+d}")


def _settings_entry(settings: Optional[Settings]) -> dict[str, Any]:
    """A result's JSON entry ``settings``: the runtime settings it ran with that differ
    from the defaults, by name (``{}``: none; ``parallel-mnk --version`` lists the
    defaults); no entry when the result does not know them."""
    if settings is None:
        return {}
    return {"settings": {n: list(v) if isinstance(v, tuple) else v for n, v in settings.changes().items()}}


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
    certificates: Optional[list] = None   # the mnk-proof/1 files written for the value (empty: a limit left it unknown)
    proof: Optional[str] = None        # which prover settled the value (:func:`prover_of`)
    parallel: Optional[dict] = None    # a parallel solve's phases and span (``parallel.tasklog``)
    bounds: Optional[tuple[int, int]] = None   # an unknown value: the score's proven bounds (weak: of -1/0/1)
    to_move: Optional[Side] = None     # whose value it is (set by :func:`parallel_mnk.solve`)
    startup_s: float = field(default=0.0, repr=False)   # loading (compiling) the kernels first, not in time_s
    settings: Optional[Settings] = field(default=None, repr=False)   # the runtime settings it ran with

    def __post_init__(self) -> None:
        self.best_move = move_of(self.spec, self.best_move)
        self.pv = [Move(self.spec, m) for m in self.pv]

    def __str__(self) -> str:
        """One line: ``loss for X, score -2, best move 6, line 6 5 ... (7,658,334 nodes, 1.40 s)``."""
        if self.value.known:
            head = whose(self.value, self.to_move, self.score)
        else:
            head = whose(self.value, self.to_move) + ("" if self.bounds is None else
                                                      f", score between {self.bounds[0]:+d} and {self.bounds[1]:+d}")
        if self.terminal:
            head += ", the game is over"
        if self.best_move is not None:
            head += f", best move {self.best_move}" + ("" if self.value.known else " so far")
        if len(self.pv) > 1:
            head += f", line {' '.join(map(str, self.pv))}"
        return f"{head} ({counted(self.nodes, 'node')}, {self.time_s:.2f} s)"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of docs/design.md (moves in the input's notation)."""
        return {
            "value": self.value.value,
            "score": self.score,
            **({} if self.to_move is None else {"to_move": str(self.to_move)}),
            "best_move": None if self.best_move is None else move_name(self.spec, self.best_move),
            "pv": [move_name(self.spec, m) for m in self.pv],
            "nodes": self.nodes,
            "workers": [w.to_dict() for w in self.workers],
            "time_s": round(self.time_s, 6),
            "proof": self.proof,
            **({} if self.checkpoint is None else {"checkpoint": self.checkpoint}),
            **({} if self.parallel is None else {"parallel": self.parallel}),
            **({} if self.certificates is None else {"certificates": self.certificates,
                                                      "certified": "value" if self.certificates else None}),
            **({} if self.bounds is None else {"bounds": list(self.bounds)}),
            **_settings_entry(self.settings),
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
    to_move: Optional[Side] = None     # whose move and score it is (set by :func:`parallel_mnk.best_move`)
    settings: Optional[Settings] = field(default=None, repr=False)   # the runtime settings it ran with

    def __str__(self) -> str:
        """One line, its head as every result's: ``win for X by continuous fours, best move
        h8 (depth 0, 1,234 nodes, 0.05 s)``, ``heuristic score -518 for X at depth 6, ...``."""
        side = "" if self.to_move is None else f" for {self.to_move}"
        if self.forced_fours:
            head = f"win{side} by continuous fours"
        elif self.threat_space and self.win_in is not None:
            head = f"win{side} by fours and threes, in at most {counted((self.win_in + 1) // 2, 'move')}"
        elif self.win_in is not None:
            head = f"win{side} in {counted((self.win_in + 1) // 2, 'move')}"
        elif self.loss_in is not None:
            head = f"loss{side} in {counted((self.loss_in + 1) // 2, 'move')} against best play"
        else:
            head = f"heuristic score {self.score:+d}{side} at depth {self.depth}"
        return f"{head}, best move {self.move} (depth {self.depth}, {counted(self.nodes, 'node')}, {self.time_s:.2f} s)"

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
            return f"a win by fours and threes, in at most {counted((self.win_in + 1) // 2, 'move')}"
        if self.win_in is not None:
            return f"wins in {counted((self.win_in + 1) // 2, 'move')}"
        if self.loss_in is not None:
            return f"loses in {counted((self.loss_in + 1) // 2, 'move')} against best play"
        return f"heuristic score {self.score:+d} at depth {self.depth}"

    def to_dict(self, spec: GameSpec) -> dict[str, Any]:
        """The JSON form of ``parallel-mnk best --json`` (the move in ``spec``'s notation)."""
        return {
            **({} if self.to_move is None else {"to_move": str(self.to_move)}),
            "best_move": move_name(spec, self.move), "score": self.score, "win_in": self.win_in,
            "loss_in": self.loss_in, "depth": self.depth, "forced_fours": self.forced_fours,
            "threat_space": self.threat_space, "nodes": self.nodes, "time_s": round(self.time_s, 6),
            "workers": [{"worker": i, "tasks": t, "nodes": n, "cpu_s": round(c, 6)} for i, t, n, c in self.per_worker],
            **_settings_entry(self.settings),
        }


@dataclass
class MoveAnalysis:
    """One legal move: ``value`` (``win``/``draw``/``loss``, ``unknown`` when the
    time ran out), ``score`` (exact, from the side to move; None when weak or
    unknown), ``at_once`` (the move ends the game: a win, or a draw on the last
    cell), and the nodes and seconds its search took."""

    spec: GameSpec
    move: Move
    value: Value
    score: Optional[int]
    nodes: int = 0
    time_s: float = 0.0
    at_once: bool = False
    book: bool = False   # the score came from an opening book
    to_move: Optional[Side] = None   # who plays the move: whose value it is

    def __post_init__(self) -> None:
        self.move = Move(self.spec, self.move)

    def __str__(self) -> str:
        """One line: ``b2: draw for O, score +0``."""
        return f"{self.move}: {whose(self.value, self.to_move, self.score)}"

    @property
    def text(self) -> str:
        """The move in the notation of docs/design.md (column from 1, or a cell like ``b2``)."""
        return move_name(self.spec, self.move)

    def to_dict(self) -> dict:
        return {"move": self.text, "value": self.value.value, "score": self.score, "ends_game": self.at_once,
                "nodes": self.nodes, "time_s": round(self.time_s, 6), "proof": "book" if self.book else None}


@dataclass
class Analysis:
    """Every legal move of ``position`` with its value and score.

    ``moves`` is in move order (columns left to right, or cells in row-major
    order from the top-left). For a finished game ``terminal`` is true,
    ``moves`` is empty and ``value``/``score`` are the game's result for the
    side to move (as :func:`solve` gives them).
    """

    position: Position
    moves: list[MoveAnalysis]
    weak: bool
    nodes: int
    time_s: float
    terminal: bool = False
    terminal_score: Optional[int] = None
    workers: int = 1
    startup_s: float = field(default=0.0, repr=False)   # loading (compiling) the kernels first, not in time_s
    settings: Optional[Settings] = field(default=None, repr=False)   # the runtime settings it ran with
    _by_move: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_move = {int(m.move): m for m in self.moves}
        for m in self.moves:
            m.to_move = self.position.turn

    def __str__(self) -> str:
        """One line: ``draw for O, score +0, best moves a3 c3 a1 c1 (8 moves, 64 nodes, 0.02 s)``."""
        head = whose(self.value, self.position.turn, self.score)
        if self.terminal:
            return f"{head}, the game is over"
        best = self.best_moves
        best_text = f", best move{'s' if len(best) > 1 else ''} {' '.join(map(str, best))}" if best else ""
        return f"{head}{best_text} ({counted(len(self.moves), 'move')}, {counted(self.nodes, 'node')}, " \
               f"{self.time_s:.2f} s)"

    @property
    def spec(self) -> GameSpec:
        return self.position.spec

    @property
    def complete(self) -> bool:
        """True when every move was solved (no ``unknown``)."""
        return all(m.value.known for m in self.moves)

    @property
    def value(self) -> Value:
        """The position's value: the best move's (``unknown`` if any move is)."""
        if self.terminal:
            assert self.terminal_score is not None
            return value_of_score(self.terminal_score)
        if not self.complete:
            return Value.UNKNOWN
        return max((m.value for m in self.moves), key=lambda v: v.rank)

    @property
    def score(self) -> Optional[int]:
        """The position's exact score: the best move's (None when weak or unknown)."""
        if self.terminal:
            return self.terminal_score
        if self.weak or not self.complete:
            return None
        return max(m.score for m in self.moves if m.score is not None)

    @property
    def best_moves(self) -> list[Move]:
        """Every move that keeps the position's score (value when weak); empty
        when the game is over or a move is unknown."""
        if self.terminal or not self.complete:
            return []
        if self.weak:
            value = self.value
            return [m.move for m in self.moves if m.value == value]
        score = self.score
        return [m.move for m in self.moves if m.score == score]

    @property
    def from_book(self) -> bool:
        """True when an opening book gave every move that does not end the game."""
        searched = [m for m in self.moves if not m.at_once]
        return bool(searched) and all(m.book for m in searched)

    def get(self, move: MoveLike) -> Optional[MoveAnalysis]:
        """The entry of ``move`` (a :class:`Move` or its text; a bare int is refused, as
        everywhere), or None if it is not legal."""
        return self._by_move.get(int(as_move(self.spec, move)))

    def slots(self) -> list[Optional[MoveAnalysis]]:
        """One entry per column (gravity) or per cell in row-major order from the
        top-left (free placement, the order of board text); None where no move is."""
        n = self.spec.cols if self.spec.gravity else self.spec.cells
        return [self._by_move.get(i) for i in range(n)]

    def line_entries(self) -> list[str]:
        """The plain line's entries, one per slot: the exact score (``1``/``0``/``-1``
        for win/draw/loss when weak, as Pons' solver prints), ``-1000`` for no
        move, ``?`` for unknown."""
        out = []
        for m in self.slots():
            if m is None:
                out.append(str(ILLEGAL))
            elif not m.value.known:
                out.append(UNKNOWN)
            elif m.score is None:
                out.append(str(m.value.rank))
            else:
                out.append(str(m.score))
        return out

    def to_dict(self) -> dict:
        """The JSON form: position value/score, best moves, per-move entries, and
        ``scores`` (the plain line's numbers, null for no move or unknown)."""
        return {
            "value": self.value.value,
            "score": self.score,
            "to_move": str(self.position.turn),
            "best_moves": [move_name(self.spec, m) for m in self.best_moves],
            "moves": [m.to_dict() for m in self.moves],
            "scores": [None if e in (str(ILLEGAL), UNKNOWN) else int(e) for e in self.line_entries()],
            "terminal": self.terminal,
            "proof": "book" if self.from_book else None,
            "nodes": self.nodes,
            "time_s": round(self.time_s, 6),
            **_settings_entry(self.settings),
        }
