"""Per-board builds of the gravity search (parallel_mnk/boards.py): the generated
constants are the board's context, the build answers as the generic search and
naive.py do, it refuses another board, and the policy and the generation behave
(names, environment, concurrent and stale builds)."""
from __future__ import annotations

import importlib
import random

import numpy as np
import pytest
from checks import random_positions
from naive import naive_solver

from parallel_mnk import GameSpec
from parallel_mnk.runtime import boards, families
from parallel_mnk.frontends.cli import main
from parallel_mnk.game.geometry import build_context
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.engines.exact.search import Search

C4 = GameSpec(7, 6, 4, True)


def test_the_policy_picks_big_gravity_boards(monkeypatch):
    monkeypatch.delenv(boards.ENV, raising=False)
    assert boards.wanted(C4) and boards.wanted(GameSpec(6, 6, 4, True))
    assert not boards.wanted(GameSpec(5, 4, 4, True)) and not boards.wanted(GameSpec(7, 6, 4))
    assert not boards.wanted(GameSpec(7, 6, 3, True)) and not boards.wanted(GameSpec(8, 8, 1, True))   # (won at once)
    assert boards.wanted(GameSpec(7, 6, 5, True))
    monkeypatch.setenv(boards.ENV, "all")
    assert boards.wanted(GameSpec(4, 4, 3, True)) and not boards.wanted(GameSpec(4, 4, 3))
    monkeypatch.setenv(boards.ENV, "off")
    assert not boards.wanted(C4) and families.exact_family(C4) == "gravity"
    monkeypatch.setenv(boards.ENV, "fast")
    with pytest.raises(ValueError, match="PARALLEL_MNK_BOARD_KERNELS='fast' is not a policy"):
        boards.wanted(C4)


def test_a_bad_policy_is_a_one_line_error(monkeypatch, capsys):
    monkeypatch.setenv(boards.ENV, "fast")
    assert main(["solve", "--game", "connect4", "--moves", "4453"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a policy" in err


def test_family_names_round_trip():
    assert boards.family_name(C4) == "gravity@7x6k4" and boards.spec_of("gravity@7x6k4") == C4
    for bad in ("gravity@7x6", "free@7x6k4", "gravity@7x6k4x", "gravity@07x6k4", "gravity@axbkc", "gravity@9x9k4"):
        with pytest.raises(ValueError, match="unknown kernel family"):
            boards.spec_of(bad)
        assert not families.is_family(bad)
    assert families.is_family("gravity@8x7k5") and families.is_family("expand")


@pytest.mark.parametrize("spec", [C4, GameSpec(6, 6, 4, True), GameSpec(8, 8, 5, True), GameSpec(4, 16, 4, True)],
                         ids=lambda s: boards.board_tag(s))
def test_generated_values_are_the_boards_context(spec, tmp_path):
    """Each constant of a build is the slot the generic build reads for that board."""
    name = boards.ensure(spec, tmp_path)
    values = importlib.import_module(f"{name}.core.board_values")
    ctx = build_context(spec)
    assert values.BOARD == (spec.cols, spec.rows, spec.k, True)
    for attr, slot in (("COLS", L.C_COLS), ("ROWS", L.C_ROWS), ("K", L.C_K), ("CELLS", L.C_CELLS),
                       ("NSYM", L.C_NSYM), ("BOARD_MASK", L.C_BOARD), ("BOTTOM", L.C_BOTTOM), ("EVEN", L.C_EVEN)):
        assert int(getattr(values, attr)) == int(ctx[slot]), attr
    assert values.COLS.dtype == np.uint64 and values.K.dtype == np.int64
    n_pre, n_shift = L.N_DIR * 2 * (L.MAX_CELLS + 1), L.N_DIR * (L.MAX_CELLS + 1)
    assert np.array_equal(values.PRE, ctx[L.OFF_PRE:L.OFF_PRE + n_pre])
    assert np.array_equal(values.SHIFT, ctx[L.OFF_SHIFT:L.OFF_SHIFT + n_shift])
    assert np.array_equal(values.STATIC, ctx[L.OFF_STATIC:L.OFF_STATIC + L.MAX_CELLS])
    board_py = (tmp_path / name / "core" / "board.py").read_text()
    assert "from .board_values import" in board_py   # the constant accessors, not the generic ones


def test_builds_are_made_once_and_replace_older_sources(tmp_path):
    stale = tmp_path / "pmnk_gravity_7x6k4_000000000000"
    stale.mkdir()
    (stale / "__init__.py").write_text("")
    other_board = tmp_path / "pmnk_gravity_6x6k4_000000000000"
    other_board.mkdir()
    name = boards.ensure(C4, tmp_path)
    assert boards.ensure(C4, tmp_path) == name
    assert not stale.exists() and other_board.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, other_board.name])   # no staging left


def test_connect_four_build_agrees_with_naive_and_the_generic_search(monkeypatch):
    """Late Connect Four positions: the board's build (exact, weak and random windows
    labelled as strongly as they may be) against naive.py and the generic build."""
    monkeypatch.delenv(boards.ENV, raising=False)
    naive = naive_solver(C4)
    built = Search(C4, np.zeros(1 << 12, dtype=np.uint64))
    assert built.kernels.BOARD == (7, 6, 4, True)
    monkeypatch.setenv(boards.ENV, "off")
    generic = Search(C4, np.zeros(1 << 12, dtype=np.uint64))
    assert generic.kernels.BOARD is None
    for search in (built, generic):
        search.ctx[L.C_ETC_MIN_EMPTY] = 4
    rng = random.Random(7)
    for pos in random_positions(C4, 25, (C4.cells - 12, C4.cells - 1), seed=11, quiet=True,
                                min_stones=C4.cells - 12, tries=40, exact=False):
        own, opp = pos.stones()
        expected = naive.score(pos.x, pos.o)
        for search in (built, generic):
            assert search.score(own, opp, pos.ply, False) == expected, pos.move_stack
            assert search.score(own, opp, pos.ply, True) == (expected > 0) - (expected < 0), pos.move_stack
        alpha = rng.randint(-C4.cells // 2 - 1, C4.cells // 2)
        beta = rng.randint(alpha + 1, C4.cells // 2 + 1)
        v = built.window(own, opp, pos.ply, alpha, beta)
        kind = int(built.ctx[L.C_RESULT_KIND])
        assert kind == L.TT_EXACT or not alpha < v < beta
        assert (kind == L.TT_EXACT and v == expected) or (kind == L.TT_LOWER and beta <= v <= expected) \
            or (kind == L.TT_UPPER and expected <= v <= alpha), (pos.move_stack, alpha, beta, v, kind)


def test_connect_four_build_searches_middle_games_as_the_generic_one(monkeypatch):
    """Positions of 14-20 stones, which naive.py cannot reach: both builds give the same
    scores with the same node counts (the same search, only the geometry's reads differ)."""
    monkeypatch.delenv(boards.ENV, raising=False)
    tt = np.zeros(1 << 16, dtype=np.uint64)
    found = random_positions(C4, 6, (14, 20), seed=23, quiet=True, min_stones=14, exact=False)
    assert len(found) >= 4
    built = [Search(C4, tt, salt=np.uint64(5 + i)) for i in range(len(found))]
    monkeypatch.setenv(boards.ENV, "off")
    generic = [Search(C4, tt, salt=np.uint64(105 + i)) for i in range(len(found))]
    for pos, a, b in zip(found, built, generic):
        own, opp = pos.stones()
        tt[:] = 0
        sa = a.score(own, opp, pos.ply, False)
        tt[:] = 0
        sb = b.score(own, opp, pos.ply, False)
        assert (sa, a.nodes) == (sb, b.nodes), pos.move_stack
    assert sum(a.nodes for a in built) > 100_000   # real searches, not positions settled at once


def test_a_build_refuses_another_board(monkeypatch):
    monkeypatch.setattr(families, "exact_family", lambda spec: "gravity@7x6k4")
    with pytest.raises(RuntimeError, match="kernels built for"):
        Search(GameSpec(6, 6, 4, True), np.zeros(1 << 10, dtype=np.uint64))


def test_an_unwritable_builds_folder_leaves_the_generic_build(monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.delenv(boards.ENV, raising=False)
    monkeypatch.setattr(boards, "builds_root", lambda: blocker / "boards")
    monkeypatch.setattr(boards, "_available", {})
    spec = GameSpec(8, 7, 4, True)
    assert boards.wanted(spec) and not boards.available(spec)
    assert families.exact_family(spec) == "gravity"


def test_two_checkouts_keep_their_builds_apart(monkeypatch, tmp_path):
    """Builds of other kernel sources are removed only in the checkout's own folder:
    two checkouts (a worktree beside the main one) do not delete each other's builds,
    and their compiled code with them, while the other runs."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    here = boards.builds_root()
    monkeypatch.setattr(boards, "KERNELS_DIR", tmp_path / "elsewhere" / "parallel_mnk" / "kernels")
    there = boards.builds_root()
    assert here != there and here.parent == there.parent == tmp_path / "parallel_mnk-boards"
    older = there / f"pmnk_gravity_{boards.board_tag(GameSpec(7, 6, 4, True))}_000000000000"
    (older / "gravity").mkdir(parents=True)
    boards._remove_older(here, GameSpec(7, 6, 4, True), "pmnk_gravity_7x6k4_111111111111")
    assert older.is_dir()
