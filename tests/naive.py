"""An obviously correct reference solver for small (m,n,k)-games.

Plain memoised minimax over *all* legal moves, with no pruning of any kind and
its own win check (every k-cell line is listed and tested), written
independently of ``parallel_mnk.game.geometry`` and the kernels. A position
given is tested against every line; inside the search, a child of a position
that is not over only against the lines through its new stone (no other line
can have been completed), which tests/test_naive.py checks against the plain
definition, :func:`plain_score`.

Conventions are docs/design.md's:

* a position is two bitboards ``(x_bits, o_bits)``; bit ``row * cols + col``
  with row 0 at the **top**; X (the first player) is to move when the counts
  are equal;
* a move is a column index (0-based) with gravity, a cell index otherwise;
* the score is from the side to move: a win completed on ply ``p`` (stones on
  the board after the winning stone) is worth ``(cols*rows + 2 - p) // 2``, a
  draw is 0, a loss is minus the opponent's worth. The winner wins as fast as
  it can and the loser holds out as long as it can (plain max over children of
  this score does both);
* a position that is already over scores from the side to move too: ``0`` for
  a full board, minus the last mover's worth if the last mover has a line.

Only for small boards (up to about 16 cells, or positions with few empty cells):
the search visits every reachable position.
"""
from __future__ import annotations

from functools import lru_cache

from parallel_mnk import GameSpec


def all_lines(cols: int, rows: int, k: int) -> list[int]:
    """Bit masks of every run of k cells along a row, a column or a diagonal."""
    lines = set()
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(k)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    lines.add(sum(1 << (rr * cols + cc) for rr, cc in cells))
    return sorted(lines)


class NaiveSolver:
    """Exact minimax scores for one game; results are cached per position."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.cells = spec.cols * spec.rows
        self.full = (1 << self.cells) - 1
        self.lines = all_lines(spec.cols, spec.rows, spec.k)
        self.through = [tuple(line for line in self.lines if line >> cell & 1) for cell in range(self.cells)]
        self.score = lru_cache(maxsize=None)(self._score)
        self.open_score = lru_cache(maxsize=None)(self._open_score)
        self.empty_cells = lru_cache(maxsize=None)(self._empty_cells)   # (positions share their filled cells)

    # -------------------------------------------------------------- rules
    def has_line(self, bits: int) -> bool:
        return any(bits & line == line for line in self.lines)

    def completes(self, bits: int, cell: int) -> bool:
        """Whether ``bits`` holds a line through ``cell``."""
        return any(bits & line == line for line in self.through[cell])

    def worth(self, ply: int) -> int:
        """What a win completed on ``ply`` is worth to the winner."""
        return (self.cells + 2 - ply) // 2

    def moves(self, x: int, o: int) -> list[tuple[int, int]]:
        """``(move, cell)`` for every legal move of a position that is not over."""
        filled = x | o
        if not self.spec.gravity:
            return [(cell, cell) for cell in self.empty_cells(filled)]
        result = []
        for col in range(self.spec.cols):
            for row in reversed(range(self.spec.rows)):  # bottom row first
                cell = row * self.spec.cols + col
                if not filled >> cell & 1:
                    result.append((col, cell))
                    break
        return result

    def _empty_cells(self, filled: int) -> tuple[int, ...]:
        """The cells of :meth:`moves` in a position of ``filled`` cells that is not
        over (free placement: the empty cells, lowest first, one bit at a time)."""
        if self.spec.gravity:
            return tuple(cell for _, cell in self.moves(filled, 0))
        cells = []
        empty = self.full & ~filled
        while empty:
            low = empty & -empty
            cells.append(low.bit_length() - 1)
            empty ^= low
        return tuple(cells)

    def play(self, x: int, o: int, move: int) -> tuple[int, int]:
        """The position after ``move`` by the side to move."""
        cell = dict(self.moves(x, o))[move]
        if bin(x).count("1") == bin(o).count("1"):
            return x | 1 << cell, o
        return x, o | 1 << cell

    # -------------------------------------------------------------- search
    def _score(self, x: int, o: int) -> int:
        """docs/design.md score of ``(x, o)`` from the side to move."""
        ply = bin(x | o).count("1")
        if self.has_line(x) or self.has_line(o):
            return -self.worth(ply)  # the last mover has won
        if x | o == self.full:
            return 0
        return self.open_score(x, o)

    def _open_score(self, x: int, o: int) -> int:
        """The score of ``(x, o)``, a position that is not over (no line, an empty
        cell): a child is over when its new stone completes a line (through that
        cell: the mover's worth) or fills the board (0). (The loop of
        :meth:`completes` written out: this is where the tests' reference spends.)"""
        filled = x | o
        ply = filled.bit_count()
        x_to_move = ply % 2 == 0
        mover = x if x_to_move else o
        win = self.worth(ply + 1)
        through, full, open_score = self.through, self.full, self.open_score   # (locals: the loop runs per node)
        best = None
        for cell in self.empty_cells(filled):
            bit = 1 << cell
            mine = mover | bit
            for line in through[cell]:
                if mine & line == line:
                    value = win
                    break
            else:
                if filled | bit == full:
                    value = 0
                else:
                    value = -open_score(x | bit, o) if x_to_move else -open_score(x, o | bit)
            if best is None or value > best:
                best = value
        return best

    def child_scores(self, x: int, o: int) -> dict[int, int]:
        """Score from the side to move of each move (its own point of view)."""
        return {move: -self.score(*self.play(x, o, move)) for move, _ in self.moves(x, o)}


@lru_cache(maxsize=None)
def naive_solver(spec: GameSpec) -> NaiveSolver:
    """One shared solver (and cache) per game."""
    return NaiveSolver(spec)


def naive_score(spec: GameSpec, x: int, o: int) -> int:
    """docs/design.md score of the position ``(x, o)`` from the side to move."""
    return naive_solver(spec).score(x, o)


def plain_score(solver: NaiveSolver, x: int, o: int) -> int:
    """The score by the definition alone: every line tested at every node (slow; the
    check of :meth:`NaiveSolver.score`'s shortcut, tests/test_naive.py)."""
    @lru_cache(maxsize=None)
    def score(x: int, o: int) -> int:
        ply = bin(x | o).count("1")
        if solver.has_line(x) or solver.has_line(o):
            return -solver.worth(ply)
        if x | o == solver.full:
            return 0
        return max(-score(*solver.play(x, o, move)) for move, _ in solver.moves(x, o))
    return score(x, o)
