"""Generated input for ``parallel-mnk nmk``, the NMK assignment's protocol
(tests/fuzzing.py is the harness): queries of every command on small boards,
written with any whitespace, then edited at random (a token put in, dropped,
changed or repeated; the input cut short), and any text at all.

Every input gets its answers (exit 0) or one error line with exit 2, never a
traceback or a hang; exit 2 exactly when :func:`protocol.parse` refuses the text
or a SOLVE board has a line of each player. The answers are checked against
references written here: the number of boards each GEN query prints (what an
empty cell, a finished board and the cut rule give, with naive's lines), and for
a SOLVE board whose player to move fits the stone counts, naive's value
(tests/naive.py).
"""
from __future__ import annotations

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, fuzz, naive_can_solve, one_line_error, run_cli
from naive import all_lines, naive_score
from parallel_mnk import GameSpec, MnkError
from parallel_mnk.frontends import protocol

JUNK = ["", "0", "1", "2", "3", "-1", "00", "x", "SOLVE_GAME_STATE", "GEN_ALL_POS_MOV", "99999999999999999999",
        "1e3", "\u0661", "\x00", "\ufeff"]
SPACES = [" ", "\n", "\t", "  ", "\r\n", " \n"]


@st.composite
def queries(draw) -> str:
    """One well-formed query on a board of at most 4x4: any cells, or the stone counts of a game."""
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    n = rows * cols
    player = draw(st.integers(1, 2))
    if draw(st.booleans()):   # any cells
        cells = draw(st.lists(st.sampled_from("0001122"), min_size=n, max_size=n))
    else:                     # counts of a game, and its player to move
        order, stones = draw(st.permutations(range(n))), draw(st.integers(0, n))
        cells = ["0"] * n
        for i, cell in enumerate(order[:stones]):
            cells[cell] = "1" if i < (stones + 1) // 2 else "2"
        player = 1 if stones % 2 == 0 else 2
    head = [draw(st.sampled_from(protocol.COMMANDS)), str(rows), str(cols), str(draw(st.integers(1, 4))),
            str(player)]
    sep = draw(st.sampled_from(SPACES))
    return sep.join(head) + "\n" + "\n".join(" ".join(cells[r * cols:(r + 1) * cols]) for r in range(rows))


@st.composite
def inputs(draw) -> str:
    """Up to 4 queries, with up to 3 token edits; or any text."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.text(max_size=60))
    tokens = "\n".join(draw(st.lists(queries(), max_size=4))).split(" ")
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(tokens)))
        how = draw(st.sampled_from(["insert", "drop", "replace", "repeat", "cut"]))
        if how == "insert":
            tokens.insert(at, draw(st.sampled_from(JUNK)))
        elif how == "drop":
            del tokens[at:at + 1]
        elif how == "replace":
            tokens[at:at + 1] = [draw(st.sampled_from(JUNK))]
        elif how == "repeat":
            tokens[at:at] = tokens[at:at + 2]
        else:
            tokens = tokens[:at]
    return " ".join(tokens)


def has_line(bits: int, rows: int, cols: int, k: int) -> bool:
    """Whether ``bits`` hold a line of ``k`` (naive's lines; a K longer than every side has none)."""
    return k <= max(rows, cols) and any(bits & line == line for line in all_lines(cols, rows, k))


def gen_count(q: protocol.Query) -> int:
    """The number of boards a GEN query prints (its first line), from the rules alone."""
    x, o = q.stones()
    n = q.rows * q.cols
    if x | o == (1 << n) - 1 or has_line(x, q.rows, q.cols, q.k) or has_line(o, q.rows, q.cols, q.k):
        return 0
    empty = [c for c in range(n) if not (x | o) >> c & 1]
    own = x if q.player == 1 else o
    if q.command == protocol.GEN_CUT and (len(empty) == 1 or any(
            has_line(own | 1 << c, q.rows, q.cols, q.k) for c in empty)):
        return 1
    return len(empty)


def solve_reference(q: protocol.Query) -> str | None:
    """Naive's answer of a SOLVE query whose side to move fits the counts, on a board naive
    answers quickly (None otherwise)."""
    x, o = q.stones()
    if has_line(x, q.rows, q.cols, q.k) or has_line(o, q.rows, q.cols, q.k) or q.cols > 26:
        return None
    spec = GameSpec(q.cols, q.rows, min(q.k, max(q.rows, q.cols) + 1))   # (a longer K: the same game)
    if not naive_can_solve(spec, (x | o).bit_count()):
        return None
    mover, other = (x, o) if q.player == 1 else (o, x)
    a, b = mover.bit_count(), other.bit_count()
    if a == b:
        score = naive_score(spec, mover, other)
    elif a == b - 1:
        score = naive_score(spec, other, mover)
    else:
        return None
    if score == 0:
        return protocol.TIE
    return protocol.FIRST_WINS if (score > 0) == (q.player == 1) else protocol.SECOND_WINS


def protocol_property(text: str) -> bool:
    """The NMK program's answer to ``text``: one error line for what the protocol
    refuses, else every query answered (values against the references); True then."""
    code, out, err = run_cli(["nmk"], text)
    try:
        parsed = protocol.parse(text.removeprefix("\ufeff"))
    except MnkError:
        parsed = None
    refused = parsed is None or any(
        q.command == protocol.SOLVE and has_line(q.stones()[0], q.rows, q.cols, q.k)
        and has_line(q.stones()[1], q.rows, q.cols, q.k) for q in parsed)
    if refused:
        assert code == 2 and out == "", (code, out, err)
        one_line_error(err)
        return False
    assert code == 0 and err == "", (code, err)
    answers = iter(out.split("\n"))
    for q in parsed:
        first = next(answers)
        if q.command == protocol.SOLVE:
            expected = solve_reference(q)
            assert first in (protocol.FIRST_WINS, protocol.SECOND_WINS, protocol.TIE), first
            assert expected is None or first == expected, (q, first, expected)
            continue
        count = int(first)
        assert count == gen_count(q), (q, out)
        for _ in range(count * q.rows):
            next(answers)
    assert list(answers) == [""]   # every answer line read, then the final newline
    return True


@pytest.mark.parametrize("examples", BUDGETS)
def test_protocol_input(examples):
    fuzz("nmk_protocol", inputs(), protocol_property, examples)
