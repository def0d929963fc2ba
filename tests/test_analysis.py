"""parallel_mnk.analyze (engines/analysis.py) and ``parallel-mnk analyze``: every move's score against the
naive reference solver and Pons' Connect Four sets; the grid, JSON and stdin-line
output; bad input; the time limit."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from checks import C4, missing, random_positions
from naive import naive_score
from parallel_mnk import GameSpec, Limit, MnkError, Position, solve
from parallel_mnk.engines import analysis as analysis_module
from parallel_mnk.api.results import ILLEGAL
from parallel_mnk.entrance import analyze
from parallel_mnk.frontends.report import pons_line
from parallel_mnk.frontends.cli import main
from parallel_mnk.game.rules import move_name, move_list_indexes, value_of_score, win_score
from parallel_mnk import Move, Options

TTT = ["--game", "tictactoe"]
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
NO_DATA = "../shared/data/connect4 not found: Pons' test sets are third-party data that is not shipped"
TT_BITS = 16


def run(argv, stdin_text=""):
    """``(exit code, stdout)`` of ``parallel-mnk analyze argv`` in this process."""
    out = io.StringIO()
    try:
        code = main(["analyze", *argv], stdin=io.StringIO(stdin_text), stdout=out)
    except SystemExit as e:
        code = e.code
    return code, out.getvalue()


# ---------------------------------------------------------------- against the naive solver
# (cols, rows, k, gravity, fewest stones of the random positions: the naive search must stay small)
RANDOM_GAMES = [
    (3, 3, 3, False, 0), (4, 3, 3, False, 2), (3, 4, 3, False, 2), (4, 4, 3, False, 6), (4, 4, 4, False, 6),
    (5, 3, 3, False, 5), (3, 3, 3, True, 0), (4, 4, 3, True, 2), (4, 4, 4, True, 2), (5, 4, 4, True, 8),
    (7, 6, 4, True, 32), (5, 5, 4, False, 16),
]


@pytest.mark.parametrize("cols, rows, k, gravity, min_stones", RANDOM_GAMES)
def test_every_move_scores_minus_the_naive_score_of_its_child(cols, rows, k, gravity, min_stones):
    spec = GameSpec(cols, rows, k, gravity)
    seed = cols * 1000 + rows * 100 + k * 10 + gravity
    # (few random games of Connect Four reach 32 stones: 401 games for these 6)
    for pos in random_positions(spec, 6, (min_stones, spec.cells - 1), seed=seed, min_stones=min_stones,
                                distinct=False, tries=500):
        before = (pos.x, pos.o, list(pos.move_stack))
        a = analyze(pos, options=Options(tt_size=8 << TT_BITS))
        assert (pos.x, pos.o, list(pos.move_stack)) == before, "analyze changed the position"
        where = f"{spec.describe()} {pos.board_text()}"
        assert [m.move for m in a.moves] == pos.legal_moves, where
        for m in a.moves:
            child = pos.copy()
            child.push(m.move)
            expected = -naive_score(spec, child.x, child.o)  # a win at once: minus the terminal loss
            assert m.score == expected, f"{where}: move {m.text} scores {m.score}, naive {expected}"
            assert m.value == value_of_score(expected), where
            assert m.at_once == child.is_game_over(), where
        assert a.complete and not a.terminal
        assert a.score == max(m.score for m in a.moves) == naive_score(spec, pos.x, pos.o), where
        assert a.value == value_of_score(a.score)
        assert a.best_moves == [m.move for m in a.moves if m.score == a.score]
        weak = analyze(pos, weak=True, options=Options(tt_size=8 << TT_BITS))
        assert [(m.move, m.value) for m in weak.moves] == [(m.move, m.value) for m in a.moves], where
        assert all(m.score is None for m in weak.moves) and weak.score is None
        assert weak.value == a.value


def test_win_at_once_scores_the_win_score():
    spec = GameSpec(3, 3, 3)
    pos = Position.from_moves(spec, "a1,b1,a2,b2")  # X wins with a3 on ply 5
    a = analyze(pos, options=Options(tt_size=8 << TT_BITS))
    a3 = a.get("a3")
    assert (a3.value, a3.score, a3.at_once, a3.nodes) == ("win", win_score(spec, 5), True, 0)
    assert a.best_moves == [a3.move] and a.score == 3


def test_serial_analysis_uses_one_search_for_all_the_moves(monkeypatch):
    made = []
    real = analysis_module.Search

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis_module, "Search", counting)
    analyze(Position(GameSpec(4, 4, 3, True)), options=Options(tt_size=8 << TT_BITS))
    assert len(made) == 1


def test_two_workers_agree_with_one():
    spec = GameSpec(4, 4, 3)
    pos = Position.from_moves(spec, "b2,c3")
    one = analyze(pos, options=Options(tt_size=8 << TT_BITS))
    two = analyze(pos, options=Options(workers=2, tt_size=8 << TT_BITS))
    assert [(m.move, m.score) for m in two.moves] == [(m.move, m.score) for m in one.moves]
    assert two.workers == 2 and one.workers == 1


def test_finished_game_has_nothing_to_analyse():
    pos = Position.from_moves(C4, "1212121")
    a = analyze(pos, options=Options(tt_size=8 << TT_BITS))
    assert a.terminal and a.moves == [] and a.best_moves == []
    assert (a.value, a.score) == ("loss", solve(pos).score)
    full = Position.from_board(GameSpec(3, 3, 3), "xox/xoo/oxx")
    a = analyze(full, options=Options(tt_size=8 << TT_BITS))
    assert (a.terminal, a.value, a.score) == (True, "draw", 0)


def test_bad_arguments():
    with pytest.raises(MnkError):
        analyze(Position(GameSpec(9, 9, 5)), Limit(nodes=10))
    with pytest.raises(MnkError):
        analyze(Position(GameSpec(3, 3, 3)), options=Options(workers=0))
    with pytest.raises(MnkError):
        analyze(Position(GameSpec(3, 3, 3)), Limit(time=0))


# ---------------------------------------------------------------- Pons' Connect Four sets
def pons_positions(name: str, count: int) -> list[tuple[str, int]]:
    path = DATA / name
    if not path.exists():
        missing(NO_DATA)
    lines = path.read_text().split("\n")
    return [(moves, int(score)) for moves, score in (line.split() for line in lines[:count])]


@pytest.mark.parametrize("name, count", [("Test_L3_R1", 30), ("Test_L2_R1", 30)])
def test_connect4_columns_match_pons_sets(name, count):
    for moves, expected in pons_positions(name, count):
        pos = Position.from_moves(C4, moves)
        a = analyze(pos, options=Options(tt_size="8M"))
        assert a.score == expected, f"{moves}: best {a.score}, set {expected}"
        for col, m in enumerate(a.slots()):
            if str(col + 1) not in pos.legal_moves:
                assert m is None, f"{moves}: full column {col + 1} has an entry"
                continue
            child = pos.copy()
            child.push(Move(pos.spec, col))
            assert m.score == -solve(child, options=Options(tt_size="8M")).score, f"{moves}: column {col + 1}"
        entries = pons_line(moves, a).split()[1:]
        assert len(entries) == 7
        assert max(int(e) for e in entries if int(e) != ILLEGAL) == expected


def test_connect4_stdin_lines_as_pons_prints_them():
    positions = pons_positions("Test_L3_R1", 10)
    code, out = run(["--game", "connect4", "--workers", "1", "--tt-bits", "20"],
                    "".join(moves + "\n" for moves, _ in positions))
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(positions)
    for line, (moves, expected) in zip(lines, positions):
        fields = line.split(" ")
        assert fields[0] == moves and len(fields) == 8, line
        scores = [int(f) for f in fields[1:]]
        pos = Position.from_moves(C4, moves)
        assert [c for c in range(7) if scores[c] == ILLEGAL] == [c for c in range(7) if str(c + 1) not in pos.legal_moves]
        assert max(scores) == expected, line


# ---------------------------------------------------------------- CLI: human grid
def test_human_grid_free_placement(capsys):
    code, out = run([*TTT, "--moves", "b2", "--workers", "1"])
    assert code == 0
    assert "3x3 k=3, 1 stone, O to move\nscore of each move for O, on its cell:\n" in out
    assert ("3  0 -2  0\n"
            "2 -2  X -2\n"
            "1  0 -2  0\n"
            "   a  b  c\n") in out
    assert "value: draw for O, score +0 (draw with best play)\n" in out
    assert "best moves: a3 c3 a1 c1\n" in out
    assert "nodes: " in out
    assert capsys.readouterr().err == ""


def test_human_grid_gravity():
    code, out = run(["--cols", "4", "--rows", "4", "--k", "3", "--gravity", "--moves", "111124", "--workers", "1"])
    assert code == 0
    pos = Position.from_moves(GameSpec(4, 4, 3, True), "111124")
    a = analyze(pos, options=Options(tt_size=8 << TT_BITS))
    grid = out.split("under its column (blank: full column):\n")[1].split("value:")[0].splitlines()
    width = max(len(t) for t in grid[-1].split())
    assert grid[-2].split() == ["1", "2", "3", "4"]           # column numbers
    assert grid[-1].startswith(" " * (2 + width))            # column 1 is full: blank
    assert grid[-1].split() == [f"{a.get(str(c + 1)).score:+d}" if a.get(str(c + 1)).score else "0" for c in (1, 2, 3)]
    assert grid[0].split() == ["4", "O", ".", ".", "."]
    assert [line.split()[0] for line in grid[:4]] == ["4", "3", "2", "1"]
    best = " ".join(move_name(pos.spec, m) for m in a.best_moves)
    assert f"best move{'s' if len(a.best_moves) > 1 else ''}: {best}\n" in out


def test_human_finished_game():
    code, out = run(["--game", "connect4", "--moves", "1212121"])
    assert code == 0
    assert "game over: loss for O (X has won); no move to analyse" in out
    assert "best move" not in out


def test_human_weak_shows_values():
    code, out = run([*TTT, "--moves", "a1,b1,a2,b2", "--weak", "--workers", "1"])
    assert code == 0
    assert "value of each move for X" in out
    assert ("3  win draw loss\n"
            "2    X    O loss\n"
            "1    X    O loss\n"
            "     a    b    c\n") in out
    assert "value: win for X\n" in out and "score" not in out.split("value: ")[1].splitlines()[0]


# ---------------------------------------------------------------- CLI: JSON
def test_json_fields():
    code, out = run([*TTT, "--moves", "a1,b1,a2,b2", "--json", "--workers", "1"])
    assert code == 0
    d = json.loads(out)
    assert set(d) == {"value", "score", "to_move", "best_moves", "moves", "scores", "terminal", "nodes", "time_s",
                      "proof", "settings"} and d["settings"] == {}
    assert (d["value"], d["score"], d["to_move"], d["best_moves"], d["terminal"]) == ("win", 3, "X", ["a3"], False)
    assert [m["move"] for m in d["moves"]] == ["a3", "b3", "c3", "c2", "c1"]
    for m in d["moves"]:
        assert set(m) == {"move", "value", "score", "ends_game", "nodes", "time_s", "proof"}
        assert m["proof"] is None   # (no book here)
        assert m["value"] == value_of_score(m["score"])
    assert d["moves"][0] == {**d["moves"][0], "score": 3, "ends_game": True}
    # one entry per cell, row-major from the top-left; null on taken cells
    assert d["scores"] == [3, d["moves"][1]["score"], d["moves"][2]["score"], None, None,
                           d["moves"][3]["score"], None, None, d["moves"][4]["score"]]
    assert d["nodes"] == sum(m["nodes"] for m in d["moves"])


def test_json_gravity_full_column_is_null():
    code, out = run(["--cols", "4", "--rows", "4", "--k", "3", "--gravity", "--moves", "1111", "--json",
                     "--workers", "1"])
    assert code == 0
    d = json.loads(out)
    assert d["scores"][0] is None and all(isinstance(s, int) for s in d["scores"][1:])
    assert [m["move"] for m in d["moves"]] == ["2", "3", "4"]
    assert d["score"] == max(d["scores"][1:])


def test_json_finished_game():
    code, out = run([*TTT, "--moves", "a1,a2,b1,b2,c1", "--json"])
    assert code == 0
    d = json.loads(out)
    assert (d["value"], d["score"], d["terminal"], d["moves"], d["best_moves"]) == ("loss", -3, True, [], [])
    assert d["scores"] == [None] * 9


# ---------------------------------------------------------------- CLI: stdin lines
def test_stdin_lines(capsys):
    lines = ["b2", "", "zz", "a1,a2,b1,b2,c1", "x../.o./..."]
    code, out = run([*TTT, "--workers", "1"], "\n".join(lines) + "\n")
    assert code == 1  # one bad line
    got = out.splitlines()
    assert got[0] == "b2 0 -2 0 -2 -1000 -2 0 -2 0"
    assert got[1] == " 0 0 0 0 0 0 0 0 0"   # an empty line: the empty board, as Pons' solver reads it
    assert got[2].startswith("zz error: ")
    assert got[3] == "a1,a2,b1,b2,c1" + " -1000" * 9  # the game is over: no legal move
    assert got[4].startswith("x../.o./... ") and got[4].split()[1:3] == ["-1000", "0"]
    assert len(got) == 5
    assert "Traceback" not in capsys.readouterr().err


def test_stdin_lines_weak_and_json():
    code, out = run([*TTT, "--workers", "1", "--weak"], "a1,b1,a2,b2\n")
    assert code == 0
    assert out == "a1,b1,a2,b2 1 0 -1 -1000 -1000 -1 -1000 -1000 -1\n"
    code, out = run([*TTT, "--workers", "1", "--json"], "b2\nb2,b2\n")
    assert code == 1
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["input"] == "b2" and first["score"] == 0 and first["scores"][4] is None
    assert set(second) == {"input", "error"} and "already taken" in second["error"]


# ---------------------------------------------------------------- CLI: errors and time limit
@pytest.mark.parametrize("argv", [
    ["--cols", "27", "--rows", "9", "--k", "5", "--moves", ""],  # too wide (cell names a-z)
    ["--cols", "9", "--rows", "9", "--k", "10", "--moves", ""],  # no line fits
    [*TTT, "--moves", "b2,b2"],                                  # repeated move
    [*TTT, "--moves", "b2", "--board", "x../.../..."],           # both inputs
    [*TTT, "--board", "xxx/ooo/x.."],                            # impossible board
    ["--cols", "4", "--rows", "4", "--k", "3", "--gravity", "--moves", "11111"],  # full column
    ["--moves", ""],                                             # no game
    [*TTT, "--moves", "", "--workers", "0"],
    [*TTT, "--moves", "", "--time-limit", "-1"],
    [*TTT, "--moves", "", "--tt-bits", "3"],
    [*TTT, "--bogus"],
])
def test_bad_input_is_one_line_on_stderr_exit_2(capsys, argv):
    code, out = run(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    assert err.startswith("parallel-mnk: error: ") and err.count("\n") == 1, err


def test_time_limit_gives_unknown_entries_and_exit_3():
    argv = ["--game", "connect4", "--moves", "44", "--time-limit", "0.05", "--workers", "1", "--tt-bits", "20",
            "--book", "none"]
    code, out = run(argv)
    assert code == 3
    assert "value: unknown (stopped by the time limit" in out
    assert "best move" not in out
    assert out.split("\n  1 2 3 4 5 6 7\n")[1].splitlines()[0].split() == ["?"] * 7
    code, out = run([*argv, "--json"])
    assert code == 3
    d = json.loads(out)
    assert (d["value"], d["score"], d["best_moves"]) == ("unknown", None, [])
    assert all(m["value"] == "unknown" and m["score"] is None for m in d["moves"])
    code, out = run(argv[:2] + argv[4:], "44\n")
    assert (code, out) == (3, "44" + " ?" * 7 + "\n")


def test_time_limit_keeps_what_was_solved():
    """Moves solved before the limit keep their exact scores; the rest are unknown, never guessed."""
    pos = Position.from_moves(C4, "44")
    a = analyze(pos, Limit(time=0.05), options=Options(tt_size="8M"))
    assert not a.complete and a.value == "unknown" and a.score is None and a.best_moves == []
    for m in a.moves:
        assert (m.value == "unknown") == (m.score is None)
