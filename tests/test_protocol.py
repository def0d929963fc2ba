"""parallel_mnk.frontends.protocol and ``parallel-mnk nmk``: the NMK assignment's stdin/stdout protocol.

Hand-made inputs for each command and edge case, malformed inputs, SOLVE
against the naive reference solver on random positions (the player to move
given explicitly), and the assignment's official test files from
``../shared/data/nmk_protocol`` (skipped when absent).
"""
from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from checks import missing
from naive import naive_solver
from parallel_mnk import GameSpec
from parallel_mnk.frontends.cli import main

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "nmk_protocol"
NO_DATA = ("../shared/data/nmk_protocol not found: the NMK assignment's test files are third-party "
           "data that is not shipped with the project")
SLOW_QUERIES = 5000  # golden files with more queries than this are marked slow


def nmk(text: str, *argv: str) -> tuple[int, str]:
    """``(exit code, stdout)`` of ``parallel-mnk nmk`` run in this process on ``text``."""
    out = io.StringIO()
    try:
        code = main(["nmk", *argv], stdin=io.StringIO(text), stdout=out)
    except SystemExit as e:  # argparse errors
        code = e.code
    return code, out.getvalue()


def query(command: str, board: str, player: int, k: int = 3) -> str:
    """Protocol text of one query; ``board`` is rows of digits separated by '/' (``'120/000/000'``)."""
    rows = board.split("/")
    cells = "\n".join(" ".join(row) for row in rows)
    return f"{command} {len(rows)} {len(rows[0])} {k} {player}\n{cells}\n\n"


def boards(*texts: str) -> str:
    """Expected GEN lines for boards given as ``'120/000/000'``."""
    return "".join("\n".join(" ".join(row) for row in t.split("/")) + "\n" for t in texts)


# ---------------------------------------------------------------- GEN_ALL_POS_MOV
def test_gen_lists_every_empty_cell_in_row_major_order():
    code, out = nmk(query("GEN_ALL_POS_MOV", "00/02", 1, k=2))
    assert code == 0
    assert out == "3\n" + boards("10/02", "01/02", "00/12")


def test_gen_puts_the_given_players_stone():
    code, out = nmk(query("GEN_ALL_POS_MOV", "100/000/000", 2))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "8"
    assert len(lines) == 1 + 8 * 3
    assert lines[1:4] == ["1 2 0", "0 0 0", "0 0 0"]
    assert lines[-3:] == ["1 0 0", "0 0 0", "0 0 2"]


def test_gen_does_not_infer_the_player_from_the_counts():
    # one stone of player 1, so player 2 "should" move, but P = 1 is given
    code, out = nmk(query("GEN_ALL_POS_MOV", "10/00", 1, k=3))
    assert out == "3\n" + boards("11/00", "10/10", "10/01")


@pytest.mark.parametrize("command", ["GEN_ALL_POS_MOV", "GEN_ALL_POS_MOV_CUT_IF_GAME_OVER"])
@pytest.mark.parametrize("board,player", [
    ("111/220/000", 2),   # won by player 1 (who is not to move)
    ("222/110/100", 1),   # won by player 2
    ("222/110/100", 2),   # won by the player to move: still over
    ("121/122/211", 1),   # full, no line
    ("111/221/212", 2),   # full, with a line
])
def test_gen_on_a_finished_board_prints_0(command, board, player):
    code, out = nmk(query(command, board, player))
    assert (code, out) == (0, "0\n")


def test_gen_k1_and_k_longer_than_the_board():
    assert nmk(query("GEN_ALL_POS_MOV", "00", 1, k=1)) == (0, "2\n1 0\n0 1\n")
    assert nmk(query("GEN_ALL_POS_MOV", "10", 2, k=1)) == (0, "0\n")  # one stone is a line
    assert nmk(query("GEN_ALL_POS_MOV", "10/00", 2, k=5)) == (0, "3\n" + boards("12/00", "10/20", "10/02"))


# ---------------------------------------------------------------- GEN_ALL_POS_MOV_CUT_IF_GAME_OVER
CUT = "GEN_ALL_POS_MOV_CUT_IF_GAME_OVER"


def test_cut_prints_the_winning_board():
    assert nmk(query(CUT, "110/220/000", 1)) == (0, "1\n" + boards("111/220/000"))
    assert nmk(query(CUT, "110/220/000", 2)) == (0, "1\n" + boards("110/222/000"))


def test_cut_prints_the_first_ending_board_in_row_major_order():
    # player 1 wins on b (row 0), on the centre (diagonal) and on the left of row 1 (column 0)
    assert nmk(query(CUT, "101/000/100", 1)) == (0, "1\n" + boards("111/000/100"))
    # wins on the last row only, after several non-winning cells
    assert nmk(query(CUT, "020/020/101", 1)) == (0, "1\n" + boards("020/020/111"))


def test_cut_when_the_last_empty_cell_fills_the_board():
    assert nmk(query(CUT, "121/122/210", 1)) == (0, "1\n" + boards("121/122/211"))
    assert nmk(query("GEN_ALL_POS_MOV", "121/122/210", 1)) == (0, "1\n" + boards("121/122/211"))


def test_cut_ignores_the_opponents_threat():
    # player 1 threatens the top row; player 2 (to move) cannot win at once: the full list
    text = query(CUT, "110/200/000", 2)
    code, out = nmk(text)
    assert code == 0
    assert out == nmk(query("GEN_ALL_POS_MOV", "110/200/000", 2))[1]
    assert out.startswith("6\n")


def test_cut_with_no_ending_move_is_the_plain_list():
    code, out = nmk(query(CUT, "100/000/000", 2))
    assert out == nmk(query("GEN_ALL_POS_MOV", "100/000/000", 2))[1]
    assert out.startswith("8\n")


# ---------------------------------------------------------------- SOLVE_GAME_STATE
S = "SOLVE_GAME_STATE"


@pytest.mark.parametrize("board,player,k,expected", [
    ("000/000/000", 1, 3, "BOTH_PLAYERS_TIE"),          # tic-tac-toe
    ("000/000/000", 2, 3, "BOTH_PLAYERS_TIE"),
    ("0000/0000/0000", 1, 3, "FIRST_PLAYER_WINS"),     # 3 rows x 4 columns, k = 3
    ("0000/0000/0000", 2, 3, "SECOND_PLAYER_WINS"),    # the same with player 2 to move first
    ("110/000/000", 1, 3, "FIRST_PLAYER_WINS"),        # P = 1 against the counts: wins at once
    ("220/100/000", 2, 3, "SECOND_PLAYER_WINS"),
    ("222/110/100", 1, 3, "SECOND_PLAYER_WINS"),       # already won by the player not to move
    ("111/220/200", 1, 3, "FIRST_PLAYER_WINS"),        # already won by the player to move
    ("121/122/211", 2, 3, "BOTH_PLAYERS_TIE"),         # full, no line
    ("111/221/212", 2, 3, "FIRST_PLAYER_WINS"),        # full, with a line
    ("00/00", 1, 2, "FIRST_PLAYER_WINS"),
    ("0", 2, 1, "SECOND_PLAYER_WINS"),                 # 1x1, k = 1
    ("0", 1, 2, "BOTH_PLAYERS_TIE"),
    ("00/00", 1, 10 ** 23, "BOTH_PLAYERS_TIE"),       # found by fuzzing: a K past int64 was a traceback
    ("10/00", 2, 677, "BOTH_PLAYERS_TIE"),
])
def test_solve_hand_made(board, player, k, expected):
    assert nmk(query(S, board, player, k)) == (0, expected + "\n")


def test_solve_wide_boards_are_transposed():
    """More than 26 columns (GameSpec's limit) is solved on the transposed board."""
    rng = random.Random(7)
    naive = naive_solver(GameSpec(1, 28, 3))  # the same board standing up: cell j is row j
    text, expected = "", []
    while len(expected) < 40:
        player = rng.choice((1, 2))
        stones = rng.choice((20, 21))
        picked = rng.sample(range(28), stones)
        n_own = stones // 2
        cells = ["0"] * 28
        for j in picked[:n_own]:
            cells[j] = str(player)
        for j in picked[n_own:]:
            cells[j] = str(3 - player)
        answer = naive_answer(naive, player, "".join(cells))
        if answer is None:  # both players have a line
            continue
        for shape in ("1 28", "28 1"):
            text += f"{S} {shape} 3 {player} {' '.join(cells)}\n"
            expected.append(answer)
    code, out = nmk(text)
    assert code == 0
    assert out.splitlines() == expected
    naive.score.cache_clear()


def test_queries_of_different_shapes_and_commands_in_one_input():
    text = (query(S, "000/000/000", 1) + query("GEN_ALL_POS_MOV", "12/00", 1, k=2)
            + query(S, "0000/0000/0000", 1) + query(CUT, "110/220/000", 2) + query(S, "000/000/000", 1))
    code, out = nmk(text)
    assert code == 0
    assert out == ("BOTH_PLAYERS_TIE\n2\n1 2\n1 0\n1 2\n0 1\nFIRST_PLAYER_WINS\n1\n1 1 0\n2 2 2\n0 0 0\n"
                   "BOTH_PLAYERS_TIE\n")


# ---------------------------------------------------------------- the token format
def test_blank_lines_tabs_crlf_and_no_final_newline():
    canonical = query(S, "110/200/000", 2) + query("GEN_ALL_POS_MOV", "10/02", 1, k=2)
    messy = ("\n\nSOLVE_GAME_STATE 3  3 3 2\r\n\r\n\r\n1 1 0\r\n2\t0 0\n\n0 0 0\n"
             "GEN_ALL_POS_MOV\n2 2\n2 1\n\n\n1 0 0 2")  # header split over lines, no final newline
    code1, out1 = nmk(canonical)
    code2, out2 = nmk(messy)
    assert (code1, code2) == (0, 0)
    assert out1 == out2
    assert out1.endswith("\n") and "\r" not in out1 and "\n\n" not in out1
    assert not any(line != line.rstrip() for line in out1.split("\n"))


def test_a_whole_board_on_one_line():
    assert nmk("SOLVE_GAME_STATE 2 2 2 1 0 0 0 0") == (0, "FIRST_PLAYER_WINS\n")


def test_empty_input_is_no_output():
    assert nmk("") == (0, "")
    assert nmk(" \n\n") == (0, "")


def test_stats_line_on_stderr(capsys):
    code, out = nmk(query(S, "000/000/000", 1), "--stats")
    err = capsys.readouterr().err
    assert (code, out) == (0, "BOTH_PLAYERS_TIE\n")
    assert err.startswith("parallel-mnk nmk: 1 query;") and err.count("\n") == 1


# ---------------------------------------------------------------- errors
GOOD = query(S, "000/000/000", 1)


@pytest.mark.parametrize("text,words", [
    ("SOLVE 3 3 3 1 0 0 0 0 0 0 0 0 0", "unknown command"),
    ("solve_game_state 3 3 3 1 0 0 0 0 0 0 0 0 0", "unknown command"),
    (GOOD + "GEN_ALL_POS_MOV 3 3", "4 numbers after GEN_ALL_POS_MOV (N M K P), found 2"),
    ("SOLVE_GAME_STATE 2 400 3 1\n" + " ".join(["0"] * 800), "at most 676 cells with a side of at most 26, "
                                                             "N=2 M=400 has 800"),
    (GOOD + "SOLVE_GAME_STATE 3 3 3 1\n1 1 1\n2 2 2\n0 0 0", "query 2: both players have K in a row"),
    (GOOD + "SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 0 0\n0 0", "needs 9 cells after the header, found 8"),
    (GOOD + "SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 3 0\n0 0 0", "row 2, column 2"),
    ("SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 0 x\n0 0 0", "'x'"),
    ("SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 0 01\n0 0 0", "'01'"),
    ("SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 0 0\n0 0 0 0", "unknown command"),  # one cell too many
    ("SOLVE_GAME_STATE 3 3 3 0 0 0 0 0 0 0 0 0 0", "P (player to move) must be 1 or 2"),
    ("SOLVE_GAME_STATE 3 3 3 3 0 0 0 0 0 0 0 0 0", "P (player to move) must be 1 or 2"),
    ("GEN_ALL_POS_MOV 3 3 0 1 0 0 0 0 0 0 0 0 0", "K must be at least 1"),
    ("GEN_ALL_POS_MOV 3 3 -2 1 0 0 0 0 0 0 0 0 0", "K must be at least 1"),
    ("GEN_ALL_POS_MOV 0 3 3 1", "at least one row"),
    ("GEN_ALL_POS_MOV three 3 3 1 0 0 0 0 0 0 0 0 0", "N (rows) must be an integer"),
    ("GEN_ALL_POS_MOV 3 3 3 1.0 0 0 0 0 0 0 0 0 0", "P (player to move) must be an integer"),
    ("SOLVE_GAME_STATE 27 27 5 1 " + "0 " * 729, "at most 676 cells"),
    ("SOLVE_GAME_STATE 3 3 3 1\n1 1 1\n2 2 2\n0 0 0", "both players"),
    ("GEN_ALL_POS_MOV 100000 100000 3 1 0 0", "needs 10000000000 cells"),
])
def test_malformed_input_is_one_line_on_stderr_exit_2_and_no_output(capsys, text, words):
    code, out = nmk(text)
    err = capsys.readouterr().err
    assert code == 2, err
    assert out == ""  # the whole input is checked before anything is written
    assert "Traceback" not in err
    assert err.startswith("parallel-mnk: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert words in err


def test_errors_name_the_line_and_the_query(capsys):
    code, _ = nmk(GOOD + GOOD + "SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 0 7\n0 0 0\n")
    err = capsys.readouterr().err
    assert code == 2
    assert "line 13, query 3: cell 6 (row 2, column 3) is '7'" in err


@pytest.mark.parametrize("text, where", [
    ("SOLVE_GAME_STATE x 3 3 1", "line 1, query 1: N (rows) must be an integer"),
    ("SOLVE_GAME_STATE 3\nx 3 1", "line 2, query 1: M (columns) must be an integer"),
])
def test_errors_name_the_line_of_the_token(capsys, text, where):
    assert nmk(text)[0] == 2
    assert where in capsys.readouterr().err


def test_a_cut_query_with_only_the_first_cell_empty():
    """GEN_ALL_POS_MOV_CUT_IF_GAME_OVER with one empty cell, the first: its one move, the
    board then full, is the answer (whether or not it makes a line)."""
    assert nmk("GEN_ALL_POS_MOV_CUT_IF_GAME_OVER 3 3 3 1 0 2 1 1 2 2 2 1 1\n") == (0, "1\n1 2 1\n1 2 2\n2 1 1\n")


def test_bad_table_size_is_an_error(capsys):
    code, out = nmk(GOOD, "--tt-bits", "3")
    err = capsys.readouterr().err
    assert (code, out) == (2, "")
    assert err.startswith("parallel-mnk: error: ") and err.count("\n") == 1


def test_module_entry_point_writes_exact_bytes():
    """``python -m parallel_mnk nmk``: LF only, final newline, one-line errors."""
    text = query("GEN_ALL_POS_MOV", "00/02", 1, k=2).replace("\n", "\r\n").rstrip()
    proc = subprocess.run([sys.executable, "-m", "parallel_mnk", "nmk"], input=text.encode(),
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"3\n1 0\n0 2\n0 1\n0 2\n0 0\n1 2\n"
    proc = subprocess.run([sys.executable, "-m", "parallel_mnk", "nmk"], input=b"GEN_ALL_POS_MOV 2 2 2 5 0 0 0 0",
                          capture_output=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode().startswith("parallel-mnk: error: ") and proc.stderr.count(b"\n") == 1


def test_gen_on_a_board_bigger_than_the_solver_takes():
    rows, cols, k = 9, 9, 5
    cells = ["0"] * 81
    for j in (0, 10, 20, 30):   # player 1: four on the main diagonal, the fifth (cell 40) wins
        cells[j] = "1"
    for j in (1, 2, 3, 80):
        cells[j] = "2"
    text = f"{CUT} {rows} {cols} {k} 1 {' '.join(cells)}"
    code, out = nmk(text)
    winning = cells.copy()
    winning[40] = "1"
    assert (code, out) == (0, "1\n" + boards("/".join("".join(winning[r * 9:r * 9 + 9]) for r in range(9))))
    code, out = nmk(text.replace(CUT, "GEN_ALL_POS_MOV", 1))
    assert code == 0 and out.startswith("73\n") and len(out.splitlines()) == 1 + 73 * 9


# ---------------------------------------------------------------- SOLVE against the naive solver
def naive_answer(naive, player: int, cells: str):
    """The protocol's answer from the naive solver (``naive.spec`` has the board's shape).

    The naive solver infers the side to move from the counts (X when equal), so
    the player to move is given the naive colour that moves; the game is the
    same for both colours. None when the counts allow no such relabelling, or
    when both players have a line (an error in the protocol).
    """
    x = sum(1 << j for j, ch in enumerate(cells) if ch == "1")
    o = sum(1 << j for j, ch in enumerate(cells) if ch == "2")
    x_line, o_line = naive.has_line(x), naive.has_line(o)
    if x_line and o_line:
        return None
    if x_line:
        return "FIRST_PLAYER_WINS"
    if o_line:
        return "SECOND_PLAYER_WINS"
    if x | o == naive.full:
        return "BOTH_PLAYERS_TIE"
    own, opp = (x, o) if player == 1 else (o, x)
    if own.bit_count() == opp.bit_count():
        score = naive.score(own, opp)          # own plays the naive X, to move
    elif own.bit_count() + 1 == opp.bit_count():
        score = naive.score(opp, own)          # own plays the naive O, to move
    else:
        return None
    if score == 0:
        return "BOTH_PLAYERS_TIE"
    return "FIRST_PLAYER_WINS" if (score > 0) == (player == 1) else "SECOND_PLAYER_WINS"


# (rows, cols, k, fewest stones): the naive solver searches every position below
NAIVE_SHAPES = [(3, 3, 3, 0), (3, 4, 3, 2), (4, 3, 3, 2), (2, 3, 2, 0), (3, 3, 2, 0), (2, 5, 3, 0),
                (1, 7, 3, 0), (4, 4, 3, 8), (4, 4, 4, 8), (5, 2, 2, 0), (3, 5, 4, 5)]


def random_solve_queries(rng: random.Random, count: int):
    """``(rows, cols, k, player, cells)`` of random boards: the player to move is
    random, and the counts are either the normal ones or the other player's
    (so P often disagrees with the counts); boards already won or full included,
    never both players with a line."""
    result = []
    while len(result) < count:
        rows, cols, k, fewest = rng.choice(NAIVE_SHAPES)
        n = rows * cols
        player = rng.choice((1, 2))
        stones = rng.randint(fewest, n)
        n_opp = (stones + rng.randint(0, 1)) // 2     # own == opp, or own == opp - 1
        n_own = stones - n_opp
        if n_own not in (n_opp, n_opp - 1):
            continue
        cells = ["0"] * n
        picked = rng.sample(range(n), stones)
        mine, theirs = ("1", "2") if player == 1 else ("2", "1")
        for j in picked[:n_own]:
            cells[j] = mine
        for j in picked[n_own:]:
            cells[j] = theirs
        if naive_answer(naive_solver(GameSpec(cols, rows, k)), player, "".join(cells)) is None:
            continue  # both players have a line
        result.append((rows, cols, k, player, "".join(cells)))
    return result


def test_solve_matches_the_naive_solver_on_random_positions():
    rng = random.Random(20240501)
    cases = random_solve_queries(rng, 400)
    text = "".join(f"{S} {r} {c} {k} {p}\n" + "\n".join(" ".join(cells[i:i + c]) for i in range(0, r * c, c))
                   + "\n\n" for r, c, k, p, cells in cases)
    code, out = nmk(text, "--tt-bits", "12")  # a small table: one shared by all shapes, many replacements
    assert code == 0
    got = out.splitlines()
    assert len(got) == len(cases)
    kinds, searched = set(), 0
    for (r, c, k, p, cells), answer in zip(cases, got):
        naive = naive_solver(GameSpec(c, r, k))
        expected = naive_answer(naive, p, cells)
        assert answer == expected, (r, c, k, p, cells)
        ones, twos = cells.count("1"), cells.count("2")
        kinds.add(("P agrees with the counts" if p == (1 if ones == twos else 2) else "P disagrees", expected))
        x = sum(1 << j for j, ch in enumerate(cells) if ch == "1")
        o = sum(1 << j for j, ch in enumerate(cells) if ch == "2")
        searched += not (naive.has_line(x) or naive.has_line(o) or x | o == naive.full)
    assert searched >= 200  # most boards are not over: the search is what is tested
    # the sample covers both kinds of P and every answer
    assert {kind for kind, _ in kinds} == {"P agrees with the counts", "P disagrees"}
    assert {answer for _, answer in kinds} == {"FIRST_PLAYER_WINS", "SECOND_PLAYER_WINS", "BOTH_PLAYERS_TIE"}
    for r, c, k, _ in NAIVE_SHAPES:
        naive_solver(GameSpec(c, r, k)).score.cache_clear()


# ---------------------------------------------------------------- the assignment's test files
def _golden_params():
    if not DATA.is_dir():
        return [pytest.param(("missing", NO_DATA), id="no-data")]   # a skip, a failure under $REQUIRE_DATA
    params = []
    for inp in sorted((DATA / "in").glob("NMKSolver*.in"), key=lambda p: int(re.sub(r"\D", "", p.name))):
        expected = DATA / "out" / (inp.stem + ".out")
        if not expected.is_file():
            continue  # NMKSolver5: its expected output is missing upstream (see the data README)
        data = inp.read_bytes()
        queries = data.count(b"GEN_ALL_POS_MOV") + data.count(b"SOLVE_GAME_STATE")
        marks = [pytest.mark.slow] if queries > SLOW_QUERIES else []
        params.append(pytest.param(inp.stem, marks=marks, id=f"{inp.stem}-{queries}q"))
    if not params:
        return [pytest.param(("missing", f"no complete in/out pair in {DATA}"), id="no-pairs")]
    return params


@pytest.mark.parametrize("name", _golden_params())
def test_official_test_files_match_byte_for_byte(name):
    if isinstance(name, tuple):
        missing(name[1])
    text = (DATA / "in" / f"{name}.in").read_bytes().decode("ascii")
    expected = (DATA / "out" / f"{name}.out").read_bytes().decode("ascii")
    code, out = nmk(text)
    assert code == 0
    if out != expected:
        got, want = out.split("\n"), expected.split("\n")
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"{name}: output differs from line {first + 1} "
                    f"(got {got[first:first + 1]}, expected {want[first:first + 1]}; "
                    f"{len(got)} vs {len(want)} lines)")


def test_solve_past_64_cells_matches_naive():
    """SOLVE_GAME_STATE on 9x8 k=5 (72 cells) and a 30-row board wider than 26 columns
    once transposed: the big-board search's answers, naive.py's values."""
    from bench.big_positions import endgames
    spec = GameSpec(9, 8, 5)
    cases = endgames(spec, 3, seed=8, empty=(6, 7))
    texts, wants = [], []
    for pos in cases:
        board = "/".join("".join("1" if pos.x >> (r * 9 + c) & 1 else "2" if pos.o >> (r * 9 + c) & 1 else "0"
                                 for c in range(9)) for r in range(8))
        texts.append(query("SOLVE_GAME_STATE", board, int(pos.turn), k=5))
        v = naive_solver(spec).score(pos.x, pos.o)
        mover_wins = "FIRST_PLAYER_WINS" if pos.turn == 1 else "SECOND_PLAYER_WINS"
        other_wins = "SECOND_PLAYER_WINS" if pos.turn == 1 else "FIRST_PLAYER_WINS"
        wants.append(mover_wins if v > 0 else other_wins if v < 0 else "BOTH_PLAYERS_TIE")
    # 20 rows of 30 columns (transposed inside: 26 columns at most): X's open four on row 6,
    # O to move, O's three stones far away: O blocks one end, X completes the other
    grid = [["0"] * 30 for _ in range(20)]
    for c in range(10, 14):
        grid[5][c] = "1"
    for r, c in ((15, 2), (17, 25), (0, 29)):
        grid[r][c] = "2"
    texts.append(query("SOLVE_GAME_STATE", "/".join("".join(row) for row in grid), 2, k=5))
    wants.append("FIRST_PLAYER_WINS")
    code, out = nmk("".join(texts))
    assert code == 0 and out.split() == wants, (out, wants)


def test_only_big_solve_queries_run_in_an_abortable_thread(monkeypatch):
    """A SOLVE with more than ABORTABLE_EMPTY_CELLS empty cells runs where Ctrl-C stops it;
    smaller ones run in place (the thread would cost more than their search)."""
    from parallel_mnk.frontends import protocol
    calls = []
    real = protocol.run_abortable
    monkeypatch.setattr(protocol, "run_abortable", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    assert nmk("SOLVE_GAME_STATE 3 3 3 1\n0 0 0\n0 0 0\n0 0 0\n") == (0, "BOTH_PLAYERS_TIE\n") and calls == []
    empty = "\n".join(["0 0 0 0 0"] * 5)
    assert nmk(f"SOLVE_GAME_STATE 5 5 4 1\n{empty}\n") == (0, "BOTH_PLAYERS_TIE\n") and calls == [1]
    one = "\n".join(["0 0 0 0 0"] * 4 + ["0 0 1 0 0"])   # 24 empty cells: still abortable
    assert nmk(f"SOLVE_GAME_STATE 5 5 4 2\n{one}\n")[0] == 0 and calls == [1, 1]


def test_solve_wider_than_26_columns_matches_naive():
    """SOLVE_GAME_STATE on 3 rows of 27 columns, k=4 (81 cells, transposed inside):
    random nearly full boards with no line yet, 8 empty cells, against naive.py."""
    rows, cols, k = 3, 27, 4
    naive = naive_solver(GameSpec(rows, cols, k))   # naive.py on the board turned a quarter: 27 rows of 3
    rng = random.Random(27)
    texts, wants = [], []
    while len(texts) < 4:
        cells = ["1"] * 37 + ["2"] * 36 + ["0"] * 8
        rng.shuffle(cells)
        text = "".join(cells)
        if any(s * 4 in text[r * cols:(r + 1) * cols] for s in "12" for r in range(rows)):
            continue   # (a line already)
        turned = [divmod(i, cols) for i in range(rows * cols)]   # cell (r, c) -> (c, r) of the turned board
        x = sum(1 << (c * rows + r) for i, (r, c) in enumerate(turned) if text[i] == "1")
        o = sum(1 << (c * rows + r) for i, (r, c) in enumerate(turned) if text[i] == "2")
        v = naive.score(x, o)   # O to move (37 X, 36 O)
        texts.append(query("SOLVE_GAME_STATE", "/".join(text[r * cols:(r + 1) * cols] for r in range(rows)), 2,
                           k=k))
        wants.append("SECOND_PLAYER_WINS" if v > 0 else "FIRST_PLAYER_WINS" if v < 0 else "BOTH_PLAYERS_TIE")
    code, out = nmk("".join(texts))
    assert code == 0 and out.split() == wants, (out, wants)


# ------------------------------------------------------------------ --time-limit
def _empty(command: str, rows: int, cols: int, k: int, player: int = 1) -> str:
    return f"{command} {rows} {cols} {k} {player}\n" + "\n".join(" ".join("0" * cols) for _ in range(rows)) + "\n"


@pytest.mark.parametrize("rows, cols, k", [(8, 9, 5), (16, 16, 5)])
def test_a_time_limit_answers_unknown_for_a_query_not_solved_in_time(rows, cols, k, capsys):
    """nmk --time-limit: the empty 8x9 k=5 board (past 60 s without a limit) and a board
    past 64 cells answer UNKNOWN within about the limit, the queries around them as
    always, and the exit status is 3; the same small queries without a limit, 0."""
    small = _empty("SOLVE_GAME_STATE", 3, 4, 3)
    text = small + _empty("SOLVE_GAME_STATE", rows, cols, k) + _empty("GEN_ALL_POS_MOV", 1, 2, 2)
    code, out = nmk(text, "--time-limit", "0.3")
    assert code == 3, out
    assert out.splitlines() == ["FIRST_PLAYER_WINS", "UNKNOWN", "2", "1 0", "0 1"]
    assert nmk(small)[0] == 0 and nmk(small, "--time-limit", "30") == (0, "FIRST_PLAYER_WINS\n")
    capsys.readouterr()


def test_a_time_limit_must_be_positive(capsys):
    code, out = nmk(_empty("SOLVE_GAME_STATE", 3, 4, 3), "--time-limit", "0")
    assert code == 2 and out == ""
    assert capsys.readouterr().err == "parallel-mnk: error: --time-limit must be positive, got 0.0\n"


def test_solve_from_50_cells_asks_the_pn_prover_in_either_colouring(monkeypatch):
    """SOLVE_GAME_STATE where ``solve --weak`` asks the pn prover (7x8 k=5, 56 cells):
    random positions with 10-12 empty cells, each as it is (P the side the counts say)
    and with its colours swapped (P = 2 on equal counts, P = 1 a stone short: the stones
    read the other way round), answered by the pn prover and as naive.py says; a board
    whose counts no game reaches with P to move goes to the search, as below 50 cells."""
    from checks import random_positions
    from parallel_mnk import entrance
    from parallel_mnk.frontends import protocol

    asked = []
    real = entrance.solve

    def solve(*args, **kwargs):
        result = real(*args, **kwargs)
        asked.append((args[0].spec, result.proof))
        return result

    monkeypatch.setattr(entrance, "solve", solve)
    spec = GameSpec(7, 8, 5)
    naive = naive_solver(spec)
    names = {1: "FIRST_PLAYER_WINS", -1: "SECOND_PLAYER_WINS", 0: "BOTH_PLAYERS_TIE"}
    texts, wants = [], []
    for pos in random_positions(spec, 6, (44, 46), seed=56):
        v = naive.score(pos.x, pos.o)
        mover = 1 if pos.turn == 1 else -1
        want = names[mover * (v > 0) - mover * (v < 0)]
        rows = ["".join("1" if pos.x >> (r * 7 + c) & 1 else "2" if pos.o >> (r * 7 + c) & 1 else "0"
                        for c in range(7)) for r in range(8)]
        board = "/".join(rows)
        texts.append(query("SOLVE_GAME_STATE", board, int(pos.turn), k=5))
        wants.append(want)
        # swapped: P = 2 on equal counts, P = 1 a stone short
        texts.append(query("SOLVE_GAME_STATE", board.translate(str.maketrans("12", "21")), 3 - int(pos.turn), k=5))
        wants.append({"FIRST_PLAYER_WINS": "SECOND_PLAYER_WINS", "SECOND_PLAYER_WINS": "FIRST_PLAYER_WINS"}
                     .get(want, want))
    assert wants.count("BOTH_PLAYERS_TIE") not in (0, len(wants)), wants   # (values of both kinds)
    assert {t.split()[4] for t in texts} == {"1", "2"}                      # (either side to move, either way)
    code, out = nmk("".join(texts))
    assert code == 0 and out.split() == wants, (out, wants)
    assert len(asked) == len(wants) and set(asked) == {(spec, "pn")}
    session = protocol.Session()
    x_more = protocol.Query("SOLVE_GAME_STATE", 8, 7, 4, 1, "1" + "0" * 55)   # (P = 1 with one stone more)
    assert session._pn_position(x_more, 1, 0) is None
    assert session._pn_position(protocol.Query("SOLVE_GAME_STATE", 7, 7, 4, 1, "0" * 49), 0, 0) is None
