"""The checker of mnk-proof/1 certificates (``../shared/proof-format.md``), written from
that page alone: standard library only, nothing of the solver imported (its own
board, lines, win test, symmetries and pairing check), so that a certificate the
solver writes is confirmed by code it does not share.

:func:`check_file` walks one certificate (``holds(P)`` of the page, memoised by
canonical form) and returns a :class:`Verdict`; :func:`main` is ``parallel-mnk
verify FILE|DIR ...``: one line per file, a draw line when two files (or one and
strategy stealing) make a draw; exit 0 verified, 1 a certificate failed, 2 a file
it cannot read or bad usage.

Cells inside are ``row * cols + col`` with row 0 at the top, as the board text
reads; cell names are the page's (``a1`` bottom-left).
"""
from __future__ import annotations

import json
import lzma
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

FORMAT = "mnk-proof/1"
CLAIMS = ("wins", "cannot-win")


class Unreadable(Exception):
    """A file that cannot be read as a certificate (exit 2)."""


class Failed(Exception):
    """The certificate does not prove its claim: ``board`` (text) and the reason."""

    def __init__(self, board: str, reason: str) -> None:
        super().__init__(f"FAILED at {board}: {reason}")


@dataclass
class Verdict:
    """A verified certificate: its header's game, root, attacker and claim, the
    positions walked, the records used and those never reached."""

    cols: int
    rows: int
    k: int
    gravity: bool
    root: str
    attacker: str
    claim: str
    positions: int
    used: int
    unused: int

    def line(self) -> str:
        """The page's ``verified:`` line."""
        return (f"verified: {self.attacker} {self.claim} from {self.root} ({self.positions} positions, "
                f"{self.used} records used, {self.unused} records unused)")


class Board:
    """The game of a header: its lines, symmetries, cell names and rules."""

    def __init__(self, cols: int, rows: int, k: int, gravity: bool) -> None:
        self.cols, self.rows, self.k, self.gravity = cols, rows, k, gravity
        self.cells = cols * rows
        self.lines = self._lines()
        self.through = [[line for line in self.lines if c in line] for c in range(self.cells)]
        self.perms = self._symmetries()

    def _lines(self) -> list[tuple[int, ...]]:
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(self.k)]
                    if all(0 <= rr < self.rows and 0 <= cc < self.cols for rr, cc in cells):
                        out.append(tuple(rr * self.cols + cc for rr, cc in cells))
        return out

    def _symmetries(self) -> list[list[int]]:
        R, C = self.rows, self.cols
        maps = [lambda r, c: (r, c), lambda r, c: (r, C - 1 - c)]
        if not self.gravity:
            maps += [lambda r, c: (R - 1 - r, c), lambda r, c: (R - 1 - r, C - 1 - c)]
            if R == C:
                maps += [lambda r, c: (c, r), lambda r, c: (C - 1 - c, r), lambda r, c: (c, R - 1 - r),
                         lambda r, c: (C - 1 - c, R - 1 - r)]
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
        if not isinstance(name, str) or len(name) < 2 or not name[1:].isdigit() or name[1] == "0":
            raise ValueError(f"bad cell {name!r}")
        c, r = ord(name[0]) - ord("a"), int(name[1:])
        if not (0 <= c < self.cols and 1 <= r <= self.rows):
            raise ValueError(f"bad cell {name!r}")
        return (self.rows - r) * self.cols + c

    # ------------------------------------------------------------ rules
    def to_move(self, flat: str) -> str:
        """``x`` or ``o``."""
        return "x" if flat.count("x") == flat.count("o") else "o"

    def has_line(self, flat: str, side: str) -> bool:
        """Whether ``side`` has k in a row."""
        return any(all(flat[c] == side for c in line) for line in self.lines)

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

    def play(self, flat: str, cell: int) -> str:
        """The board after the side to move takes ``cell``."""
        return flat[:cell] + self.to_move(flat) + flat[cell + 1:]

    def completes(self, flat: str, cell: int, side: str) -> bool:
        """Whether ``side`` taking ``cell`` completes a line."""
        return any(all(c == cell or flat[c] == side for c in line) for line in self.through[cell])

    def canonical(self, flat: str) -> tuple[str, list[int]]:
        """The canonical form (the least board text of the images) and a cell map
        from ``flat`` to it."""
        best: Optional[tuple[str, list[int]]] = None
        for perm in self.perms:
            image = ["."] * self.cells
            for cell, ch in enumerate(flat):
                image[perm[cell]] = ch
            text = self.text("".join(image))
            if best is None or text < best[0]:
                best = (text, perm)
        assert best is not None
        return best

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


# ------------------------------------------------------------------ reading
def read_lines(path: Path) -> list[str]:
    """The text lines of a certificate (xz-compressed when its name ends in ``.xz``)."""
    try:
        if path.name.endswith(".xz"):
            with lzma.open(path, "rt", encoding="utf-8") as f:
                return f.read().splitlines()
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, lzma.LZMAError, EOFError, UnicodeDecodeError) as e:
        raise Unreadable(f"cannot read {path}: {e}") from None


def _header(path: Path, lines: list[str]) -> tuple[Board, dict]:
    if not lines:
        raise Unreadable(f"{path} is empty")
    try:
        head = json.loads(lines[0])
    except json.JSONDecodeError:
        raise Unreadable(f"{path}: line 1 is not JSON") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise Failed("(header)", f"not an {FORMAT} header")
    try:
        cols, rows, k, gravity = head["cols"], head["rows"], head["k"], head["gravity"]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (cols, rows, k)) \
                or not isinstance(gravity, bool) or k > max(cols, rows):
            raise ValueError
    except (KeyError, ValueError):
        raise Failed("(header)", "the header's game is not cols, rows, k (positive ints) and gravity") from None
    if head.get("attacker") not in ("x", "o") or head.get("claim") not in CLAIMS:
        raise Failed("(header)", "attacker must be x or o and claim wins or cannot-win")
    return Board(cols, rows, k, gravity), head


def _records(path: Path, board: Board, head: dict, lines: list[str]) -> dict[str, dict]:
    """Every record, keyed by its position, checked for form (page: records)."""
    attacker, claim = head["attacker"], head["claim"]
    prover = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
    out: dict[str, dict] = {}
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except json.JSONDecodeError:
            raise Unreadable(f"{path}: line {number} is not JSON") from None
        where = str(rec["p"]) if isinstance(rec, dict) and isinstance(rec.get("p"), str) else f"(line {number})"
        if not isinstance(rec, dict) or set(rec) not in ({"p", "m"}, {"p", "pairs"}):
            raise Failed(where, f"line {number} is not a record of p and one of m or pairs")
        try:
            flat = board.parse(rec["p"])
        except ValueError as e:
            raise Failed(where, f"not a position: {e}") from None
        if board.canonical(flat)[0] != rec["p"]:
            raise Failed(where, "the position is not in canonical form")
        mover = board.to_move(flat)
        if "m" in rec and mover != prover:
            raise Failed(where, f"a move record where {mover} (not the prover {prover}) is to move")
        if "pairs" in rec and (claim != "cannot-win" or board.gravity or mover != attacker):
            raise Failed(where, "a pairs record is only for cannot-win, without gravity, the attacker to move")
        if rec["p"] in out:
            raise Failed(where, "two records for one position")
        out[rec["p"]] = rec
    return out


# ------------------------------------------------------------------ the walk
class Walk:
    """``holds(P)`` of the page for one certificate, memoised by canonical form."""

    def __init__(self, board: Board, head: dict, records: dict[str, dict]) -> None:
        self.board, self.records = board, records
        self.attacker, self.claim = head["attacker"], head["claim"]
        self.defender = "o" if self.attacker == "x" else "x"
        self.prover = self.attacker if self.claim == "wins" else self.defender
        self.proved: set[str] = set()
        self.used: set[str] = set()

    def holds(self, root: str) -> None:
        """Walk from ``root`` (flat); raises :class:`Failed` where the claim is not shown."""
        stack = [root]
        while stack:   # depth first, without recursion (a walk is as deep as the board has cells)
            flat = stack.pop()
            key, perm = self.board.canonical(flat)
            if key in self.proved:
                continue
            self.proved.add(key)
            stack.extend(self._children(flat, key, perm))

    def _children(self, flat: str, key: str, perm: list[int]) -> list[str]:
        """What ``holds`` of ``flat`` needs next (empty when it holds here)."""
        b = self.board
        text = b.text(flat)
        x_line, o_line = b.has_line(flat, "x"), b.has_line(flat, "o")
        if x_line and o_line:
            raise Failed(text, "both sides have a line")
        if x_line or o_line or "." not in flat:   # 1. game over
            won = x_line if self.attacker == "x" else o_line
            if won != (self.claim == "wins"):
                raise Failed(text, "the game ended against the claim")
            return []
        mover = b.to_move(flat)
        moves = b.legal(flat)
        if mover == self.prover:   # 2.
            if any(b.completes(flat, c, mover) for c in moves):
                return []
            rec = self.records.get(key)
            if rec is None or "m" not in rec:
                raise Failed(text, "no move record for the prover")
            self.used.add(key)
            try:
                cell = perm.index(b.cell(rec["m"]))   # back from the canonical frame
            except ValueError as e:
                raise Failed(text, str(e)) from None
            if cell not in moves:
                raise Failed(text, f"the record's move {rec['m']} is not legal")
            return [b.play(flat, cell)]
        rec = self.records.get(key)   # 3. the refuter to move
        if rec is not None and "pairs" in rec:
            self.used.add(key)
            pairs = rec["pairs"]
            try:
                if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                    raise ValueError("pairs is not a list of cell pairs")
                cells = [(b.cell(p[0]), b.cell(p[1])) for p in pairs]
            except ValueError as e:
                raise Failed(text, str(e)) from None
            canon_flat = "".join(key.split("/"))
            reason = b.pairing_holds(canon_flat, self.defender, cells)
            if reason is not None:
                raise Failed(text, f"bad pairing: {reason}")
            return []
        return [b.play(flat, c) for c in moves]


def check_file(path: Path) -> Verdict:
    """Check one certificate; raises :class:`Unreadable` or :class:`Failed`."""
    lines = read_lines(path)
    board, head = _header(path, lines)
    try:
        root = board.parse(head.get("root"))
    except ValueError as e:
        raise Failed(str(head.get("root")), f"the header's root is not a position: {e}") from None
    records = _records(path, board, head, lines)
    walk = Walk(board, head, records)
    walk.holds(root)
    return Verdict(board.cols, board.rows, board.k, board.gravity, board.text(root), head["attacker"], head["claim"],
                   len(walk.proved), len(walk.used), len(records) - len(walk.used))


def draw_line(verdicts: list[Verdict]) -> Optional[str]:
    """The page's draw line when the verdicts make a draw of one root: ``x cannot-win``
    and ``o cannot-win``, or ``x cannot-win`` alone from an empty free-placement board
    (strategy stealing gives the other, only there)."""
    for v in verdicts:
        if (v.attacker, v.claim) != ("x", "cannot-win"):
            continue
        same = [w for w in verdicts if (w.cols, w.rows, w.k, w.gravity, w.root) == (v.cols, v.rows, v.k, v.gravity,
                                                                                    v.root)]
        if any((w.attacker, w.claim) == ("o", "cannot-win") for w in same):
            return f"verified: draw from {v.root} (x cannot-win and o cannot-win)"
        if not v.gravity and set(v.root) <= {".", "/"}:
            return f"verified: draw from {v.root} (x cannot-win; o cannot-win by strategy stealing)"
    return None


def certificate_files(args: list[str]) -> list[Path]:
    """The files of ``args``: files as given, and each directory's ``*.jsonl`` and
    ``*.jsonl.xz``; raises :class:`Unreadable` for a missing path or a directory without any."""
    out: list[Path] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.name.endswith((".jsonl", ".jsonl.xz")))
            if not found:
                raise Unreadable(f"no certificates (*.jsonl, *.jsonl.xz) in {path}")
            out += found
        elif path.is_file():
            out.append(path)
        else:
            raise Unreadable(f"no file or directory {path}")
    if not out:
        raise Unreadable("give certificate files or directories")
    return out


def main(args: list[str], out: TextIO = sys.stdout) -> int:
    """``verify FILE|DIR ...``: a line per file, then a draw line where they make one;
    0 verified, 1 a certificate failed, 2 a file that cannot be read or no files."""
    try:
        verdicts = []
        for path in certificate_files(args):
            verdicts.append(check_file(path))
            out.write(verdicts[-1].line() + "\n")
    except Unreadable as e:
        sys.stderr.write(f"verify: error: {e}\n")
        return 2
    except Failed as e:
        out.write(f"{e}\n")
        return 1
    draw = draw_line(verdicts)
    if draw is not None:
        out.write(draw + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
