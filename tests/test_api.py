"""The library's entrance as a user meets it (parallel_mnk/entrance.py, the package's
exports): one signature a question, every documented name exported, every wrong
argument a one-line MnkError, results that say whose value they are, and two users'
scripts (tests/typing/) that run as written (CI type-checks them too)."""
from __future__ import annotations

import builtins
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import parallel_mnk
from parallel_mnk import (PRESETS, GameSpec, Limit, MnkError, OptionError, Options, Position, UnsupportedError,
                          analyze, best_move, build_book, solve)

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
