"""Generated input for ``parallel-mnk play`` (tests/fuzzing.py is the harness): the
lines a player types: moves right and wrong, the commands (hint, undo, board,
help, quit) in any case and any order, the side asked at the start, junk, text
that is not a line of a terminal at all, on free and gravity boards.

Whatever is typed, the game answers each line and ends with exit 0 (end of the
game, quit or end of input), never a traceback or a hang, and every line of what
it writes is printable (a typed escape sequence is not echoed raw to the terminal).
"""
from __future__ import annotations

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, fuzz, run_cli

GAMES = [["--game", "tictactoe"], ["--cols", "4", "--rows", "4", "--k", "3", "--gravity"]]
WORDS = ["hint", "undo", "board", "help", "quit", "HELP", "Undo", "x", "o", "X", "yes", "", " ", "b2", "a1", "c3",
         "d4", "1", "2", "4", "5", "0", "-1", "b2 c3", "b", "22", "a0", "\t", "\x00", "\x1b[2J", "\u00b2", "q"]
lines = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=12)
cases = st.tuples(st.integers(0, len(GAMES) - 1), st.sampled_from(["x", "o", None]), lines).map(list)


def play_property(case) -> None:
    which, human, typed = case
    argv = ["play", *GAMES[which], "--time-limit", "0.2"] + (["--human", human] if human else [])
    text = "".join(line.replace("\n", " ").replace("\r", " ") + "\n" for line in typed)
    code, out, err = run_cli(argv, text)
    assert code == 0 and "Traceback" not in out + err, (code, out[-500:], err)
    assert all(line.isprintable() for line in out.splitlines()), [line for line in out.splitlines() if not line.isprintable()]


@pytest.mark.parametrize("examples", BUDGETS)
def test_typed_lines(examples):
    fuzz("play_lines", cases, play_property, examples)
