"""parallel_mnk.runtime.ttable: table sizes and shared tables.

* ``--tt-size``: parsing, the power of two chosen, refusals (too big for the
  memory, too small, both size options), the default that follows the memory;
* the huge-page policy for shared memory, read from the kernel's setting.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from fuzzing import run_cli
from parallel_mnk import GameSpec, MnkError, Position, solve
from parallel_mnk.runtime import ttable
from parallel_mnk.api.settings import DEFAULTS
from parallel_mnk.runtime.ttable import (MAX_TT_BITS, board_tt_bits, default_tt_bits, parse_size, resolve_tt_bits,
                                 tt_bits_for_size)
from parallel_mnk import Options

ROOT = Path(__file__).resolve().parents[1]
SMALL = Position.from_moves(GameSpec(6, 5, 4, True), "34")  # a draw, about a million nodes


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "parallel_mnk.frontends.cli", *args]


# ---------------------------------------------------------------- sizes (--tt-size)
@pytest.mark.parametrize("text, size", [
    ("512M", 512 << 20), ("2G", 2 << 30), ("1.5g", 3 << 29), ("64KiB", 64 << 10), ("64kb", 64 << 10),
    ("1048576", 1 << 20), ("4096B", 4096), (" 1 T ", 1 << 40),
])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "M", "2X", "-1M", "0", "1Mi", "1e3", "two"])
def test_parse_size_refuses(text):
    with pytest.raises(MnkError, match="bad size"):
        parse_size(text)


def test_tt_size_picks_the_largest_power_of_two_that_fits():
    assert tt_bits_for_size("8M") == 20            # 2**20 entries of 8 bytes = 8 MiB
    assert tt_bits_for_size((8 << 20) - 1) == 19
    assert tt_bits_for_size("100M") == 23          # 64 MiB
    assert tt_bits_for_size(8 << 10) == 10
    with pytest.raises(MnkError, match="too small"):
        tt_bits_for_size(8 << 9)
    with pytest.raises(MnkError, match="available"):
        tt_bits_for_size(psutil.virtual_memory().total * 2)
    assert resolve_tt_bits(17, None) == 17 and resolve_tt_bits(None, "1M") == 17
    with pytest.raises(MnkError, match="not both"):
        resolve_tt_bits(17, "1M")


def test_default_table_follows_available_memory(monkeypatch):
    bits = default_tt_bits()
    assert 8 << bits <= DEFAULTS.DEFAULT_TT_CAP
    assert 8 << bits <= psutil.virtual_memory().available // 4 or bits == 10

    class Little:
        available = 64 << 20  # a small container: a quarter is 16 MiB

    monkeypatch.setattr(psutil, "virtual_memory", lambda: Little)
    assert default_tt_bits() == 21
    assert default_tt_bits(42, True) == 21   # (the board wants 2**22)
    assert MAX_TT_BITS == 34


def test_default_table_follows_the_board_and_the_workers():
    assert board_tt_bits(42, True) == 22 and board_tt_bits(36, True) == 21 and board_tt_bits(30, True) == 20
    assert board_tt_bits(16, True) == 17 and board_tt_bits(64, True) == 24
    assert board_tt_bits(42, True, workers=8) == 23 and board_tt_bits(42, True, workers=7) == 22
    assert board_tt_bits(9, False) == 16 and board_tt_bits(25, False) == 20 and board_tt_bits(54, False) == 25
    assert default_tt_bits(42, True) == min(22, default_tt_bits())   # the memory cap holds too
    assert resolve_tt_bits(None, None, 42, True, 16) == default_tt_bits(42, True, 16)


def test_cli_tt_size(tmp_path):
    # the CLI in this process (fuzzing.run_cli), except for the table larger than the machine:
    # a CLI that allocated it before refusing must not take the test's process down with it
    code, out, err = run_cli(["solve", "--game", "tictactoe", "--moves", "b2", "--tt-size", "1M", "--json"])
    assert code == 0 and json.loads(out)["value"] == "draw", err
    total = psutil.virtual_memory().total
    t = time.monotonic()
    big = subprocess.run(cli("solve", "--game", "tictactoe", "--moves", "b2", "--tt-size", str(2 * total)),
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert big.returncode == 2 and big.stdout == ""
    assert big.stderr.count("\n") == 1 and "GiB of memory is available" in big.stderr, big.stderr
    assert time.monotonic() - t < 20  # refused up front, not after an allocation
    for bad in (["--tt-size", "lots"], ["--tt-size", "1M", "--tt-bits", "20"], ["--tt-bits", "40"]):
        code, out, err = run_cli(["solve", "--game", "tictactoe", "--moves", "b2", *bad])
        assert code == 2 and err.count("\n") == 1, (bad, err)


# ---------------------------------------------------------------- shared tables
def test_shared_huge_page_policy_is_read_from_the_kernel_setting(tmp_path, monkeypatch):
    setting = tmp_path / "shmem_enabled"
    for text, chosen in [("always within_size advise [never] deny force\n", "never"),
                         ("always within_size [advise] never deny force\n", "advise"),
                         ("[always] never\n", "always")]:
        setting.write_text(text)
        monkeypatch.setattr(ttable, "SHMEM_THP", str(setting))
        assert ttable.shared_huge_pages() == chosen
    monkeypatch.setattr(ttable, "SHMEM_THP", str(tmp_path / "missing"))
    assert ttable.shared_huge_pages() is None


def test_the_table_move_read_from_python_is_what_the_search_stored():
    """ttable.stored_move decodes the kernels' entry of a position (key, symmetry,
    move): after a solve of random small positions it is the move the kernels'
    own probe puts first (the split's expansion orders the table's move first),
    and best_cell, which tries it first, returns it whenever it keeps the score
    (naive.py)."""
    import numpy as np
    from checks import random_positions
    from naive import naive_solver

    from parallel_mnk.engines.exact.search import Search

    found = kept = 0
    for spec in (GameSpec(4, 4, 3, True), GameSpec(4, 4, 4, True), GameSpec(3, 3, 3), GameSpec(4, 3, 3)):
        naive = naive_solver(spec)
        for pos in random_positions(spec, 15, (2, spec.cells - 3), seed=5, quiet=True, exact=False):
            search = Search(spec, np.zeros(1 << 12, dtype=np.uint64))
            own, opp = pos.stones()
            score = search.score(own, opp, pos.ply, False)
            hint = ttable.stored_move(search.ctx, search.tt, pos.x, pos.o)
            n, _, _, cells = search.expand(own, opp, pos.ply)
            if hint < 0:
                continue
            found += 1
            assert search.legal_mask(own, opp) >> hint & 1, (spec, pos.move_stack, hint)
            if n > 1 and hint in cells[:n]:
                assert cells[0] == hint, (spec, pos.move_stack, hint, cells[:n])
            child = pos.copy()
            child.push(child.move_of_cell(hint))
            if child.is_game_over() or -naive.score(child.x, child.o) == score:
                kept += 1
                assert search.best_cell(own, opp, pos.ply, score, False) == hint, (spec, pos.move_stack)
    assert found >= 15 and kept >= found // 2, (found, kept)
