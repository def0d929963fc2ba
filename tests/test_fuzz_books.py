"""Generated damage to opening books, the SQLite files of ``parallel-mnk book build``
(tests/fuzzing.py is the harness): real books of two small games, then a table
dropped, a meta row deleted or changed (format, game, plies: another number, a
huge one, text), an entry's score, best move, ply or key changed (another number,
text, NULL, a blob), a junk row added; or the file's bytes flipped, a page zeroed,
the file cut or followed by junk, or replaced by random bytes.

Whatever the file, ``solve --book FILE`` on a position the book covers answers right
(naive's value and score, a legal best move that keeps the score) or stops with
one error line (exit 2), and ``book info`` answers or stops with one error line;
never a traceback, never a hang.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, byte_damage, damage_file, fresh_copy, fuzz, memory_folder, one_line_error, run_cli
from naive import naive_solver
from parallel_mnk import GameSpec, Position
from parallel_mnk.game.rules import move_list_text, move_index

GAMES = [(GameSpec(3, 3, 3), 4), (GameSpec(4, 4, 3, gravity=True), 3)]   # (game, plies of its book)
values = st.one_of(st.integers(-3, 20), st.sampled_from([10 ** 30, -2 ** 63, 2 ** 63 - 1, 1.5, None, b"\x00x", "",
                                                         "x", "3", "1", "parallel-mnk-book/1", "x../.../..."]),
                   st.text(max_size=5))
META = ["format", "cols", "rows", "k", "gravity", "plies", "complete"]
ENTRY = ["key", "ply", "score", "best_move", "nodes", "checksum"]
damage = st.one_of(
    st.tuples(st.just("drop"), st.sampled_from(["meta", "entries"])),
    st.tuples(st.just("meta"), st.sampled_from(META), values),
    st.tuples(st.just("unmeta"), st.sampled_from(META)),
    st.tuples(st.just("entry"), st.integers(0, 10 ** 6), st.sampled_from(ENTRY), values),
    st.tuples(st.just("entry"), st.integers(0, 10 ** 6), st.sampled_from(["score", "best_move"]), st.integers(-9, 9)),
    st.tuples(st.just("row"), st.lists(values, min_size=6, max_size=6)),
    byte_damage)
cases = st.tuples(st.integers(0, len(GAMES) - 1), st.lists(damage, min_size=1, max_size=3),
                  st.lists(st.integers(0, 15), max_size=4)).map(list)


def game_args(spec: GameSpec) -> list[str]:
    return ["--cols", str(spec.cols), "--rows", str(spec.rows), "--k", str(spec.k)] + \
        (["--gravity"] if spec.gravity else [])


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    """A book file of each of GAMES, built by the CLI."""
    paths = []
    for i, (spec, plies) in enumerate(GAMES):
        path = tmp_path_factory.mktemp("books") / f"book{i}.sqlite"
        code, _, err = run_cli(["book", "build", *game_args(spec), "--plies", str(plies), "--out", str(path),
                                "--workers", "1", "--leaf-book", "none"])
        assert code == 0, err
        paths.append(path)
    return paths


def _edit(db, how) -> None:
    """One SQL damage of a book (a table, a meta row, an entry's field, a junk row)."""
    name = how[0]
    if name == "drop":
        db.execute(f"DROP TABLE {how[1]}")
    elif name == "meta":
        db.execute("UPDATE meta SET value = ? WHERE name = ?", (how[2], how[1]))
    elif name == "unmeta":
        db.execute("DELETE FROM meta WHERE name = ?", (how[1],))
    elif name == "entry":
        keys = [k for (k,) in db.execute("SELECT key FROM entries ORDER BY key")]
        if keys:
            db.execute(f"UPDATE OR REPLACE entries SET {how[2]} = ? WHERE key = ?",
                       (how[3], keys[how[1] % len(keys)]))
    else:
        db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)", tuple(how[1]))


def apply(path, how) -> None:
    """Damage the book at ``path`` as ``how`` says (SQL on the file, or its bytes)."""
    damage_file(path, how, _edit)


def position_in(spec: GameSpec, plies: int, choices: list[int]) -> Position:
    """A position of at most ``plies`` stones reached by ``choices`` (indexes into the legal moves)."""
    pos = Position(spec)
    for c in choices[:plies]:
        if pos.is_game_over():
            break
        moves = list(pos.legal_moves)
        pos.push(moves[c % len(moves)])
    return pos


def book_property(books, tmp_dir):
    def prop(case) -> bool:   # True: the solve answered (from what is left of the book, or by search)
        which, damages, choices = case
        spec, plies = GAMES[which]
        path = tmp_dir / f"damaged{which}.sqlite"
        fresh_copy(books[which], path)
        for how in damages:
            apply(path, how)
        from parallel_mnk.engines.books import choose
        choose._open.clear()   # the CLI opens a book once per process: this one is new
        pos = position_in(spec, plies, choices)
        code, out, err = run_cli(["solve", *game_args(spec), f"--moves={move_list_text(spec, pos.move_stack)}",
                                  "--book", str(path), "--workers", "1", "--json", "--no-progress"])
        choose._open.clear()
        assert "Traceback" not in err and code in (0, 2), (code, out, err)
        answered = code == 0
        if code == 2:
            one_line_error(err)
        else:
            answer = json.loads(out)
            naive = naive_solver(spec)
            truth = naive.score(pos.x, pos.o)
            assert answer["score"] == truth, (answer, truth, damages)
            if answer["best_move"] is not None:
                move = move_index(spec, answer["best_move"])
                assert naive.child_scores(pos.x, pos.o).get(move) == truth, (answer, truth, damages)
        code, out, err = run_cli(["book", "info", str(path), "--json"])
        assert "Traceback" not in err and code in (0, 2), (code, out, err)
        if code == 2:
            one_line_error(err)
        return answered
    return prop


@pytest.mark.parametrize("examples", BUDGETS)
def test_damaged_books(examples, books, tmp_path):
    with memory_folder(tmp_path) as folder:   # (the damaged copies in memory: no disk syncs)
        fuzz("books", cases, book_property(books, folder), examples)
