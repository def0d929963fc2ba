"""parallel_mnk.game.geometry: the Python k-in-a-row code (``has_line``,
``winning_cells``, each by shifts and by line masks) against brute force over
naive.py's own list of lines."""
from __future__ import annotations

import random

import pytest

from naive import all_lines
from parallel_mnk import GameSpec
from parallel_mnk.game import geometry


def brute_lines(rows: int, cols: int, k: int) -> list[int]:
    return all_lines(cols, rows, k)  # naive.py's own line list (cols first)


@pytest.mark.parametrize("rows,cols,k", [(1, 1, 1), (1, 5, 3), (5, 1, 2), (3, 3, 3), (3, 4, 3), (4, 4, 4),
                                         (2, 7, 2), (5, 5, 4), (3, 3, 5), (9, 9, 5), (7, 13, 4), (10, 10, 1)])
def test_has_line_and_winning_cells_match_brute_force(rows, cols, k):
    rng = random.Random(rows * 1000 + cols * 10 + k)
    lines = brute_lines(rows, cols, k)
    n = rows * cols
    for _ in range(300):
        own = opp = 0
        for cell in range(n):
            r = rng.random()
            if r < 0.35:
                own |= 1 << cell
            elif r < 0.55:
                opp |= 1 << cell
        empty = ((1 << n) - 1) & ~(own | opp)
        expect_line = any(own & m == m for m in lines)
        expect_wins = 0
        for cell in range(n):
            if empty >> cell & 1 and any((own | 1 << cell) & m == m for m in lines if m >> cell & 1):
                expect_wins |= 1 << cell
        assert geometry.has_line(own, rows, cols, k) == expect_line
        assert geometry._has_line_by_shifts(own, rows, cols, k) == expect_line
        assert geometry.winning_cells(own, empty, rows, cols, k) == expect_wins
        assert geometry._winning_cells_by_shifts(own, empty, rows, cols, k) == expect_wins
        if n <= 64:
            assert geometry._winning_cells_by_lines(own, empty, rows, cols, k) == expect_wins


@pytest.mark.parametrize("cols,rows", [(15, 15), (9, 9), (9, 8), (4, 4), (7, 3), (1, 5)])
def test_least_images_after_each_move_are_those_of_the_children(cols, rows):
    """least_images_after: the key of each child, as least_image finds it on the child
    itself, and a map that takes the child to it, X or O to move, on square and oblong
    boards (8, 4 or 2 maps), for every empty cell and for a few of them."""
    spec = GameSpec(cols, rows, min(cols, rows, 4))
    perms = geometry.symmetries(spec)
    rng = random.Random(cols * 100 + rows)
    full = (1 << spec.cells) - 1
    for _ in range(60):
        cells = rng.sample(range(spec.cells), rng.randint(0, min(spec.cells - 1, 30)))
        x, o = sum(1 << c for c in cells[::2]), sum(1 << c for c in cells[1::2])
        x_moves = len(cells) % 2 == 0
        for asked in (full & ~(x | o), (full & ~(x | o)) & rng.getrandbits(spec.cells)):
            want, got = [], []
            for cell in range(spec.cells):
                if asked >> cell & 1:
                    child = (x | 1 << cell, o) if x_moves else (x, o | 1 << cell)
                    want.append((cell, geometry.least_image(perms, *child)[0]))
            for cell, key, perm in geometry.least_images_after(perms, x, o, asked):
                child = (x | 1 << cell, o) if x_moves else (x, o | 1 << cell)
                assert (geometry.map_stones(child[0], perm), geometry.map_stones(child[1], perm)) == key
                got.append((cell, key))
            assert got == want, (cols, rows, cells)


def test_images_remember_the_keys_least_image_gives():
    """geometry.Images: the key and map of a position, and those of the children it
    lists, are least_image's (the maps give the keys), whether remembered or computed
    again after the few it keeps are forgotten."""
    spec = GameSpec(9, 9, 4)
    perms = geometry.symmetries(spec)
    images = geometry.Images(perms, kept=50)
    rng = random.Random(5)
    for _ in range(40):
        cells = rng.sample(range(spec.cells), rng.randint(0, 12))
        x, o = sum(1 << c for c in cells[::2]), sum(1 << c for c in cells[1::2])
        x_moves = len(cells) % 2 == 0
        for position in [(x, o)] * 2:
            key, perm = images.of(*position)
            assert key == geometry.least_image(perms, *position)[0]
            assert (geometry.map_stones(position[0], perm), geometry.map_stones(position[1], perm)) == key
        free = ((1 << spec.cells) - 1) & ~(x | o) & rng.getrandbits(spec.cells)
        for cell, key in images.after(x, o, free):
            child = (x | 1 << cell, o) if x_moves else (x, o | 1 << cell)
            assert key == geometry.least_image(perms, *child)[0]
            assert child in images._met   # (remembered: its lookup maps nothing again)
            got, perm = images.of(*child)
            assert got == key and (geometry.map_stones(child[0], perm), geometry.map_stones(child[1], perm)) == key
        assert len(images._met) <= 50
