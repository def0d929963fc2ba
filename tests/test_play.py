"""parallel_mnk.frontends.play and ``parallel-mnk play``.

Unit tests drive :class:`Game` with scripted input streams; the end-to-end tests run
``python -m parallel_mnk play`` on a pseudo-terminal (stdlib ``pty``/``os.openpty``)
and type at it like a person: full games on 3x3 (never lost by the engine), illegal
input, undo, hint, quit, end of input, Ctrl-C, gravity, and a 15x15 board where the
engine uses only the heuristic search.
"""
from __future__ import annotations

import fcntl
import io
import os
import random
import re
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from checks import random_positions
from parallel_mnk import GameSpec, Position
from parallel_mnk import entrance as solver_module
from parallel_mnk.frontends.cli import main
from parallel_mnk.frontends.play import Engine, Game
from parallel_mnk.game.position import O, X
from parallel_mnk.game.rules import move_name, move_index
from parallel_mnk.entrance import solve
from parallel_mnk import Options

ROOT = Path(__file__).resolve().parent.parent
TTT = GameSpec(3, 3, 3)
G443 = GameSpec(4, 4, 3, True)
GOMOKU = GameSpec(15, 15, 5)


# ---------------------------------------------------------------- scripted input
class Script:
    """An input stream: fixed lines first, then (optionally) random legal moves of
    the game's position, then end of input."""

    def __init__(self, lines=(), rng: random.Random | None = None) -> None:
        self.lines = list(lines)
        self.rng = rng
        self.game: Game | None = None

    def readline(self) -> str:
        if self.lines:
            line = self.lines.pop(0)
            if isinstance(line, BaseException):
                raise line
            return line + "\n"
        if self.rng is not None and self.game is not None:
            pos = self.game.position
            return move_name(pos.spec, self.rng.choice(pos.legal_moves)) + "\n"
        return ""


def run_game(spec, lines=(), rng=None, human="x", time_limit=2.0, **kw):
    """``(exit status, output, game)`` of one scripted game."""
    script = Script(lines, rng)
    out = io.StringIO()
    game = Game(spec, script, out, human=human, time_limit=time_limit, **kw)
    script.game = game
    code = game.run()
    return code, out.getvalue(), game


@pytest.mark.parametrize("human", ["x", "o"])
def test_random_human_never_beats_the_engine_on_3x3(human):
    for seed in range(12):
        code, out, game = run_game(TTT, rng=random.Random(seed), human=human)
        assert code == 0
        outcome = game.position.outcome()
        assert outcome is not None, out
        assert outcome.winner in (None, game.engine_side), out
        assert "Game over: " in out and "you win" not in out
        assert "heuristic" not in out  # 3x3 is always solved exactly


@pytest.mark.parametrize("human", ["x", "o"])
def test_random_human_on_gravity_4x4_k3(human):
    for seed in range(4):
        code, out, game = run_game(G443, rng=random.Random(100 + seed), human=human)
        assert code == 0
        assert game.position.outcome().winner in (None, game.engine_side), out
    # the first player wins 4x4 k=3 with gravity: the engine as X says so and does it
    code, out, game = run_game(G443, rng=random.Random(7), human="o")
    assert re.search(r"I play \d: I win in \d moves\.", out)
    assert game.position.outcome().winner == X and out.rstrip().endswith("Game over: I win (X).")


def test_board_is_drawn_after_every_move():
    code, out, game = run_game(TTT, lines=["b2", "quit"])
    assert code == 0
    pos = Position(TTT)
    assert str(pos) in out                       # before the human's first move
    pos.push("b2")
    assert "You play b2.\n" + str(pos) in out
    reply = re.search(r"I play ([a-c][1-3]): a draw with best play\.", out).group(1)
    pos.push(reply)
    assert str(pos) + "\nyour move (X): " in out
    assert game.position.board_text() == pos.board_text()


def test_illegal_input_is_explained_and_asked_again():
    code, out, game = run_game(TTT, lines=["a1", "a1", "zz", "xyzzy", "d1", "a0", "a", "12", "", "  ", "quit"])
    assert code == 0
    assert "illegal move: cell a1 is already taken; try again" in out
    assert "unknown command 'zz'" in out and "unknown command 'xyzzy'" in out
    assert "not a move: cell 'd1' is off the 3x3 board" in out
    assert "not a move: cell 'a0' is off the 3x3 board" in out
    assert "unknown command 'a'" in out
    assert "not a move: '12' is not a cell name" in out
    assert game.position.ply == 2                      # a1 and the engine's reply only
    assert out.count("your move (X): ") == 11
    assert out.rstrip().endswith("bye.")


def test_illegal_gravity_input():
    code, out, game = run_game(G443, lines=["o", "0", "5", "c3", "quit"], human=None)
    assert code == 0
    assert "not a move: column 0 is off the board (1..4)" in out
    assert "not a move: column 5 is off the board (1..4)" in out
    assert "not a move: 'c3' is not a column number (1..4)" in out
    assert game.position.ply == 1


def test_full_column_is_refused():
    spec = GameSpec(4, 4, 4, True)
    pos = Position.from_moves(spec, "1111")   # column 1 full, X to move
    out = io.StringIO()
    assert Game(spec, Script(["1", "quit"]), out, human="x", position=pos).run() == 0
    assert "illegal move: column 1 is full; try again" in out.getvalue()
    assert pos.ply == 4


def test_undo_restores_the_position_before_the_human_move():
    code, out, game = run_game(TTT, lines=["undo", "a1", "undo", "c3", "a3", "undo", "board", "quit"])
    assert code == 0
    assert "nothing to undo: you have not moved yet" in out
    assert "Took back your move a1 and my reply " in out
    assert re.search(r"Took back your move a3 and my reply [a-c][1-3]\.", out)
    assert game.position.ply == 2 and game.position.move_stack[0] == move_index(TTT, "c3")
    # after an undo the board drawn is the position before the undone moves
    after_first = out.split("Took back your move a3")[1]
    expected = Position(TTT)
    for m in game.position.move_stack:
        expected.push(m)
    assert after_first.split("\n", 1)[1].startswith(str(expected))


def test_undo_as_o_keeps_the_engines_first_move():
    code, out, game = run_game(TTT, lines=["undo", "a1", "undo", "quit"], human="o")
    assert code == 0
    assert "nothing to undo: you have not moved yet" in out
    assert game.position.ply == 1 and game.position.turn == O


def test_hint_gives_a_move_and_its_value():
    code, out, _ = run_game(TTT, lines=["hint", "quit"])
    assert re.search(r"hint: [a-c][1-3] \(draw\)\n", out)
    # X to move can win at once: a1 a2 (X) vs b1 b2 (O) -> a3
    pos = Position.from_moves(TTT, "a1,b1,a2,b2")
    out = io.StringIO()
    Game(TTT, Script(["hint", "quit"]), out, human="x", position=pos).run()
    assert "hint: a3 (win now)" in out.getvalue()
    # gravity: hint for the losing side names the move that holds out longest
    code, out, _ = run_game(G443, lines=["hint", "quit"], human="o")
    m = re.search(r"hint: (\d) \(loss: I can win in (\d) moves; this holds out longest\)", out)
    assert m, out


def test_hint_and_moves_count_the_winners_moves():
    """'win in N moves' = the winner's stones from now in a perfect game (the PV)."""
    engine = Engine(G443, time_limit=5)
    for pos in random_positions(G443, 25, (0, 7), seed=5, distinct=False):
        choice = engine.choose(pos)
        assert choice.exact
        kind, n = choice.outlook(G443)
        result = solve(pos, options=Options(pv=True))
        assert kind == result.value
        if kind == "win":
            assert n == (len(result.pv) + 1) // 2
        elif kind == "loss":
            assert n == len(result.pv) // 2


def test_side_question_and_end_of_input():
    code, out, game = run_game(TTT, lines=["maybe", "O"], human=None)
    assert code == 0
    assert "please answer x or o (not 'maybe')" in out
    assert "You play O, I play X." in out
    assert game.position.ply == 1          # the engine moved first, then input ended
    assert out.rstrip().endswith("bye.")
    code, out, _ = run_game(TTT, lines=[], human=None)
    assert code == 0 and out.rstrip().endswith("bye.")


def test_ctrl_c_exits_130_cleanly():
    code, out, _ = run_game(TTT, lines=["b2", KeyboardInterrupt()])
    assert code == 130
    assert out.rstrip().endswith("interrupted: bye.")


def test_big_board_never_calls_the_exact_solver(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("solve() called on a board over 64 cells")

    monkeypatch.setattr(solver_module, "solve", refuse)
    code, out, game = run_game(GOMOKU, lines=["h8", "hint", "quit"], time_limit=0.5)
    assert code == 0
    assert re.search(r"I play [a-o]\d+ \(heuristic move, searched \d+ plies in [\d.]+ s\)\.", out)
    assert re.search(r"hint: [a-o]\d+ \(heuristic, searched \d+ plies in [\d.]+ s\)", out)
    assert game.position.ply == 2


def test_heuristic_fallback_when_the_solver_runs_out_of_time():
    engine = Engine(GameSpec(7, 6, 4, True), time_limit=0.2)
    choice = engine.choose(Position(GameSpec(7, 6, 4, True)))
    assert not choice.exact and choice.limited is not None
    assert choice.time_s < 5.0   # 0.2 s budget; loading the heuristic kernels from cache may come on top


def test_heuristic_win_is_announced():
    # X has four in a row with both ends open on 15x15: the heuristic proves the win
    pos = Position.from_moves(GOMOKU, "f8,a1,g8,a2,h8,a3,i8,b5")
    choice = Engine(GOMOKU, time_limit=0.5).choose(pos)
    assert choice.outlook(GOMOKU) == ("win", 1)
    assert move_name(GOMOKU, choice.move) in ("e8", "j8")


def test_cli_play_arguments(capsys):
    out = io.StringIO()
    code = main(["play", "--game", "tictactoe", "--human", "X", "--time-limit", "1"],
                stdin=io.StringIO("b2\nquit\n"), stdout=out)
    assert code == 0 and "You play b2." in out.getvalue()
    for argv in (["play", "--game", "tictactoe", "--human", "z"],
                 ["play", "--game", "tictactoe", "--time-limit", "0"],
                 ["play", "--game", "tictactoe", "--workers", "0"],
                 ["play", "--cols", "3"]):
        try:
            code = main(argv, stdin=io.StringIO(""), stdout=io.StringIO())
        except SystemExit as e:
            code = e.code
        assert code == 2, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.count("\n") == 1, err


# ---------------------------------------------------------------- pseudo-terminal
def _controlling_tty():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)   # after setsid: the pty is our terminal, Ctrl-C sends SIGINT


class Terminal:
    """``python -m parallel_mnk play ARGS`` on a pseudo-terminal."""

    def __init__(self, *args: str) -> None:
        master, slave = os.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "parallel_mnk", "play", *args],
                                     stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, close_fds=True,
                                     start_new_session=True, preexec_fn=_controlling_tty)
        os.close(slave)
        self.fd = master
        self.text = ""     # all output so far, '\r\n' as '\n'
        self.pos = 0       # where the next expect() starts
        self.eof = False

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return
        try:
            data = os.read(self.fd, 65536)
        except OSError:   # EIO: the child closed the terminal
            data = b""
        if not data:
            self.eof = True
            return
        self.text += data.decode("utf-8", "replace").replace("\r\n", "\n")

    def expect(self, pattern: str, timeout: float = 30.0) -> re.Match:
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.text, self.pos)
            if m:
                self.pos = m.end()
                return m
            if self.eof or time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not seen; output after position {self.pos}:\n"
                                     f"{self.text[self.pos:]}")
            self._read(min(0.5, max(0.0, deadline - time.monotonic())))

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def line(self, text: str) -> None:
        self.send(text + "\n")

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while not self.eof and time.monotonic() < deadline:
            self._read(0.2)
        try:
            return self.proc.wait(max(0.1, deadline - time.monotonic()))
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@pytest.fixture
def terminal():
    started = []

    def start(*args):
        t = Terminal(*args)
        started.append(t)
        return t

    yield start
    for t in started:
        t.close()


PROMPT = r"your move \(([XO])\): "
ENGINE_MOVE = r"I play ([a-z]\d+|\d+)\b"


def play_out(term: Terminal, spec: GameSpec, rng: random.Random) -> tuple[Position, str]:
    """Answer every prompt with a random legal move until the game ends; check the
    board drawn after each move. Returns the final position and the end message."""
    pos = Position(spec)
    while True:
        m = term.expect(rf"{PROMPT}|{ENGINE_MOVE}|Game over: [^\n]*\n")
        if m.group(0).startswith("Game over"):
            assert pos.is_game_over()
            return pos, m.group(0).strip()
        if m.group(0).startswith("I play"):
            pos.push(m.group(2))
            term.expect(re.escape(str(pos)))
            continue
        move = rng.choice(pos.legal_moves)
        term.line(move_name(spec, move))
        pos.push(move)
        term.expect(re.escape(f"You play {move_name(spec, move)}.\n{pos}"))


@pytest.mark.parametrize("human,seed", [("x", 1), ("o", 2)])
def test_pty_full_game_on_3x3_is_never_lost(terminal, human, seed):
    term = terminal("--game", "tictactoe", "--human", human, "--time-limit", "2")
    pos, end = play_out(term, TTT, random.Random(seed))
    assert pos.outcome().winner != (X if human == "x" else O)
    assert end in ("Game over: a draw.", "Game over: I win (O).", "Game over: I win (X).")
    assert term.wait() == 0
    assert "Traceback" not in term.text


def test_pty_illegal_input_undo_hint_and_quit(terminal):
    term = terminal("--game", "tictactoe", "--human", "x", "--time-limit", "2")
    term.expect(PROMPT)
    term.line("b2")
    reply = term.expect(ENGINE_MOVE).group(1)
    pos = Position.from_moves(TTT, f"b2,{reply}")
    term.expect(re.escape(str(pos)) + r"\n" + PROMPT)
    before = str(pos)
    for bad, why in (("b2", r"illegal move: cell b2 is already taken"),
                     (reply, rf"illegal move: cell {reply} is already taken"),
                     ("hello", r"unknown command 'hello'"),
                     ("z9", r"not a move: cell 'z9' is off the 3x3 board"),
                     ("c4", r"not a move: cell 'c4' is off the 3x3 board"),
                     ("#!", r"not a move: '#!' is not a cell name")):
        term.line(bad)
        term.expect(why + r"[^\n]*\n" + PROMPT)
    term.line("board")
    term.expect(re.escape(before) + r"\n" + PROMPT)
    # a move, the engine's reply, then undo: the board is the one before them
    free = next(m for m in pos.legal_moves)
    term.line(move_name(TTT, free))
    term.expect(ENGINE_MOVE)
    term.expect(PROMPT)
    term.line("undo")
    term.expect(rf"Took back your move {move_name(TTT, free)} and my reply [a-c][1-3]\.\n" + re.escape(before)
                + r"\n" + PROMPT)
    term.line("hint")
    term.expect(r"hint: [a-c][1-3] \((draw|win in \d moves|win now)\)\n" + PROMPT)
    term.line("quit")
    term.expect(r"bye\.")
    assert term.wait() == 0
    assert "Traceback" not in term.text


def test_pty_gravity_game(terminal):
    # the side is asked at the start; the engine as X wins 4x4 k=3 with gravity
    term = terminal("--cols", "4", "--rows", "4", "--k", "3", "--gravity", "--time-limit", "2")
    term.expect(r"Do you play X \(moves first\) or O\? \[x/o\] ")
    term.line("o")
    term.expect("You play O, I play X.")
    pos, end = play_out(term, G443, random.Random(3))
    assert end == "Game over: I win (X)." and pos.outcome().winner == X
    assert term.wait() == 0


def test_pty_end_of_input_exits_0(terminal):
    term = terminal("--game", "tictactoe", "--human", "o", "--time-limit", "2")
    term.expect(ENGINE_MOVE)
    term.expect(PROMPT)
    term.send("\x04")   # Ctrl-D at the start of a line: end of input
    term.expect(r"bye\.")
    assert term.wait() == 0
    assert "Traceback" not in term.text


def test_pty_15x15_heuristic_reply_then_ctrl_c(terminal):
    term = terminal("--cols", "15", "--rows", "15", "--k", "5", "--human", "x", "--time-limit", "1")
    term.expect(PROMPT)
    term.line("h8")
    m = term.expect(r"I play ([a-o]\d+) \(heuristic move, searched \d+ plies in [\d.]+ s\)\.")
    pos = Position.from_moves(GOMOKU, f"h8,{m.group(1)}")
    term.expect(re.escape(str(pos)) + r"\n" + PROMPT)
    term.send("\x03")   # Ctrl-C
    term.expect(r"interrupted: bye\.")
    assert term.wait() == 130
    assert "Traceback" not in term.text
