"""The command line's options, tried as a user would get them wrong: every option of
every command with a bad value, every pair of game options, mistyped options,
commands and choices, ``--version``, a certificate folder that cannot be written,
and what a changed preset or a time limit says. Each answer is a result or one line
on stderr with a non-zero exit, never a traceback."""
from __future__ import annotations

import argparse
import io
import itertools
import json

import pytest

from fuzzing import one_line_error, run_cli
from parallel_mnk import __version__
from parallel_mnk.frontends.arguments import build_parser
from parallel_mnk.frontends.cli import commands

BAD_VALUES = ["-1", "0", "x", "", "1e999", "nan", "/proc/no/such/dir/f", "--"]
# a fast base for each command (serve listens and book builds: left to their own tests)
BASES = {"solve": ["--game", "tictactoe", "--moves", "b2,a1", "--book", "none"],
         "analyze": ["--game", "tictactoe", "--moves", "b2,a1", "--book", "none"],
         "best": ["--game", "tictactoe", "--moves", "b2", "--book", "none"],
         "nmk": [], "warm-up": ["--families", "free"], "verify": [],
         "play": ["--game", "tictactoe", "--human", "x", "--book", "none"]}
STDIN = {"play": "quit\n", "nmk": "", "verify": ""}


def value_options(command: str) -> list[str]:
    """The options of ``command`` that take a value."""
    sub = next(a for a in build_parser(commands())._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(a.option_strings[-1] for a in sub.choices[command]._actions
                  if a.option_strings and a.nargs is None and not isinstance(a, argparse._HelpAction)
                  and a.option_strings[-1] != "--address")   # (a Ray address: tests/test_cluster.py)


def no_traceback(code: int, out: str, err: str, where: str) -> None:
    """A result (exit 0, 1 or 3) or one error line (exit 2) and nothing else on stderr (a
    note before the error would read as part of it); never a traceback."""
    assert "Traceback" not in err, where
    if code == 2:
        one_line_error(err)
    else:
        assert code in (0, 1, 3), (where, code, err)


@pytest.mark.parametrize("command", sorted(BASES))
def test_every_option_with_a_bad_value_is_one_line(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # (a --checkpoint or --certificate that is accepted lands here)
    options = value_options(command)
    assert options or command in ("verify",)
    for option, value in itertools.product(options, BAD_VALUES):
        argv = [command, *BASES[command], f"{option}={value}"]
        if option in BASES[command]:   # the base's own option: given once, bad
            i = BASES[command].index(option)
            argv = [command, *BASES[command][:i], *BASES[command][i + 2:], f"{option}={value}"]
        if option == "--time-limit" and command == "play" and value not in ("-1", "0", "x", "", "nan"):
            continue   # (1e999 s per move: the engine would think forever)
        no_traceback(*run_cli(argv, STDIN.get(command, "")), where=" ".join(argv))


GAME_VALUES = {"--game": ["connect4", "tictactoe", "go"], "--cols": ["0", "1", "4", "27"],
               "--rows": ["0", "1", "4", "27"], "--k": ["0", "1", "5", "30"], "--gravity": [None]}


def test_every_pair_of_game_options_is_a_game_or_one_line():
    answered = 0
    for (a, b) in itertools.combinations(GAME_VALUES, 2):
        for va, vb in itertools.product(GAME_VALUES[a], GAME_VALUES[b]):
            args = [a] + ([] if va is None else [va]) + [b] + ([] if vb is None else [vb])
            argv = ["best", *args, "--depth", "1", "--moves", "", "--book", "none"]
            code, out, err = run_cli(argv)
            no_traceback(code, out, err, " ".join(argv))
            answered += code == 0
    assert answered   # (the presets with a size changed are games)


def test_version_names_the_package():
    code, out, err = run_cli(["--version"])
    assert code == 0 and out.splitlines()[0] == f"parallel-mnk {__version__}"


@pytest.mark.parametrize("argv,hint", [
    (["solve", "--game", "tictactoe", "--mvoes", "b2"], "did you mean --moves?"),
    (["solve", "--game", "tictactoe", "--time-limt=2"], "did you mean --time-limit?"),
    (["solv", "--game", "tictactoe"], "did you mean solve?"),
    (["solve", "--game", "conect4"], "did you mean connect4?"),
    (["analyze", "--game", "tictactoe", "--wieght"], "")])
def test_a_mistyped_name_gets_the_closest_known_one(argv, hint):
    code, out, err = run_cli(argv)
    message = one_line_error(err)
    assert code == 2 and not out
    assert (hint in message) if hint else ("did you mean" not in message), message


@pytest.mark.parametrize("folder", ["/proc/no/such/dir", "/proc/self/status"])
def test_a_certificate_folder_that_cannot_be_written_is_refused_before_the_search(folder):
    code, out, err = run_cli(["solve", "--game", "tictactoe", "--moves", "b2", "--certificate", folder,
                              "--workers", "1", "--book", "none"])
    message = one_line_error(err)
    assert code == 2 and not out and folder in message


def test_a_changed_preset_says_what_is_played():
    code, out, err = run_cli(["best", "--game", "connect4", "--cols", "8", "--depth", "1", "--moves", ""])
    assert code == 0
    assert "note: --game connect4 with --cols 8 is 8x6 k=4 gravity, not connect4 (7x6 k=4 gravity)" in err
    code, out, err = run_cli(["best", "--game", "tictactoe", "--gravity", "--depth", "1", "--moves", ""])
    assert "with --gravity is 3x3 k=3 gravity" in err
    code, out, err = run_cli(["best", "--game", "connect4", "--cols", "7", "--depth", "1", "--moves", ""])
    assert "note" not in err   # the preset as it is


@pytest.mark.parametrize("argv", [
    ["analyze", "--tt-bits=-1", "--moves="],                       # (CI's fuzz found the note beside this one)
    ["analyze", "--workers", "2", "--split-depth", "99", "--moves", "4"],
    ["best", "--book", "/etc/hostname", "--moves", "4"],
    ["play", "--book", "/nonexistent/book.sqlite"],
    ["solve", "--tt-bits", "40", "--moves", "4"],
    ["best", "--depth=65", "--moves", "4"],                         # (and this one: a depth checked by the engine)
    ["best", "--width=-1", "--moves", "4"],
    ["best", "--moves", "1212121"],                                 # (a game over)
])
def test_a_changed_preset_says_nothing_beside_an_error(argv):
    """Bad input is one line: the note of a changed preset comes only once the input is good."""
    code, out, err = run_cli([*argv, "--game", "connect4", "--cols", "8", "--time-limit", "1"], stdin="quit\n")
    assert code == 2 and "note" not in err
    one_line_error(err)


def test_split_depth_with_one_worker_says_it_is_unused():
    code, out, err = run_cli(["solve", "--game", "tictactoe", "--moves", "b2", "--workers", "1",
                              "--split-depth", "2", "--book", "none"])
    assert code == 0 and "--split-depth is for parallel solves" in err


@pytest.mark.parametrize("text", ["b2,,a1", "b2,", ",b2", "b2, ,a1"])
def test_an_empty_move_in_a_comma_list_is_refused(text):
    code, out, err = run_cli(["solve", "--game", "tictactoe", f"--moves={text}", "--workers", "1"])
    assert code == 2 and "empty move" in one_line_error(err)


def test_positions_typed_at_a_terminal_get_a_word_first(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    from parallel_mnk.frontends.cli import main
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    code = main(["solve", "--game", "tictactoe", "--workers", "1", "--book", "none"], Terminal("b2\n"), out)
    assert code == 0 and out.getvalue().startswith("b2 0 ")
    assert "reading positions from the terminal" in err.getvalue() and "Ctrl-D" in err.getvalue()


def test_a_time_limit_answer_says_what_was_proved(monkeypatch):
    # the empty Connect Four board (4453, about 1 s on 2 workers, was answered in time on a
    # fast machine): 20-30 s on 2 workers here, 3.25 s exact on 16 cores (README): 0.6 s stops it
    argv = ["solve", "--game", "connect4", "--moves", "", "--workers", "2", "--time-limit", "0.6", "--book", "none"]
    code, out, err = run_cli([*argv, "--json"])
    assert code == 3
    d = json.loads(out)
    lo, hi = d["bounds"]
    assert d["value"] == "unknown" and lo <= 1 <= hi   # the true score is +1 (X wins with its 21st stone)
    code, out, err = run_cli(argv)
    assert "value: unknown" in out and "proved so far: score between" in out
