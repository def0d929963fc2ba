"""Draws past 64 cells settled at the root by two pairings, for the exact and the
weak search of big boards (:mod:`parallel_mnk.engines.exact.big`, which has no
pairing of its own).

When each side holds a pairing against the other (:mod:`.big_pairing`: disjoint
pairs of empty cells, both cells of one on every line the other side can still
complete), neither can win whoever moves: the position is a draw, score 0. Every
move keeps it so: a stone kills the lines through it for the other side (a pair
of its own pairing it lands on covered only such lines), and the other side's
pairing still answers it. The perfect line of the answer: each side answers a
stone on a cell of its own pairing with that pair's other cell, and otherwise
takes the empty cell nearest the centre; no line is ever completed, the board
fills, a draw.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ...api.options import SolveOptions
from ...api.results import SolveResult, WorkerStats
from ...api.settings import current
from ...game.geometry import line_masks
from ...game.moves import moves_of
from ...game.position import Position
from ...game.rules import Value
from .big_pairing import PairingFinder


def _lines(position: Position) -> np.ndarray:
    """Every line of ``k`` cells of the position's board, one row of cell ids a line."""
    rows = []
    for mask in line_masks(position.spec):
        cells = []
        while mask:
            low = mask & -mask
            cells.append(low.bit_length() - 1)
            mask ^= low
        rows.append(cells)
    return np.array(rows, dtype=np.int64)


def _centre_first(position: Position) -> list[int]:
    """The board's cells, nearest the centre first (the search's usual first choice)."""
    spec = position.spec
    return sorted(range(spec.cells), key=lambda c: (abs(c % spec.cols - (spec.cols - 1) / 2)
                                                    + abs(c // spec.cols - (spec.rows - 1) / 2), c))


def pairing_draw(position: Position, max_nodes: int, weak: bool, pv: bool) -> Optional[SolveResult]:
    """The position's answer when each side holds a pairing against the other (the
    module docstring: a draw, score 0, None when ``weak``), each pairing searched once
    with at most ``max_nodes`` pairs tried; None when either is not found (which
    proves nothing), and with gravity or a game over. The best move is the empty cell
    nearest the centre; ``pv``: the whole perfect line, else that move alone."""
    started, cpu0 = time.perf_counter(), time.process_time()
    spec = position.spec
    if spec.gravity or position.is_game_over():
        return None
    lines = _lines(position)
    board = np.zeros(spec.cells, dtype=np.int64)
    for cell in range(spec.cells):
        board[cell] = 1 if position.x >> cell & 1 else 2 if position.o >> cell & 1 else 0
    finder = PairingFinder(lines, 1, max_nodes, cols=spec.cols)   # (every search past the bound: the tiling first)
    partner: dict[int, dict[int, int]] = {}   # defender (1 x, 2 o) -> cell -> the other cell of its pair
    for defender in (1, 2):
        pairs = finder.find(board, defender)
        if pairs is None:
            return None
        partner[defender] = {a: b for a, b in pairs} | {b: a for a, b in pairs}
    order = _centre_first(position)
    cells = _perfect_line(board, position.ply % 2 + 1, partner, order, None if pv else 1)
    moves = moves_of(spec, cells)
    stats = [WorkerStats(0, 1, finder.nodes, time.process_time() - cpu0)]
    return SolveResult(spec, Value.DRAW, None if weak else 0, moves[0], moves, finder.nodes,
                       time.perf_counter() - started, stats, proof="pairing")


def draw_answer(position: Position, opts: SolveOptions) -> Optional[SolveResult]:
    """:func:`pairing_draw` for a solve with ``opts`` (weak or exact, ``pv``), each
    pairing searched with at most ``BIG_PN_PAIRING_NODES`` pairs tried; None without a
    search where ``BIG_PN_PAIRING_LINES`` is 0 (pairings off)."""
    settings = current()
    if settings.BIG_PN_PAIRING_LINES == 0:
        return None
    return pairing_draw(position, settings.BIG_PN_PAIRING_NODES, opts.weak, opts.pv)


def _perfect_line(board: np.ndarray, mover: int, partner: dict[int, dict[int, int]], order: list[int],
                  length: Optional[int]) -> list[int]:
    """The cells of the line of the module docstring from ``board`` (changed as it
    goes), ``mover`` (1 or 2) first, ``length`` moves at most (None: to the full board)."""
    line: list[int] = []
    nearest = 0
    last = -1
    while length is None or len(line) < length:
        answer = partner[mover].get(last, -1)
        if answer < 0 or board[answer] != 0:
            while nearest < len(order) and board[order[nearest]] != 0:
                nearest += 1
            if nearest == len(order):
                break
            answer = order[nearest]
        board[answer] = mover
        line.append(answer)
        last, mover = answer, 3 - mover
    return line
