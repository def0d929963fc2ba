"""Positions of big boards for the benchmarks and tests of exact answers past 64
cells (bench/README.md, "Big boards").

* :func:`fours_positions`: k=5 free-placement positions (9x9 to 19x19) where the
  side to move wins by continuous fours, drawn by random play around the centre
  and kept when the shortest such win takes ``fours`` fours (found by the array
  board's VCF search, :func:`parallel_mnk.kernels.grid.tss.vct` with no threes);
  that they are wins is then the certificate checker's word, not this module's.
* :func:`threes_positions`: the same with no win by fours, but one by fours and
  one or two threes (threat-space search).
* :func:`endgames`: random positions with a given number of empty cells (gravity
  boards: 9x8, 8x9, 10x7), the game not over; :func:`mixed_endgames`, those of
  each value a test wants.
"""
from __future__ import annotations

import itertools
import random
from typing import Callable, Iterator, Optional

import numpy as np

from parallel_mnk import GameSpec, Move, Position
from parallel_mnk.engines.exact.big import BigSearch
from parallel_mnk.kernels.grid import layout as GL
from parallel_mnk.kernels.grid.tss import scratch_size

NODE_CAP = 200_000   # nodes of each threat search that picks a position


def _clustered_game(spec: GameSpec, stones: int, rng: random.Random) -> Optional[Position]:
    """A game of ``stones`` moves, each on a cell drawn around the centre (a normal
    spread of a sixth of the side); None when it ended on the way."""
    pos = Position(spec)
    spread = max(1.5, spec.cols / 6.5)
    for _ in range(stones):
        taken = pos.x | pos.o
        for _ in range(200):
            r = min(spec.rows - 1, max(0, spec.rows // 2 + round(rng.gauss(0, spread))))
            c = min(spec.cols - 1, max(0, spec.cols // 2 + round(rng.gauss(0, spread))))
            cell = r * spec.cols + c
            if not taken >> cell & 1:
                break
        else:
            return None
        pos.push(Move(spec, cell))
        if pos.is_game_over():
            return None
    return pos


def _threat_win(search: BigSearch, pos: Position, threes: int, fours: int) -> bool:
    """Whether the side to move of ``pos`` wins with at most ``threes`` threes and
    ``fours`` fours a continuous-four search (within :data:`NODE_CAP` nodes)."""
    st = search.state(pos.x, pos.o)
    st[GL.S_NODE_LIMIT] = NODE_CAP
    scratch = np.zeros(scratch_size(search.spec.cells), dtype=np.int64)
    fail = np.zeros(1 << 14, dtype=np.int64)
    plies = search.board.vct(search.geo, st, search.ctl, np.int64(st[GL.S_TURN]), np.int64(threes),
                             np.int64(fours), scratch, fail, np.int64(0))
    return plies > 0 and not st[GL.S_ABORTED]


def _in_one(search: BigSearch, pos: Position) -> bool:
    """Whether either side has a line to complete at once."""
    st = search.state(pos.x, pos.o)
    pair = np.zeros(2, dtype=np.int64)
    return any(search.board.winning_cells(search.geo, st, p, pair) > 0 for p in (1, 2))


def fours_positions(size: int, count: int, seed: int, stones: tuple[int, int] = (12, 34),
                    fours: tuple[int, int] = (3, 14)) -> list[tuple[Position, int]]:
    """``count`` positions of ``size`` x ``size`` k=5 and the fours of their side to
    move's shortest win by continuous fours, between ``fours[0]`` and ``fours[1]``
    (neither side with a win in one), ``stones`` stones placed; reproducible by ``seed``."""
    spec = GameSpec(size, size, 5)
    search = BigSearch(spec, 12)
    rng = random.Random(seed)
    out: list[tuple[Position, int]] = []
    while len(out) < count:
        pos = _clustered_game(spec, rng.randint(*stones), rng)
        if pos is None or _in_one(search, pos) or not _threat_win(search, pos, 0, fours[1]):
            continue
        shortest = next(m for m in range(1, fours[1] + 1) if _threat_win(search, pos, 0, m))
        if shortest >= fours[0]:
            out.append((pos, shortest))
    return out


def threes_positions(size: int, count: int, seed: int, stones: tuple[int, int] = (12, 34),
                     threes: int = 2) -> list[tuple[Position, int]]:
    """``count`` positions of ``size`` x ``size`` k=5 where the side to move has no
    win by continuous fours but one with at most ``threes`` threes, and how many it
    needs; reproducible by ``seed``."""
    spec = GameSpec(size, size, 5)
    search = BigSearch(spec, 12)
    rng = random.Random(seed)
    out: list[tuple[Position, int]] = []
    while len(out) < count:
        pos = _clustered_game(spec, rng.randint(*stones), rng)
        if pos is None or _in_one(search, pos) or _threat_win(search, pos, 0, 40):
            continue
        need = next((t for t in range(1, threes + 1) if _threat_win(search, pos, t, 40)), 0)
        if need:
            out.append((pos, need))
    return out


def _endgame_stream(spec: GameSpec, seed: int, empty: tuple[int, int]) -> Iterator[Position]:
    """:func:`endgames`' positions, one after another, without end."""
    search = BigSearch(spec, 10)
    rng = random.Random(seed)
    seen: set[tuple[int, int]] = set()
    while True:
        left = rng.randint(*empty)
        pos = Position(spec)
        while pos.ply < spec.cells - left and not pos.is_game_over():
            moves = list(pos.legal_moves)
            rng.shuffle(moves)
            for m in moves:   # a move that does not end the game, if there is one
                pos.push(m)
                if not pos.is_game_over():
                    break
                pos.pop()
            else:
                break
        if pos.ply == spec.cells - left and not pos.is_game_over() and (pos.x, pos.o) not in seen \
                and not _in_one(search, pos):
            seen.add((pos.x, pos.o))
            yield pos


def endgames(spec: GameSpec, count: int, seed: int, empty: tuple[int, int] = (9, 13)) -> list[Position]:
    """``count`` distinct positions of ``spec`` by random play with ``empty`` empty
    cells left (drawn in that range), the game not over and neither side with a line
    to complete at once (so that the value takes a search); reproducible by ``seed``."""
    return list(itertools.islice(_endgame_stream(spec, seed, empty), count))


def mixed_endgames(spec: GameSpec, seed: int, empty: tuple[int, int], want: dict[int, int],
                   score: Callable[[Position], int]) -> list[tuple[Position, int]]:
    """:func:`endgames`' positions of ``seed`` kept while their value is wanted:
    ``want[v]`` positions of each value ``v`` (1 win, 0 draw, -1 loss for the side to
    move, by ``score``: a reference's exact score), with that score, in the order drawn."""
    left = dict(want)
    out: list[tuple[Position, int]] = []
    for pos in _endgame_stream(spec, seed, empty):
        s = score(pos)
        v = (s > 0) - (s < 0)
        if left.get(v, 0) > 0:
            left[v] -= 1
            out.append((pos, s))
            if not any(left.values()):
                return out
    raise AssertionError("unreachable: the stream has no end")
