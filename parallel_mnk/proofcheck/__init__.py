"""The checker of mnk-proof/1 certificates (``docs/proof-format.md``), written from
that page alone: standard library only, nothing of the solver imported (its own
board, lines, win test, symmetries and pairing check: :mod:`.board`), so that a
certificate the solver writes is confirmed by code it does not share. The folder
stands alone: ``python -m proofcheck FILE|DIR ...`` runs it from a copy.

:func:`check_file` walks one certificate (``holds(P)`` of the page, memoised by
canonical form) and returns a :class:`Verdict`; :func:`main` is ``parallel-mnk
verify FILE|DIR ...``: one line per file, a draw line when two files (or one and
strategy stealing) make a draw; exit 0 verified, 1 a certificate failed, 2 a file
it cannot read or bad usage.

Positions are walked as flat texts with a bitboard a side (:mod:`.board`); the
memo and the records are keyed by the canonical flat text read as a base-3 number
(:meth:`.Board.number`), a record kept as its move, or a pairing as its line of
JSON (parsed again where the walk reaches it): memory for tens of millions.
"""
from __future__ import annotations

import json
import lzma
import sys
from sys import intern
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, TextIO

from .checked_game import Board

FORMAT = "mnk-proof/1"
CLAIMS = ("wins", "cannot-win")
MAX_COLS, MAX_CELLS = 26, 676   # a cell name's one letter; the solver's largest board (26x26)


def printable(text: str) -> str:
    """``text`` with each character a terminal would not show as itself written as its
    Python escape: a message quoting a file stays one plain line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


class Unreadable(Exception):
    """A file that cannot be read as a certificate (exit 2); the message is one printable line."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


class Failed(Exception):
    """The certificate does not prove its claim: ``board`` (text) and the reason, in one printable line."""

    def __init__(self, board: str, reason: str) -> None:
        super().__init__(printable(f"FAILED at {board}: {reason}"))


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
    positions: int   # positions walked: memoised ones and those the rules 1 and 2 settled
    used: int
    unused: int

    def line(self) -> str:
        """The page's ``verified:`` line."""
        return (f"verified: {self.attacker} {self.claim} from {self.root} ({counted(self.positions, 'position')}, "
                f"{counted(self.used, 'record')} used, {counted(self.unused, 'record')} unused)")


def counted(n: int, word: str) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1: ``1 position``, ``2 positions``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


# ------------------------------------------------------------------ reading
def read_lines(path: Path) -> Iterator[str]:
    """The text lines of a certificate as they are read (xz-compressed when its name
    ends in ``.xz``); :class:`Unreadable` where the file cannot be read."""
    try:
        with (lzma.open(path, "rt", encoding="utf-8") if path.name.endswith(".xz")
              else open(path, encoding="utf-8")) as f:
            for line in f:
                yield line.rstrip("\n")
    except (OSError, lzma.LZMAError, EOFError, UnicodeDecodeError) as e:
        raise Unreadable(f"cannot read {path}: {e}") from None


def _header(path: Path, lines: Iterator[str]) -> tuple[Board, dict]:
    first = next(lines, None)
    if first is None:
        raise Unreadable(f"{path} is empty")
    try:
        head = json.loads(first)
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
    if cols > MAX_COLS or cols * rows > MAX_CELLS:
        raise Failed("(header)", f"the checker takes boards of at most {MAX_COLS} columns (one letter a cell name) "
                                 f"and {MAX_CELLS} cells")
    if head.get("attacker") not in ("x", "o") or head.get("claim") not in CLAIMS:
        raise Failed("(header)", "attacker must be x or o and claim wins or cannot-win")
    return Board(cols, rows, k, gravity), head


def _records(path: Path, board: Board, head: dict, lines: Iterator[str]) -> dict[int, tuple[str, str]]:
    """Every further line's record, checked for form (page: records): its position's
    number -> ``("m", move)`` or ``("pairs", the line)``."""
    attacker, claim = head["attacker"], head["claim"]
    claimant = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
    out: dict[int, tuple[str, str]] = {}
    for number, text in enumerate(lines, start=2):
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
        if board.canonical(flat)[0] != flat:
            raise Failed(where, "the position is not in canonical form")
        mover = board.to_move(flat)
        if "m" in rec and mover != claimant:
            raise Failed(where, f"a move record where {mover} (not the claimant {claimant}) is to move")
        if "pairs" in rec and (claim != "cannot-win" or board.gravity or mover != attacker):
            raise Failed(where, "a pairs record is only for cannot-win, without gravity, the attacker to move")
        key = board.number(flat)
        if key in out:
            raise Failed(where, "two records for one position")
        if "m" in rec:   # (a move that is not a name fails where the walk reaches it)
            out[key] = ("m", intern(rec["m"]) if isinstance(rec["m"], str) else rec["m"])
        else:
            out[key] = ("pairs", text)
    return out


# ------------------------------------------------------------------ the walk
class Walk:
    """``holds(P)`` of the page for one certificate, memoised by canonical form.
    Positions that rules 1 and 2 settle (game over, the claimant completing a line)
    are settled before any canonical form is taken: they need no record."""

    def __init__(self, board: Board, head: dict, records: dict[int, tuple[str, str]]) -> None:
        self.board, self.records = board, records
        self.attacker, self.claim = head["attacker"], head["claim"]
        self.defender = "o" if self.attacker == "x" else "x"
        self.claimant = self.attacker if self.claim == "wins" else self.defender
        self.proved: set[int] = set()
        self.used = 0   # records reached (each once: the memo)
        self.settled = 0   # positions rules 1 and 2 settled (each time reached)

    def holds(self, root: str) -> None:
        """Walk from ``root`` (flat); raises :class:`Failed` where the claim is not shown."""
        b = self.board
        x, o = b.bits(root, "x"), b.bits(root, "o")
        if b.has_line(x) and b.has_line(o):
            raise Failed(b.text(root), "both sides have a line")
        stack = [(root, x, o, -1)]   # (flat, x stones, o stones, the cell just taken or -1)
        while stack:   # depth first, without recursion (a walk is as deep as the board has cells)
            stack.extend(self._children(*stack.pop()))

    def _children(self, flat: str, x: int, o: int, last: int) -> list[tuple[str, int, int, int]]:
        """What ``holds`` of the position needs next (empty when it holds here)."""
        b = self.board
        if last < 0:
            x_line, o_line = b.has_line(x), b.has_line(o)
        else:   # only the stone just played can have made a line
            x_line = flat[last] == "x" and b.line_through(x, last)
            o_line = flat[last] == "o" and b.line_through(o, last)
        if x_line or o_line or "." not in flat:   # 1. game over
            won = x_line if self.attacker == "x" else o_line
            if won != (self.claim == "wins"):
                raise Failed(b.text(flat), "the game ended against the claim")
            self.settled += 1
            return []
        mover = "x" if x.bit_count() == o.bit_count() else "o"
        own, opp = (x, o) if mover == "x" else (o, x)
        if mover == self.claimant and b.can_complete(flat, own, opp):   # 2. the claimant completes a line
            self.settled += 1
            return []
        canon, perm = b.canonical(flat)
        key = b.number(canon)
        if key in self.proved:
            return []
        self.proved.add(key)
        moves = b.legal(flat)
        rec = self.records.get(key)
        if mover == self.claimant:   # 2. a move record
            if rec is None or rec[0] != "m":
                raise Failed(b.text(flat), "no move record for the claimant")
            self.used += 1
            try:
                cell = perm.index(b.cell(rec[1]))   # back from the canonical frame
            except ValueError as e:
                raise Failed(b.text(flat), str(e)) from None
            if cell not in moves:
                raise Failed(b.text(flat), f"the record's move {rec[1]} is not legal")
            return [self._play(flat, x, o, mover, cell)]
        if rec is not None and rec[0] == "pairs":   # 3. the refuter to move: a pairing
            self.used += 1
            pairs = json.loads(rec[1])["pairs"]
            try:
                if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                    raise ValueError("pairs is not a list of cell pairs")
                cells = [(b.cell(p[0]), b.cell(p[1])) for p in pairs]
            except ValueError as e:
                raise Failed(b.text(flat), str(e)) from None
            reason = b.pairing_holds(canon, self.defender, cells)
            if reason is not None:
                raise Failed(b.text(flat), f"bad pairing: {reason}")
            return []
        return [self._play(flat, x, o, mover, c) for c in moves]   # or every move

    @staticmethod
    def _play(flat: str, x: int, o: int, mover: str, cell: int) -> tuple[str, int, int, int]:
        """The position after ``mover`` takes ``cell``."""
        flat = flat[:cell] + mover + flat[cell + 1:]
        return (flat, x | 1 << cell, o, cell) if mover == "x" else (flat, x, o | 1 << cell, cell)


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
                   len(walk.proved) + walk.settled, walk.used, len(records) - walk.used)


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
