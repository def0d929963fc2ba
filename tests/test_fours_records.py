"""``fours`` records of mnk-proof/2 ``wins`` certificates (docs/proof-format.md 12.3):
the checker's rule (:meth:`parallel_mnk.proofcheck.checked_game.Board.fours_zone`)
on hand-made sequences, the same zone as the prover's (whose every outside defence
loses against naive.py: tests/test_big_pn.py), and certificates past 64 cells
written with them, verified, and failing when a record is tampered with."""
from __future__ import annotations

import io
import json
import lzma
from pathlib import Path

import pytest

from test_big_pn import ZONE_SETS, _zone_cases, threes_position
from parallel_mnk import proofcheck
from parallel_mnk.engines.provers.big_certificate import extract_big
from parallel_mnk.engines.provers.big_threats import Judge
from parallel_mnk.parallel.uses.big_pn import ThreatProof
from parallel_mnk.proofcheck.checked_game import Board

B = Board(9, 9, 5, False)


def cells(*names: str) -> int:
    """The cell set of ``names`` on :data:`B`."""
    out = 0
    for n in names:
        out |= 1 << B.cell(n)
    return out


def fours(*names: str) -> tuple[int, ...]:
    return tuple(B.cell(n) for n in names)


def test_an_open_four_is_a_win_and_its_zone_is_its_lines_and_the_defenders_threes():
    """x c5 d5 e5, o a1 b1 c1: f5 makes an open four (two completion cells). The zone:
    the two lines of five through f5 holding four x (b5-f5, c5-g5), and the line
    a1-e1 (no x, three o: a stone there gives o a four); nothing else."""
    zone = B.fours_zone(cells("c5", "d5", "e5"), cells("a1", "b1", "c1"), fours("f5"))
    assert zone == cells("b5", "f5", "g5", "d1", "e1")


def test_a_four_forces_its_reply_and_a_sequence_must_end_in_a_win():
    """x c5 d5 e5, o b5: f5 is a four whose reply g5 is forced; ``f5`` alone ends
    without a win, and ``f5 g5`` names the reply's cell for the attacker."""
    att, dfd = cells("c5", "d5", "e5"), cells("b5", "d3", "e3")
    with pytest.raises(ValueError, match="end without"):
        B.fours_zone(att, dfd, fours("f5"))
    with pytest.raises(ValueError, match="not empty"):
        B.fours_zone(att, dfd, fours("f5", "g5"))


def test_a_four_then_a_double_four_and_the_replies_in_the_defenders_lines():
    """x c5 d5 e5 and b7 c7 d7, o b5 and g7 g8: f5 is a four (g5 forced), then e7
    makes two completion cells (a7, f7). The zone: the four's line c5-g5, the lines
    a7-e7 and b7-f7 of the last move, and the defender's lines without x whose o
    stones and the reply g5 number three (g4-g8, g5-g9: a stone there may give o a
    four); a9-e9's two o stones do not reach three."""
    att, dfd = cells("c5", "d5", "e5", "b7", "c7", "d7"), cells("b5", "g7", "g8", "a9", "b9")
    zone = B.fours_zone(att, dfd, fours("f5", "e7"))
    expected = cells("c5", "d5", "e5", "f5", "g5", "a7", "b7", "c7", "d7", "e7", "f7",
                     "g4", "g5", "g6", "g7", "g8", "g9")
    assert zone == expected & ~(att | dfd)
    without_reply_lines = B.fours_zone(att, cells("b5", "g7", "a9", "b9"), fours("f5", "e7"))
    assert not without_reply_lines & cells("g4", "g6", "g9")   # o g5 g7 alone: two


def test_a_defender_four_on_the_way_and_a_win_too_early_fail():
    att = cells("c5", "d5", "e5")
    with pytest.raises(ValueError, match="defender completes a line"):
        B.fours_zone(att, cells("a1", "b1", "c1", "d1"), fours("f5"))
    with pytest.raises(ValueError, match="past a win"):
        B.fours_zone(att, cells("a1", "b1", "c1"), fours("f5", "a9"))
    with pytest.raises(ValueError, match="not empty"):
        B.fours_zone(att, cells("a1", "b1", "c1"), fours("c5"))
    with pytest.raises(ValueError, match="empty"):
        B.fours_zone(att, cells("a1", "b1", "c1"), ())
    with pytest.raises(ValueError, match="not a four"):
        B.fours_zone(att, cells("a1", "b1", "c1"), fours("a9", "f5"))


@pytest.mark.parametrize("spec,stones,count", ZONE_SETS[:2], ids=str)
def test_the_checkers_zone_is_the_provers(spec, stones, count):
    """On the positions whose defences the prover's zone cuts (every one outside it
    loses: tests/test_big_pn.py), the checker's rule gives the same zone from the
    prover's moves: the walk writes records for exactly the moves the checker walks."""
    board = Board(spec.cols, spec.rows, spec.k, False)
    judges = {a: Judge(spec, a, 0, 1 << 12, 20) for a in (1, 2)}
    seen = 0
    for pos, zone, attacker in _zone_cases(spec, count, stones, seed=11 + spec.cells):
        moves, again = judges[attacker].pass_fours(pos.x, pos.o)
        assert again == zone
        att, dfd = (pos.x, pos.o) if attacker == 1 else (pos.o, pos.x)
        assert board.fours_zone(att, dfd, tuple(moves)) == zone, pos.board_text()   # (one cell numbering)
        seen += 1
    assert seen >= 5


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> Path:
    """The certificate of the threes position 9, from the tree held to fours (made
    once: the tests below read it, and write what they change elsewhere)."""
    pos = threes_position(9)
    mover = "x" if pos.ply % 2 == 0 else "o"
    proof = ThreatProof(pos, mover, threes=0, vct_nodes=1 << 10)
    assert proof.run(lambda: False, lambda s: None) is True
    folder = tmp_path_factory.mktemp("cert")
    extract_big(pos, mover, "wins", folder, hint=proof.winning_move)
    return next(folder.glob("*.jsonl.xz"))


def test_a_certificate_with_fours_records_verifies_and_uses_them(certificate):
    path = certificate
    lines = lzma.open(path, "rt").read().splitlines()
    assert json.loads(lines[0])["format"] == "mnk-proof/2"
    assert any('"fours"' in line for line in lines[1:])
    verdict = proofcheck.check_file(path)
    assert verdict.rules["fours records used"] > 0 and verdict.rules["answered by a zone"] > 0


def _rewrite(path: Path, change, folder: Path) -> Path:
    lines = lzma.open(path, "rt").read().splitlines()
    out = folder / "changed.jsonl"
    out.write_text("\n".join(change(lines)) + "\n")
    return out


@pytest.mark.parametrize("how,reason", [
    ("drop the last move", "fours"),
    ("one move more", "fours"),
    ("a format 1 header", "not a record"),
    ("no fours records", "no move record"),
])
def test_a_tampered_fours_record_fails(certificate, tmp_path, how, reason):
    """A fours record shortened (it ends on a four, or is empty) or lengthened (past the win), the file read as mnk-proof/1, or the
    fours records removed (every defence then walked, and the prover wrote no record
    past the zone): FAILED, the reason named."""
    path = certificate

    def change(lines: list[str]) -> list[str]:
        head, records = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
        if how == "a format 1 header":
            head["format"] = "mnk-proof/1"
        if how == "no fours records":
            records = [r for r in records if "fours" not in r]
        first = next(r for r in records if "fours" in r) if how != "no fours records" else None
        if how == "drop the last move":
            first["fours"] = first["fours"][:-1]
        if how == "one move more":
            taken = set(first["fours"]) | {B.name(c) for c in range(B.cells) if first["p"].replace("/", "")[c] != "."}
            first["fours"].append(next(B.name(c) for c in range(B.cells) if B.name(c) not in taken))
        return [json.dumps(head)] + [json.dumps(r) for r in records]

    out = io.StringIO()
    assert proofcheck.main([str(_rewrite(path, change, tmp_path))], out=out) == 1
    assert out.getvalue().startswith("FAILED") and reason in out.getvalue(), out.getvalue()
