"""The game of a certificate's header, as the checker reads it: lines, symmetries,
cell names, the rules, the canonical form and the pairing condition of
``docs/proof-format.md``, and the cells mnk-proof/2 reads (dead cells, the rings
of a line, the defender's completions). Standard library only.

Cells are ``row * cols + col`` with row 0 at the top, as the board text reads;
names are the page's (``a1`` bottom-left). A position is its *flat* text (the
board text without ``/``: images compare as their texts do, since ``/`` stands
at the same places in all of them) and, where lines are tested, one bitboard a
side (bit ``cell``)::

    cols=3, rows=2      text "abc/def"      cells  0 1 2   names  a2 b2 c2
                                                   3 4 5          a1 b1 c1
"""
from __future__ import annotations

from operator import itemgetter
from typing import Optional

DIGITS = str.maketrans(".ox", "012")

class Board:
    """The game of a header: its lines, symmetries, cell names and rules."""

    def __init__(self, cols: int, rows: int, k: int, gravity: bool) -> None:
        self.cols, self.rows, self.k, self.gravity = cols, rows, k, gravity
        self.cells = cols * rows
        self.full = (1 << self.cells) - 1
        self.lines = self._lines()
        self.masks = [sum(1 << c for c in line) for line in self.lines]
        self.rings = [self._rings(line) for line in self.lines]
        self.through = [[m for m in self.masks if m >> c & 1] for c in range(self.cells)]
        self.perms = self._symmetries()
        self.inverses = [[perm.index(i) for i in range(self.cells)] for perm in self.perms]
        self.images = [itemgetter(*inv) for inv in self.inverses]   # flat -> the image's characters

    def _lines(self) -> list[tuple[int, ...]]:
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(self.k)]
                    if all(0 <= rr < self.rows and 0 <= cc < self.cols for rr, cc in cells):
                        out.append(tuple(rr * self.cols + cc for rr, cc in cells))
        return out

    def _rings(self, line: tuple[int, ...]) -> list[int]:
        """The masks of the line's rings, nearest its middle first (cell ``i`` of the
        line lies at distance ``|2i - (k - 1)|``)."""
        rings: dict[int, int] = {}
        for i, cell in enumerate(line):
            d = abs(2 * i - (self.k - 1))
            rings[d] = rings.get(d, 0) | 1 << cell
        return [rings[d] for d in sorted(rings)]

    def _symmetries(self) -> list[list[int]]:
        R, C = self.rows, self.cols
        maps = [lambda r, c: (r, c), lambda r, c: (r, C - 1 - c)]
        if not self.gravity:
            maps += [lambda r, c: (R - 1 - r, c), lambda r, c: (R - 1 - r, C - 1 - c)]
            if R == C:
                maps += [lambda r, c: (c, r), lambda r, c: (c, R - 1 - r), lambda r, c: (C - 1 - c, r),
                         lambda r, c: (C - 1 - c, R - 1 - r)]   # (the page's order: its first is used)
        perms = []
        for f in maps:
            perm = [f(*divmod(cell, C)) for cell in range(self.cells)]
            perms.append([r * C + c for r, c in perm])
        return perms

    # ------------------------------------------------------------ text
    def parse(self, text: object) -> str:
        """Board text checked for shape, characters and legality; returned as a
        string of ``cells`` characters (row 0 first). Raises ValueError."""
        if not isinstance(text, str):
            raise ValueError("a board is not a string")
        rows = text.split("/")
        if len(rows) != self.rows or any(len(r) != self.cols for r in rows) or set(text) - set("xo./"):
            raise ValueError(f"not a {self.cols}x{self.rows} board text: {text!r}")
        flat = "".join(rows)
        x, o = flat.count("x"), flat.count("o")
        if not (x == o or x == o + 1):
            raise ValueError(f"{x} x stones and {o} o stones")
        if self.gravity:
            for cell in range(self.cells - self.cols):
                if flat[cell] != "." and flat[cell + self.cols] == ".":
                    raise ValueError(f"a stone floats at {self.name(cell)}")
        return flat

    def text(self, flat: str) -> str:
        """Board text of a flat board."""
        return "/".join(flat[r * self.cols:(r + 1) * self.cols] for r in range(self.rows))

    def name(self, cell: int) -> str:
        """The page's name of ``cell`` (``a1`` bottom-left)."""
        r, c = divmod(cell, self.cols)
        return f"{chr(ord('a') + c)}{self.rows - r}"

    def cell(self, name: object) -> int:
        """The cell of a name; ValueError for a bad one."""
        if not isinstance(name, str) or len(name) < 2 or not (name[1:].isascii() and name[1:].isdigit()) \
                or name[1] == "0":
            raise ValueError(f"bad cell {name!r}")
        c, r = ord(name[0]) - ord("a"), int(name[1:])
        if not (0 <= c < self.cols and 1 <= r <= self.rows):
            raise ValueError(f"bad cell {name!r}")
        return (self.rows - r) * self.cols + c

    def distinct_cells(self, names: object) -> tuple[int, ...]:
        """The cells of a list of distinct cell names; ValueError else."""
        if not isinstance(names, list):
            raise ValueError("not a list of cell names")
        cells = tuple(self.cell(name) for name in names)
        if len(set(cells)) != len(cells):
            raise ValueError("a cell named twice")
        return cells

    # ------------------------------------------------------------ rules
    def to_move(self, flat: str) -> str:
        """``x`` or ``o``."""
        return "x" if flat.count("x") == flat.count("o") else "o"

    def has_line(self, bits: int) -> bool:
        """Whether the stones ``bits`` hold k in a row."""
        return any(m & bits == m for m in self.masks)

    def line_through(self, bits: int, cell: int) -> bool:
        """Whether the stones ``bits`` hold k in a row through ``cell``."""
        return any(m & bits == m for m in self.through[cell])

    def can_complete(self, flat: str, own: int, opp: int) -> bool:
        """Whether the side with stones ``own`` to move completes a line at once: a
        line without ``opp`` stones lacking one cell, that cell playable."""
        need = self.k - 1
        for m in self.masks:
            if not m & opp and (m & own).bit_count() == need:
                cell = (m & ~own).bit_length() - 1
                if not self.gravity or cell + self.cols >= self.cells or flat[cell + self.cols] != ".":
                    return True
        return False

    def completions(self, own: int, opp: int) -> int:
        """The cells where the side with stones ``own`` completes a line at once
        (free placement: every empty cell is playable)."""
        need, out = self.k - 1, 0
        for m in self.masks:
            if not m & opp and (m & own).bit_count() == need:
                out |= m & ~own
        return out

    def dead(self, x: int, o: int) -> int:
        """The empty cells every line through which holds stones of both sides
        (a cell on no line included)."""
        live = 0
        for m in self.masks:
            if not (m & x and m & o):
                live |= m
        return self.full & ~(x | o | live)

    def hot(self, attacker: int, defender: int) -> int:
        """``H(P)``: for each line without a ``defender`` stone, the empty cells of its
        nearest ring that has an empty cell."""
        empty, out = self.full & ~(attacker | defender), 0
        for m, rings in zip(self.masks, self.rings):
            if not m & defender and m & empty:
                for ring in rings:
                    if ring & empty:
                        out |= ring & empty
                        break
        return out

    def fours_zone(self, attacker: int, defender: int, fours: tuple[int, ...]) -> int:
        """The zone of a ``fours`` record (page 12.3) at a position of the defender to
        move with stones ``attacker`` and ``defender``: with the defender passing, the
        attacker puts ``fours`` one by one; each but the last leaves exactly one
        completion cell (a four), where the defender's forced reply goes; the last
        completes a line or leaves two or more completion cells; before each move the
        defender's completion cells are that move's cell at most (the four blocks
        them), unless the move completes the attacker's line. The zone: the cells of the lines through each
        move that then hold ``k - 1`` or ``k`` attacker stones and no defender stone,
        and of the lines without an attacker stone (before the sequence) whose
        defender stones and replies number ``k - 2`` or more. ValueError (the reason)
        when the sequence is not such a win."""
        k, att, dfd, replies, zone = self.k, attacker, defender, 0, 0
        for i, move in enumerate(fours):
            if (att | dfd) >> move & 1:
                raise ValueError(f"the fours' move {self.name(move)} is not empty")
            theirs = self.completions(dfd, att)
            att |= 1 << move
            five = self.line_through(att, move)
            if theirs & ~(1 << move) and not five:
                raise ValueError(f"the defender completes a line before the fours' move {self.name(move)}")
            for m in self.through[move]:
                if not m & dfd and (m & att).bit_count() >= k - 1:
                    zone |= m
            cells = self.completions(att, dfd)
            last = i == len(fours) - 1
            if five or cells.bit_count() >= 2:
                if not last:
                    raise ValueError(f"the fours go on past a win at {self.name(move)}")
                break
            if last or cells.bit_count() != 1:
                raise ValueError(f"the fours' move {self.name(move)} is not a four" if not last
                                 else "the fours end without a line or two completion cells")
            dfd |= cells
            replies |= cells
        else:
            raise ValueError("the fours record is empty")
        for m in self.masks:
            if not m & attacker and ((m & defender).bit_count() + (m & replies).bit_count()) >= k - 2:
                zone |= m
        return zone & self.full & ~(attacker | defender)

    def legal(self, flat: str) -> list[int]:
        """The cells the side to move may play (the game not over)."""
        if self.gravity:
            out = []
            for c in range(self.cols):
                for r in range(self.rows - 1, -1, -1):
                    if flat[r * self.cols + c] == ".":
                        out.append(r * self.cols + c)
                        break
            return out
        return [c for c in range(self.cells) if flat[c] == "."]

    def bits(self, flat: str, side: str) -> int:
        """The bitboard of ``side``'s stones."""
        return sum(1 << c for c, ch in enumerate(flat) if ch == side)

    def canonical(self, flat: str) -> tuple[str, list[int]]:
        """The canonical form as a flat text (the least image) and the cell map
        from ``flat`` to it."""
        best, index = self.canonical_symmetry(flat)
        return best, self.perms[index]

    def canonical_symmetry(self, flat: str) -> tuple[str, int]:
        """The canonical form as a flat text and the index of the first symmetry
        (in :attr:`perms`) that takes ``flat`` to it."""
        best, index = flat, 0
        for i in range(1, len(self.images)):
            text = "".join(self.images[i](flat))
            if text < best:
                best, index = text, i
        return best, index

    @staticmethod
    def map_cells(mask: int, table: list[int]) -> int:
        """The cells ``table[c]`` for the cells ``c`` of ``mask``."""
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << table[low.bit_length() - 1]
            mask ^= low
        return out

    def number(self, flat: str) -> int:
        """``flat`` read as a base-3 number (``.`` 0, ``o`` 1, ``x`` 2): one key a
        position, smaller than its text."""
        return int(flat.translate(DIGITS), 3)

    def pairing_holds(self, flat: str, defender: str, pairs: list[tuple[int, int]]) -> Optional[str]:
        """None when ``pairs`` are disjoint empty cells and every line free of the
        defender's stones holds both cells of some pair; else the reason."""
        seen: set[int] = set()
        for a, b in pairs:
            if a == b or a in seen or b in seen:
                return "the pairs are not disjoint"
            if flat[a] != "." or flat[b] != ".":
                return f"a pair holds a taken cell ({self.name(a)}, {self.name(b)})"
            seen.update((a, b))
        for line in self.lines:
            if any(flat[c] == defender for c in line):
                continue
            cells = set(line)
            if not any(a in cells and b in cells for a, b in pairs):
                return f"the line {'-'.join(self.name(c) for c in line)} holds no pair"
        return None

    def pairing_zone(self, flat: str, defender: str, pairs: object) -> int:
        """The cells of ``pairs`` (a list of pairs of cell names) when it is a valid
        pairing of ``flat``; ValueError (the reason) else."""
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise ValueError("pairs is not a list of cell pairs")
        cells = [(self.cell(p[0]), self.cell(p[1])) for p in pairs]
        reason = self.pairing_holds(flat, defender, cells)
        if reason is not None:
            raise ValueError(f"bad pairing: {reason}")
        return sum(1 << c for pair in cells for c in pair)
