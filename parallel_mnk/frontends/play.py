"""``parallel-mnk play``: a game against the engine, one line of input per turn.

:class:`Game` reads the human's lines from an input stream and writes everything
to an output stream, so it runs the same in a terminal and in tests. The engine
(:class:`Engine`) plays perfectly when the exact solver finishes within its time
budget (boards of at most 64 cells) and falls back to the depth-limited
heuristic search of :mod:`parallel_mnk.engines.limited` otherwise; on boards over 64
cells it never calls the exact solver.

Commands at the prompt: a move in the notation of docs/design.md (a column number with
gravity, a cell such as ``b2`` otherwise), ``hint``, ``undo``, ``board``,
``help``, ``quit``. End of input quits (status 0), Ctrl-C stops (status 130).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional, TextIO

from .. import entrance
from ..api.options import Limit, Options, SolveOptions
from ..api.results import LimitedResult, counted
from ..game.moves import Move, Side
from ..game.position import O, X, Position
from ..game.rules import GameSpec, MnkError, move_name, ply_of_score
from ..runtime import families
from ..api.settings import current


NAMES = {X: "X", O: "O"}
QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("help", "?")


@dataclass
class EngineChoice:
    """A move chosen for the side to move of a position with ``stones`` stones.

    ``exact``: the solver proved ``score`` (docs/design.md score from the mover).
    Otherwise ``limited`` is the heuristic search's result.
    """

    move: Move
    stones: int
    exact: bool
    score: Optional[int] = None
    limited: Optional[LimitedResult] = None   # the heuristic search's result when not exact
    time_s: float = 0.0

    def outlook(self, spec: GameSpec) -> tuple[str, Optional[int]]:
        """``("win" | "loss" | "draw" | "unknown", moves)``: for a win, the mover's
        moves to it (this one included); for a loss, the opponent's moves to its win."""
        if self.exact:
            assert self.score is not None
            end = ply_of_score(spec, self.score, self.stones)
            if end is None:
                return "draw", None
            if self.score > 0:
                return "win", (end - self.stones + 1) // 2
            return "loss", (end - self.stones) // 2
        r = self.limited
        assert r is not None
        if r.win_in is not None:
            return "win", (r.win_in + 1) // 2
        if r.loss_in is not None:
            return "loss", max(1, r.loss_in // 2)
        return "unknown", None

    def how(self) -> str:
        """How a heuristic move was found, e.g. ``searched 6 plies in 1.2 s``."""
        r = self.limited
        assert r is not None
        if r.forced_fours or r.threat_space:
            return r.describe()
        if r.depth == 0:
            return "an immediate win"
        return f"searched {counted(r.depth, 'ply', 'plies')} in {r.time_s:.1f} s"


def _moves(n: Optional[int]) -> str:
    assert n is not None, "a win or a loss has a move count"
    return f"{n} move" + ("" if n == 1 else "s")


class Engine:
    """Chooses moves: exact where the solver finishes in time, heuristic otherwise.

    ``time_limit``: seconds per move (None: the setting ``PLAY_TIME_LIMIT``), shared
    between the exact solver (at most the setting ``PLAY_EXACT_SHARE`` of it) and, if
    that runs out, the heuristic search (the rest, at least a quarter of the budget;
    its first ply always completes).
    ``workers`` passes through to :func:`parallel_mnk.solve`.
    """

    def __init__(self, spec: GameSpec, time_limit: Optional[float] = None, workers: int = 1,
                 tt_bits: Optional[int] = None, book: Optional[str] = None) -> None:
        time_limit = current().PLAY_TIME_LIMIT if time_limit is None else time_limit
        if time_limit <= 0:
            raise MnkError(f"the time limit must be positive, got {time_limit}")
        self.spec = spec
        self.time_limit = time_limit
        self.workers = workers
        # the exact solver's options: an opening book (--book) answers where it covers the position
        self.options = Options(workers=workers, tt_size=None if tt_bits is None else 8 << tt_bits, book=book,
                               pv=False, progress=False)
        self._cache: dict[tuple[int, int], EngineChoice] = {}

    def load(self) -> None:
        """Load the kernels of both engines now, compiling what is missing (in parallel
        processes), not inside a move's time budget: the depth-limited engine answers
        whenever the exact solver does not finish in time."""
        exact = families.for_solve(self.spec, SolveOptions(workers=self.workers)) if self.spec.exact_solvable else []
        families.load(*exact, "grid")

    def choose(self, position: Position) -> EngineChoice:
        """The move for the side to move (the game must not be over)."""
        if position.is_game_over():
            raise MnkError("the game is over: there is no move to choose")
        key = (position.x, position.o)
        if key in self._cache:
            return self._cache[key]
        started = time.perf_counter()
        choice = None
        if self.spec.exact_solvable:
            exact = Limit(time=self.time_limit * current().PLAY_EXACT_SHARE)
            result = entrance.solve(position, exact, options=self.options)
            if result.value.known and result.best_move is not None:
                choice = EngineChoice(result.best_move, position.ply, True, result.score)
        if choice is None:
            remaining = max(self.time_limit - (time.perf_counter() - started), self.time_limit / 4)
            heuristic = entrance.best_move(position, Limit(time=remaining))
            choice = EngineChoice(heuristic.move, position.ply, False, limited=heuristic)
        choice.time_s = time.perf_counter() - started
        self._cache[key] = choice
        return choice

    def close(self) -> None:
        """Stop the worker pool, if one was started."""
        if self.workers > 1:
            entrance.shutdown()


HELP = """\
Commands:
  <move>   {move_help}
  hint     my recommended move for you and what it is worth
  undo     take back your last move and my reply
  board    draw the board again
  help     this text
  quit     leave the game (end of input does the same; Ctrl-C stops at once)
'win in N moves' counts the moves of the winner from now, the next one included."""


class Game:
    """One game between a human (lines from ``inp``) and the :class:`Engine`.

    ``human``: ``"x"``/``"o"`` (or 1/2); None asks at the start. ``run()`` returns
    the exit status: 0 at the end of the game, on ``quit`` and at end of input,
    130 on Ctrl-C.
    """

    def __init__(self, spec: GameSpec, inp: TextIO, out: TextIO, human=None,
                 time_limit: Optional[float] = None, workers: int = 1, engine: Optional[Engine] = None,
                 position: Optional[Position] = None, book: Optional[str] = None) -> None:
        self.spec = spec
        self.inp = inp
        self.out = out
        self.human = None if human is None else self._side(str(human))
        if human is not None and self.human is None:
            raise MnkError(f"the human side must be x or o, got {human!r}")
        self.engine = engine or Engine(spec, time_limit=time_limit, workers=workers, book=book)
        self.position = position or Position(spec)

    # ------------------------------------------------------------ i/o
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def prompt(self, text: str) -> Optional[str]:
        """Write ``text``, read one line; None at end of input."""
        self.out.write(text)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.say()
            return None
        return line.strip()

    @staticmethod
    def _side(text: str) -> Optional[Side]:
        return {"x": X, "1": X, "o": O, "2": O, "0": O}.get(text.strip().lower())

    def show_board(self) -> None:
        self.say(str(self.position))

    @property
    def engine_side(self) -> Side:
        return O if self.human == X else X

    # ------------------------------------------------------------ the game
    def run(self) -> int:
        try:
            return self._run()
        except KeyboardInterrupt:
            self.say("\ninterrupted: bye.")
            return 130
        finally:
            self.engine.close()

    def _run(self) -> int:
        spec = self.spec
        how = "gravity: type a column number" if spec.gravity else "type a cell such as b2"
        engine = "perfect play where I can solve in time" if spec.exact_solvable else "heuristic search"
        self.say(f"{spec.describe()}: {spec.k} in a row wins ({how}). X moves first. "
                 f"Engine: {engine}, {self.engine.time_limit:g} s a move. Type 'help' for the commands.")
        self.engine.load()
        while self.human is None:
            answer = self.prompt("Do you play X (moves first) or O? [x/o] ")
            if answer is None or answer.lower() in QUIT_WORDS:
                self.say("bye.")
                return 0
            self.human = self._side(answer)
            if self.human is None:
                self.say(f"please answer x or o (not {answer!r})")
        self.say(f"You play {NAMES[self.human]}, I play {NAMES[self.engine_side]}.")
        if self.position.turn == self.human:
            self.show_board()
        while True:
            outcome = self.position.outcome()
            if outcome is not None:
                self.announce(outcome)
                return 0
            if self.position.turn == self.engine_side:
                self.engine_move()
                continue
            line = self.prompt(f"your move ({NAMES[self.human]}): ")
            if line is None:
                self.say("bye.")
                return 0
            if not self.command(line):
                self.say("bye.")
                return 0

    def command(self, line: str) -> bool:
        """Handle one line of input; False to quit."""
        word = line.lower()
        if not word:
            return True
        if word in QUIT_WORDS:
            return False
        if word in HELP_WORDS:
            move_help = ("a column number, 1 (left) to %d" % self.spec.cols if self.spec.gravity
                         else "a cell: column letter then row from the bottom, a1 to %s"
                         % move_name(self.spec, self.spec.cols - 1))
            self.say(HELP.format(move_help=move_help))
        elif word == "hint":
            self.hint()
        elif word == "undo":
            self.undo()
        elif word == "board":
            self.show_board()
        else:
            self.human_move(line)
        return True

    def human_move(self, text: str) -> None:
        try:
            move = Move.parse(self.spec, text)
        except MnkError as e:
            if text.isalpha():
                self.say(f"unknown command {text!r}: type a move, or 'help' for the commands")
            else:
                self.say(f"not a move: {e}; try again")
            return
        try:
            self.position.push(move)
        except MnkError as e:
            self.say(f"illegal move: {e}; try again")
            return
        self.say(f"You play {move}.")
        self.show_board()

    def engine_move(self) -> None:
        self.say("thinking...")
        choice = self.engine.choose(self.position)
        self.position.push(choice.move)
        self.say(self.engine_message(choice))
        self.show_board()

    def engine_message(self, choice: EngineChoice) -> str:
        move = move_name(self.spec, choice.move)
        kind, n = choice.outlook(self.spec)
        if choice.exact:
            if kind == "win":
                return f"I play {move}: I win now." if n == 1 else f"I play {move}: I win in {_moves(n)}."
            if kind == "draw":
                return f"I play {move}: a draw with best play."
            return f"I play {move}: you can win (in {_moves(n)} with best play)."
        how = choice.how()
        if kind == "win":
            return f"I play {move}: I win now." if n == 1 else f"I play {move}: I win in {_moves(n)} ({how})."
        if kind == "loss":
            return f"I play {move} (heuristic move, {how}): you can win in {_moves(n)}."
        return f"I play {move} (heuristic move, {how})."

    def hint(self) -> None:
        self.say("thinking...")
        choice = self.engine.choose(self.position)
        move = move_name(self.spec, choice.move)
        kind, n = choice.outlook(self.spec)
        if kind == "win":
            value = "win now" if n == 1 else f"win in {_moves(n)}"
        elif kind == "draw":
            value = "draw"
        elif kind == "loss":
            value = f"loss: I can win in {_moves(n)}; this holds out longest"
        else:
            value = None
        if not choice.exact:
            value = f"heuristic, {choice.how()}" + ("" if value is None else f": {value}")
        self.say(f"hint: {move} ({value})")

    def undo(self) -> None:
        stack = self.position.move_stack
        mine = 0 if self.human == X else 1   # X plays the even indices of the move stack
        human_moves = [i for i in range(len(stack)) if i % 2 == mine]
        if not human_moves:
            self.say("nothing to undo: you have not moved yet")
            return
        taken = []
        while len(stack) > human_moves[-1]:
            taken.append(move_name(self.spec, self.position.pop()))
        taken.reverse()
        what = f"your move {taken[0]}" + (f" and my reply {', '.join(taken[1:])}" if len(taken) > 1 else "")
        self.say(f"Took back {what}.")
        self.show_board()

    def announce(self, outcome) -> None:
        assert self.human is not None
        if outcome.winner is None:
            self.say("Game over: a draw.")
        elif outcome.winner == self.human:
            self.say(f"Game over: you win ({NAMES[self.human]}). Well played!")
        else:
            self.say(f"Game over: I win ({NAMES[self.engine_side]}).")


def play(spec: GameSpec, inp: TextIO, out: TextIO, human=None, time_limit: Optional[float] = None,
         workers: int = 1, book: Optional[str] = None) -> int:
    """Play one game; returns the exit status (see :class:`Game`). ``book``: the
    opening book the engine reads where it covers the position (a file, ``auto``, ``none``)."""
    return Game(spec, inp, out, human=human, time_limit=time_limit, workers=workers, book=book).run()
