"""Generated command lines for ``parallel-mnk solve``, ``analyze`` and ``best``
(tests/fuzzing.py is the harness): the game options (``--game``, ``--cols``,
``--rows``, ``--k``, ``--gravity``), the position, and the search options
(workers, split depth, time limit, table size, prover, backend, book, depth,
width), each with values right, wrong, out of range and nonsense, in any order,
repeated, with stray tokens.

Every command line ends in an answer (exit 0, or 3 for a time limit reached) or in
one error line with exit 2: never a traceback, never a hang. An exact answer of a
small board (``solve --json``) is naive's (tests/naive.py). Every
search is held to about a second: a ``--time-limit 1`` goes first (a generated one
later on the line wins, and those are at most 1 s), and boards are mostly small.
"""
from __future__ import annotations

import argparse
import functools
import json
import re

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, fuzz, naive_can_solve, one_line_error, run_cli
from naive import naive_score
from parallel_mnk import GameSpec, Position
from parallel_mnk.frontends.arguments import build_parser
from parallel_mnk.frontends.cli import _spec_from_args, commands
from parallel_mnk.frontends.commands import position_of
from parallel_mnk.game.rules import MnkError, move_name, move_index, value_of_score

junk = st.text(max_size=8)
small_int = st.integers(-3, 9).map(str)
number = st.one_of(small_int, st.sampled_from(["0", "-1", "1" + "0" * 25, "1.5", "", " 3", "0x10", "\u0663", "x"]))
seconds = st.sampled_from(["0", "-1", "-0", "nan", "inf", "-inf", "1e-9", "0.01", "0.5", "1", "abc", "1e400", ""])
OPTIONS = {   # option -> strategy of its value (None: a flag)
    "--game": st.sampled_from(["connect4", "tictactoe", "gomoku", "", "Connect4"]),
    "--cols": number, "--rows": number, "--k": number, "--gravity": None,
    "--moves": st.one_of(st.sampled_from(["", "a1", "a1,b2", "1", "11", "44", "4453", "b2,b2", "z9", "-1"]), junk),
    "--board": st.one_of(st.sampled_from(["x../.o./...", ".../.../...", "..../..../....", "xo/ox", "x"]), junk),
    "--weak": None, "--json": None, "--no-progress": None,
    "--workers": st.sampled_from(["-1", "0", "1", "1", "1", "2", "65", "1000000", "x", "1.0"]),
    "--split-depth": st.sampled_from(["-1", "0", "1", "2", "8", "9", "x"]),
    "--time-limit": seconds,
    "--tt-bits": st.sampled_from(["-1", "0", "9", "10", "16", "20", "35", "60", "x"]),
    "--tt-size": st.sampled_from(["1M", "512K", "64M", "0", "-5", "abc", "1e3", "9999999T", "1.5M", "", "4096"]),
    "--prover": st.sampled_from(["auto", "search", "dfpn", "pn", ""]),
    "--backend": st.sampled_from(["process", "thread", "cluster", ""]),
    "--address": st.sampled_from(["auto", "127.0.0.1:1", ""]),
    "--book": st.sampled_from(["none", "auto", "/nonexistent/book.sqlite", "/etc/hostname", "thill", ""]),
    "--depth": st.sampled_from(["-1", "0", "1", "2", "3", "64", "65", "x"]),
    "--width": st.sampled_from(["-1", "0", "1", "3", "x"]),
    "--checkpoint": st.sampled_from(["/nonexistent/dir/journal.sqlite"]),
}


@functools.lru_cache(maxsize=None)
def parser() -> argparse.ArgumentParser:
    """The CLI's parser, built once (5 ms a build: twice an input, a third of this test's time)."""
    return build_parser(commands())


@functools.lru_cache(maxsize=None)
def options_of(command: str) -> frozenset[str]:
    """The options ``parallel-mnk <command>`` takes, read off its parser."""
    sub = next(a for a in parser()._actions if a.choices and command in a.choices).choices[command]
    return frozenset(name for action in sub._actions for name in action.option_strings)


@st.composite
def command_lines(draw) -> list[str]:
    """A command and a shuffle of options (mostly a small game first), with stray tokens."""
    command = draw(st.sampled_from(["solve", "solve", "analyze", "best"]))
    argv = [command, "--time-limit", "1"]
    if draw(st.integers(0, 3)):   # mostly a small game, so that the searches are quick
        argv += ["--cols", str(draw(st.integers(1, 4))), "--rows", str(draw(st.integers(1, 4))),
                 "--k", str(draw(st.integers(1, 4)))]
        if draw(st.integers(0, 3)):   # and mostly a position (else solve and analyze read an empty stdin: an error)
            argv.append(f"--moves={draw(st.sampled_from(['', 'a1', 'a1,b2', 'b1,a1']))}")
            argv += ["--json"] if draw(st.booleans()) else []   # (an answer whose every move is checked)
    own = sorted(OPTIONS.keys() & options_of(command))
    for option in draw(st.lists(st.sampled_from(own * 12 + sorted(OPTIONS)), max_size=6)):   # a foreign one now and then
        values = OPTIONS[option]
        if values is None:
            argv.append(option)
        else:   # --opt=value: a value such as '-1' is not taken for an option
            argv.append(f"{option}={draw(values)}")
    if draw(st.integers(0, 5)) == 0:
        argv.insert(draw(st.integers(1, len(argv))), draw(junk))
    return argv


def options_property(argv: list[str]) -> bool:
    """An answer or one error line; the moves an answer prints are legal; ``solve --json``
    of a small board has naive's answer. True when a position was answered."""
    code, out, err = run_cli(argv)
    assert "Traceback" not in out + err and code in (0, 2, 3), (code, err)
    if code == 2:
        assert not out.strip() or argv[0] == "analyze", out
        one_line_error(err)
        return False
    args = parser().parse_args(argv)
    try:
        spec = _spec_from_args(args)
        given = args.moves is not None or args.board is not None
        position = position_of(spec, args.moves, args.board) if given or argv[0] == "best" else None
    except MnkError as e:   # pragma: no cover - the CLI answered, so the library reads it too
        raise AssertionError(f"the CLI answered what the library refuses: {e}") from e
    if position is None:   # solve and analyze read positions from stdin, and it is empty: nothing to answer
        assert not out.strip(), out
        return False
    assert out.strip(), (argv, code, "an answer with no output")
    answer = json.loads(out) if args.json else None
    check_printed_moves(argv[0], spec, position, out, answer)
    if answer is not None and argv[0] == "solve":
        assert (answer["value"] == "unknown") == (code == 3), (argv, code, answer)
    if code != 0 or argv[0] != "solve" or answer is None or not naive_can_solve(spec, position.ply):
        return True
    truth = naive_score(GameSpec(spec.cols, spec.rows, spec.k, spec.gravity), position.x, position.o)
    assert answer["value"] == value_of_score(truth).value, (argv, answer, truth)
    if not args.weak:
        assert answer["score"] == truth, (argv, answer, truth)
    return True


def check_printed_moves(command: str, spec: GameSpec, position: Position, out: str, answer) -> None:
    """Every move an answer names is legal where it is played: the best move, the line
    (solve), every analysed move and no other (analyze), the chosen move (best)."""
    legal = {move_name(spec, m) for m in position.legal_moves}
    if answer is None:   # the human-readable answer: its 'best move:' line
        named = re.findall(r"^best move: (\S+)", out, re.M)
        assert all(m in legal for m in named), (named, legal)
        return
    if answer.get("best_move") is not None:
        assert answer["best_move"] in legal, (answer["best_move"], legal)
    if command == "analyze":
        assert {m["move"] for m in answer["moves"]} == legal, (answer["moves"], legal)
        assert set(answer["best_moves"]) <= legal, (answer["best_moves"], legal)
    line = position.copy()
    for text in answer.get("pv", []):   # the perfect line is played move after move, until the game ends
        assert line.outcome() is None, (answer["pv"], "a move after the end of the game")
        assert text in line.legal_moves, (answer["pv"], text)
        line.push(text)


@pytest.mark.parametrize("examples", BUDGETS)
def test_command_lines(examples):
    fuzz("command_lines", command_lines(), options_property, examples, min_valid=0.05)   # (most lines are wrong)


PATHS = ["/nonexistent", "/etc/hostname", "/", "", "-", "thill", "x.dat", "/dev/null", "\x00"]
RIGHT = [["warm-up", "--families=free"], ["warm-up", "--json", "--families=gravity,free"], ["nmk"],
         ["nmk", "--tt-bits=16"], ["nmk", "--stats"], ["warm-up", "--families=big"]]   # lines that get an answer
wrong = st.one_of(
    st.tuples(st.just("verify"), st.lists(st.sampled_from(PATHS) | junk, max_size=3)),
    st.tuples(st.just("book"), st.sampled_from(["info", "check", "build", "", "x"]),
              st.lists(st.sampled_from(PATHS + ["--sample=0", "--sample=-1", "--sample=x", "--seed=x", "--plies=-1",
                                                "--plies=99", "--out=/nonexistent/b.sqlite", "--json", "--game=x",
                                                "--leaf-book=/nonexistent", "--task-nodes=-5"]) | junk, max_size=4)),
    st.tuples(st.just("warm-up"), st.lists(st.sampled_from(["--families=free", "--families=", "--families=x,free",
                                                            "--families=gravity", "--json", "x"]), max_size=2)),
    st.tuples(st.just("nmk"), st.lists(st.sampled_from(["--tt-bits=3", "--tt-bits=x", "--tt-bits=16", "--stats",
                                                        "x"]), max_size=2)),
).map(lambda c: [c[0], *([c[1]] if isinstance(c[1], str) else []), *c[-1]])
others = st.one_of(wrong, st.sampled_from(RIGHT).map(list))


def others_property(argv: list[str]) -> bool:
    """verify, book, warm-up and nmk (no input) with any arguments: an answer (exit 0),
    a rejection that says why (exit 1: a line on stderr or stdout), or one error line
    (exit 2). True for exit 0 and 1."""
    code, out, err = run_cli(argv)
    assert "Traceback" not in out + err and code in (0, 1, 2), (code, out, err)
    if code == 2:
        one_line_error(err, "verify: error: " if err.startswith("verify:") else "parallel-mnk: error: ")
        return False
    if code == 1:
        assert (out + err).strip(), (argv, "exit 1 without a word")
    return True


@pytest.mark.parametrize("examples", BUDGETS)
def test_other_command_lines(examples):
    # most lines are wrong on purpose, and the right ones are few (Hypothesis runs each input once):
    # 24 of 220 in the default budget, 168 of 3,850 in a slow one
    fuzz("other_command_lines", others, others_property, examples, min_valid=0.02)
