"""Threat-space search on the array board (parallel_mnk.kernels.grid.tss through
LimitedSearch.threat_space and best_move): every win it proves on boards the
exact solver settles is a win there, with a first move that keeps it; on 15x15
k=5 it finds every win the depth-limited engine finds at depth 6 on random
clustered positions, and wins that engine misses."""
from __future__ import annotations

import random

import pytest

from checks import push_quiet, random_positions
from parallel_mnk import GameSpec, Limit, Position, solve
from parallel_mnk import best_move
from parallel_mnk.engines.limited import LimitedSearch
from parallel_mnk import Move, Options
from parallel_mnk.game.moves import moves_of
from parallel_mnk.kernels.core.jit import callable_from_python

GOMOKU = GameSpec(15, 15, 5)
# O to move; the engine needs 7 plies to see the win (f10), the threat-space search finds it at once
DEEP_WIN = (".............../.............../............ox./...x.....x.o.../....xx....o..../....x........../"
            "......x...x..../...x.o.xo.o..../..........o..../.....ooo.x...../.........x...../.........o..o../"
            "...........o.../............x../.........x.....")


@pytest.mark.parametrize("spec,stones,count", [(GameSpec(5, 4, 4), (4, 9), 40), (GameSpec(6, 5, 4), (4, 10), 40),
                                               (GameSpec(7, 7, 5), (14, 24), 25), (GameSpec(8, 8, 5), (14, 26), 15)],
                         ids=str)
def test_every_win_is_a_win_of_the_exact_solver_and_its_move_keeps_it(spec, stones, count):
    found = 0
    for pos in random_positions(spec, count, stones, seed=spec.cells, quiet=True, exact=False):
        r = LimitedSearch(pos, Limit(depth=1)).threat_space()
        if r is None:
            continue
        found += 1
        assert r.threat_space and r.win_in is not None and r.win_in % 2 == 1
        assert solve(pos, weak=True, options=Options(pv=False, tt_size="2M")).value == "win", pos.board_text()
        child = pos.copy()
        child.push(r.move)
        if child.outcome() is None:
            assert solve(child, weak=True, options=Options(pv=False, tt_size="2M")).value == "loss", (pos.board_text(), r.move)
    assert found > 0


def clustered(rng: random.Random, stones: int) -> Position:
    """A 15x15 position of random moves next to (within two cells of) the stones, none ending the game."""
    pos = Position(GOMOKU)
    pos.push(Move(pos.spec, 7 * 15 + 7))
    while pos.ply < stones:
        taken = pos.x | pos.o
        near = sorted({r * 15 + c for s in range(GOMOKU.cells) if taken >> s & 1
                       for r in range(s // 15 - 2, s // 15 + 3) for c in range(s % 15 - 2, s % 15 + 3)
                       if 0 <= r < 15 and 0 <= c < 15 and not taken >> (r * 15 + c) & 1})
        rng.shuffle(near)
        if not push_quiet(pos, moves_of(GOMOKU, near)):
            break
    return pos


def test_on_gomoku_it_finds_every_win_the_engine_finds_and_more(use_settings):
    # the threat-space search's node budget at 1/8 of its default: the wins it finds here
    # take at most 38 k nodes, and the positions with none spend the budget (about 1 s each
    # at the default, almost all of this test's time)
    use_settings(LIMITED_THREAT_NODES=1 << 16)
    rng = random.Random(3)
    engine_wins = both = more = 0
    for _ in range(40):
        pos = clustered(rng, rng.randint(12, 30))
        engine = LimitedSearch(pos, Limit(depth=6))
        e = engine.forced_fours() or engine.iterate()
        t = LimitedSearch(pos, Limit(depth=1)).forcing_win()
        if e.win_in is not None:
            engine_wins += 1
            assert t is not None, pos.board_text()
            both += 1
        elif t is not None:
            more += 1
    assert engine_wins == both > 0 and more > 0


def test_a_win_the_engine_sees_only_at_depth_7():
    pos = Position.from_board(GOMOKU, DEEP_WIN)
    assert LimitedSearch(pos, Limit(depth=4)).iterate().win_in is None
    r = best_move(pos)
    assert r.threat_space and r.win_in is not None and r.describe().startswith("a win by fours and threes")
    child = pos.copy()
    child.push(r.move)
    assert LimitedSearch(child, Limit(depth=1)).threat_space() is None   # the defender has no such win now


@pytest.mark.parametrize("spec", [GOMOKU, GameSpec(7, 6, 4), GameSpec(7, 6, 4, True), GameSpec(5, 5, 3)], ids=str)
def test_the_winning_cells_after_a_stone_are_the_whole_boards(spec):
    """The threat-space search reads the winning cells a stone makes off the lines
    through it (``stones.winning_cells_after``): the same count, and the same cells in
    the same order, as the whole board's, for each side and each cell it may play in
    positions where that side has no winning cell before; with gravity (where a stone
    makes the cell above it playable) too."""
    import numpy as np
    from parallel_mnk.engines import limited as LM
    from parallel_mnk.kernels.grid import stones as G

    rng = random.Random(3)
    positions = ([clustered(rng, rng.randint(6, 40)) for _ in range(10)] if spec == GOMOKU
                 else random_positions(spec, 30, (2, spec.cells - 4), seed=4, exact=False))
    whole, after = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    made = [0, 0, 0]
    for pos in positions:
        if pos.is_game_over():
            continue
        st = LM.state_of(pos)
        geo = LM.build_grid_geometry(spec)
        for player in (1, 2):
            if G.winning_cells(geo, st, player, whole) > 0:
                continue
            for cell in range(spec.cells):
                if not G.is_playable(geo, st, cell):
                    continue
                G.set_stone(geo, st, cell, player)
                n = G.winning_cells(geo, st, player, whole)
                assert callable_from_python(G.winning_cells_after)(geo, st, cell, player, after) == n, (pos.board_text(), player, cell)
                assert after[:n].tolist() == whole[:n].tolist(), (pos.board_text(), player, cell)
                made[n] += 1
                G.clear_stone(geo, st, cell)
    assert made[1] > 0 and made[2] > 0, made


@pytest.mark.parametrize("spec", [GOMOKU, GameSpec(7, 6, 4), GameSpec(5, 5, 3)], ids=str)
def test_the_moves_making_a_line_are_listed_once_in_line_order_and_the_board_kept(spec):
    """``tss.moves_making``: the empty cells of the lines holding ``stones`` stones of a
    side and none of the other's, each once, in the order of the lines and their
    cells (a reading of the board in plain Python); the state is as it was."""
    import numpy as np
    from parallel_mnk.engines import limited as LM
    from parallel_mnk.game.geometry import line_masks
    from parallel_mnk.kernels.grid import tss

    rng = random.Random(5)
    positions = ([clustered(rng, rng.randint(4, 40)) for _ in range(10)] if spec == GOMOKU
                 else random_positions(spec, 20, (2, spec.cells - 4), seed=6, exact=False))
    lines = [[c for c in range(spec.cells) if m >> c & 1] for m in line_masks(spec)]
    out = np.zeros(spec.cells, dtype=np.int64)
    listed = 0
    for pos in positions:
        st = LM.state_of(pos)
        before = st.copy()
        geo = LM.build_grid_geometry(spec)
        for player, mine, theirs in ((1, pos.x, pos.o), (2, pos.o, pos.x)):
            for stones in range(1, spec.k):
                want: list[int] = []
                for line in lines:
                    if sum(mine >> c & 1 for c in line) == stones and not any(theirs >> c & 1 for c in line):
                        want += [c for c in line if not (mine | theirs) >> c & 1 and c not in want]
                n = tss.moves_making(geo, st, player, stones, out)
                assert out[:n].tolist() == want, (pos.board_text(), player, stones)
                assert np.array_equal(st, before)
                listed += n
    assert listed > 0


@pytest.mark.parametrize("spec", [GOMOKU, GameSpec(7, 6, 4, True), GameSpec(4, 4, 1)], ids=str)
def test_a_line_stone_is_a_stone_but_for_the_evaluation_and_neighbourhoods(spec):
    """``set_line_stone`` (the threat-space search's stones) leaves the state
    ``set_stone`` leaves but for the evaluation and the neighbourhood counts, which
    keep what they held; ``clear_line_stone`` gives back the state before."""
    import numpy as np
    from parallel_mnk.engines import limited as LM
    from parallel_mnk.kernels.grid import layout as GL
    from parallel_mnk.kernels.grid import stones as G

    rng = random.Random(8)
    positions = ([clustered(rng, rng.randint(1, 30)) for _ in range(6)] if spec == GOMOKU
                 else random_positions(spec, 12, (0, spec.cells - 2), seed=9, exact=False))
    geo = LM.build_grid_geometry(spec)
    near = slice(int(geo[GL.G_S_NEAR]), int(geo[GL.G_S_NEAR]) + spec.cells)
    kept = [GL.S_EVAL] + list(range(near.start, near.stop))
    moved = 0
    for pos in positions:
        if pos.is_game_over():
            continue
        st = LM.state_of(pos)
        before = st.copy()
        for cell in rng.sample(range(spec.cells), min(8, spec.cells)):
            if not G.is_playable(geo, st, cell):
                continue
            player = rng.choice((1, 2))
            full = st.copy()
            won = G.set_stone(geo, full, cell, player)
            assert callable_from_python(G.set_line_stone)(geo, st, cell, player) == won
            want = full.copy()
            want[kept] = before[kept]
            assert np.array_equal(st, want), (pos.board_text(), cell, player)
            moved += int(not np.array_equal(full[kept], before[kept]))
            callable_from_python(G.clear_line_stone)(geo, st, cell)
            assert np.array_equal(st, before)
    assert moved > 0


@pytest.mark.parametrize("spec", [GOMOKU, GameSpec(7, 6, 4, True), GameSpec(9, 9, 4), GameSpec(4, 4, 1),
                                  GameSpec(4, 3, 2), GameSpec(5, 5, 3, True)], ids=str)
def test_the_line_sets_of_a_state_are_those_of_its_line_counts(spec):
    """A state's four line sets (the lines of ``k - 1`` and of ``k - 2`` stones of each
    side and none of the other's, which ``winning_cells`` and ``moves_making`` read)
    hold what its line counts say: on the empty board, on random positions, after each
    stone put on and taken off (``set_stone``, ``set_line_stone``, their undoing)."""
    import numpy as np
    from parallel_mnk.engines import limited as LM
    from parallel_mnk.kernels.grid import layout as GL
    from parallel_mnk.kernels.grid import stones as G

    geo = LM.build_grid_geometry(spec)
    k, nlines, words = spec.k, int(geo[GL.G_NLINES]), int(geo[GL.G_SET_WORDS])

    def check(st, where):
        counts = st[int(geo[GL.G_S_CNT]):int(geo[GL.G_S_CNT]) + 2 * nlines].reshape(nlines, 2)
        for first, stones in ((GL.SET_FOURS, k - 1), (GL.SET_THREES, k - 2)):
            for player in (1, 2):
                at = int(geo[GL.G_S_SETS]) + (first + player - 1) * words
                bits = int.from_bytes(st[at:at + words].astype("<i8").tobytes(), "little")
                want = sum(1 << line for line in range(nlines)
                           if counts[line, player - 1] == stones and counts[line, 2 - player] == 0)
                assert bits == want, (where, stones, player)

    rng = random.Random(12)
    check(LM.new_state(spec, [], [], 1), "empty")
    positions = ([clustered(rng, rng.randint(1, 40)) for _ in range(6)] if spec == GOMOKU
                 else random_positions(spec, 12, (0, spec.cells - 1), seed=13, exact=False, keep_over=True))
    for pos in positions:
        st = LM.state_of(pos)
        check(st, pos.board_text())
        for cell in rng.sample(range(spec.cells), min(6, spec.cells)):
            if not G.is_playable(geo, st, cell):
                continue
            lean = rng.random() < 0.5
            (callable_from_python(G.set_line_stone) if lean else G.set_stone)(geo, st, cell, rng.choice((1, 2)))
            check(st, (pos.board_text(), cell))
            (callable_from_python(G.clear_line_stone) if lean else G.clear_stone)(geo, st, cell)
            check(st, (pos.board_text(), -cell))
