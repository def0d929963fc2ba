"""Generated input for ``parallel-mnk play`` (tests/fuzzing.py is the harness): the
lines a player types: moves right and wrong, the commands (hint, undo, board,
help, quit) in any case and any order, the side asked at the start, junk, text
that is not a line of a terminal at all, on free and gravity boards.

Whatever is typed, the game answers each line and ends with exit 0 (end of the
game, quit or end of input), never a traceback or a hang, and every line of what
it writes is printable (a typed escape sequence is not echoed raw to the terminal).
Every move the engine plays is legal, is the one the next board shows, and keeps
the value tests/naive.py gives the position (a win stays a win, a draw a draw),
and what the engine says of it ("I win", "a draw", "you can win") is that value.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, fuzz, run_cli
from naive import naive_score
from parallel_mnk import GameSpec, Position
from parallel_mnk import parse_move

GAMES = [["--game", "tictactoe"], ["--cols", "4", "--rows", "4", "--k", "3", "--gravity"]]
SPECS = [GameSpec(3, 3, 3), GameSpec(4, 4, 3, True)]
ROW = re.compile(r"^\d+ ([.XO](?: [.XO])*)$")
PROMPT = re.compile(r"^(?:your move \([XO]\): )+")
CLAIMS = {"I win": 1, "a draw with best play": 0, "you can win": -1}   # what a message says -> the value
WORDS = ["hint", "undo", "board", "help", "quit", "HELP", "Undo", "x", "o", "X", "yes", "", " ", "b2", "a1", "c3",
         "d4", "1", "2", "4", "5", "0", "-1", "b2 c3", "b", "22", "a0", "\t", "\x00", "\x1b[2J", "\u00b2", "q"]
lines = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=12)
cases = st.tuples(st.integers(0, len(GAMES) - 1), st.sampled_from(["x", "o", None]), lines).map(list)


def play_property(case) -> bool:
    """The game's property (the module docstring); True when an engine move was checked."""
    which, human, typed = case
    argv = ["play", *GAMES[which], "--time-limit", "0.2"] + (["--human", human] if human else [])
    text = "".join(line.replace("\n", " ").replace("\r", " ") + "\n" for line in typed)
    code, out, err = run_cli(argv, text)
    assert code == 0 and "Traceback" not in out + err, (code, out[-500:], err)
    assert all(line.isprintable() for line in out.splitlines()), [line for line in out.splitlines() if not line.isprintable()]
    return check_engine_moves(SPECS[which], transcript(out)) > 0


def transcript(out: str) -> list[tuple[str, str]]:
    """The boards (``("board", text as Position.from_board reads it)``) and the engine's
    moves (``("engine", its message)``) of a game's output, in order."""
    events: list[tuple[str, str]] = []
    rows: list[str] = []
    for raw in out.splitlines():
        line = PROMPT.sub("", raw)
        row = ROW.match(line)
        if row:
            rows.append(row.group(1).replace(" ", "").lower())
            continue
        if rows:   # the footer under the rows
            events.append(("board", "/".join(rows)))
            rows = []
        if line.startswith("I play "):
            events.append(("engine", line))
    return events


def check_engine_moves(spec: GameSpec, events: list[tuple[str, str]]) -> int:
    """Check every engine move between the boards before and after it against naive.py;
    returns how many were exact (a heuristic move is checked for legality only)."""
    exact = 0
    for i, (kind, message) in enumerate(events):
        if kind != "engine":
            continue
        before = next((text for k, text in reversed(events[:i]) if k == "board"),
                      Position(spec).board_text())   # (the engine's first move comes before any board)
        after = next(text for k, text in events[i + 1:] if k == "board")
        position = Position.from_board(spec, before)
        move = parse_move(spec, message.split()[2].rstrip(":"))
        assert move in position.legal_moves, (message, before)
        mover_before = naive_score(spec, position.x, position.o)
        position.push(move)
        assert position.board_text() == after, (message, before, after)
        if "heuristic" in message:
            continue
        exact += 1
        value = (mover_before > 0) - (mover_before < 0)
        claimed = next(v for claim, v in CLAIMS.items() if claim in message)
        assert claimed == value, (message, before, mover_before)
        if position.outcome() is None:   # the move keeps the value: the opponent's is its opposite
            reply = naive_score(spec, position.x, position.o)
            assert (reply > 0) - (reply < 0) == -value, (message, before, mover_before, reply)
    return exact


@pytest.mark.parametrize("examples", BUDGETS)
def test_typed_lines(examples):
    fuzz("play_lines", cases, play_property, examples)
