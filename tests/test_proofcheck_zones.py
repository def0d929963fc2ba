"""mnk-proof/2 (docs/proof-format.md, section 12): dead cells and zones, as the
checker (parallel_mnk/proofcheck) confirms them.

Hand-written certificates on small boards that verify thanks to one rule (a dead
cell not walked, a move answered by a zone, a ``first`` list, the all-dead end),
each beside a changed copy that loses that rule's support and must fail. Then a
cross-check on random small positions: :class:`Twin`, a certificate writer written
here from the page alone (a recursive twin of the checker's walk, naive.py's values
choosing the claimant's moves, greedy ``first`` lists that let zones excuse as many
attacker moves as they can), whose certificates the checker must accept exactly
when naive.py says the claim is true, with the counts the twin expects, and reject
once a record is dropped or changed.
"""
from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from checks import random_positions
from naive import all_lines, naive_score
from parallel_mnk import GameSpec
from parallel_mnk.proofcheck import RULES, Failed, check_file, main

V2 = "mnk-proof/2"


# ---------------------------------------------------------------- the game, read apart from the checker
class Game:
    """A free-placement game as this file reads the page: a position is its flat text
    (rows top to bottom), cell ``row * cols + col``; lines from naive.py; the
    symmetries in the order of the page's table (section 6)."""

    def __init__(self, cols: int, rows: int, k: int) -> None:
        self.cols, self.rows, self.k, self.cells = cols, rows, k, cols * rows
        self.spec = GameSpec(cols, rows, k)
        self.lines = [[c for c in range(self.cells) if m >> c & 1] for m in all_lines(cols, rows, k)]
        R, C = rows, cols
        maps = [lambda r, c: (r, c), lambda r, c: (r, C - 1 - c), lambda r, c: (R - 1 - r, c),
                lambda r, c: (R - 1 - r, C - 1 - c)]
        if R == C:
            maps += [lambda r, c: (c, r), lambda r, c: (c, R - 1 - r), lambda r, c: (C - 1 - c, r),
                     lambda r, c: (C - 1 - c, R - 1 - r)]
        self.maps = [[(lambda r, c: r * C + c)(*f(*divmod(i, C))) for i in range(self.cells)] for f in maps]

    def parse(self, text: str) -> str:
        return text.replace("/", "")

    def text(self, flat: str) -> str:
        return "/".join(flat[r * self.cols:(r + 1) * self.cols] for r in range(self.rows))

    def name(self, cell: int) -> str:
        r, c = divmod(cell, self.cols)
        return f"{'abcdefghijklmnopqrstuvwxyz'[c]}{self.rows - r}"

    def cell(self, name: str) -> int:
        return (self.rows - int(name[1:])) * self.cols + ord(name[0]) - ord("a")

    def canonical(self, flat: str) -> tuple[str, list[int]]:
        """The least image and the first map (page order) onto it: cell -> cell."""
        best = None
        for perm in self.maps:
            image = [""] * self.cells
            for i, ch in enumerate(flat):
                image[perm[i]] = ch
            text = "".join(image)
            if best is None or text < best[0]:
                best = (text, perm)
        return best

    def bits(self, flat: str, side: str) -> int:
        return sum(1 << i for i, ch in enumerate(flat) if ch == side)

    def mover(self, flat: str) -> str:
        return "x" if flat.count("x") == flat.count("o") else "o"

    def has_line(self, flat: str, side: str) -> bool:
        return any(all(flat[c] == side for c in line) for line in self.lines)

    def dead(self, flat: str) -> set[int]:
        """Empty cells every line through which holds both sides (page 12.1)."""
        live = {c for line in self.lines if not ({flat[c] for c in line} >= {"x", "o"}) for c in line}
        return {c for c in range(self.cells) if flat[c] == "." and c not in live}

    def completions(self, flat: str, side: str) -> set[int]:
        """Cells where ``side`` completes a line at once."""
        out = set()
        for line in self.lines:
            own = [c for c in line if flat[c] == side]
            empty = [c for c in line if flat[c] == "."]
            if len(own) == self.k - 1 and len(empty) == 1:
                out.add(empty[0])
        return out

    def hot(self, flat: str, defender: str) -> set[int]:
        """``H(P)``: a line without a defender stone gives the empty cells of its nearest
        ring (distance ``|2i - (k - 1)|`` from its middle) that has one."""
        out = set()
        for line in self.lines:
            if any(flat[c] == defender for c in line):
                continue
            by_ring: dict[int, set[int]] = {}
            for i, c in enumerate(line):
                if flat[c] == ".":
                    by_ring.setdefault(abs(2 * i - (self.k - 1)), set()).add(c)
            if by_ring:
                out |= by_ring[min(by_ring)]
        return out

    def play(self, flat: str, cell: int) -> str:
        return flat[:cell] + self.mover(flat) + flat[cell + 1:]

    def attacker_wins(self, flat: str, attacker: str) -> bool:
        """naive.py: whether ``attacker`` can force a line of its own from ``flat``."""
        score = naive_score(self.spec, self.bits(flat, "x"), self.bits(flat, "o"))
        return score > 0 if self.mover(flat) == attacker else score < 0

    def record(self, flat: str, **kind) -> dict:
        """A record of ``flat`` in canonical form, its cells (named in ``flat``'s frame)
        mapped there: ``m=``, ``first=`` or ``pairs=``."""
        canon, perm = self.canonical(flat)

        def to(name: str) -> str:
            return self.name(perm[self.cell(name)])

        (key, value), = kind.items()
        mapped = {"m": lambda v: to(v), "first": lambda v: [to(n) for n in v],
                  "pairs": lambda v: [[to(a), to(b)] for a, b in v]}[key](value)
        return {"p": self.text(canon), key: mapped}


def write(path: Path, game: Game, root: str, attacker: str, claim: str, records: list, fmt: str = V2) -> Path:
    """A plain certificate file of ``records`` (dicts, or lines of text)."""
    head = {"format": fmt, "cols": game.cols, "rows": game.rows, "k": game.k, "gravity": False,
            "root": root, "attacker": attacker, "claim": claim}
    lines = [json.dumps(head)] + [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n")
    return path


def failure(path: Path) -> str:
    """The checker's FAILED line for ``path`` (it must fail)."""
    with pytest.raises(Failed) as e:
        check_file(path)
    return str(e.value)


# ---------------------------------------------------------------- a writer of mnk-proof/2, from the page
class Twin:
    """Certificates of one claim, written by walking the game as the page says a
    checker does (recursively: small boards only). ``cannot-win``: every position
    walked as its canonical form with its zone (page 12.2); the defender's move the
    one naive.py says holds with the smallest zone; at the attacker's turn a
    ``first`` list (with ``use_first``) chosen greedily, smallest zones first, of the
    holding moves not yet answered by the zones of those before, so that the others
    are answered; with ``use_pairs``, a pairing (page 7) where one of at most three
    pairs is found instead. ``wins``: naive.py's first winning move; every defender
    move but those on dead cells (12.1). A false claim gets a certificate too (the
    first move where none holds): it must fail."""

    def __init__(self, game: Game, attacker: str, claim: str, use_first: bool = True, use_pairs: bool = False) -> None:
        self.g, self.attacker, self.claim, self.use_first = game, attacker, claim, use_first
        self.use_pairs = use_pairs
        self.defender = "o" if attacker == "x" else "x"
        self.nodes: dict[str, tuple] = {}   # canonical text -> (zone, holds, record, moves walked)

    def settled(self, flat: str):
        """(zone, holds) of a position the rules settle without a record, else None."""
        g, att, dfd = self.g, self.attacker, self.defender
        empty = {c for c in range(g.cells) if flat[c] == "."}
        if g.has_line(flat, att) or g.has_line(flat, dfd) or not empty:
            return set(), g.has_line(flat, att) == (self.claim == "wins")
        mover = g.mover(flat)
        claimant = att if self.claim == "wins" else dfd
        if mover == claimant and g.completions(flat, mover):
            return (g.completions(flat, dfd) | g.hot(flat, dfd) if self.claim == "cannot-win" else set()), True
        if mover != claimant and g.dead(flat) == empty:
            return set(), self.claim == "cannot-win"
        return None

    def reach(self, flat: str) -> tuple[set[int], bool]:
        """(zone in ``flat``'s frame, holds) of a position reached."""
        done = self.settled(flat)
        if done is not None:
            return done
        canon, perm = self.g.canonical(flat)
        zone, holds = self.node(canon)[:2]
        back = {perm[i]: i for i in range(self.g.cells)}
        return {back[c] for c in zone}, holds

    def node(self, p: str) -> tuple:
        if p not in self.nodes:
            g = self.g
            empty = [c for c in range(g.cells) if p[c] == "."]
            claimant = self.attacker if self.claim == "wins" else self.defender
            if g.mover(p) == claimant:
                self.nodes[p] = self._claimant(p, empty)
            elif self.claim == "wins":
                dead = g.dead(p)
                walked = [c for c in empty if c not in dead]
                self.nodes[p] = (set(), all(self.reach(g.play(p, c))[1] for c in walked), None, walked)
            else:
                self.nodes[p] = self._attacker(p, empty)
        return self.nodes[p]

    def _claimant(self, p: str, empty: list[int]) -> tuple:
        g = self.g
        good = [m for m in empty if g.attacker_wins(g.play(p, m), self.attacker) == (self.claim == "wins")]
        best = None
        for m in good or empty[:1]:
            zone, holds = self.reach(g.play(p, m))
            if best is None or len(zone) < len(best[0]):
                best = (zone | {m} if self.claim == "cannot-win" else set(), holds, m)
            if self.claim == "wins":
                break
        zone, holds, m = best
        return zone, holds, {"p": g.text(p), "m": g.name(m)}, [m]

    def _attacker(self, p: str, empty: list[int]) -> tuple:
        """The attacker to move in cannot-win: the page's order of the moves walked."""
        g = self.g
        pairs = self.pairing(p) if self.use_pairs else None
        if pairs is not None:
            names = [[g.name(a), g.name(b)] for a, b in pairs]
            return {c for pair in pairs for c in pair}, True, {"p": g.text(p), "pairs": names}, []
        dead = g.dead(p)
        zones = {r: self.reach(g.play(p, r)) for r in empty if r not in dead}
        first: list[int] = []
        if self.use_first:
            holding = sorted((r for r in zones if not g.attacker_wins(g.play(p, r), self.attacker)),
                             key=lambda r: (len(zones[r][0]), r))
            inter = None
            for r in holding:
                if inter is None or r in inter:
                    first.append(r)
                    inter = set(zones[r][0]) if inter is None else inter & zones[r][0]
        walked, inter, union, holds = [], None, set(), True
        for r in first + [c for c in empty if c not in first]:
            if r not in first and (r in dead or (inter is not None and r not in inter)):
                continue
            zone, ok = zones[r]
            walked.append(r)
            inter = set(zone) if inter is None else inter & zone
            union |= zone
            holds = holds and ok
        record = {"p": g.text(p), "first": [g.name(c) for c in first]} if first else None
        return union, holds, record, walked

    def pairing(self, p: str, most: int = 3):
        """Pairs of empty cells, at most ``most``, that hold both cells of one pair in
        every line without a defender stone; None when there are none."""
        free = [line for line in self.g.lines if all(p[c] != self.defender for c in line)]

        def cover(pairs: list) -> list | None:
            open_ = [line for line in free if not any(a in line and b in line for a, b in pairs)]
            if not open_:
                return pairs
            if len(pairs) == most:
                return None
            used = {c for pair in pairs for c in pair}
            cells = [c for c in open_[0] if p[c] == "." and c not in used]
            for i, a in enumerate(cells):
                for b in cells[i + 1:]:
                    found = cover(pairs + [(a, b)])
                    if found is not None:
                        return found
            return None

        return cover([])

    def certificate(self, root: str) -> tuple[list[dict], int, bool]:
        """The records the checker's walk reaches from ``root``, the positions it walks
        (page 9's count), and whether the claim holds by the twin's walk."""
        holds = self.reach(root)[1]
        seen, records, settled, stack = set(), [], 0, [root]
        while stack:
            flat = stack.pop()
            if self.settled(flat) is not None:
                settled += 1
                continue
            canon = self.g.canonical(flat)[0]
            if canon in seen:
                continue
            seen.add(canon)
            _, _, record, walked = self.node(canon)
            records += [record] if record else []
            stack += [self.g.play(canon, c) for c in walked]
        return records, len(seen) + settled, holds


# ---------------------------------------------------------------- the header and the first records
def test_a_v2_header_is_for_free_placement_only(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps({"format": V2, "cols": 4, "rows": 4, "k": 3, "gravity": True,
                                "root": "..../..../..../....", "attacker": "x", "claim": "cannot-win"}) + "\n")
    assert failure(path) == "FAILED at (header): mnk-proof/2 is for free placement only (gravity is true)"
    path.write_text(json.dumps({"format": "mnk-proof/3"}) + "\n")
    assert failure(path) == "FAILED at (header): not an mnk-proof/1 or mnk-proof/2 header"


G7 = Game(7, 1, 3)   # one row of 7 cells, k=3: only the row's five lines


@pytest.mark.parametrize("fmt, claim, root, record, reason", [
    ("mnk-proof/1", "cannot-win", "xo.x.o.", {"p": ".o.x.ox", "first": []}, "not a record of p and one of m or pairs"),
    (V2, "wins", "xo.x.o.", {"p": ".o.x.ox", "first": ["a1"]}, "a first record is only for cannot-win"),
    (V2, "cannot-win", "xo.x...", {"p": "...x.ox", "first": ["a1"]}, "a first record is only for cannot-win, the att"),
    (V2, "cannot-win", "xo.x.o.", {"p": ".o.x.ox", "first": ["a1", "a1"]}, "first: a cell named twice"),
    (V2, "cannot-win", "xo.x.o.", {"p": ".o.x.ox", "first": ["h1"]}, "first: bad cell 'h1'"),
    (V2, "cannot-win", "xo.x.o.", {"p": ".o.x.ox", "first": "a1"}, "first: not a list of cell names"),
    (V2, "cannot-win", "xo.x.o.", {"p": ".o.x.ox", "first": ["b1"]}, ".o.x.ox: the first record's move b1 is not"),
])
def test_first_records_are_checked_for_form_before_the_walk_and_for_legality_in_it(tmp_path, fmt, claim, root,
                                                                                   record, reason):
    path = write(tmp_path / "f.jsonl", G7, root, "x", claim, [record], fmt=fmt)
    assert reason in failure(path)


def test_a_first_record_the_walk_never_reaches_is_unused(tmp_path):
    """(Its occupied cell b1 is judged only where the walk reaches it.) The root is
    settled at once: every empty cell is dead."""
    root = "xo.xo.xo."   # c1, f1 and i1: each line through them holds both sides
    v = check_file(write(tmp_path / "u.jsonl", Game(9, 1, 3), root, "x", "cannot-win",
                         [{"p": ".xo.xo.xo", "first": ["b1"]}]))
    assert (v.positions, v.used, v.unused) == (1, 0, 1)


# ---------------------------------------------------------------- dead cells (12.1)
def test_every_empty_cell_dead_holds_for_cannot_win_and_fails_for_wins(tmp_path):
    """On one row with k=3, ``xo.xo.xo.`` (x to move) has three empty cells, each of
    whose lines holds both sides: x cannot win, with no record (mnk-proof/1 needs
    one for o after every x move). ``xo.xo.xo.x`` (o to move) can never be won by x."""
    g9, g10 = Game(9, 1, 3), Game(10, 1, 3)
    v = check_file(write(tmp_path / "a.jsonl", g9, "xo.xo.xo.", "x", "cannot-win", []))
    assert (v.positions, v.used, v.rules["no line can be completed"]) == (1, 0, 1)
    assert "no move record for the claimant" in failure(write(tmp_path / "b.jsonl", g9, "xo.xo.xo.", "x",
                                                              "cannot-win", [], fmt="mnk-proof/1"))
    assert failure(write(tmp_path / "c.jsonl", g10, "xo.xo.xo.x", "x", "wins", [])) == \
        "FAILED at xo.xo.xo.x: no line can be completed"


def test_with_the_claimant_to_move_every_cell_dead_still_needs_its_record(tmp_path):
    """12.1 settles the refuter's turn (rule 3) only: o, the defender of x cannot-win,
    to move at ``xo.xo.xo.x`` names its move (the checker's reading, docs section 11)."""
    g10 = Game(10, 1, 3)
    assert "no move record for the claimant" in failure(write(tmp_path / "a.jsonl", g10, "xo.xo.xo.x", "x",
                                                              "cannot-win", []))
    v = check_file(write(tmp_path / "b.jsonl", g10, "xo.xo.xo.x", "x", "cannot-win",
                         [g10.record("xo.xo.xo.x", m="c1")]))
    assert (v.positions, v.used, v.rules["no line can be completed"]) == (2, 1, 1)


def test_a_dead_cell_of_the_attacker_is_not_walked(tmp_path):
    """x to move at ``xo.xo..`` (7x1, k=3): c1 is dead. x plays g1 (the first move by
    cell in the canonical form ``..ox.ox``), o answers c1: every cell is dead, so the
    zone of x's g1 is {c1}. x's f1 lies outside it (answered by the zone); x's c1 lies
    inside, and only 12.1 excuses it. One record proves it; it fails with mnk-proof/1,
    or when o answers f1 instead (zone {f1}: x's c1 is outside it, x's f1 not)."""
    root, after = "xo.xo..", "xo.xo.x"
    v = check_file(write(tmp_path / "a.jsonl", G7, root, "x", "cannot-win", [G7.record(after, m="c1")]))
    assert (v.positions, v.used, v.unused) == (3, 1, 0)
    assert (v.rules["dead moves not walked"], v.rules["answered by a zone"]) == (1, 1)
    assert "FAILED at xo.xox.: no move record" in failure(write(tmp_path / "b.jsonl", G7, root, "x", "cannot-win",
                                                                [G7.record(after, m="c1")], fmt="mnk-proof/1"))
    assert "FAILED at .xox.ox: no move record" in failure(write(tmp_path / "c.jsonl", G7, root, "x", "cannot-win",
                                                                [G7.record(after, m="f1")]))


def test_a_dead_cell_named_in_a_first_list_is_walked(tmp_path):
    """The first list's moves are walked, dead or not (the checker's reading, docs
    section 11): x's c1 first, at ``xo.xo..``, needs o's answer."""
    records = [G7.record("xo.xo..", first=["c1"]), G7.record("xo.xo.x", m="c1")]
    assert "FAILED at ..oxxox: no move record" in failure(write(tmp_path / "a.jsonl", G7, "xo.xo..", "x",
                                                                "cannot-win", records))
    records.append(G7.record("xoxxo..", m="g1"))
    v = check_file(write(tmp_path / "b.jsonl", G7, "xo.xo..", "x", "cannot-win", records))
    assert (v.used, v.rules["dead moves not walked"]) == (3, 0)


# x wins on 12x1, k=3, from .ox...xo.x.. (o to move; a1 is dead: its one line holds b1's o and c1's x)
WINS_12 = [{"p": "..x.ox..oxo.", "m": "b1"}, {"p": "..x.ox.o.xo.", "m": "b1"}, {"p": "..x.oxo..xo.", "m": "b1"},
           {"p": "..xoox...xo.", "m": "a1"}, {"p": ".ox...xooxox", "m": "e1"}, {"p": ".ox...xo.xo.", "m": "e1"},
           {"p": ".ox...xo.x.o", "m": "e1"}]


def test_a_dead_cell_of_the_defender_is_not_walked_in_a_win(tmp_path):
    """Every o move but a1 has x's answer among the records; o's a1 (a pass) has none:
    the file verifies as mnk-proof/2 and fails as mnk-proof/1, at o's a1."""
    g12 = Game(12, 1, 3)
    v = check_file(write(tmp_path / "a.jsonl", g12, ".ox...xo.x..", "x", "wins", WINS_12))
    assert (v.used, v.unused) == (7, 0) and v.rules["dead moves not walked"] > 0
    assert failure(write(tmp_path / "b.jsonl", g12, ".ox...xo.x..", "x", "wins", WINS_12, fmt="mnk-proof/1")) == \
        "FAILED at oox...xo.x..: no move record for the claimant"


# ---------------------------------------------------------------- zones (12.2)
def test_a_first_list_fixes_the_moves_walked_and_their_zones_answer_the_rest(tmp_path):
    """3x3, x to move at ``.ox/x../oxo`` (empty: a3, b2, c2). x's b2 gets o's c2, then
    every cell is dead: its zone is {c2}; x's a3 gets o's b2, and so: zone {b2}.
    Walked a3 then b2, they answer c2. First b2 alone: a3 is outside its zone, c2 inside,
    walked, and has no record. Without a first record the cells' order (a3, b2, c2) is
    the list's: it verifies. A record dropped fails."""
    g = Game(3, 3, 3)
    root = ".ox/x../oxo"
    records = [{"p": ".ox/x../oxo", "first": ["a3", "b2"]}, {"p": ".ox/xx./oxo", "m": "c2"},
               {"p": "o.x/x.o/oxx", "m": "b2"}]
    v = check_file(write(tmp_path / "a.jsonl", g, root, "x", "cannot-win", records))
    assert (v.used, v.unused, v.rules["answered by a zone"], v.rules["first records used"]) == (3, 0, 1, 1)
    assert failure(write(tmp_path / "b.jsonl", g, root, "x", "cannot-win",
                         [{"p": ".ox/x../oxo", "first": ["b2"]}] + records[1:])) == \
        "FAILED at .ox/x.x/oxo: no move record for the claimant"
    v = check_file(write(tmp_path / "c.jsonl", g, root, "x", "cannot-win", records[1:]))
    assert (v.used, v.rules["answered by a zone"], v.rules["first records used"]) == (2, 1, 0)
    for i in (1, 2):
        assert "no move record" in failure(write(tmp_path / "d.jsonl", g, root, "x", "cannot-win",
                                                 records[:i] + records[i + 1:]))


# x cannot win on 10x1, k=3, from ox........ (x to move): three of x's moves are walked
# (first list), each answered by o and then a pairing whose cells are, with o's move,
# that move's zone; x's other moves lie outside one of these zones
CANNOT_10 = [{"p": "........xo", "first": ["a1", "f1", "c1", "e1", "g1"]}, {"p": "......x.xo", "m": "h1"},
             {"p": "......xoxo", "pairs": [["a1", "b1"], ["c1", "d1"], ["e1", "f1"]]}, {"p": "....x...xo", "m": "f1"},
             {"p": "....xo..xo", "pairs": [["a1", "b1"], ["c1", "d1"], ["g1", "h1"]]}, {"p": "..x.....xo", "m": "d1"},
             {"p": "..xo....xo", "pairs": [["a1", "b1"], ["e1", "f1"], ["g1", "h1"]]},
             {"p": ".....x..xo", "m": "g1"}, {"p": ".....xo.xo", "pairs": [["b1", "c1"], ["d1", "e1"]]},
             {"p": "ox.......x", "m": "h1"}, {"p": "ox.....o.x", "pairs": [["c1", "d1"], ["e1", "f1"]]}]


def test_the_zone_of_a_pairing_is_its_cells(tmp_path):
    """An extra pair (a pairing stays valid with one) that takes in x's h1, answered
    by the zones before, makes the walk take h1, which has no record."""
    g10 = Game(10, 1, 3)
    v = check_file(write(tmp_path / "a.jsonl", g10, "ox........", "x", "cannot-win", CANNOT_10))
    assert (v.used, v.unused) == (11, 0) and v.rules["answered by a zone"] == 3
    wider = [dict(r, pairs=r["pairs"] + [["a1", "h1"]]) if r["p"] == ".....xo.xo" else r for r in CANNOT_10]
    assert failure(write(tmp_path / "b.jsonl", g10, "ox........", "x", "cannot-win", wider)) == \
        "FAILED at .......xxo: no move record for the claimant"


def test_verify_prints_the_page_s_line_for_a_v2_file(tmp_path):
    g10, out = Game(10, 1, 3), io.StringIO()
    path = write(tmp_path / "x-cannot-win.jsonl", g10, "ox........", "x", "cannot-win", CANNOT_10)
    assert main([str(tmp_path)], out) == 0
    assert out.getvalue() == \
        "verified: x cannot-win from ox........ (11 positions, 11 records used, 0 records unused)\n"
    write(path, g10, "ox........", "x", "cannot-win", CANNOT_10[:1] + CANNOT_10[2:])
    out = io.StringIO()
    assert main([str(path)], out) == 1 and out.getvalue().startswith("FAILED at ")


def test_the_zone_where_the_defender_completes_a_line_holds_the_attacker_s_lines(tmp_path):
    """x to move at ``xx..oo.`` wins at c1 (the claim is false). x's g1 first: o then
    completes at d1, and the zone of that position is d1 with H: c1, the one empty cell
    of a1-b1-c1's nearest ring (and of b1-c1-d1's). c1 is walked and x's line found; a
    zone without H would answer c1 and d1's zone would answer the rest."""
    assert G7.attacker_wins("xx..oo.", "x")
    path = write(tmp_path / "a.jsonl", G7, "xx..oo.", "x", "cannot-win", [G7.record("xx..oo.", first=["g1"])])
    assert failure(path) == "FAILED at .oo.xxx: the game ended against the claim"


def test_a_zone_is_mapped_by_the_first_symmetry_of_the_page_s_table():
    """Where several symmetries take a position to its canonical form (a symmetric
    position), a zone mapped by one differs from one mapped by another: the checker
    takes the first in the order of section 6's table (docs section 11), on positions
    each kept by some symmetry (its cells coloured orbit by orbit)."""
    from parallel_mnk.proofcheck.checked_game import Board

    rng = random.Random(6)
    for cols, rows in [(4, 4), (5, 5), (3, 3), (4, 3), (5, 2)]:
        game, board = Game(cols, rows, 3), Board(cols, rows, 3, False)
        for _ in range(200):
            keep = rng.choice(game.maps)
            flat = [""] * game.cells
            for cell in range(game.cells):
                orbit, c = [cell], keep[cell]
                while c != cell:
                    orbit, c = orbit + [c], keep[c]
                colour = flat[min(orbit)] or rng.choice(".xo")
                for c in orbit:
                    flat[c] = colour
            canon, perm = game.canonical("".join(flat))
            text, index = board.canonical_symmetry("".join(flat))
            assert (text, board.perms[index]) == (canon, perm), ("/".join(flat), keep)


# ---------------------------------------------------------------- the twin against naive.py
def cross_check(tmp_path: Path, game: Game, count: int, stones: tuple[int, int], seed: int) -> dict:
    """Twin's certificates of every claim of random positions: verified, with the twin's
    counts, exactly when naive.py says the claim is true; rejected with a claimant's
    record dropped, or changed to a move after which the claim is false. The rules'
    counts of the verified files, summed by claim (and the pairs records they used)."""
    rng, rules = random.Random(seed), {(claim, r): 0 for claim in ("wins", "cannot-win") for r in RULES + ("pairs",)}
    for pos in random_positions(game.spec, count, stones, seed=seed):
        flat = game.parse(pos.board_text())
        for attacker, claim, options in [(a, "wins", [{}]) for a in "xo"] + [
                (a, "cannot-win", [{}, {"use_first": False}, {"use_pairs": True}]) for a in "xo"]:
            truth = game.attacker_wins(flat, attacker) == (claim == "wins")
            for option in options:
                records, positions, holds = Twin(game, attacker, claim, **option).certificate(flat)
                assert holds == truth, (game.text(flat), attacker, claim, option)   # the page's rules are sound here
                path = write(tmp_path / "c.jsonl", game, game.text(flat), attacker, claim, records)
                if not truth:
                    failure(path)
                    continue
                v = check_file(path)
                assert (v.positions, v.used, v.unused) == (positions, len(records), 0), (game.text(flat), option)
                for r in RULES:
                    rules[claim, r] += v.rules[r]
                rules[claim, "pairs"] += sum("pairs" in r for r in records)
                moves = [i for i, r in enumerate(records) if "m" in r]
                if not moves:
                    continue
                i = rng.choice(moves)
                failure(write(path, game, game.text(flat), attacker, claim, records[:i] + records[i + 1:]))
                p = game.parse(records[i]["p"])
                bad = [c for c in range(game.cells) if p[c] == "." and
                       game.attacker_wins(game.play(p, c), attacker) != (claim == "wins")]
                if bad:
                    changed = dict(records[i], m=game.name(rng.choice(bad)))
                    failure(write(path, game, game.text(flat), attacker, claim,
                                  records[:i] + [changed] + records[i + 1:]))
    return rules


@pytest.mark.parametrize("cols, rows, k, count, stones", [
    (3, 3, 3, 10, (0, 6)), (4, 3, 3, 10, (3, 8)), (7, 1, 3, 10, (0, 5)), (5, 2, 3, 10, (2, 7)),
    (4, 4, 3, 8, (7, 12)), (5, 4, 4, 6, (10, 15)), pytest.param(4, 4, 4, 8, (6, 11), marks=pytest.mark.slow)],
    ids=lambda v: str(v).replace(" ", ""))
def test_twin_certificates_verify_exactly_when_naive_says_the_claim_holds(tmp_path, cols, rows, k, count, stones):
    cross_check(tmp_path, Game(cols, rows, k), count, stones, seed=cols * 100 + rows * 10 + k)


def test_every_rule_of_section_12_is_exercised(tmp_path):
    """Summed over twins' certificates of a few boards, each rule of section 12 excuses
    or settles something: in cannot-win every one but 12.3's (and zones of pairings), in
    wins the dead cells (besides the hand-written files above, one rule each)."""
    total: dict = {}
    for cols, rows, k, stones in [(3, 3, 3, (0, 6)), (7, 1, 3, (0, 5)), (5, 4, 4, (10, 15))]:
        for key, n in cross_check(tmp_path, Game(cols, rows, k), 4, stones, seed=cols + rows + k).items():
            total[key] = total.get(key, 0) + n
    wanted = [("cannot-win", r) for r in RULES + ("pairs",) if r != "fours records used"] + \
        [("wins", "dead moves not walked")]
    assert all(total[key] > 0 for key in wanted), total
    assert total["wins", "answered by a zone"] == total["wins", "first records used"] == 0
    assert total["cannot-win", "fours records used"] == 0   # (fours records: tests/test_fours_records.py)
