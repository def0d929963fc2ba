"""mnk-proof/1 certificates: what the extraction writes verifies with the checker
(proofcheck.py, standard library only), agrees with naive.py's values, holds no
record the checker does not use; corrupted certificates are rejected with the
position and the reason; bad input is a one-line error."""
from __future__ import annotations

import ast
import io
import json
import lzma
import sys
from pathlib import Path

import pytest

from checks import random_positions, spec_id
from naive import naive_score
from parallel_mnk import GameSpec, Position, proofcheck, solve
from parallel_mnk.frontends.cli import main
from parallel_mnk.engines.provers.certificate import claims_of, extract
from parallel_mnk.game.rules import Value, value_of_score
from parallel_mnk import Options

ROOT = Path(__file__).resolve().parents[1]


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    try:
        return main(argv, stdin=io.StringIO(""), stdout=out), out.getvalue()
    except SystemExit as e:   # argparse's usage error (an option the command does not take)
        return int(e.code or 0), out.getvalue()


def certify(pos: Position, folder: Path) -> list[Path]:
    value = solve(pos, weak=True, options=Options(pv=False, tt_size="512K")).value
    return [extract(pos, a, c, folder, tt_bits=16).path for a, c in claims_of(pos, value)]


def lines_of(path: Path) -> list[dict]:
    with lzma.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def rewrite(path: Path, objs: list) -> Path:
    with lzma.open(path, "wt") as f:
        for o in objs:
            f.write((o if isinstance(o, str) else json.dumps(o)) + "\n")
    return path


def test_the_checker_imports_only_the_standard_library():
    folder = ROOT / "parallel_mnk" / "proofcheck"
    own = {p.stem for p in folder.glob("*.py")}
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
                  and not n.level}
        relative = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level}
        assert all(n.level == 1 for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level), path
        assert relative <= own | {""}, (path, relative)   # only the checker's own modules
        assert names - {"__future__"} <= set(sys.stdlib_module_names), (path, names)


SLOW = pytest.mark.slow   # (naive.py's values of these boards and their walks take tens of seconds)


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(4, 3, 3), GameSpec(4, 4, 3, True),
                                  pytest.param(GameSpec(4, 4, 4), marks=SLOW),
                                  pytest.param(GameSpec(5, 4, 4, True), marks=SLOW),
                                  pytest.param(GameSpec(4, 4, 3), marks=SLOW)], ids=spec_id)
def test_certificates_of_random_positions_verify_and_agree_with_naive(tmp_path, spec):
    for i, pos in enumerate(random_positions(spec, 6, (0, spec.cells // 2), seed=spec.cells + spec.k)):
        truth = value_of_score(naive_score(spec, pos.x, pos.o))
        verdicts = []
        for path in certify(pos, tmp_path / str(i)):
            v = proofcheck.check_file(path)
            assert v.unused == 0 and v.used == len(lines_of(path)) - 1, (pos, path.name)   # no record unneeded
            verdicts.append(v)
        claims = {(v.attacker, v.claim) for v in verdicts}
        mover = "x" if pos.ply % 2 == 0 else "o"
        other = "o" if mover == "x" else "x"
        expect = {Value.WIN: {(mover, "wins")}, Value.LOSS: {(other, "wins")}}.get(truth)
        if expect is None:
            expect = {("x", "cannot-win")} if pos.ply == 0 and not spec.gravity else {("x", "cannot-win"),
                                                                                     ("o", "cannot-win")}
            assert proofcheck.draw_line(verdicts) is not None
        assert claims == expect, pos


@pytest.fixture
def draw_cert(tmp_path) -> Path:
    """x cannot-win on 5x4 k=4 gravity after x played 3 (o, the defender, to move: move records)."""
    pos = Position.from_moves(GameSpec(5, 4, 4, True), "3")
    return [p for p in certify(pos, tmp_path / "c") if p.name.startswith("x-")][0]


def fails(path: Path, *reason: str) -> None:
    """The checker rejects ``path`` at a position, with one of ``reason`` (one at least)."""
    assert reason and all(reason), reason
    out = io.StringIO()
    assert proofcheck.main([str(path)], out) == 1
    text = out.getvalue()
    assert text.startswith("FAILED at ") and any(r in text for r in reason), text


def test_corrupted_certificates_are_rejected_with_the_position_and_the_reason(tmp_path, draw_cert):
    head, *records = lines_of(draw_cert)
    moves = [r for r in records if "m" in r]
    assert moves
    changed = dict(moves[0], m="a1" if moves[0]["m"] != "a1" else "b1")
    fails(rewrite(tmp_path / "moved.jsonl.xz", [head, changed, *[r for r in records if r is not moves[0]]]),
          "not legal", "no move record", "against the claim")
    fails(rewrite(tmp_path / "dropped.jsonl.xz", [head, *records[1:]]), "no move record")
    fails(rewrite(tmp_path / "twice.jsonl.xz", [head, *records, records[0]]), "two records for one position")
    fails(rewrite(tmp_path / "header.jsonl.xz", [dict(head, k=3), *records]), "the game ended against the claim")
    fails(rewrite(tmp_path / "claim.jsonl.xz", [dict(head, claim="wins"), *records]), "not the claimant")
    wrong_side = dict(records[0], p=records[0]["p"].replace(".", "x", 1))
    fails(rewrite(tmp_path / "side.jsonl.xz", [head, wrong_side, *records[1:]]), "not a position: 2 x stones and 0 o")


def test_a_pairing_missing_a_line_is_rejected(tmp_path):
    spec = GameSpec(4, 4, 4)
    path = certify(Position(spec), tmp_path)[0]
    head, *records = lines_of(path)
    paired = [r for r in records if "pairs" in r]
    assert paired
    cut = dict(paired[0], pairs=paired[0]["pairs"][1:])
    fails(rewrite(tmp_path / "cut.jsonl.xz", [head, *[cut if r is paired[0] else r for r in records]]),
          "holds no pair")


@pytest.mark.parametrize("board", [(9, 2, 8), (7, 2, 7), (10, 2, 9)])
def test_long_k_draws_are_certified_by_pairings(tmp_path, board):
    """The walk closes the refuter's nodes by pairings at every k (it did up to k = 6 only:
    the empty 7x7 k=7 and 8x8 k=8 boards' walks ran past a minute; these small boards'
    walks without pairings hold no pairs record): pairs records, all used, verified."""
    path = certify(Position(GameSpec(*board)), tmp_path)[0]
    assert any("pairs" in r for r in lines_of(path)[1:])
    v = proofcheck.check_file(path)
    assert (v.attacker, v.claim) == ("x", "cannot-win") and v.unused == 0


def test_a_false_claim_cannot_be_certified_and_a_made_up_one_fails(tmp_path):
    spec = GameSpec(4, 4, 3)   # a first-player win
    pos = Position(spec)
    with pytest.raises(RuntimeError, match="value was wrong"):
        extract(pos, "x", "cannot-win", tmp_path / "false", tt_bits=16)
    assert list((tmp_path / "false").iterdir()) == []   # no file, no temporary left
    fake = [{"format": "mnk-proof/1", "cols": 4, "rows": 4, "k": 3, "gravity": False, "root": pos.board_text(),
             "attacker": "x", "claim": "cannot-win"}]
    fails(rewrite(tmp_path / "fake.jsonl.xz", fake), "no move record")


def test_the_cli_writes_lists_and_verifies_certificates(tmp_path):
    rc, out = run(["solve", "--cols", "4", "--rows", "4", "--k", "4", "--moves", "", "--weak", "--workers", "1",
                   "--certificate", str(tmp_path / "c"), "--json"])
    d = json.loads(out)
    assert rc == 0 and d["certified"] == "value" and [Path(p).name for p in d["certificates"]] == [
        "x-cannot-win.jsonl.xz"]
    rc, out = run(["verify", str(tmp_path / "c")])
    assert rc == 0 and out.splitlines()[-1].startswith("verified: draw from ")
    rc, out = run(["solve", "--cols", "3", "--rows", "3", "--k", "3", "--moves", "b2", "--workers", "1",
                   "--certificate", str(tmp_path / "d"), "--json"])   # an exact solve certifies its value
    d = json.loads(out)
    assert rc == 0 and d["score"] == 0 and len(d["certificates"]) == 2
    assert run(["verify", *d["certificates"]])[1].splitlines()[-1].startswith("verified: draw")


def test_unreadable_certificates_and_bad_options_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "plain.jsonl.xz").write_bytes(b"not xz at all")
    good = certify(Position(GameSpec(3, 3, 3)), tmp_path / "g")[0]
    (tmp_path / "cut.jsonl.xz").write_bytes(good.read_bytes()[:-20])
    for argv in (["verify", str(tmp_path / "empty")], ["verify", str(tmp_path / "plain.jsonl.xz")],
                 ["verify", str(tmp_path / "cut.jsonl.xz")], ["verify", str(tmp_path / "missing")],
                 ["solve", "--game", "tictactoe", "--certificate", str(tmp_path / "x")],   # stdin: many solves
                 ["best", "--game", "tictactoe", "--certificate", str(tmp_path / "x")]):
        assert run(argv)[0] == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error" in err, (argv, err)


def test_a_certificate_beside_a_time_limit_is_written_when_the_value_is_proved_in_time(tmp_path, capsys):
    """--certificate with --time-limit: a value proved within the limit is certified (and
    the checker confirms it); one the limit left unknown gets no file, and the answer
    says so (exit status 3, JSON ``"certificates": []``, ``"certified": null``)."""
    rc, out = run(["solve", "--cols", "4", "--rows", "4", "--k", "4", "--moves", "", "--workers", "1",
                   "--time-limit", "60", "--certificate", str(tmp_path / "in-time")])
    assert rc == 0 and "certificates: " in out and "none written" not in out, out
    assert run(["verify", str(tmp_path / "in-time")])[1].splitlines()[-1].startswith("verified: draw")
    for argv, lines in ((["--json"], None), ([], "certificates: none written (the value was not proved within the limit)")):
        folder = tmp_path / f"late{len(argv)}"
        rc, out = run(["solve", "--game", "connect4", "--moves", "", "--workers", "1", "--book", "none",
                       "--time-limit", "0.3", "--certificate", str(folder), *argv])
        assert rc == 3, out
        if lines is None:
            d = json.loads(out)
            assert d["value"] == "unknown" and d["certificates"] == [] and d["certified"] is None and d["bounds"]
        else:
            assert lines in out.splitlines()
        assert folder.is_dir() and not list(folder.iterdir())   # made before the search, left empty
    capsys.readouterr()


def test_a_solve_resumed_from_its_checkpoint_still_writes_its_certificates(tmp_path):
    argv = ["solve", "--cols", "4", "--rows", "4", "--k", "4", "--moves", "a1", "--weak", "--workers", "2",
            "--checkpoint", str(tmp_path / "j.db"), "--certificate", str(tmp_path / "c"), "--json"]
    for run_number in (1, 2):
        rc, out = run(argv)
        d = json.loads(out)
        assert rc == 0 and d["checkpoint"]["run"] == run_number and len(d["certificates"]) == 2
    rc, out = run(["verify", str(tmp_path / "c")])
    assert rc == 0 and out.splitlines()[-1].startswith("verified: draw")


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 3), GameSpec(5, 4, 4), GameSpec(4, 4, 3, True), GameSpec(6, 5, 4)],
                         ids=spec_id)
def test_the_walk_step_kernel_agrees_with_the_checker_s_rules_and_canonical_form(spec):
    """kernels/proofs/walk.py (rules 1 and 2, the canonical image by bit ranks) against
    the checker's plain Python (proofcheck/checked_game.py), on random positions and claims."""
    import numpy as np

    from parallel_mnk.runtime import families
    from parallel_mnk.game.geometry import build_context, symmetries
    from parallel_mnk.proofcheck.checked_game import Board
    from parallel_mnk.game.rules import format_board_text

    families.load("proofs")
    from parallel_mnk.kernels.proofs import walk

    board, ctx = Board(spec.cols, spec.rows, spec.k, spec.gravity), build_context(spec)
    maps, out = np.array(symmetries(spec), dtype=np.int64), np.zeros(3, dtype=np.uint64)
    seen = {walk.SETTLED: 0, walk.AGAINST: 0, walk.OPEN: 0}
    for pos in random_positions(spec, 150, (0, spec.cells), seed=7, keep_over=True, exact=False):
        flat = "".join(format_board_text(spec, pos.x, pos.o).split("/"))
        x_line, o_line = board.has_line(pos.x), board.has_line(pos.o)
        mover = "x" if pos.ply % 2 == 0 else "o"
        own, opp = (pos.x, pos.o) if mover == "x" else (pos.o, pos.x)
        for attacker in "xo":
            for claim in ("wins", "cannot-win"):
                claimant = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
                if x_line or o_line or "." not in flat:
                    want = walk.SETTLED if (x_line if attacker == "x" else o_line) == (claim == "wins") \
                        else walk.AGAINST
                elif mover == claimant and board.can_complete(flat, own, opp):
                    want = walk.SETTLED
                else:
                    want = walk.OPEN
                bits = (attacker == "o") | (claim == "wins") << 1
                got = walk.walk_step(ctx, maps, np.uint64(pos.x), np.uint64(pos.o), pos.ply, bits, out)
                assert got == want, (flat, attacker, claim)
                seen[got] += 1
                if got == walk.OPEN:
                    image = format_board_text(spec, int(out[0]), int(out[1])).replace("/", "")
                    moved = ["."] * spec.cells
                    for cell, target in enumerate(maps[int(out[2])]):
                        moved[target] = flat[cell]
                    assert image == board.canonical(flat)[0] == "".join(moved), flat
    assert min(seen.values()) > 0, seen   # every outcome met


@pytest.mark.parametrize("spec, moves", [(GameSpec(4, 4, 4), "a4,b3,c2"), (GameSpec(4, 3, 3), ""),
                                         (GameSpec(4, 4, 3, True), [])], ids=["4x4k4+3", "4x3k3", "4x4k3g"])
def test_a_certificate_written_by_two_workers_verifies_and_agrees_with_naive(tmp_path, spec, moves):
    """parallel/certify.py: the root's levels walked by the main process, the rest by
    two forked workers, records merged one a position and kept only where the
    checker's walk reaches them; the checker confirms it, uses every record, and its
    claims are naive.py's value."""
    from parallel_mnk.parallel.uses.certify import extract_parallel

    pos = Position.from_moves(spec, moves)
    truth = value_of_score(naive_score(spec, pos.x, pos.o))
    for attacker, claim in claims_of(pos, truth):
        cert = extract_parallel(pos, attacker, claim, tmp_path, tt_bits=16, workers=2)
        v = proofcheck.check_file(cert.path)
        assert (v.attacker, v.claim) == (attacker, claim) and (v.used, v.unused) == (cert.records, 0)
        assert len({r["p"] for r in lines_of(cert.path)[1:]}) == cert.records   # one record a position
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{a}-{c}.jsonl.xz" for a, c in claims_of(pos, truth))
