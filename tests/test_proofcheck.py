"""The certificate checker (parallel_mnk/proofcheck) on its own: its board's lines
against a brute-force twin written here, and hand-made certificates whose verdict
is known without any solver (a strategy that lets the game end, a floating stone, a
root settled at once). Written for the survivors of bench/mutation.py."""
from __future__ import annotations

import json
import lzma
import random
from pathlib import Path

import pytest

from parallel_mnk.proofcheck import Failed, Verdict, check_file, draw_line
from parallel_mnk.proofcheck.checked_game import Board

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def brute_lines_through(cols: int, rows: int, k: int, bits: int, cell: int) -> bool:
    """Whether ``bits`` (bit ``row * cols + col``, row 0 at the top) hold k in a row
    that covers ``cell``: every run of k cells in every direction, tried."""
    r0, c0 = divmod(cell, cols)
    for dr, dc in DIRECTIONS:
        for shift in range(k):   # cell is the shift-th of the run
            cells = [(r0 + (i - shift) * dr, c0 + (i - shift) * dc) for i in range(k)]
            if all(0 <= r < rows and 0 <= c < cols and bits >> (r * cols + c) & 1 for r, c in cells):
                return True
    return False


@pytest.mark.parametrize("cols, rows, k", [(3, 3, 3), (4, 3, 3), (3, 5, 3), (5, 4, 4), (7, 6, 4), (6, 2, 2)])
def test_lines_match_a_brute_force_twin(cols, rows, k):
    board = Board(cols, rows, k, False)
    rng = random.Random(cols * 100 + rows * 10 + k)
    for _ in range(400):
        bits = sum(1 << c for c in range(board.cells) if rng.random() < 0.55)
        any_line = any(brute_lines_through(cols, rows, k, bits, c) for c in range(board.cells))
        assert board.has_line(bits) == any_line, (bits, cols, rows, k)
        for cell in range(board.cells):
            assert board.line_through(bits, cell) == brute_lines_through(cols, rows, k, bits, cell), (bits, cell)


def write(path: Path, head: dict, records: list[dict]) -> Path:
    with lzma.open(path, "wt") as f:
        for obj in [{"format": "mnk-proof/1", **head}, *records]:
            f.write(json.dumps(obj) + "\n")
    return path


def first_empty_strategy(board: Board, root: str, claimant: str) -> list[dict]:
    """Move records for ``claimant`` at every position reachable from ``root`` while the
    game goes on: the first empty cell of the canonical form, whatever the opponent does."""
    records: dict[str, dict] = {}
    stack = [root]
    while stack:
        flat = stack.pop()
        x, o = board.bits(flat, "x"), board.bits(flat, "o")
        if board.has_line(x) or board.has_line(o) or "." not in flat:
            continue
        mover = board.to_move(flat)
        if mover == claimant:
            canon, perm = board.canonical(flat)
            if canon in records:
                continue
            cell = canon.index(".")
            records[canon] = {"p": board.text(canon), "m": board.name(cell)}
            moves = [perm.index(cell)]
        else:
            moves = board.legal(flat)
        stack.extend(flat[:m] + mover + flat[m + 1:] for m in moves)
    return list(records.values())


def test_a_strategy_that_lets_the_game_end_against_the_claim_fails(tmp_path):
    """'x wins' on 3x3 k=3 (a draw) with a complete strategy for x: some line of play
    ends in a full board or an o line, and the checker must say so."""
    board = Board(3, 3, 3, False)
    root = "." * 9
    head = {"cols": 3, "rows": 3, "k": 3, "gravity": False, "root": board.text(root), "attacker": "x",
            "claim": "wins"}
    path = write(tmp_path / "x-wins.jsonl.xz", head, first_empty_strategy(board, root, "x"))
    with pytest.raises(Failed, match="the game ended against the claim"):
        check_file(path)


def test_an_o_line_made_by_the_last_stone_ends_the_game(tmp_path):
    """'x wins' from a position where o, to move, completes column c with the last empty
    cell (the walk's first child): the walk stops there, at o's line just made, rather
    than ask x for a move."""
    board = Board(3, 3, 3, False)
    root = "x.o/.xo/.x."   # x: a3 b2 b1, o: c3 c2; o to move
    head = {"cols": 3, "rows": 3, "k": 3, "gravity": False, "root": root, "attacker": "x", "claim": "wins"}
    path = write(tmp_path / "o-line.jsonl.xz", head, first_empty_strategy(board, board.parse(root), "x"))
    with pytest.raises(Failed, match="x.o/.xo/.xo: the game ended against the claim"):
        check_file(path)


def test_a_floating_stone_is_named_where_it_floats(tmp_path):
    head = {"cols": 4, "rows": 4, "k": 3, "gravity": True, "root": "..../.x../..../o...", "attacker": "x",
            "claim": "wins"}
    with pytest.raises(Failed, match="a stone floats at b3"):
        check_file(write(tmp_path / "floats.jsonl.xz", head, []))
    assert Board(4, 4, 3, True).parse("..../..../.x../ox..") == "." * 9 + "x" + "." * 2 + "ox" + "." * 2


def test_a_root_the_claimant_wins_at_once_is_one_position(tmp_path):
    head = {"cols": 3, "rows": 3, "k": 3, "gravity": False, "root": ".../oo./xx.", "attacker": "x",
            "claim": "wins"}
    verdict = check_file(write(tmp_path / "at-once.jsonl.xz", head, []))
    assert (verdict.positions, verdict.used, verdict.unused) == (1, 0, 0)


def verdict(root: str, attacker: str, claim: str, gravity: bool = False) -> Verdict:
    return Verdict(3, 3, 3, gravity, root, attacker, claim, 1, 0, 0)


def test_a_draw_line_needs_both_claims_of_one_root():
    a, b, empty = ".../.../x..", ".../.x./...", ".../.../..."
    assert draw_line([verdict(a, "x", "cannot-win"), verdict(a, "o", "cannot-win")]) == \
        f"verified: draw from {a} (x cannot-win and o cannot-win)"
    assert draw_line([verdict(a, "x", "cannot-win"), verdict(b, "o", "cannot-win")]) is None   # two roots
    assert draw_line([verdict(b, "o", "cannot-win"), verdict(a, "x", "cannot-win")]) is None
    assert draw_line([verdict(empty, "o", "cannot-win")]) is None   # o's claim alone: no draw
    assert draw_line([verdict(empty, "x", "wins"), verdict(empty, "o", "cannot-win")]) is None
    assert draw_line([verdict(empty, "x", "cannot-win")]) == \
        f"verified: draw from {empty} (x cannot-win; o cannot-win by strategy stealing)"
    assert draw_line([verdict(empty, "x", "cannot-win", gravity=True)]) is None   # (no stealing with gravity)


def test_a_pairing_with_a_bad_cell_fails_at_its_position(tmp_path):
    head = {"cols": 3, "rows": 3, "k": 3, "gravity": False, "root": ".../.../...", "attacker": "x",
            "claim": "cannot-win"}
    path = write(tmp_path / "pairs.jsonl.xz", head, [{"p": ".../.../...", "pairs": [["a1", "z9"]]}])
    with pytest.raises(Failed, match=r"\.\.\./\.\.\./\.\.\.: bad cell 'z9'"):
        check_file(path)


def test_a_board_past_the_checker_is_refused_by_cells_too(tmp_path):
    head = {"cols": 26, "rows": 27, "k": 5, "gravity": False, "root": "/".join(["." * 26] * 27), "attacker": "x",
            "claim": "wins"}
    with pytest.raises(Failed, match="at most 26 columns .* and 676 cells"):
        check_file(write(tmp_path / "big.jsonl.xz", head, []))


def test_a_pairs_record_is_refused_in_a_win_claim(tmp_path):
    head = {"cols": 3, "rows": 3, "k": 3, "gravity": False, "root": ".../.../...", "attacker": "x", "claim": "wins"}
    path = write(tmp_path / "pairs-win.jsonl.xz", head, [{"p": ".../.../...", "pairs": [["a1", "b2"]]}])
    with pytest.raises(Failed, match="a pairs record is only for cannot-win"):
        check_file(path)


def test_a_pairs_record_is_refused_with_gravity(tmp_path):
    head = {"cols": 3, "rows": 3, "k": 3, "gravity": True, "root": ".../.../...", "attacker": "x",
            "claim": "cannot-win"}
    path = write(tmp_path / "pairs-gravity.jsonl.xz", head, [{"p": ".../.../...", "pairs": [["a1", "b1"]]}])
    with pytest.raises(Failed, match="a pairs record is only for cannot-win, without gravity"):
        check_file(path)
