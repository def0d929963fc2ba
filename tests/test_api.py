"""The library's entrance as a user meets it (parallel_mnk/entrance.py, the package's
exports): one signature a question, every documented name exported, every wrong
argument a one-line MnkError, results that say whose value they are, and two users'
scripts (tests/typing/) that run as written (CI type-checks them too)."""
from __future__ import annotations

import builtins
import inspect
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import parallel_mnk
from parallel_mnk import (PRESETS, GameSpec, Limit, MnkError, Move, OptionError, Options, Position, Side,
                          UnsupportedError, analyze, best_move, build_book, solve)
from parallel_mnk.frontends.cli import main

ROOT = Path(__file__).resolve().parent.parent
C4, TTT = PRESETS["connect4"], PRESETS["tictactoe"]


def test_each_question_takes_a_position_a_limit_and_one_options():
    """As python-chess' ``engine.analyse(board, limit)``: nothing else to say twice."""
    assert list(inspect.signature(solve).parameters) == ["position", "limit", "weak", "options"]
    assert list(inspect.signature(analyze).parameters) == ["position", "limit", "weak", "options"]
    assert list(inspect.signature(best_move).parameters) == ["position", "limit", "options"]
    assert list(inspect.signature(build_book).parameters) == ["spec", "plies", "out", "options", "resume",
                                                               "task_nodes"]


def test_every_documented_name_is_exported():
    """Every name the README's and docs/usage.md's Python text puts in backticks that is a
    name of the package's API is importable from ``parallel_mnk`` (and ``__all__`` holds)."""
    sections = []
    for doc in (ROOT / "README.md", ROOT / "docs" / "usage.md"):
        text = doc.read_text()
        section = text[text.index("## Python"):]
        sections.append(section.split("\n## ")[0])
    python = "\n".join(sections)
    named = set(re.findall(r"`([A-Z][A-Za-z]+)(?:\(|`|\.)", python))
    named |= {n for groups in re.findall(r"from parallel_mnk import (?:\(([^)]*)\)|([^\n(]+))", python)
              for n in re.split(r"[\s,]+", "".join(groups))}
    names = {n for n in named if n.isidentifier() and not hasattr(builtins, n) and n != "IntEnum"}
    missing = sorted(n for n in names if not hasattr(parallel_mnk, n))
    assert not missing, f"documented but not exported: {missing}"
    assert all(hasattr(parallel_mnk, n) for n in parallel_mnk.__all__)
    assert {"ResourceError", "OptionError", "LegalMoves", "MoveAnalysis", "build_book"} <= set(parallel_mnk.__all__)


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: solve(Position(C4), options=Options(workers="2")), OptionError, "workers must be a whole number"),
    (lambda: Options(workers=2.0), OptionError, "workers"),
    (lambda: solve(C4), OptionError, r"solve takes a Position \(Position\(spec\) is its empty board\)"),
    (lambda: analyze("4453"), OptionError, "analyze takes a Position"),
    (lambda: best_move(None), OptionError, "best_move takes a Position"),
    (lambda: solve(Position(C4), 5), OptionError, r"Limit\(time=5\) for 5 seconds"),
    (lambda: solve(Position(C4), weak="yes"), OptionError, "weak must be True or False"),
    (lambda: solve(Position(C4), options={"workers": 1}), OptionError, "options must be an Options"),
    (lambda: Options(tt_size="lots"), OptionError, "bad size 'lots'"),
    (lambda: Options(tt_size=-1), OptionError, "tt_size"),
    (lambda: Options(book=3), OptionError, "book must be a file"),
    (lambda: Options(progress="no"), OptionError, "progress"),
    (lambda: Options(width=-1), OptionError, "width"),
    (lambda: Limit(time=True), OptionError, "time limit"),
    (lambda: analyze(Position(TTT), options=Options(certificate="c")), UnsupportedError, "analyze takes no certificate"),
    (lambda: best_move(Position(TTT), options=Options(book="auto")), UnsupportedError, "best_move takes no book"),
    (lambda: solve(Position(TTT), options=Options(width=3)), UnsupportedError, "solve takes no width"),
    (lambda: build_book(TTT, 2, "x.book", options=Options(prover="search")), UnsupportedError, "build_book takes no prover"),
    (lambda: build_book("tictactoe", 2, "x.book"), OptionError, "build_book takes a GameSpec"),
    (lambda: analyze(Position(TTT), Limit(nodes=5)), UnsupportedError, "time limit only"),
    (lambda: solve(Position(TTT), Limit(depth=2)), UnsupportedError, "no depth limit"),
])
def test_every_wrong_argument_is_one_line_of_a_mnk_error(call, error, fragment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=fragment) as caught:
        call()
    assert isinstance(caught.value, MnkError) and "\n" not in str(caught.value)
    assert not list(tmp_path.iterdir())   # refused before anything was made


def test_results_say_whose_value_it_is_the_same_way():
    pos = Position.from_moves(TTT, "b2")
    solved, analysis = solve(pos), analyze(pos)
    assert str(solved).startswith("draw for O, score +0, best move ")
    assert str(analysis).startswith("draw for O, score +0, best moves a3 c3 a1 c1 (8 moves, ")
    assert str(analysis.get("a3")).startswith("a3: draw for O, score +0")
    assert solved.to_dict()["to_move"] == analysis.to_dict()["to_move"] == "O"
    heuristic = best_move(Position(GameSpec(15, 15, 5)), Limit(depth=1))
    assert re.match(r"heuristic score [+-]\d+ for X at depth 1, best move h8 \(depth 1, \d+ nodes?, ", str(heuristic))
    won = solve(Position.from_moves(TTT, "a1,a2,b1,b2,c1"))
    assert str(won).startswith("loss for O, score -3, the game is over (0 nodes")


@pytest.mark.parametrize("script", ["api_client.py", "chess_habits.py"])
def test_a_users_script_runs_as_written(script, tmp_path):
    run = subprocess.run([sys.executable, str(ROOT / "tests" / "typing" / script)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]


def test_counts_are_singular_for_one():
    """Plurals right: "1 stone", "1 position", "1 move", never "1 stones" or "move(s)"."""
    from parallel_mnk.api.results import LimitedResult, counted
    from parallel_mnk.kernels.grid.layout import WIN
    from parallel_mnk.proofcheck import Verdict

    assert (counted(1, "stone"), counted(2, "stone"), counted(1, "ply", "plies"), counted(3, "ply", "plies"),
            counted(1234, "node")) == ("1 stone", "2 stones", "1 ply", "3 plies", "1,234 nodes")
    one = LimitedResult(Move(TTT, 4), WIN - 1, 1, 1, 1, 0.0, to_move=Side.X)
    assert str(one).startswith("win for X in 1 move, best move b2 (depth 1, 1 node, ") and one.describe() == "wins in 1 move"
    line = Verdict(3, 3, 3, False, ".../.../...", "x", "cannot-win", 1, 1, 0).line()
    assert line.endswith("(1 position, 1 record used, 0 records unused)"), line
    out = io.StringIO()
    assert main(["solve", "--game", "tictactoe", "--moves", "b2", "--workers", "1"], stdout=out) == 0
    assert out.getvalue().startswith("3x3 k=3, 1 stone, O to move\n")
    assert not re.search(r"\b1 (stones|moves|nodes|positions|plies|records|entries|processes|workers)\b|\(s\)",
                         out.getvalue()), out.getvalue()


def test_a_compile_before_a_limited_search_says_the_limit_leaves_it_out(monkeypatch):
    """A search with a time limit that waits for a compile says so on the compile's line."""
    from parallel_mnk.runtime import families

    assert families.outside_the_limit(None) == ""
    stream = io.StringIO()
    monkeypatch.setattr(families, "announce_to", stream)
    line = families._Announcement(["gravity"], 2, True, families.outside_the_limit(3.0))
    line.done()
    assert stream.getvalue().startswith("compiling the gravity search kernels (first run only, 2 processes; "
                                        "not counted in the 3 s time limit)... done in ")


def test_the_move_for_a_position_nothing_was_said_of():
    """entrance.first_choice (what a stopped solve answers when its engine named no move):
    a win at once, else a block of the opponent's, else the legal move nearest the centre."""
    from parallel_mnk.entrance import first_choice

    assert first_choice(Position(GameSpec(15, 15, 5))) == "h8" and first_choice(Position(C4)) == "4"
    assert first_choice(Position.from_moves(TTT, "a1,b2,a2")) == "a3"            # O blocks a1-a2
    assert first_choice(Position.from_moves(TTT, "a1,b2,a2,a3")) == "c1"         # X blocks a3-b2
    assert first_choice(Position.from_moves(TTT, "a1,a2,b1,b2,c3")) == "c2"      # O wins at once, not a block
    assert first_choice(Position.from_moves(C4, "1212121"[:-1] + "3")) in ("1", "2")


@pytest.mark.parametrize("workers", [1, 2])
def test_every_stopped_solve_has_bounds_and_a_move(workers):
    """Stopped by a limit before anything finished: unknown, the bounds (the widest, or
    narrower) and a legal move so far, serial and parallel, weak and exact."""
    for weak in (False, True):
        pos = Position.from_moves(C4, "4453")
        r = solve(pos, Limit(nodes=1_000), weak=weak, options=Options(workers=workers, tt_size="2M"))
        assert r.value.known or (r.bounds is not None and r.best_move in pos.legal_moves), r
