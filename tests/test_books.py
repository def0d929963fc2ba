"""Opening books: our own (built, resumed, checked against naive.py), Thill's 12-ply
Connect Four database (its values mapped to our scores, checked against our
search), and the ``--book`` option of the front ends."""
from __future__ import annotations

import io
import json
import random
import sqlite3

import pytest

from checks import check_best_move, check_pv, random_positions, serial_score
from naive import naive_score
from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.game.geometry import map_stones
from parallel_mnk.game.moves import Move
from parallel_mnk.entrance import analyze
from parallel_mnk.engines.books import base, choose, thill
from parallel_mnk.engines.books.base import canonical, positions_by_ply
from parallel_mnk.engines.books.store import BookFile
from parallel_mnk.frontends.cli import main
from parallel_mnk.game.rules import MnkError
from parallel_mnk.entrance import build_book
from parallel_mnk import Options

FREE = GameSpec(4, 3, 3, False)
GRAVITY = GameSpec(5, 4, 3, True)
C4 = GameSpec(7, 6, 4, True)
needs_thill = pytest.mark.skipif(thill.installed_path() is None,
                                 reason="bitbully-databases (the 'books' extra) is not installed")


def run(argv: list[str]) -> tuple[int, str]:
    """The exit status and standard output of ``parallel-mnk argv``."""
    out = io.StringIO()
    return main(argv, stdin=io.StringIO(""), stdout=out), out.getvalue()


def _entries(book: BookFile) -> dict[str, tuple[int, int, int]]:
    return {key: (ply, score, move) for key, ply, score, move, _ in book.rows()}


@pytest.mark.parametrize("spec,plies", [(FREE, 4), (GRAVITY, 4)], ids=["free-4x3k3", "gravity-5x4k3"])
def test_a_built_book_holds_every_position_with_naive_scores_and_best_moves(tmp_path, spec, plies):
    book, report = build_book(spec, plies, tmp_path / "b.sqlite", options=Options(tt_size="512K"))
    layers = dict(positions_by_ply(spec, plies))
    assert report.entries == sum(len(v) for v in layers.values()) == book.stats()["entries"]
    assert report.leaves == len(layers[plies]) and report.derived == report.entries - report.leaves
    for ply, positions in layers.items():
        for pos in positions:
            answer = book.answer(pos)
            assert answer is not None, pos
            assert answer.score == naive_score(spec, pos.x, pos.o), pos
            check_best_move(pos, answer.best_move, answer.score, weak=False)
    assert book.complete
    book.close()


def test_every_symmetric_image_reads_its_own_best_move(tmp_path):
    spec = GameSpec(4, 4, 3, False)
    book, _ = build_book(spec, 2, tmp_path / "b.sqlite", options=Options(tt_size="512K"))
    for pos in random_positions(spec, 6, 2, seed=3):
        answer = book.answer(pos)
        for perm in base.symmetries(spec):
            image = Position(spec)
            image.x, image.o = map_stones(pos.x, perm), map_stones(pos.o, perm)
            assert canonical(image).key == canonical(pos).key
            moved = book.answer(image)
            assert moved is not None and moved.score == answer.score
            check_best_move(image, moved.best_move, moved.score, weak=False)


def test_a_killed_build_resumes_without_losing_an_entry(tmp_path, monkeypatch):
    out = tmp_path / "b.sqlite"
    whole, _ = build_book(GRAVITY, 4, tmp_path / "whole.sqlite", options=Options(tt_size="512K"))
    real = BookFile.add
    calls = {"n": 0}

    def dies_after_ten(self, rows):
        calls["n"] += 1
        if calls["n"] > 10:
            raise KeyboardInterrupt
        real(self, rows)

    monkeypatch.setattr(BookFile, "add", dies_after_ten)
    with pytest.raises(KeyboardInterrupt):
        build_book(GRAVITY, 4, out, options=Options(tt_size="512K"))
    monkeypatch.setattr(BookFile, "add", real)
    with pytest.raises(MnkError, match="--checkpoint"):
        build_book(GRAVITY, 4, out, options=Options(tt_size="512K"))
    book, report = build_book(GRAVITY, 4, out, resume=True, options=Options(tt_size="512K"))
    assert report.resumed == 10 and report.entries == len(_entries(whole)) - 10
    scores = {k: v[:2] for k, v in _entries(book).items()}   # (best moves may be other moves of equal score)
    assert scores == {k: v[:2] for k, v in _entries(whole).items()}


def test_the_pool_builds_the_same_book_with_every_position_one_task(tmp_path):
    serial, _ = build_book(GRAVITY, 5, tmp_path / "s.sqlite", options=Options(tt_size="512K"))
    pooled, report = build_book(GRAVITY, 5, tmp_path / "p.sqlite", options=Options(workers=2, tt_size="512K"))
    assert {k: v[:2] for k, v in _entries(pooled).items()} == {k: v[:2] for k, v in _entries(serial).items()}
    assert sum(w[1] for w in report.per_worker) == report.leaves
    for key, (ply, score, _) in list(_entries(pooled).items())[:40]:
        pos = Position.from_board(GRAVITY, key)
        check_best_move(pos, pooled.answer(pos).best_move, score, weak=False)


def test_a_position_past_the_task_limit_is_solved_by_the_pools_split(tmp_path, monkeypatch):
    book, report = build_book(GameSpec(5, 5, 4, True), 2, tmp_path / "b.sqlite", task_nodes=1, options=Options(workers=2, tt_size="512K"))
    assert report.split_leaves > 0 and report.leaves + report.split_leaves == book.stats()["entries_per_ply"]["2"]
    for key, ply, score, _, _ in book.rows():
        assert score == serial_score(Position.from_board(book.spec, key))


def test_solve_and_analyze_answer_from_a_book_as_the_search_does(tmp_path):
    build_book(GRAVITY, 4, tmp_path / "b.sqlite", options=Options(tt_size="512K"))[0].close()
    path = str(tmp_path / "b.sqlite")
    for pos in random_positions(GRAVITY, 8, (0, 4), seed=5):
        r = solve(pos, options=Options(book=path, tt_size="512K"))
        assert r.proof == "book" and r.score == serial_score(pos)
        assert r.pv and r.pv[0] == r.best_move   # the line goes on past the book by search
        a, plain = analyze(pos, options=Options(book=path, tt_size="512K")), analyze(pos, options=Options(tt_size="512K"))
        assert [m.score for m in a.moves] == [m.score for m in plain.moves]
        assert a.to_dict()["proof"] == ("book" if pos.ply < 4 else None)   # (the children of ply 4 are not in it)
    deep = random_positions(GRAVITY, 1, 6, seed=1, quiet=True)[0]
    assert solve(deep, options=Options(book=path, tt_size="512K")).proof != "book"


def test_bad_books_and_bad_builds_are_one_line_errors(tmp_path, capsys):
    path = tmp_path / "b.sqlite"
    build_book(GRAVITY, 2, path, options=Options(tt_size="512K"))[0].close()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 50)
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    cases = [["solve", "--game", "connect4", "--moves", "4", "--book", str(path)],   # another game
             ["solve", "--cols", "5", "--rows", "4", "--k", "3", "--gravity", "--book", str(junk)],
             ["analyze", "--cols", "5", "--rows", "4", "--k", "3", "--gravity", "--book", str(empty)],
             ["book", "info", str(tmp_path / "missing.sqlite")],
             ["book", "build", "--cols", "3", "--rows", "3", "--k", "3", "--plies", "9", "--out", str(tmp_path / "x")],
             ["book", "build", "--cols", "5", "--rows", "4", "--k", "3", "--gravity", "--plies", "3",
              "--out", str(path), "--workers", "1"],   # another book's file
             ["book", "build", "--game", "connect4", "--plies", "2"],
             ["book", "info"], ["book", "check", str(path), "--sample", "-3"]]
    for argv in cases:
        assert run(argv)[0] == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("parallel-mnk: error:") and err.count("\n") == 1, (argv, err)
    with pytest.raises(MnkError, match="not Thill"):
        thill.ThillBook(junk)


def test_the_book_commands_build_describe_and_check(tmp_path):
    out = str(tmp_path / "b.sqlite")
    rc, text = run(["book", "build", "--cols", "4", "--rows", "3", "--k", "3", "--plies", "3", "--out", out,
                    "--workers", "1", "--json"])
    built = json.loads(text)
    assert rc == 0 and built["complete"] and built["entries"] == sum(built["entries_per_ply"].values())
    rc, text = run(["book", "info", out, "--json"])
    assert rc == 0 and json.loads(text)["entries"] == built["entries"]
    rc, text = run(["book", "check", out, "--sample", "5", "--workers", "1", "--json"])
    assert rc == 0 and json.loads(text) | {"time_s": 0} == {"checked": 5, "wrong": [], "damaged": [], "time_s": 0}
    book = BookFile.create(out, GameSpec(4, 3, 3), 3, resume=True)   # entries written wrong, checksums and all
    book.add([(key, ply, score + 1, move, nodes) for key, ply, score, move, nodes in book.rows()])
    book.close()
    rc, text = run(["book", "check", out, "--sample", "3", "--workers", "1", "--json"])
    assert rc == 1 and len(json.loads(text)["wrong"]) == 3   # found by solving them again
    db = sqlite3.connect(out)   # edited entries: their checksums do not match
    with db:
        db.execute("UPDATE entries SET score = score - 1 WHERE ply = 3")
        edited = db.execute("SELECT COUNT(*) FROM entries WHERE ply = 3").fetchone()[0]
    db.close()
    rc, text = run(["book", "check", out, "--sample", "3", "--workers", "1", "--json"])
    assert rc == 1 and len(json.loads(text)["damaged"]) == edited > 0
    rc, _ = run(["solve", "--cols", "4", "--rows", "3", "--k", "3", "--moves", "a1,b1,c1", "--book", out])
    assert rc == 2   # a lookup of a damaged entry is an error, not its score


# ------------------------------------------------------------------ Thill's database
@needs_thill
def test_thills_values_map_to_our_scores_on_positions_the_test_picks():
    book = choose.open_book(C4, "auto")
    rng = random.Random(12)
    positions = random_positions(C4, 10, 12, rng=rng, quiet=True) + random_positions(C4, 6, (9, 11), rng=rng,
                                                                                       quiet=True)
    for pos in positions:
        assert book.score(pos) == solve(pos, options=Options(book="none", pv=False)).score, pos


@needs_thill
def test_thill_answers_the_empty_board_and_its_moves_as_known():
    a = analyze(Position(C4), options=Options(book="auto"))
    assert [m.score for m in a.moves] == [-2, -1, 0, 1, 0, -1, -2] and a.to_dict()["proof"] == "book"
    r = solve(Position.from_moves(C4, "44"), options=Options(book="auto"))
    assert (r.score, r.proof) == (1, "book")
    middle = random_positions(C4, 1, 10, seed=2, quiet=True)[0]
    assert solve(middle, options=Options(book="auto")).proof == "book" and solve(middle, options=Options(book="none")).proof != "book"


@needs_thill
def test_thills_own_line_past_its_plies_is_perfect():
    """The line a book answer gives with the solver's kernels not compiled: the
    database's search from the book's last position, each move held to the serial
    solver's scores; from positions at the book's ply and past it."""
    book = choose.open_book(C4, "auto")
    rng = random.Random(7)
    for pos in random_positions(C4, 1, 12, rng=rng, quiet=True) + random_positions(C4, 2, (16, 24), rng=rng,
                                                                                     quiet=True):
        score = serial_score(pos)
        line = book.line_past(pos, score)
        check_pv(pos, [Move(C4, m) for m in line], score)
    with pytest.raises(AssertionError, match="no move keeps the score"):   # a score that is not the position's
        book.line_past(pos, score + 1)


@needs_thill
def test_a_first_book_answer_compiles_only_the_books_kernels(monkeypatch):
    """With the solver's kernels not compiled, a solve the book answers loads the
    book's family alone and its line is the book's own (perfect); once they are
    compiled, the line past the book is the solver's search."""
    from parallel_mnk.runtime import families
    loaded: list[tuple[str, ...]] = []
    real_load = families.load
    monkeypatch.setattr(families, "load", lambda *names, **kw: loaded.append(names) or real_load(*names, **kw))
    monkeypatch.setattr(families, "cached", lambda *names: set())   # as on an empty cache
    pos = Position.from_moves(C4, "4453")
    r = solve(pos, options=Options(book="auto"))
    assert r.proof == "book" and r.score == -2 and r.nodes > 0
    assert {n for names in loaded for n in names} == {"book_search"}, loaded
    at_12 = pos.copy()
    for move in r.pv[:8]:   # (the book's own answers up to its ply: checked above)
        at_12.push(move)
    check_pv(at_12, r.pv[8:], r.score)   # the book's search past it
    monkeypatch.setattr(families, "cached", lambda *names: set(names))   # compiled
    searched = solve(pos, options=Options(book="auto"))
    assert searched.score == -2 and families.exact_family(C4) in {n for names in loaded for n in names}
    assert searched.pv[:12] == r.pv[:12] and searched.nodes < r.nodes   # the book's plies, then the solver's search


@needs_thill
def test_the_best_command_reads_the_book():
    rc, text = run(["best", "--game", "connect4", "--moves", "", "--json"])
    assert rc == 0 and json.loads(text) == {"best_move": "4", "score": 1, "proof": "book",
                                                   "book": "thill-12ply"}


@needs_thill
def test_a_connect_four_book_built_on_thills_leaves(tmp_path):
    book, report = build_book(C4, 2, tmp_path / "c4.sqlite", options=Options(workers=2, tt_size="512K", book="auto"))
    assert book.stats()["entries_per_ply"] == {"0": 1, "1": 4, "2": 25} and report.leaves == 25
    assert all(nodes == 0 for _, ply, _, _, nodes in book.rows() if ply < 2)   # the lower plies from their children
    assert book.answer(Position(C4)).score == 1 and book.answer(Position(C4)).best_move == 3


@needs_thill
def test_the_web_board_gets_the_starts_scores_from_the_book():
    from checks import web_server
    import urllib.request

    with web_server(book="auto") as server:
        with urllib.request.urlopen(server.url + "api/analyze?game=connect4&moves=4") as r:
            d = json.loads(r.read())
    assert d["scores"] == [-4, -2, -2, -1, -2, -2, -4] and d["proof"] == "book"   # (our search: 48 s, 277 M nodes)


def test_a_build_that_fails_before_its_first_entry_leaves_no_file(tmp_path, monkeypatch):
    import parallel_mnk.entrance as solver_module

    def no_backend(*args, **kw):
        raise MnkError("the ray backend needs Ray")

    monkeypatch.setattr(solver_module, "build", no_backend)
    with pytest.raises(MnkError, match="needs Ray"):
        build_book(GRAVITY, 2, tmp_path / "b.sqlite", options=Options(tt_size="512K"))
    assert list(tmp_path.iterdir()) == []   # a rerun needs no --checkpoint
