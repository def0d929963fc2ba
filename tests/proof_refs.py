"""Slow, obviously correct references for the proof machinery's tests (plain
Python, independent of the kernels, as naive.py is for the solver):

* :func:`pairing_exists`: whether any pairing certificate exists, by trying every
  set of disjoint pairs of empty cells;
* :func:`pairing_survives_play`: plays the pairing strategy out against every
  attacker move and every free defender move, and reports an attacker win;
* :func:`parse_pair_diagram`: the letter diagrams of the research note.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

from naive import all_lines
from parallel_mnk import GameSpec


def live_lines(spec: GameSpec, defender: int) -> list[int]:
    """Lines (bit masks) holding no stone of ``defender``."""
    return [m for m in all_lines(spec.cols, spec.rows, spec.k) if not m & defender]


def pairing_exists(spec: GameSpec, attacker: int, defender: int) -> bool:
    """Whether some set of disjoint pairs of empty cells puts a pair inside every
    line live for the attacker (exhaustive over all partial matchings of the
    empty cells; for at most about 12 empty cells)."""
    full = (1 << spec.cells) - 1
    empty = [c for c in range(spec.cells) if (full & ~(attacker | defender)) >> c & 1]
    lines = live_lines(spec, defender)
    every_line = (1 << len(lines)) - 1

    inside = {}   # a pair of empty cells: the lines (bit i: lines[i]) that hold both its cells
    for n, a in enumerate(empty):
        for b in empty[n + 1:]:
            pair = 1 << a | 1 << b
            inside[pair] = sum(1 << i for i, line in enumerate(lines) if pair & line == pair)

    def extend(i: int, used: int, covered: int) -> bool:   # covered: the lines holding a pair so far
        while i < len(empty) and used >> empty[i] & 1:
            i += 1
        if i == len(empty):
            return covered == every_line
        a = empty[i]
        if extend(i + 1, used | 1 << a, covered):  # a stays unpaired
            return True
        for b in empty[i + 1:]:
            if not used >> b & 1:
                if extend(i + 1, used | 1 << a | 1 << b, covered | inside[1 << a | 1 << b]):
                    return True
        return False

    return extend(0, 0, 0)


def pairing_survives_play(spec: GameSpec, attacker: int, defender: int, pairs: list[tuple[int, int]],
                          attacker_to_move: bool) -> Optional[tuple[int, int]]:
    """Play the pairing strategy out: the attacker tries every move; the defender
    answers a move on a paired cell with its partner (if empty), and otherwise
    tries every cell. Returns None when the attacker never completes a line,
    else the position ``(attacker, defender)`` where it did."""
    lines = all_lines(spec.cols, spec.rows, spec.k)
    full = (1 << spec.cells) - 1
    partner = {}   # a paired cell's bit: its partner's
    for a, b in pairs:
        partner[1 << a], partner[1 << b] = 1 << b, 1 << a

    # Every stone put below is checked at once, so a line the stone on a cell completes
    # is a line through that cell: only those are looked at (2-4 of 5x5's 12 lines),
    # unless a line was whole from the start (then all of them, every time).
    whole_at_start = any(stones & m == m for m in lines for stones in (attacker, defender))
    through = {1 << c: [m for m in lines if whole_at_start or m >> c & 1] for c in range(spec.cells)}

    @lru_cache(maxsize=None)
    def attacker_turn(att: int, dfn: int) -> Optional[tuple[int, int]]:
        empty = full & ~(att | dfn)
        while empty:   # each empty cell, lowest first
            bit = empty & -empty
            empty ^= bit
            a2 = att | bit
            for m in through[bit]:   # (any() over a generator, written out: most of this function's time)
                if a2 & m == m:
                    return a2, dfn
            if a2 | dfn == full:
                continue
            p = partner.get(bit)
            if p is not None and not (a2 | dfn) & p:
                bad = defender_reply(a2, dfn | p, p)
            else:
                bad = defender_turn(a2, dfn)
            if bad is not None:
                return bad
        return None

    def defender_reply(att: int, dfn: int, bit: int) -> Optional[tuple[int, int]]:
        """After the defender's stone on the cell ``bit``."""
        for m in through[bit]:
            if dfn & m == m:
                return None
        if att | dfn == full:
            return None
        return attacker_turn(att, dfn)

    @lru_cache(maxsize=None)
    def defender_turn(att: int, dfn: int) -> Optional[tuple[int, int]]:
        empty = full & ~(att | dfn)
        while empty:
            bit = empty & -empty
            empty ^= bit
            bad = defender_reply(att, dfn | bit, bit)
            if bad is not None:
                return bad
        return None

    return attacker_turn(attacker, defender) if attacker_to_move else defender_turn(attacker, defender)


def parse_pair_diagram(spec: GameSpec, text: str) -> tuple[int, int, list[tuple[int, int]]]:
    """``(x, o, pairs)`` of a note diagram: rows top to bottom, ``X``/``O`` stones,
    ``.`` an unpaired empty cell, a letter one cell of a pair (each letter twice)."""
    rows = [r.split() for r in text.strip().splitlines()]
    assert len(rows) == spec.rows and all(len(r) == spec.cols for r in rows)
    x = o = 0
    cells: dict[str, list[int]] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            cell = r * spec.cols + c
            if ch == "X":
                x |= 1 << cell
            elif ch == "O":
                o |= 1 << cell
            elif ch != ".":
                cells.setdefault(ch, []).append(cell)
    assert all(len(v) == 2 for v in cells.values()), cells
    return x, o, [(v[0], v[1]) for v in cells.values()]
