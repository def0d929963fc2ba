"""Generated input for the command line's parsers (tests/fuzzing.py is the harness):
move lists and board text of free and gravity boards (``--moves``, ``--board``,
and the positions ``solve`` reads from stdin), and the game and search options.

For every input, ``parallel-mnk`` (run in this process) either answers or gives
one error line with exit 2, never a traceback or a hang; it refuses exactly what
:class:`Position` refuses, and what it answers is right: the value and exact score
of :mod:`naive` (tests/naive.py) for the position that the library reads from the
same text. Inputs are legal games written in every accepted way, the same games
with random edits (a character put in, dropped or changed, a move repeated, a
token replaced), and any text at all.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, fuzz, one_line_error, run_cli
from naive import naive_score
from parallel_mnk import GameSpec, MnkError, Position
from parallel_mnk.game.rules import format_board_text, move_name, value_of_score

SMALL = [GameSpec(3, 3, 3), GameSpec(4, 3, 3), GameSpec(4, 4, 3, gravity=True), GameSpec(3, 5, 3, gravity=True)]
JUNK = list("0123456789abcdefghijkxyzXO.,;:/ \t-+_*#\x00\u00e9\u0663\u2028\udcff")
SEPARATORS = [",", " ", ", ", " ,", "\t", ",,", "  "]
junk = st.text(alphabet=st.sampled_from(JUNK), max_size=6)
any_text = st.one_of(st.text(max_size=40), st.text(alphabet=st.sampled_from(JUNK), max_size=40))


def game_args(spec: GameSpec) -> list[str]:
    """The options that name ``spec``."""
    return ["--cols", str(spec.cols), "--rows", str(spec.rows), "--k", str(spec.k)] + \
        (["--gravity"] if spec.gravity else [])


@st.composite
def games(draw, spec: GameSpec) -> Position:
    """A legal game of ``spec``: each move an index into the legal moves, stopping when it ends."""
    pos = Position(spec)
    for choice in draw(st.lists(st.integers(0, 63), max_size=spec.cells)):
        if pos.is_game_over():
            break
        moves = list(pos.legal_moves)
        pos.push(moves[choice % len(moves)])
    return pos


@st.composite
def edited(draw, text: str) -> str:
    """``text`` with up to 3 random edits: a character put in, dropped or replaced, a piece repeated."""
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["insert", "drop", "replace", "repeat", "case"]))
        if how == "insert":
            text = text[:at] + draw(junk) + text[at:]
        elif how == "drop":
            text = text[:at] + text[at + 1:]
        elif how == "replace":
            text = text[:at] + draw(junk) + text[at + 2:]
        elif how == "repeat":
            text = text[:at] + text[at:at + 3] + text[at:]
        else:
            text = text.swapcase()
    return text


@st.composite
def move_texts(draw) -> tuple[GameSpec, str]:
    """A game of :data:`SMALL` and a move list: a legal game (past its end now and then),
    written with any accepted separator, maybe edited; or any text."""
    spec = draw(st.sampled_from(SMALL))
    if draw(st.integers(0, 4)) == 0:
        return spec, draw(any_text)
    pos = draw(games(spec))
    moves = list(pos.move_stack)
    if pos.is_game_over() and draw(st.booleans()):
        moves.append(draw(st.integers(0, spec.cols - 1 if spec.gravity else spec.cells - 1)))
    tokens = [move_name(spec, m) for m in moves]
    sep = "" if spec.gravity and draw(st.booleans()) else draw(st.sampled_from(SEPARATORS))
    text = draw(st.sampled_from(["", " ", "\t"])) + sep.join(tokens) + draw(st.sampled_from(["", " ", ","]))
    return spec, draw(edited(text))


@st.composite
def board_texts(draw) -> tuple[GameSpec, str]:
    """A game of :data:`SMALL` and board text: a legal game's board, any grid of x, o and
    '.' of about the right shape, either maybe edited; or any text."""
    spec = draw(st.sampled_from(SMALL))
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return spec, draw(any_text)
    if kind <= 2:
        pos = draw(games(spec))
        text = format_board_text(spec, pos.x, pos.o)
    else:
        rows = spec.rows + draw(st.sampled_from([0, 0, 0, -1, 1]))
        cells = st.text(alphabet=st.sampled_from("xo.xo..XO"), min_size=spec.cols, max_size=spec.cols)
        text = "/".join(draw(st.lists(cells, min_size=max(rows, 0), max_size=max(rows, 0))))
    return spec, draw(edited(text))


def check_position_answer(spec: GameSpec, position: Position, answer: dict) -> None:
    """``answer`` (solve --json) has the naive value and score of ``position``."""
    truth = naive_score(spec, position.x, position.o)
    assert (answer["value"], answer["score"]) == (value_of_score(truth).value, truth), (spec, position, answer)


def solve_property(option: str):
    """The property of ``solve --<option>=text``: the CLI refuses what the library refuses, in one line,
    and answers the rest with naive's score."""
    read = Position.from_moves if option == "moves" else Position.from_board

    def prop(case) -> bool:   # True: the text was a position (and was solved)
        spec, text = case
        spec = GameSpec(*spec) if isinstance(spec, list) else spec
        try:
            expected = read(spec, text)
        except MnkError:
            expected = None
        code, out, err = run_cli(["solve", *game_args(spec), f"--{option}={text}", "--workers", "1", "--json",
                                  "--no-progress", "--book", "none"])
        if expected is None:
            assert code == 2 and not out, (code, out, err)
            one_line_error(err)
            return False
        assert code == 0 and "Traceback" not in err, (code, err)
        check_position_answer(spec, expected, json.loads(out))
        again = Position.from_moves(spec, expected.move_stack) if option == "moves" else \
            Position.from_board(spec, expected.board_text())
        assert again == expected   # what is read writes back to the same position
        return True
    return prop


def as_case(strategy):
    """A (spec, text) strategy as JSON-friendly values for the corpus: spec as its 4 fields."""
    return strategy.map(lambda c: ([c[0].cols, c[0].rows, c[0].k, c[0].gravity], c[1]))


@pytest.mark.parametrize("examples", BUDGETS)
def test_move_lists(examples):
    fuzz("move_lists", as_case(move_texts()), solve_property("moves"), examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_board_text(examples):
    fuzz("board_text", as_case(board_texts()), solve_property("board"), examples)


def stdin_property(case) -> bool:
    """``solve`` reading positions from stdin: one JSON line each (a blank line is the empty board), an error
    line for a bad one, exit 1 if any (2 when stdin has no line); True when at least one line was a position."""
    spec, lines = case
    spec = GameSpec(*spec)
    code, out, err = run_cli(["solve", *game_args(spec), "--workers", "1", "--json", "--no-progress",
                              "--book", "none"], "".join(line + "\n" for line in lines))
    assert "Traceback" not in err and code in ((0, 1) if lines else (2,)), (code, err)
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["input"] for a in answers] == [line.rstrip("\r") for line in lines]
    bad = 0
    for line, answer in zip(lines, answers):
        text = line.strip()
        try:
            pos = Position.from_board(spec, text) if "/" in text else Position.from_moves(spec, text)
        except MnkError as e:
            bad += 1
            assert answer == {"input": line.rstrip("\r"), "error": str(e)}
            continue
        check_position_answer(spec, pos, answer)
    assert code == ((1 if bad else 0) if lines else 2)
    return bad < len(lines)


stdin_cases = st.builds(lambda spec, lines: ([spec.cols, spec.rows, spec.k, spec.gravity], lines),
                        st.sampled_from(SMALL),
                        st.lists(st.one_of(move_texts().map(lambda c: c[1]), board_texts().map(lambda c: c[1]))
                                 .map(lambda t: "".join(ch for ch in t if ch not in "\n\r\u2028")), max_size=4))


@pytest.mark.parametrize("examples", BUDGETS)
def test_positions_on_stdin(examples):
    fuzz("stdin_positions", stdin_cases, stdin_property, examples)
