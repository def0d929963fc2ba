"""parallel_mnk.frontends.cli: human and JSON output, stdin mode, and one-line errors."""
import io
import json
import shutil
import subprocess

import pytest

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.frontends.cli import main
from parallel_mnk.game.rules import move_list_indexes

TTT = ["--game", "tictactoe"]
G44 = ["--cols", "4", "--rows", "4", "--k", "4", "--gravity"]
RESULT_FIELDS = {"value", "score", "to_move", "best_move", "pv", "nodes", "workers", "time_s", "proof", "settings"}


def run(argv, stdin_text="", command="solve"):
    """``(exit code, stdout)`` of ``main`` in this process (argparse errors exit via SystemExit)."""
    out = io.StringIO()
    try:
        code = main([command, *argv] if argv and argv[0] != command else argv,
                    stdin=io.StringIO(stdin_text), stdout=out)
    except SystemExit as e:
        code = e.code
    return code, out.getvalue()


def assert_one_line_error(capsys, code, out=""):
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert err.startswith("parallel-mnk: error: "), err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert out == ""
    return err


def check_result_object(d, spec):
    assert set(d) == RESULT_FIELDS and d["settings"] == {}   # (the defaults)
    assert d["value"] in ("win", "draw", "loss")
    assert d["score"] is None or isinstance(d["score"], int)
    assert isinstance(d["nodes"], int) and d["nodes"] >= 0
    assert isinstance(d["time_s"], (int, float)) and d["time_s"] >= 0
    assert isinstance(d["workers"], list)
    if d["best_move"] is not None:  # a finished game is not searched: no workers
        assert d["workers"]
    for w in d["workers"]:
        assert {"nodes", "tasks", "cpu_s"} <= set(w)
        assert isinstance(w["nodes"], int) and isinstance(w["tasks"], int)
        assert isinstance(w["cpu_s"], (int, float))
    assert sum(w["nodes"] for w in d["workers"]) == d["nodes"]
    assert isinstance(d["pv"], list)
    assert d["proof"] in ("pairing", "threats", "search", None)
    if d["best_move"] is not None:
        assert isinstance(d["best_move"], str)
        assert d["pv"][0] == d["best_move"]
        assert move_list_indexes(spec, ",".join(d["pv"]))  # moves in the input's notation


# ---------------------------------------------------------------- human output
def test_human_output_shows_the_board(capsys):
    code, out = run([*TTT, "--moves", "b2,a1"])
    assert code == 0
    board = str(Position.from_moves(GameSpec(3, 3, 3), "b2,a1"))
    assert board in out
    assert "3 . . .\n2 . X .\n1 O . .\n  a b c" in out
    assert "3x3 k=3, 2 stones, X to move" in out
    assert "value: draw for X, score +0" in out
    assert "best move: " in out and "best line: " in out
    assert capsys.readouterr().err == ""


def test_human_output_gravity(capsys):
    code, out = run([*G44, "--moves", "23"])
    assert code == 0
    assert "  1 2 3 4" in out
    assert "1 . X O ." in out
    assert "value: " in out


def test_human_output_of_a_finished_game():
    code, out = run(["--game", "connect4", "--moves", "1212121"])
    assert code == 0
    assert "7 stones, O to move" in out
    assert "game over: loss for O" in out
    assert "X has won" in out


def test_human_output_weak():
    code, out = run([*TTT, "--moves", "", "--weak"])
    assert code == 0
    assert "value: draw for X" in out
    assert "score" not in out.split("value:")[1].splitlines()[0]


def test_human_output_names_the_ply_of_the_win():
    code, out = run(["--cols", "4", "--rows", "3", "--k", "3", "--moves", ""])
    assert code == 0
    assert "score +3" in out
    assert "X wins with its stone 4 (ply 7)" in out


# ---------------------------------------------------------------- JSON
def test_json_fields_free():
    code, out = run([*TTT, "--moves", "b2,a1", "--json"])
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 1
    d = json.loads(lines[0])
    check_result_object(d, GameSpec(3, 3, 3))
    assert (d["value"], d["score"]) == ("draw", 0)
    assert d["best_move"][0] in "abc"
    # the PV is a full perfect game: 7 more stones on the 3x3 board
    assert len(d["pv"]) == 7


@pytest.mark.parametrize("board,value,proof", [
    (["--cols", "6", "--rows", "6", "--k", "5"], "draw", "pairing"),
    (["--cols", "6", "--rows", "5", "--k", "4"], "win", "threats"),
    (["--cols", "4", "--rows", "4", "--k", "4", "--gravity"], "draw", "search"),
])
def test_json_says_which_prover_settled_it(board, value, proof):
    code, out = run([*board, "--moves", "", "--weak", "--workers", "1", "--json"])
    assert code == 0
    d = json.loads(out)
    assert (d["value"], d["proof"]) == (value, proof)


@pytest.mark.parametrize("prover,proof", [("dfpn", "dfpn"), ("auto", "dfpn"), ("search", "threats")])
def test_the_prover_option_picks_the_prover(prover, proof):
    # 9x4 k=4 after two stones: a lopsided win, where df-pn settles it (alpha-beta closes nodes with VCF)
    args = ["--cols", "9", "--rows", "4", "--k", "4", "--board", "x......../o......../.x......./........o"]
    code, out = run([*args, "--weak", "--workers", "1", "--json", "--prover", prover])
    assert code == 0
    d = json.loads(out)
    assert (d["value"], d["proof"]) == ("win", proof)
    if prover == "dfpn":   # without --workers: one process
        code, out = run([*args, "--weak", "--json", "--prover", prover])
        assert code == 0 and json.loads(out)["proof"] == "dfpn"


@pytest.mark.parametrize("argv,message", [
    (["--prover", "pns", "--weak"], "invalid choice: 'pns'"),
    (["--prover", "dfpn"], "weak"),
    (["--prover", "dfpn", "--weak", "--workers", "2"], "one process"),
    (["--prover", "dfpn", "--weak", "--gravity"], "free placement"),
])
def test_bad_prover_options_are_one_line_errors(capsys, argv, message):
    code, out = run(["--cols", "4", "--rows", "4", "--k", "4", "--moves", "", *argv])
    assert message in assert_one_line_error(capsys, code, out)


def test_json_fields_gravity():
    spec = GameSpec(4, 4, 4, True)
    code, out = run([*G44, "--moves", "2,3", "--json"])
    assert code == 0
    d = json.loads(out)
    check_result_object(d, spec)
    assert d["best_move"] in {"1", "2", "3", "4"}
    assert all(m in {"1", "2", "3", "4"} for m in d["pv"])


def test_json_from_board_text():
    code, out = run([*TTT, "--board", "xo./oxx/xoo", "--json"])
    assert code == 0
    d = json.loads(out)
    assert (d["value"], d["score"], d["best_move"], d["pv"]) == ("win", 1, "c3", ["c3"])


def test_json_weak_has_null_score():
    code, out = run([*TTT, "--moves", "", "--json", "--weak"])
    assert code == 0
    d = json.loads(out)
    check_result_object(d, GameSpec(3, 3, 3))
    assert d["value"] == "draw" and d["score"] is None


def test_json_finished_game():
    code, out = run([*TTT, "--moves", "a1,a2,b1,b2,c1", "--json"])
    assert code == 0
    d = json.loads(out)
    assert (d["value"], d["score"], d["best_move"], d["pv"]) == ("loss", -3, None, [])


def test_empty_moves_is_the_empty_board():
    code, out = run([*TTT, "--moves", "", "--json"])
    assert code == 0
    assert json.loads(out)["value"] == "draw"
    code, out = run([*TTT, "--moves=", "--json"])
    assert code == 0 and json.loads(out)["score"] == 0


# ---------------------------------------------------------------- stdin mode
STDIN_LINES = ["", "b2,a1", "x../.o./...", "zz", "a1,a1", "xxx/ooo/x..", "a1,a2,b1,b2,c1", "c1"]
BAD = {"zz", "a1,a1", "xxx/ooo/x.."}


def test_stdin_json_lines(capsys):
    code, out = run([*TTT, "--json"], "\n".join(STDIN_LINES) + "\n")
    assert code == 1  # some lines were bad
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["input"] for r in results] == STDIN_LINES   # an empty line is the empty board
    assert results[0]["value"] == "draw" and results[0]["to_move"] == "X"
    for text, r in zip(STDIN_LINES, results):
        if text in BAD:
            assert set(r) == {"input", "error"}
            assert r["error"] and "\n" not in r["error"]
        else:
            assert "error" not in r
            body = {key: value for key, value in r.items() if key != "input"}
            check_result_object(body, GameSpec(3, 3, 3))
    finished = results[STDIN_LINES.index("a1,a2,b1,b2,c1")]
    assert (finished["value"], finished["best_move"]) == ("loss", None)
    assert "Traceback" not in capsys.readouterr().err


def test_stdin_human_lines():
    code, out = run(TTT, "\nb2,a1\n \t\nzz\nc1\n")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 5                     # an empty (or blank) line is the empty board, as Pons reads it
    assert lines[0].startswith(" 0 ") and lines[2].startswith(" \t 0 ")
    assert lines[1].startswith("b2,a1 0 ")
    assert lines[3].startswith("zz error: ")
    assert lines[4].startswith("c1 ")


def test_stdin_all_good_exits_0():
    code, out = run([*G44, "--json"], "\n23\n2,3,2\n")
    assert code == 0
    assert [json.loads(line)["input"] for line in out.splitlines()] == ["", "23", "2,3,2"]


@pytest.mark.parametrize("command", ["solve", "analyze"])
def test_a_stdin_without_any_line_says_so(command, capsys):
    code, out = run([*TTT, "--workers", "1"], "", command=command)
    assert code == 2 and out == ""
    assert capsys.readouterr().err == ("parallel-mnk: error: no position on stdin: give one a line (an empty line "
                                       "is the empty board), or --moves / --board\n")


def test_stdin_without_trailing_newline_and_crlf():
    code, out = run([*TTT, "--json"], "b2\r\na1")
    assert code == 0
    assert [json.loads(line)["input"] for line in out.splitlines()] == ["b2", "a1"]


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("argv", [
    ["--cols", "3", "--rows", "3", "--k", "0", "--moves", ""],                 # k < 1
    ["--cols", "0", "--rows", "3", "--k", "3", "--moves", ""],                 # zero board
    ["--cols", "3", "--rows", "3", "--k", "4", "--moves", ""],                 # no line fits
    ["--cols", "27", "--rows", "1", "--k", "3", "--moves", ""],                # too wide
    [*TTT, "--moves", "b2,d4"],                                                # cell off the board
    [*TTT, "--moves", "b2,q"],                                                 # not a cell
    [*TTT, "--moves", "b2,b2"],                                                # repeated move
    [*G44, "--moves", "11111"],                                                # full column
    [*G44, "--moves", "15"],                                                   # column off the board
    [*TTT, "--moves", "a1,a2,b1,b2,c1,c3"],                                    # move after the end
    [*TTT, "--board", "xxx/ooo/x.."],                                          # both players have a line
    [*TTT, "--board", "xx./.../..."],                                          # wrong stone counts
    [*TTT, "--board", "x../.?./..."],                                          # unknown character
    [*TTT, "--board", "x../..."],                                              # wrong row count
    [*G44, "--board", "x.../..../..../o..."],                                  # floating stone
    [*TTT, "--moves", "b2", "--board", "x../.../..."],                         # both inputs
    ["--rows", "3", "--k", "3", "--moves", ""],                                # missing --cols
    ["--moves", ""],                                                           # no game at all
    ["--cols", "x", "--rows", "3", "--k", "3"],                                # not an int
    [*TTT, "--bogus"],                                                         # unknown option
    [*TTT, "--game", "chess"],                                                 # unknown preset
    [*TTT, "--moves", "", "--workers", "0"],
    [*TTT, "--moves", "", "--workers", "100000"],                            # found by fuzzing: forked for ever
    [*TTT, "--moves=--"],                                                    # found by fuzzing: was the empty board
    [*TTT, "--game=--"],
    [*TTT, "--moves", "", "--time-limit", "0"],
    [*TTT, "--moves", "", "--tt-bits", "3"],
    [*TTT, "--moves", "", "--workers", "2", "--split-depth", "-1"],
    [*TTT, "--moves", "", "--workers", "2", "--split-depth", "9"],
    [*TTT, "--moves", "", "--workers", "2", "--split-depth", "0", "--backend", "ray"],   # refused before Ray starts
])
def test_bad_input_is_one_line_on_stderr_exit_2(capsys, argv):
    code, out = run(argv)
    assert_one_line_error(capsys, code, out)


@pytest.mark.parametrize("argv", [[*TTT, "\x1e"], [*TTT, "--moves", "a1\x1b[2J"], [*TTT, "--game", "\n"],
                                  [*TTT, "--moves", "\udcff"]])
def test_errors_quoting_control_characters_stay_one_plain_line(capsys, argv):
    """Found by tests/test_fuzz_options.py: argparse quoted a stray token raw (a record
    separator broke the line; an escape sequence would reach the terminal)."""
    code, out = run(argv)
    message = assert_one_line_error(capsys, code, out)
    assert message.rstrip("\n").isprintable(), message


def test_error_messages_name_the_problem(capsys):
    code, out = run(["--rows", "3", "--k", "3", "--moves", ""])
    assert "--cols" in assert_one_line_error(capsys, code, out)
    code, out = run([*TTT, "--moves", "b2", "--board", "x../.../..."])
    assert "either --moves or --board" in assert_one_line_error(capsys, code, out)
    code, out = run([*TTT, "--moves", "b2,b2"])
    assert "already taken" in assert_one_line_error(capsys, code, out)
    code, out = run([*G44, "--moves", "11111"])
    assert "full" in assert_one_line_error(capsys, code, out)
    code, out = run(["--cols", "27", "--rows", "9", "--k", "5", "--moves", ""])
    assert "26" in assert_one_line_error(capsys, code, out)


@pytest.mark.parametrize("extra", [["--k", "0"], ["--cols", "0"], ["--rows", "0"]])
def test_zero_sizes_with_a_preset_are_errors(capsys, extra):
    code, out = run([*TTT, *extra, "--moves", ""])
    assert_one_line_error(capsys, code, out)


def test_preset_can_be_resized():
    code, out = run(["--game", "connect4", "--cols", "4", "--rows", "4", "--moves", "", "--json"])
    assert code == 0
    assert json.loads(out)["value"] == "draw"  # 4x4 gravity k=4


def test_two_workers_from_the_cli():
    code, out = run([*TTT, "--moves", "", "--workers", "2", "--json"])
    assert code == 0
    assert json.loads(out)["score"] == 0


def test_lazy_smp_from_the_cli():
    """--split-depth 0: every worker on the root window (Lazy SMP), same answer."""
    code, out = run(["--game", "connect4", "--cols", "5", "--rows", "4", "--moves", "3", "--workers", "2",
                     "--split-depth", "0", "--json"])
    assert code == 0
    assert json.loads(out)["score"] == solve(Position.from_moves(GameSpec(5, 4, 4, True), "3")).score


def test_console_script_bad_argument():
    exe = shutil.which("parallel-mnk")
    if exe is None:
        pytest.skip("the parallel-mnk console script is not installed")
    proc = subprocess.run([exe, "solve", "--cols", "3", "--rows", "3", "--k", "0", "--moves", ""],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("parallel-mnk: error: ")
    assert proc.stdout == ""
    proc = subprocess.run([exe, "solve", "--cols", "three"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_table_bigger_than_memory_is_refused_up_front(workers, capsys):
    import psutil

    if psutil.virtual_memory().available > 8 << 34:
        pytest.skip("this machine really has 128 GiB free")
    code = main(["solve", "--game", "connect4", "--moves", "44", "--tt-bits", "34", "--workers", workers],
                stdout=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2
    assert "GiB" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
