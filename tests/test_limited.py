"""The depth-limited engine (parallel_mnk.engines.limited and kernels/grid/stones.py, kernels/grid/search.py).

Checked against plain recomputation (incremental state), against the naive
memoised minimax (full-depth search), against itself (pruning never changes a
depth-limited value), against the published seed-experiment counts, and on
tactical Gomoku positions.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from parallel_mnk import GameSpec, MnkError, Position
from parallel_mnk import best_move
from parallel_mnk.parallel.uses.limited import best_move_parallel
from parallel_mnk.game import geometry
from parallel_mnk.engines import limited as LM
from parallel_mnk.kernels.grid import stones as G
from parallel_mnk.kernels.grid import layout as GL
from parallel_mnk.kernels.grid.search import F_FAST, F_ORDER, F_PRUNE, F_THREATS, F_TT, WIN
from parallel_mnk.game.rules import move_name, move_list_indexes, ply_of_score
from parallel_mnk import Limit, Options
from checks import random_positions, wins_in_one
from naive import naive_score

GOMOKU = GameSpec(15, 15, 5)


def gomoku(moves: str) -> Position:
    return Position.from_moves(GOMOKU, moves)


# ---------------------------------------------------------------- incremental state
@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(7, 6, 4, True), GameSpec(15, 15, 5),
                                  GameSpec(5, 4, 1), GameSpec(6, 6, 2, True)])
def test_play_and_unplay_keep_the_state_equal_to_a_fresh_one(spec):
    rng = random.Random(spec.cells)
    geo = geometry.build_grid_geometry(spec)
    for _ in range(20):  # (the games below draw from rng too: one position at a time)
        pos = random_positions(spec, 1, (0, spec.cells // 2), rng=rng, keep_over=True, distinct=False)[0]
        if pos.is_game_over():
            continue
        st = LM.state_of(pos)
        before = st.copy()
        moves = []
        while not pos.is_game_over():
            cell = pos.cell_of_move(rng.choice(pos.legal_moves))
            won = G.play(geo, st, cell)
            pos.push(pos.move_of_cell(cell))
            moves.append(cell)
            assert bool(won) == (pos.outcome() is not None and pos.outcome().winner is not None)
            fresh = LM.state_of(pos)
            assert np.array_equal(st[:GL.S_NODES], fresh[:GL.S_NODES])
            size = int(geo[GL.G_S_MOVES])
            assert np.array_equal(st[GL.S_HEADER:size], fresh[GL.S_HEADER:size])
        for cell in reversed(moves):
            G.unplay(geo, st, cell)
        assert np.array_equal(st, before)


def test_evaluation_counts_open_lines():
    spec = GameSpec(4, 4, 3)
    pos = Position.from_moves(spec, "b3")
    st = LM.state_of(pos)
    geo = geometry.build_grid_geometry(spec)
    w = geometry.grid_line_weights(3)
    lines_through_b3 = sum(1 for m in geometry.line_masks(spec) if m >> (1 * 4 + 1) & 1)
    centre = int(geo[geo[GL.G_OFF_CENTRE] + 5])
    # O to move: X's single stone lies on open lines only, so O's view is minus their worth
    assert G.evaluate(geo, st) == -(lines_through_b3 * w[1] + centre)


def test_winning_cells_respects_gravity():
    spec = GameSpec(7, 6, 4, True)
    # X has three on the bottom row a1 b1 c1; d1 is playable, so X wins there
    pos = Position.from_moves(spec, "1122334")   # X: a1 b1 c1, O: a2 b2 c2, X: d1 -> won
    assert pos.is_game_over()
    pos = Position.from_moves(spec, "112233")
    st = LM.state_of(pos)
    out = np.zeros(2, dtype=np.int64)
    assert G.winning_cells(geometry.build_grid_geometry(spec), st, 1, out) == 1
    assert out[0] == 5 * 7 + 3
    # a threat on a floating cell is not an immediate win
    pos = Position.from_moves(spec, "1223733")   # X: a1 b2 c3 (diagonal), column d empty
    st = LM.state_of(pos)
    assert st[GL.S_THREAT + 1] == 1
    assert G.winning_cells(geometry.build_grid_geometry(spec), st, 1, out) == 0


# ---------------------------------------------------------------- against the naive solver
@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(4, 3, 3), GameSpec(4, 4, 3), GameSpec(4, 4, 3, True),
                                  GameSpec(5, 3, 3, True), GameSpec(4, 4, 2), GameSpec(3, 3, 1)])
def test_full_depth_search_gives_the_exact_score(spec):
    """With depth = empty cells and F_FAST, WIN - score is the number of plies to
    the end of the game under perfect play, so it must match the naive score."""
    for pos in random_positions(spec, 25, (max(0, spec.cells - 9), spec.cells - 1), seed=7 * spec.cells + spec.k,
                                keep_over=True, distinct=False):
        if pos.is_game_over():
            continue
        exact = naive_score(spec, pos.x, pos.o)
        st = LM.state_of(pos)
        for flags in (LM.FULL, F_PRUNE | F_FAST, F_FAST, F_PRUNE | F_ORDER | F_FAST | F_TT):
            score, cell, _, _ = LM.count_search(spec, st, spec.cells - pos.ply, flags)
            if exact == 0:
                assert score == 0, (pos.board_text(), flags)
            else:
                end = ply_of_score(spec, exact, pos.ply)
                expected = (WIN - (end - pos.ply)) * (1 if exact > 0 else -1)
                assert score == expected, (pos.board_text(), flags, score, expected)
            # the best cell keeps the score
            child = pos.copy()
            child.push(pos.move_of_cell(cell))
            if child.outcome() is None:
                assert -naive_score(spec, child.x, child.o) == exact, (pos.board_text(), flags)


@pytest.mark.parametrize("spec", [GameSpec(7, 6, 4, True), GameSpec(7, 6, 3, True), GameSpec(6, 6, 4),
                                  GameSpec(8, 7, 4, True)])
def test_pruning_and_ordering_never_change_a_depth_limited_value(spec):
    for pos in random_positions(spec, 6, (2, 12), seed=spec.cells * spec.k, keep_over=True, distinct=False):
        if pos.is_game_over():
            continue
        st = LM.state_of(pos)
        for depth in (1, 2, 3, 4):
            plain = LM.count_search(spec, st, depth, 0)
            for flags in (F_PRUNE, F_PRUNE | F_ORDER, F_PRUNE | F_ORDER | F_THREATS):
                got = LM.count_search(spec, st, depth, flags)
                if flags & F_THREATS:   # threats may prove a win or loss past the horizon, never flip one
                    if abs(plain[0]) < WIN // 2:
                        continue
                assert got[0] == plain[0], (pos.board_text(), depth, flags)
                assert got[3] <= plain[3]


# ---------------------------------------------------------------- seed experiment counts
def test_published_seed_counts():
    spec = GameSpec(3, 3, 3)
    st = LM.new_state(spec, [], [], 1)
    assert LM.count_search(spec, st, 9, 0)[2] == 549_945
    assert LM.count_search(spec, st, 9, F_PRUNE)[2] == 18_296
    spec = GameSpec(3, 4, 3)   # the assignment's "4x3": 4 rows, 3 columns
    assert LM.count_search(spec, LM.new_state(spec, [], [], 1), 12, F_PRUNE)[2] == 30_935


# ---------------------------------------------------------------- tactics on 15x15 k=5
def naive_wins_in_one(pos: Position) -> set[int]:
    wins = set()
    for m in pos.legal_moves:
        pos.push(m)
        if pos.outcome() is not None and pos.outcome().winner is not None:
            wins.add(m)
        pos.pop()
    return wins


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_takes_a_win_in_one(depth):
    pos = gomoku("h8,a1,i8,a2,j8,a3,k8,b5")
    wins = naive_wins_in_one(pos)
    assert wins == set(move_list_indexes(GOMOKU, "g8,l8"))
    r = LM.choose_move(pos, Limit(depth=depth))
    assert r.move in wins
    assert r.win_in == 1


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_blocks_a_four(depth):
    pos = gomoku("d3,d4,h8,d5,k11,d6,n2,d7")   # O: d4-d7, closed below by X's d3
    assert pos.turn == 1
    r = LM.choose_move(pos, Limit(depth=depth))
    assert move_name(GOMOKU, r.move) == "d8"


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_blocks_an_open_three(depth):
    pos = gomoku("b13,f6,m2,g6,n13,h6")   # O: f6 g6 h6 with e6, d6, i6, j6 empty
    r = LM.choose_move(pos, Limit(depth=depth))
    assert move_name(GOMOKU, r.move) in ("e6", "i6")


# Found by a random search and checked below: X wins by continuous fours, three fours deep,
# and has no shorter forced win by fours.
VCF_POSITIONS = [
    "h5,i6,f9,k9,h11,e6,h9,g11,f7,k8,f11,i5,i8,h6,j6,g10,i10,k7",
    "i9,k8,k11,i10,i8,h5,i7,j11,j8,g9,g7,f10,j6,f7,g10,i5",
    "i10,g11,k9,f7,j5,j7,i7,h7,g5,g10,i6,h9,j10,f9,f8,e8",
]


def four_making_moves(spec: GameSpec, stones: int, other: int) -> set[int]:
    """Empty cells after which ``stones`` has k-1 in a line free of ``other``."""
    cells = set()
    for line in geometry.line_masks(spec):
        if not line & other and bin(line & stones).count("1") == spec.k - 2:
            free = line & ~stones
            cells.update(c for c in range(spec.cells) if free >> c & 1)
    return cells


def check_forced_by_fours(spec: GameSpec, attacker: int, defender: int, move: int, fours_left: int) -> bool:
    """Independent check (line masks only): ``move`` makes a four whose block is
    forced, and the attack goes on until a double threat within ``fours_left`` fours."""
    attacker |= 1 << move
    if wins_in_one(spec, defender, attacker):
        return False   # the defender wins first
    threats = wins_in_one(spec, attacker, defender)
    if len(threats) >= 2:
        return True
    if len(threats) != 1 or fours_left <= 1:
        return False
    defender |= 1 << threats.pop()
    return any(check_forced_by_fours(spec, attacker, defender, nxt, fours_left - 1)
               for nxt in four_making_moves(spec, attacker, defender))


@pytest.mark.parametrize("moves", VCF_POSITIONS)
def test_finds_a_forced_win_by_fours_three_deep(moves):
    pos = gomoku(moves)
    assert not naive_wins_in_one(pos)
    own, opp = pos.stones()
    assert not any(check_forced_by_fours(GOMOKU, own, opp, m, 2) for m in four_making_moves(GOMOKU, own, opp))
    r = LM.choose_move(pos, Limit(depth=1))
    assert r.forced_fours
    assert check_forced_by_fours(GOMOKU, own, opp, r.move, 3)


@pytest.mark.parametrize("moves", VCF_POSITIONS[:1])
def test_the_main_search_finds_the_same_win_within_its_depth(moves):
    pos = gomoku(moves)
    r = LM.choose_move(pos, Limit(depth=5), fours=False)
    assert r.win_in is not None and r.win_in <= 7
    own, opp = pos.stones()
    assert check_forced_by_fours(GOMOKU, own, opp, r.move, 3)


# ---------------------------------------------------------------- API
def test_best_move_errors_and_time_limit():
    with pytest.raises(MnkError, match="over"):
        LM.choose_move(Position.from_moves(GameSpec(3, 3, 3), "a1,a2,b1,b2,c1"))
    with pytest.raises(MnkError, match="depth"):
        LM.choose_move(Position(GOMOKU), Limit(depth=0))
    r = LM.choose_move(Position(GameSpec(19, 19, 5)), Limit(time=0.3))
    assert r.depth >= 1 and r.move == 9 * 19 + 9
    assert r.time_s < 5


def test_empty_big_board_opens_in_the_centre():
    assert LM.choose_move(Position(GOMOKU), Limit(depth=2)).move == 7 * 15 + 7


# ---------------------------------------------------------------- on the pool, and the CLI
def test_tactics_with_two_workers():
    pos = gomoku("h8,a1,i8,a2,j8,a3,k8,b5")
    assert best_move(pos, Limit(depth=3), options=Options(workers=2)).move in naive_wins_in_one(pos)
    r = best_move(gomoku("d3,d4,h8,d5,k11,d6,n2,d7"), Limit(depth=4), options=Options(workers=2))
    assert move_name(GOMOKU, r.move) == "d8"
    r = best_move(gomoku("b13,f6,m2,g6,n13,h6"), Limit(depth=3), options=Options(workers=2))
    assert move_name(GOMOKU, r.move) in ("e6", "i6")
    assert len(r.per_worker) == 2 and sum(w[2] for w in r.per_worker) <= r.nodes
    assert all(w[1] > 0 for w in r.per_worker), r.per_worker   # every worker searched root moves


def test_two_workers_find_a_move_as_good_as_one():
    spec = GameSpec(7, 6, 4, True)
    for pos in random_positions(spec, 5, 10, seed=11, keep_over=True, distinct=False):
        if pos.is_game_over():
            continue
        one = LM.choose_move(pos, Limit(depth=4), width=0, fours=False)
        two = best_move_parallel(LM.LimitedSearch(pos, Limit(depth=4), width=0), 2)   # (the iterations alone)
        # the root value is exact in both; the move may differ only between equal values
        assert two.score == one.score, pos.board_text()


def run_cli(args):
    import io
    from parallel_mnk.frontends.cli import main

    out = io.StringIO()
    return main(args, stdin=io.StringIO(""), stdout=out), out.getvalue()


def test_best_cli(capsys):
    import json

    code, out = run_cli(["best", "--cols", "15", "--rows", "15", "--k", "5", "--moves", "d3,d4,h8,d5,k11,d6,n2,d7",
                         "--depth", "2"])
    assert code == 0 and "best move: d8" in out and " a b c d e" in out
    code, out = run_cli(["best", "--cols", "15", "--rows", "15", "--k", "5", "--moves", "h8,a1,i8,a2,j8,a3,k8,b5",
                         "--json", "--workers", "2", "--depth", "2"])
    data = json.loads(out)
    assert code == 0 and data["best_move"] in ("g8", "l8") and data["win_in"] == 1
    for bad, fragment in ((["--depth", "0"], "depth"), (["--moves", "z1"], "off the"), (["--width", "-1"], "width"),
                          (["--time-limit", "0"], "positive")):
        code, out = run_cli(["best", "--cols", "15", "--rows", "15", "--k", "5", *bad])
        err = capsys.readouterr().err
        assert code == 2 and out == "" and fragment in err and err.count("\n") == 1
    code, _ = run_cli(["best", "--game", "tictactoe", "--moves", "a1,a2,b1,b2,c1"])
    assert code == 2 and "over" in capsys.readouterr().err
    code, out = run_cli(["solve", "--cols", "15", "--rows", "15", "--k", "5", "--moves", "", "--time-limit", "0.3"])
    assert code == 3 and "unknown" in out   # past 64 cells solve searches too (tests/test_big.py)
