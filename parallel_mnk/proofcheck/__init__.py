"""The checker of mnk-proof/1 and /2 certificates (``docs/proof-format.md``), written
from that page alone: standard library only, nothing of the solver imported (its own
board, lines, symmetries, pairings, dead cells and rings: :mod:`.checked_game`), so
that a certificate the solver writes is confirmed by code it does not share. The
folder stands alone: ``python -m proofcheck FILE|DIR ...`` runs it from a copy.

:func:`check_file` walks one certificate (``holds(P)`` of the page, memoised by
canonical form) and returns a :class:`Verdict`; :func:`main` is ``parallel-mnk
verify FILE|DIR ...``: one line per file, a draw line when two files (or one and
strategy stealing) make a draw; exit 0 verified, 1 a certificate failed, 2 a file
it cannot read or bad usage.

Positions are flat texts with a bitboard a side; the memo and the records are keyed
by the canonical flat text read as a base-3 number (:meth:`.Board.number`), a record
kept as its move, its ``first`` or ``fours`` cells, or a pairing's line of JSON (parsed
again where the walk reaches it): memory for tens of millions. :class:`Walk` (mnk-proof/1,
and /2 ``wins`` with its dead cells and ``fours`` records' zones) takes a position's children at once; :class:`ZoneWalk`
(/2 ``cannot-win``) one after another along a path of :class:`_Node`, since whether
an attacker move is walked depends on the zones (bit masks) of those walked before.
"""
from __future__ import annotations

import json
import lzma
import sys
from sys import intern
from pathlib import Path
from typing import Iterator, Optional, TextIO, cast

from .checked_game import Board
from .verdicts import Failed, Unreadable, Verdict, counted, printable   # noqa: F401 (the package's names)

FORMATS = ("mnk-proof/1", "mnk-proof/2")
CLAIMS = ("wins", "cannot-win")
MAX_COLS, MAX_CELLS = 26, 676   # a cell name's one letter; the solver's largest board (26x26)


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
    if not isinstance(head, dict) or head.get("format") not in FORMATS:
        raise Failed("(header)", f"not an {' or '.join(FORMATS)} header")
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
    if gravity and head["format"] != FORMATS[0]:
        raise Failed("(header)", f"{head['format']} is for free placement only (gravity is true)")
    return Board(cols, rows, k, gravity), head


def _records(path: Path, board: Board, head: dict, lines: Iterator[str]) -> dict[int, tuple[str, object]]:
    """Every further line's record, checked for form (page: records; ``first`` records
    in mnk-proof/2, ``fours`` in its ``wins``): its position's number -> ``("m", move)``,
    ``("pairs", the line)``, ``("first", its cells)`` or ``("fours", its cells)``."""
    attacker, claim = head["attacker"], head["claim"]
    claimant = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
    kinds = [{"p", "m"}, {"p", "pairs"}] + ([{"p", "first"}, {"p", "fours"}] if head["format"] != FORMATS[0] else [])
    out: dict[int, tuple[str, object]] = {}
    for number, text in enumerate(lines, start=2):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except json.JSONDecodeError:
            raise Unreadable(f"{path}: line {number} is not JSON") from None
        where = str(rec["p"]) if isinstance(rec, dict) and isinstance(rec.get("p"), str) else f"(line {number})"
        if not isinstance(rec, dict) or set(rec) not in kinds:
            raise Failed(where, f"line {number} is not a record of p and one of "
                                f"{'m or pairs' if len(kinds) == 2 else 'm, pairs, first or fours'}")
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
        if "first" in rec and (claim != "cannot-win" or mover != attacker):
            raise Failed(where, "a first record is only for cannot-win, the attacker to move")
        if "fours" in rec and (claim != "wins" or mover == attacker):
            raise Failed(where, "a fours record is only for wins, the defender to move")
        key = board.number(flat)
        if key in out:
            raise Failed(where, "two records for one position")
        if "m" in rec:   # (a move that is not a name fails where the walk reaches it)
            out[key] = ("m", intern(rec["m"]) if isinstance(rec["m"], str) else rec["m"])
        elif "pairs" in rec:
            out[key] = ("pairs", text)
        else:   # (whether they are legal moves is judged where the walk reaches it)
            kind = "first" if "first" in rec else "fours"
            try:
                out[key] = (kind, board.distinct_cells(rec[kind]))
            except ValueError as e:
                raise Failed(where, f"{kind}: {e}") from None
    return out


# ------------------------------------------------------------------ the walk
RULES = ("dead moves not walked", "no line can be completed", "answered by a zone", "first records used",
         "zones of rule 2", "zones mapped by a symmetry", "fours records used")   # what mnk-proof/2's rules did (Verdict.rules)


class Walk:
    """``holds(P)`` of the page for one certificate, memoised by canonical form.
    Positions that rules 1 and 2 settle (game over, the claimant completing a line)
    are settled before any canonical form is taken: they need no record. In an
    mnk-proof/2 ``wins`` file (page 12.1) the defender's moves on dead cells are not
    walked, nor those outside the zone of a ``fours`` record (12.3), and a position of the defender to move whose empty cells are all dead
    fails, before its canonical form too."""

    def __init__(self, board: Board, head: dict, records: dict[int, tuple[str, object]]) -> None:
        self.board, self.records = board, records
        self.attacker, self.claim = head["attacker"], head["claim"]
        self.defender = "o" if self.attacker == "x" else "x"
        self.claimant = self.attacker if self.claim == "wins" else self.defender
        self.dead_rule = head["format"] != FORMATS[0]
        self.proved: set[int] = set()
        self.used = 0   # records reached (each once: the memo)
        self.settled = 0   # positions rules 1 and 2 (and 12.1's every cell dead) settled, each time reached
        self.rules = dict.fromkeys(RULES, 0)

    def positions(self) -> int:
        """The positions walked: those memoised and those settled without a record."""
        return len(self.proved) + self.settled

    def holds(self, root: str) -> None:
        """Walk from ``root`` (flat); raises :class:`Failed` where the claim is not shown."""
        x, o = self._root(root)
        stack = [(root, x, o, -1)]   # (flat, x stones, o stones, the cell just taken or -1)
        while stack:   # depth first, without recursion (a walk is as deep as the board has cells)
            stack.extend(self._children(*stack.pop()))

    def _root(self, root: str) -> tuple[int, int]:
        """The root's stones; fails when both sides have a line."""
        b = self.board
        x, o = b.bits(root, "x"), b.bits(root, "o")
        if b.has_line(x) and b.has_line(o):
            raise Failed(b.text(root), "both sides have a line")
        return x, o

    def _over(self, flat: str, x: int, o: int, last: int) -> bool:
        """Rule 1: whether the game is over (it fails when against the claim)."""
        b = self.board
        if last < 0:
            x_line, o_line = b.has_line(x), b.has_line(o)
        else:   # only the stone just played can have made a line
            x_line = flat[last] == "x" and b.line_through(x, last)
            o_line = flat[last] == "o" and b.line_through(o, last)
        if x_line or o_line or "." not in flat:
            won = x_line if self.attacker == "x" else o_line
            if won != (self.claim == "wins"):
                raise Failed(b.text(flat), "the game ended against the claim")
            return True
        return False

    def _children(self, flat: str, x: int, o: int, last: int) -> list[tuple[str, int, int, int]]:
        """What ``holds`` of the position needs next (empty when it holds here)."""
        b = self.board
        if self._over(flat, x, o, last):   # 1. game over
            self.settled += 1
            return []
        mover = "x" if x.bit_count() == o.bit_count() else "o"
        own, opp = (x, o) if mover == "x" else (o, x)
        if mover == self.claimant and b.can_complete(flat, own, opp):   # 2. the claimant completes a line
            self.settled += 1
            return []
        dead = b.dead(x, o) if self.dead_rule and mover != self.claimant else 0
        if dead and dead | x | o == b.full:   # 12.1: every empty cell dead
            raise Failed(b.text(flat), "no line can be completed")
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
            return [self._play(flat, x, o, mover, self._record_move(flat, rec[1], moves, perm.index))]
        if rec is not None and rec[0] == "pairs":   # 3. the refuter to move: a pairing
            self.used += 1
            self._pairing(flat, canon, cast(str, rec[1]))
            return []
        if dead:   # 12.1: moves on dead cells are not walked
            self.rules["dead moves not walked"] += len(moves)
            moves = [c for c in moves if not dead >> c & 1]
            self.rules["dead moves not walked"] -= len(moves)
        if rec is not None and rec[0] == "fours":   # 12.3: the defender's moves outside the fours' zone
            self.used += 1
            self.rules["fours records used"] += 1
            zone = self._fours_zone(flat, x, o, cast(tuple[int, ...], rec[1]), perm.index)
            self.rules["answered by a zone"] += len(moves)
            moves = [c for c in moves if zone >> c & 1]
            self.rules["answered by a zone"] -= len(moves)
        return [self._play(flat, x, o, mover, c) for c in moves]   # or every move

    def _fours_zone(self, flat: str, x: int, o: int, fours: tuple[int, ...], back) -> int:
        """The zone (``flat``'s frame) of a fours record's cells (canonical frame;
        ``back`` maps one to ``flat``'s); it fails unless they are the page's win by
        fours with the defender passing (12.3)."""
        att, dfd = (x, o) if self.attacker == "x" else (o, x)
        try:
            return self.board.fours_zone(att, dfd, tuple(back(c) for c in fours))
        except ValueError as e:
            raise Failed(self.board.text(flat), f"fours: {e}") from None

    def _record_move(self, flat: str, name: object, moves: list[int], back=None) -> int:
        """The cell, in ``flat``'s frame, of a move record's ``name`` (in the canonical
        frame; ``back`` maps a canonical cell to ``flat``'s); it fails unless a legal move."""
        b = self.board
        try:
            cell = b.cell(name) if back is None else back(b.cell(name))
        except ValueError as e:
            raise Failed(b.text(flat), str(e)) from None
        if cell not in moves:
            raise Failed(b.text(flat), f"the record's move {name} is not legal")
        return cell

    def _pairing(self, flat: str, canon: str, line: str) -> int:
        """The cells (canonical frame) of the pairs record ``line`` of ``canon``; it
        fails unless it is a valid pairing (page 7)."""
        try:
            return self.board.pairing_zone(canon, self.defender, json.loads(line)["pairs"])
        except ValueError as e:
            raise Failed(self.board.text(flat), str(e)) from None

    @staticmethod
    def _play(flat: str, x: int, o: int, mover: str, cell: int) -> tuple[str, int, int, int]:
        """The position after ``mover`` takes ``cell``."""
        flat = flat[:cell] + mover + flat[cell + 1:]
        return (flat, x | 1 << cell, o, cell) if mover == "x" else (flat, x, o | 1 << cell, cell)


class _Node:
    """A position of a :class:`ZoneWalk` in progress, in the frame of its canonical
    form: its moves to walk in order (the first ``forced`` always, the others unless
    dead or answered by a zone), the intersection and the union of the zones of
    those walked so far, the cell its zone gains besides (the defender's move), and
    the symmetry from the frame its parent reached it in to its own."""

    __slots__ = ("flat", "x", "o", "key", "sym", "mover", "moves", "forced", "next", "dead", "inter", "union", "plus")

    def __init__(self, flat: str, x: int, o: int, key: int, sym: int, mover: str, moves: list[int], forced: int,
                 dead: int = 0, plus: int = 0) -> None:
        self.flat, self.x, self.o, self.key, self.sym, self.mover = flat, x, o, key, sym, mover
        self.moves, self.forced, self.next, self.dead, self.plus = moves, forced, 0, dead, plus
        self.inter, self.union = -1, 0   # -1: every cell (no zone yet)


class ZoneWalk(Walk):
    """``holds(P)`` of an mnk-proof/2 ``cannot-win`` certificate (page 12), with the
    zone ``Z(P)`` of every position: depth first along a path of :class:`_Node`
    (no recursion), a node's zone known when its last move's is. A position is
    walked as its canonical form (records, ``first`` lists and the order of the other
    moves are in that frame), so that its zone depends on it alone; the memo keeps it
    there, and a position reached as another image gets it mapped back by the first
    symmetry (page 6's order) that takes it to the canonical form."""

    def __init__(self, board: Board, head: dict, records: dict[int, tuple[str, object]]) -> None:
        super().__init__(board, head, records)
        self.zones: dict[int, int] = {}   # canonical number -> zone, in the canonical frame

    def positions(self) -> int:
        """The positions walked: those memoised and those settled without a record."""
        return len(self.zones) + self.settled

    def holds(self, root: str) -> None:
        """Walk from ``root`` (flat); raises :class:`Failed` where the claim is not shown."""
        x, o = self._root(root)
        node = self._enter(root, x, o, -1)
        path = [node] if isinstance(node, _Node) else []
        while path:
            top = path[-1]
            cell = self._next_move(top)
            if cell < 0:   # every move walked or excused: the zone is known
                path.pop()
                zone = self.zones[top.key] = top.union | top.plus
                if path:
                    zone = self._back(zone, top.sym)
                    path[-1].inter &= zone
                    path[-1].union |= zone
                continue
            child = self._enter(*self._play(top.flat, top.x, top.o, top.mover, cell))
            if isinstance(child, _Node):
                path.append(child)
            else:
                top.inter &= child
                top.union |= child

    def _next_move(self, node: _Node) -> int:
        """The node's next move to walk, or -1; counts the moves excused."""
        while node.next < len(node.moves):
            cell = node.moves[node.next]
            node.next += 1
            if node.next <= node.forced:
                return cell
            if node.dead >> cell & 1:
                self.rules["dead moves not walked"] += 1
            elif not node.inter >> cell & 1:
                self.rules["answered by a zone"] += 1
            else:
                return cell
        return -1

    def _enter(self, flat: str, x: int, o: int, last: int):
        """The position's zone (an int, in ``flat``'s frame) when known at once,
        else the :class:`_Node` of its canonical form to walk (which, once walked,
        gives the zone to the memo and, mapped back, to the node's parent)."""
        b = self.board
        if self._over(flat, x, o, last):   # 1. game over: the defender's line or a full board
            self.settled += 1
            return 0
        attacker_to_move = (x.bit_count() == o.bit_count()) == (self.attacker == "x")
        att, dfd = (x, o) if self.attacker == "x" else (o, x)
        dead = 0
        if not attacker_to_move:
            done = b.completions(dfd, att)
            if done:   # 2. the defender completes a line
                self.settled += 1
                self.rules["zones of rule 2"] += 1
                return done | b.hot(att, dfd)
        else:
            dead = b.dead(x, o)
            if dead | x | o == b.full:   # 12.1: every empty cell dead
                self.settled += 1
                self.rules["no line can be completed"] += 1
                return 0
        canon, sym = b.canonical_symmetry(flat)
        key = b.number(canon)
        zone = self.zones.get(key)
        if zone is None:
            if sym:
                x, o, dead = (b.map_cells(bits, b.perms[sym]) for bits in (x, o, dead))
            node = self._record_node(canon, x, o, key, sym, dead, attacker_to_move)
            if isinstance(node, _Node):
                return node
            zone = node   # (a pairing's)
        return self._back(zone, sym)

    def _back(self, zone: int, sym: int) -> int:
        """A zone of the canonical frame in that of a position which symmetry ``sym`` takes to it."""
        if not sym:
            return zone
        self.rules["zones mapped by a symmetry"] += 1
        return self.board.map_cells(zone, self.board.inverses[sym])

    def _record_node(self, canon: str, x: int, o: int, key: int, sym: int, dead: int, attacker_to_move: bool):
        """A position first met (as its canonical form), by its record: the zone of a
        pairing (memoised), or the node of the defender's move, or of the attacker's
        moves in the page's order: the ``first`` record's, then the others by cell."""
        b, rec = self.board, self.records.get(key)
        if not attacker_to_move:
            if rec is None or rec[0] != "m":
                raise Failed(b.text(canon), "no move record for the claimant")
            self.used += 1
            cell = self._record_move(canon, rec[1], b.legal(canon))
            return _Node(canon, x, o, key, sym, self.defender, [cell], 1, plus=1 << cell)
        if rec is not None and rec[0] == "pairs":   # 3. a pairing: its cells are the zone
            self.used += 1
            self.zones[key] = self._pairing(canon, canon, cast(str, rec[1]))
            return self.zones[key]
        first: tuple[int, ...] = ()
        if rec is not None:   # a first record
            self.used += 1
            self.rules["first records used"] += 1
            first = cast(tuple[int, ...], rec[1])
            for cell in first:
                if canon[cell] != ".":
                    raise Failed(b.text(canon), f"the first record's move {b.name(cell)} is not legal")
        others = [c for c in range(b.cells) if canon[c] == "." and c not in first]
        return _Node(canon, x, o, key, sym, self.attacker, list(first) + others, len(first), dead=dead)


def check_file(path: Path) -> Verdict:
    """Check one certificate; raises :class:`Unreadable` or :class:`Failed`."""
    lines = read_lines(path)
    board, head = _header(path, lines)
    try:
        root = board.parse(head.get("root"))
    except ValueError as e:
        raise Failed(str(head.get("root")), f"the header's root is not a position: {e}") from None
    records = _records(path, board, head, lines)
    zones = head["format"] != FORMATS[0] and head["claim"] == "cannot-win"
    walk = (ZoneWalk if zones else Walk)(board, head, records)
    walk.holds(root)
    return Verdict(board.cols, board.rows, board.k, board.gravity, board.text(root), head["attacker"], head["claim"],
                   walk.positions(), walk.used, len(records) - walk.used, walk.rules)


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
