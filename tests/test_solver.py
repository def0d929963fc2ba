"""parallel_mnk.engines.exact.search.solve: known values, agreement with the naive reference
solver on random positions, Pons' Connect Four sets, finished games."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from checks import C4, missing, random_positions, sign, spec_id
from naive import naive_solver
from parallel_mnk import GameSpec, MnkError, Position, solve
from parallel_mnk.api.settings import DEFAULTS
from parallel_mnk.game.rules import move_list_indexes, value_of_score, win_score
from parallel_mnk import Limit, Options

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
NO_DATA = "../shared/data/connect4 not found: Pons' test sets are third-party data that is not shipped"


# ---------------------------------------------------------------- (a) known values
@pytest.mark.parametrize("spec, value, score", [
    (GameSpec(3, 3, 3), "draw", 0),
    (GameSpec(4, 3, 3), "win", 3),            # X wins with its 4th stone (ply 7 of 12 cells)
    (GameSpec(3, 4, 3), "win", 3),
    (GameSpec(4, 4, 4), "draw", 0),
    (GameSpec(5, 5, 4), "draw", 0),
    (GameSpec(6, 5, 4), "win", None),
    (GameSpec(6, 4, 4, True), "loss", None),  # second player wins (Tromp)
    (GameSpec(6, 5, 4, True), "draw", 0),
    (GameSpec(4, 4, 4, True), "draw", 0),
    (GameSpec(5, 4, 4, True), "draw", 0),
])
def test_known_values_of_empty_boards(spec, value, score):
    result = solve(Position(spec))
    assert result.value == value
    assert value_of_score(result.score) == value
    if score is not None:
        assert result.score == score
    assert result.terminal is False
    assert result.best_move in Position(spec).legal_moves
    weak = solve(Position(spec), weak=True)
    assert weak.value == value
    assert weak.score is None


# free placement, value for the first player (the known values of docs/proofs.md; the
# k=5 draws: Hsu et al. 2020; 4x9 k=4: Charatsidis 2017, Uiterwijk 2019)
LITERATURE = [((3, 3, 3), "draw"), ((4, 3, 3), "win"), ((4, 4, 3), "win"), ((5, 3, 3), "win"), ((3, 6, 3), "win"),
              ((5, 5, 3), "win"), ((3, 8, 4), "draw"), ((4, 4, 4), "draw"), ((4, 6, 4), "draw"), ((4, 7, 4), "draw"),
              ((4, 8, 4), "draw"), ((5, 5, 4), "draw"), ((5, 6, 4), "win"), ((6, 5, 4), "win"), ((5, 7, 4), "win"),
              ((6, 6, 4), "win"), ((5, 5, 5), "draw"), ((6, 5, 5), "draw"), ((6, 6, 5), "draw"), ((7, 5, 5), "draw"),
              ((7, 6, 5), "draw"), ((7, 7, 5), "draw")]


@pytest.mark.parametrize("board, value", LITERATURE, ids=lambda x: "x".join(map(str, x)) if isinstance(x, tuple) else x)
def test_known_values_of_the_literature(board, value):
    """Weak solves of empty free boards settle the published value (every prover on)."""
    r = solve(Position(GameSpec(*board)), weak=True, options=Options(pv=False))
    assert r.value == value


@pytest.mark.slow
def test_4x9_k4_is_a_first_player_win():
    """(4,9,4): a first-player win (Charatsidis 2017); about 20 s on 2 workers.
    The line played out ends in the first player's win."""
    r = solve(Position(GameSpec(4, 9, 4)), weak=True, options=Options(workers=2))
    assert r.value == "win"
    pos = Position(GameSpec(4, 9, 4))
    for move in r.pv:
        pos.push(move)
    assert pos.outcome() is not None and pos.outcome().winner == 1


@pytest.mark.parametrize("spec", [GameSpec(1, 1, 1), GameSpec(5, 4, 1), GameSpec(8, 8, 1), GameSpec(3, 3, 1, True),
                                  GameSpec(1, 7, 1, True)])
def test_k1_is_a_win_with_the_first_stone(spec):
    result = solve(Position(spec))
    assert result.value == "win"
    assert result.score == win_score(spec, 1) == (spec.cells + 1) // 2
    assert len(result.pv) == 1


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 4), GameSpec(4, 3, 5), GameSpec(2, 5, 6), GameSpec(4, 4, 5, True),
                                  GameSpec(8, 8, 9), GameSpec(3, 2, 4, True)])
def test_k_longer_than_both_sides_is_a_draw(spec):
    result = solve(Position(spec))
    assert (result.value, result.score) == ("draw", 0)
    end = Position.from_moves(spec, result.pv)
    assert end.outcome() is not None and end.outcome().winner is None


def test_solve_leaves_the_position_unchanged():
    pos = Position.from_moves(GameSpec(4, 4, 3), "b2,c3")
    before = (pos.x, pos.o, list(pos.move_stack))
    solve(pos)
    solve(pos, weak=True)
    assert (pos.x, pos.o, pos.move_stack) == before


def test_result_fields():
    pos = Position(GameSpec(3, 3, 3))
    result = solve(pos)
    assert result.nodes > 0
    assert result.time_s >= 0
    assert len(result.workers) == 1
    assert sum(w.nodes for w in result.workers) == result.nodes
    assert result.pv[0] == result.best_move
    d = result.to_dict()
    assert set(d) == {"value", "score", "to_move", "best_move", "pv", "nodes", "workers", "time_s", "proof", "settings"}
    assert d["settings"] == {} and result.settings is DEFAULTS
    assert move_list_indexes(pos.spec, d["best_move"]) == [result.best_move]
    assert [move_list_indexes(pos.spec, m)[0] for m in d["pv"]] == result.pv
    no_pv = solve(pos, options=Options(pv=False))
    assert no_pv.pv == [no_pv.best_move]
    assert no_pv.score == 0


def test_bad_arguments():
    pos = Position(GameSpec(3, 3, 3))
    with pytest.raises(MnkError):
        solve(pos, options=Options(workers=0))
    with pytest.raises(MnkError):
        solve(pos, options=Options(tt_size=8 << 4))


def test_generous_time_limit_gives_the_exact_answer():
    # a limit that is never reached on a tiny board: the answer must be exact
    result = solve(Position(GameSpec(4, 3, 3)), Limit(time=120))
    assert (result.value, result.score) == ("win", 3)


def test_two_workers_agree_with_one():
    pos = Position.from_moves(GameSpec(4, 4, 4, True), "23")
    one = solve(pos)
    two = solve(pos, options=Options(workers=2))
    assert (two.value, two.score) == (one.value, one.score)


# ---------------------------------------------------------------- (b) against the naive solver
# (cols, rows, k values, max empty cells when the naive search from the empty board is too big)
FREE_BOARDS = [
    (3, 3, (1, 2, 3, 4), None),
    (4, 3, (2, 3, 4, 5), 11),
    (3, 4, (2, 3, 4), 11),
    (4, 4, (2, 3, 4, 5), 10),
    (5, 3, (2, 3, 4), 10),
    (6, 2, (2, 3), 10),
    # bigger boards near the end of the game
    (5, 4, (3, 4), 9),
    (4, 5, (3, 4), 9),
    (8, 8, (4, 5), 8),
    (2, 5, (1, 2, 3, 4, 5), None),
    (1, 6, (1, 2, 3, 4), None),
    (2, 2, (2,), None),
]
GRAVITY_BOARDS = [
    (3, 3, (1, 2, 3, 4), None),
    (4, 3, (2, 3, 4, 5), None),
    (3, 4, (2, 3, 4), None),
    (4, 4, (2, 3, 4, 5), None),
    (5, 3, (2, 3, 4), None),
    (6, 2, (2, 3), None),
    (7, 6, (4,), 10),
    (5, 5, (3, 4), 10),
    (2, 5, (1, 2, 3, 4, 5), None),
    (1, 6, (1, 2, 3, 4), None),
]
RANDOM_CASES = [GameSpec(c, r, k, g) for g, boards in ((False, FREE_BOARDS), (True, GRAVITY_BOARDS))
                for c, r, ks, _ in boards for k in ks]
MAX_EMPTY = {(c, r, g): m for g, boards in ((False, FREE_BOARDS), (True, GRAVITY_BOARDS)) for c, r, _, m in boards}
POSITIONS_PER_GAME = 25


def seed_of(spec: GameSpec) -> int:
    return spec.cols * 1000 + spec.rows * 100 + spec.k * 10 + spec.gravity


def random_cases(spec: GameSpec) -> list[Position]:
    """Distinct positions that are not over, reached by random play that never ends
    the game, with at most ``MAX_EMPTY`` empty cells."""
    fewest = spec.cells - (MAX_EMPTY[spec.cols, spec.rows, spec.gravity] or spec.cells)
    return random_positions(spec, POSITIONS_PER_GAME, (fewest, spec.cells - 1), seed=seed_of(spec), quiet=True,
                            min_stones=fewest, tries=20, exact=False)


def check_against_naive(spec: GameSpec, pos: Position, tt_bits: int) -> list[str]:
    """Every way ``solve`` can disagree with the reference, as messages (empty: all good)."""
    naive = naive_solver(spec)
    expected = naive.score(pos.x, pos.o)
    result = solve(pos, options=Options(tt_size=8 << tt_bits))
    errors = []
    if result.score != expected or result.value != value_of_score(expected):
        errors.append(f"score {result.score} ({result.value}), naive {expected}")
    if result.terminal:
        errors.append("terminal for a position that is not over")
    # the best move is optimal: the child's naive score is minus ours (also for a win at once)
    if result.best_move not in pos.legal_moves:
        errors.append(f"best move {result.best_move} is not legal")
        return errors
    child = naive.play(pos.x, pos.o, result.best_move)
    if -naive.score(*child) != expected:
        errors.append(f"best move {result.best_move} scores {-naive.score(*child)}, not {expected}")
    # the PV is a perfect game to its end
    if not result.pv or result.pv[0] != result.best_move:
        errors.append(f"pv {result.pv} does not start with the best move {result.best_move}")
    line = pos.copy()
    score = expected
    for i, m in enumerate(result.pv):
        if m not in line.legal_moves:
            errors.append(f"pv move {i} ({m}) is illegal in {result.pv}")
            return errors
        child_score = -naive.score(*naive.play(line.x, line.o, m))
        if child_score != score:
            errors.append(f"pv move {i} ({m}) scores {child_score}, not {score}: pv {result.pv}")
            return errors
        line.push(m)
        score = -score
    out = line.outcome()
    if out is None:
        errors.append(f"pv {result.pv} stops before the game ends")
    elif expected == 0:
        if out.winner is not None:
            errors.append(f"pv of a draw ends with a win: {result.pv}")
    else:
        winner = pos.turn if expected > 0 else 3 - pos.turn
        if out.winner != winner or win_score(spec, out.ply) != abs(expected):
            errors.append(f"pv ends with {out} which does not give score {expected}: {result.pv}")
    # weak solve: the sign, and a best move that keeps it
    weak = solve(pos, weak=True, options=Options(tt_size=8 << tt_bits))
    if weak.value != value_of_score(expected) or weak.score is not None:
        errors.append(f"weak value {weak.value} (score {weak.score}), naive {expected}")
    elif weak.best_move not in pos.legal_moves:
        errors.append(f"weak best move {weak.best_move} is not legal")
    elif expected >= 0 and sign(-naive.score(*naive.play(pos.x, pos.o, weak.best_move))) != sign(expected):
        errors.append(f"weak best move {weak.best_move} does not keep the value {weak.value}")
    return errors


@pytest.mark.parametrize("spec", RANDOM_CASES, ids=spec_id)
def test_random_positions_match_the_naive_solver(spec):
    cases = random_cases(spec)
    assert cases, "no random position generated"
    failures = []
    try:
        for i, pos in enumerate(cases):
            # every other position with a tiny table, to exercise replacement and collisions
            for msg in check_against_naive(spec, pos, tt_bits=10 if i % 2 else 22):
                failures.append(f"moves {pos.move_stack}: {msg}")
    finally:
        naive_solver(spec).score.cache_clear()
    assert not failures, f"{len(failures)} disagreements on {spec}:\n" + "\n".join(failures[:15])


def test_random_case_count():
    """The random test really covers hundreds of positions."""
    total = sum(len(random_cases(spec)) for spec in RANDOM_CASES)
    assert total >= 1000


# ---------------------------------------------------------------- self-consistency on bigger boards
def symmetric_boards(spec: GameSpec, text: str) -> list[str]:
    """Board texts of the images of ``text`` under the board's symmetries (mirror only with gravity)."""
    rows = text.split("/")
    images = {"/".join(r[::-1] for r in rows)}
    if not spec.gravity:
        images.add("/".join(rows[::-1]))
        images.add("/".join(r[::-1] for r in rows[::-1]))
        if spec.cols == spec.rows:
            images.add("/".join("".join(r[i] for r in rows) for i in range(spec.cols)))  # transpose
    return sorted(images)


@pytest.mark.parametrize("spec, stones", [(GameSpec(5, 5, 4), 6), (GameSpec(6, 4, 4), 7), (GameSpec(5, 4, 3), 4),
                                          (GameSpec(4, 7, 4), 10), (GameSpec(6, 5, 4, True), 10),
                                          (GameSpec(7, 6, 4, True), 20)],
                         ids=lambda v: f"{v.cols}x{v.rows}k{v.k}{'g' if v.gravity else ''}"
                         if isinstance(v, GameSpec) else str(v))
def test_score_is_the_best_child_and_symmetric(spec, stones):
    """Where the naive solver is too slow: score(P) = max over moves of -score(P+m)
    (a win at once is worth its ply), and symmetric boards have the same score."""
    failures = []
    for pos in random_positions(spec, 6, stones, seed=seed_of(spec), quiet=True, distinct=False):
        result = solve(pos, options=Options(pv=False))
        best = None
        for m in pos.legal_moves:
            pos.push(m)
            out = pos.outcome()
            if out is not None:
                child = win_score(spec, out.ply) if out.winner else 0
            else:
                child = -solve(pos, options=Options(pv=False)).score
            pos.pop()
            best = child if best is None else max(best, child)
            if m == result.best_move and child != result.score:
                failures.append(f"{pos.move_stack}: best move {m} scores {child}, not {result.score}")
        if best != result.score:
            failures.append(f"{pos.move_stack}: score {result.score}, best child {best}")
        for text in symmetric_boards(spec, pos.board_text()):
            image = solve(Position.from_board(spec, text), options=Options(pv=False))
            if image.score != result.score:
                failures.append(f"{pos.move_stack}: image {text} scores {image.score}, not {result.score}")
    assert not failures, "\n".join(failures)


def test_time_limit_gives_exact_or_unknown():
    """Whatever the timing, an answer under a time limit is exact or 'unknown', never a guess."""
    spec = GameSpec(5, 5, 4)
    result = solve(Position(spec), Limit(time=0.05))
    if result.value == "unknown":
        assert (result.score, result.best_move, result.pv) == (None, None, [])
    else:
        assert (result.value, result.score) == ("draw", 0)
    # the aborted search leaves nothing behind that spoils the next one
    assert solve(Position(GameSpec(4, 3, 3))).score == 3


# ---------------------------------------------------------------- (c) Pons' Connect Four sets
def pons_lines(name: str, count: int, first: int = 0) -> list[tuple[str, int]]:
    """Lines ``first`` to ``first + count`` of Pons' set ``name``: ``(moves, score)``; a
    skip when the data is absent, a failure then under ``$REQUIRE_DATA`` (as CI sets it)."""
    if not DATA.is_dir():
        missing(NO_DATA)
    path = DATA / name
    if not path.is_file():
        missing(f"{path} not found")
    out = []
    with path.open() as f:
        for i, line in enumerate(f):
            if len(out) >= count:
                break
            if i >= first:
                moves, score = line.split()
                out.append((moves, int(score)))
    return out


def check_pons(name: str, count: int, weak_every: int = 0, first: int = 0) -> None:
    failures = []
    for i, (moves, score) in enumerate(pons_lines(name, count, first), first):
        pos = Position.from_moves(C4, moves)
        assert pos.outcome() is None
        result = solve(pos, options=Options(pv=False))
        if result.score != score or result.value != value_of_score(score):
            failures.append(f"line {i + 1} {moves}: score {result.score}, expected {score}")
        if weak_every and i % weak_every == 0:
            weak = solve(pos, weak=True, options=Options(pv=False))
            if weak.value != value_of_score(score):
                failures.append(f"line {i + 1} {moves}: weak {weak.value}, expected {value_of_score(score)}")
    assert not failures, f"{len(failures)} wrong of {count} in {name}:\n" + "\n".join(failures[:15])


@pytest.mark.parametrize("name, count, first", [("Test_L3_R1", 200, 0), ("Test_L2_R1", 200, 0),
                                                ("Test_L1_R1", 200, 0), ("Test_L2_R2", 30, 0),
                                                ("Test_L1_R2", 20, 0), ("Test_L1_R3", 3, 8)])
def test_pons_sets(name, count, first):
    """A sample of each of the six sets (the first lines; the hardest sets' fewest). Of
    Test_L1_R3, lines 9-11: a draw, a loss and a win, about 1 s in all on 2 cores (its first
    line alone takes 6 s; test_pons_sets_full, under -m slow, checks the first 200)."""
    check_pons(name, count, weak_every=10, first=first)


def test_pons_sets_skip_without_the_data(monkeypatch, tmp_path):
    monkeypatch.setattr(sys.modules[__name__], "DATA", tmp_path / "missing")
    monkeypatch.delenv("REQUIRE_DATA", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not found: Pons' test sets are third-party data"):
        pons_lines("Test_L3_R1", 1)
    monkeypatch.setenv("REQUIRE_DATA", "1")   # as CI runs: a failure
    with pytest.raises(pytest.fail.Exception, match="REQUIRE_DATA is set but .* not found"):
        pons_lines("Test_L3_R1", 1)


def check_pons_batch(name: str, count: int, first: int = 0) -> None:
    """Lines ``first`` to ``first + count`` of ``name`` solved exactly by ``parallel-mnk solve``
    reading them on stdin (one worker, no book, the table cleared per line), in as many
    processes as the machine has cores, each on its share of the lines: every score Pons'."""
    lines = pons_lines(name, count, first)
    parts = max(1, min(os.cpu_count() or 1, 4))
    command = [sys.executable, "-c", "from parallel_mnk.frontends.cli import entry; entry()", "solve",
               "--game", "connect4", "--workers", "1", "--book", "none"]
    shares = [lines[i::parts] for i in range(parts)]
    procs = []
    for share in shares:   # all at once: each reads its lines from a file and writes its answers as it goes
        with tempfile.TemporaryFile("w+") as lines_in:
            lines_in.write("".join(moves + "\n" for moves, _ in share))
            lines_in.seek(0)
            procs.append(subprocess.Popen(command, stdin=lines_in, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
    failures = []
    for proc, share in zip(procs, shares):
        out, err = proc.communicate()
        assert proc.returncode == 0, err
        answers = out.splitlines()
        assert len(answers) == len(share), (len(answers), len(share), err)
        for (moves, score), answer in zip(share, answers):
            text, got = answer.split()[:2]
            if text != moves or got != str(score):
                failures.append(f"{moves}: {answer}, expected {score}")
    assert not failures, f"{len(failures)} wrong of {count} in {name}:\n" + "\n".join(failures[:15])


# all six sets in full (6,000 lines) under -m slow: Test_L1_R3 (about 2.3 s a line on one
# core here) in two parts, so that CI, which deselects 'long', checks its first 200 lines
@pytest.mark.slow
@pytest.mark.minutes
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("name, count, first", [
    ("Test_L1_R3", 200, 0), ("Test_L1_R2", 1000, 0),   # (the longest first: see tests/conftest.py)
    ("Test_L3_R1", 1000, 0), ("Test_L2_R1", 1000, 0), ("Test_L1_R1", 1000, 0), ("Test_L2_R2", 1000, 0),
    pytest.param("Test_L1_R3", 800, 200, marks=pytest.mark.long, id="Test_L1_R3-800-200-long")])
def test_pons_sets_full(name, count, first):
    check_pons_batch(name, count, first)


def test_pons_best_move_and_line_on_end_games():
    """On the easy end-game set, the best move and the PV keep the score move after move."""
    for moves, score in pons_lines("Test_L3_R1", 25):
        pos = Position.from_moves(C4, moves)
        result = solve(pos)
        assert result.score == score
        line = pos.copy()
        expected = score
        for m in result.pv:
            line.push(m)
            expected = -expected
            if line.outcome() is None:
                assert solve(line, options=Options(pv=False)).score == expected, (moves, result.pv)
        out = line.outcome()
        assert out is not None, (moves, result.pv)
        if score == 0:
            assert out.winner is None
        else:
            assert out.winner == (pos.turn if score > 0 else 3 - pos.turn)
            assert (44 - out.ply) // 2 == abs(score)


# ---------------------------------------------------------------- (d) finished games
@pytest.mark.parametrize("spec, moves", [
    (GameSpec(3, 3, 3), "a1,a2,b1,b2,c1"),
    (GameSpec(3, 3, 3), "a1,a2,b1,b2,c3,c2"),
    (C4, "1212121"),
    (GameSpec(4, 4, 1), "b3"),
    (GameSpec(3, 3, 3), "a2,b2,b3,c2,c3,c1,a1,b1,a3"),  # X wins with the last stone
])
def test_solve_a_won_board(spec, moves):
    pos = Position.from_moves(spec, moves)
    result = solve(pos)
    assert result.value == "loss"
    assert result.terminal is True
    assert result.best_move is None
    assert result.pv == []
    assert result.score == -win_score(spec, pos.ply)
    weak = solve(pos, weak=True)
    assert weak.value == "loss" and weak.terminal and weak.best_move is None
    d = result.to_dict()
    assert d["best_move"] is None and d["pv"] == []


def test_solve_a_won_board_given_as_text():
    pos = Position.from_board(GameSpec(3, 3, 3), "xxx/oo./...")
    result = solve(pos)
    assert (result.value, result.score, result.terminal, result.best_move) == ("loss", -3, True, None)


def test_solve_a_full_drawn_board():
    pos = Position.from_moves(GameSpec(3, 3, 3), "b2,a1,a2,c2,b1,b3,c1,a3,c3")
    result = solve(pos)
    assert (result.value, result.score, result.terminal, result.best_move, result.pv) == ("draw", 0, True, None, [])


def test_one_move_from_the_end():
    # only c3 is left on a 3x3 board; X fills it and wins with the last stone
    pos = Position.from_board(GameSpec(3, 3, 3), "xo./oxx/xoo")
    assert pos.turn == 1
    result = solve(pos)
    assert (result.value, result.score, result.best_move, result.pv) == ("win", 1, 2, [2])
    assert move_list_indexes(GameSpec(3, 3, 3), "c3") == [2]
