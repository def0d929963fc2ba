"""Exact answers past 64 cells (the big-board search, kernels/big): values, scores,
windows and moves against naive.py on small boards and on endgames of big ones,
wins by continuous fours and threats on 9x9 to 19x19 certified and checked by the
certificate checker, the limits, and bad input as one-line errors."""
from __future__ import annotations

import io
import random

import pytest

import big_cases
from bench.big_positions import endgames, fours_positions, threes_positions
from checks import check_fail_soft, random_positions, sign, spec_id, wins_in_one
from naive import naive_solver
from parallel_mnk import GameSpec, Limit, Move, Position, proofcheck, solve
from parallel_mnk.engines.exact.big import BigSearch
from parallel_mnk.frontends.cli import main
from parallel_mnk.game.rules import Value
from parallel_mnk import Options, Watch
from parallel_mnk.api.settings import Settings
from parallel_mnk.kernels.grid.layout import F_NEAR

SMALL = [GameSpec(4, 4, 3), GameSpec(4, 4, 4), GameSpec(4, 3, 3), GameSpec(3, 5, 3), GameSpec(4, 4, 3, True),
         GameSpec(5, 3, 3, True), GameSpec(4, 4, 4, True)]
WIDE = [GameSpec(9, 8, 4, True), GameSpec(8, 9, 4, True), GameSpec(10, 7, 4, True)]


def recorded(spec: GameSpec, count: int, seed: int, empty: tuple[int, int]) -> list[Position]:
    """``endgames(spec, count, seed, empty)`` as tests/big_cases.py records them (the
    slow test_the_recorded_positions_are_the_generators draws them again)."""
    return [Position.from_board(spec, text) for text in big_cases.ENDGAMES[spec_id(spec), count, seed, empty]]


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    try:
        return main(argv, stdin=io.StringIO(""), stdout=out), out.getvalue()
    except SystemExit as e:
        return int(e.code or 0), out.getvalue()


@pytest.mark.parametrize("spec", SMALL, ids=spec_id)
def test_scores_and_windows_match_naive_on_small_boards(spec):
    """Every rule of the search (win in one, the opponent's threats, the window, the
    table, fours) on boards naive.py solves whole: exact and weak scores of random
    positions, and fail-soft results in random windows."""
    naive = naive_solver(spec)
    rng = random.Random(7)
    search = BigSearch(spec, 14)
    for pos in random_positions(spec, 40, (max(0, spec.cells - 10), spec.cells - 2), seed=11, exact=False):
        truth = naive.score(pos.x, pos.o)
        assert search.score(pos.x, pos.o, weak=False) == truth, pos.board_text()
        assert search.score(pos.x, pos.o, weak=True) == sign(truth), pos.board_text()
        lo, hi = search.bounds(pos.x, pos.o, weak=False)
        alpha = rng.randint(lo - 1, hi)
        beta = rng.randint(alpha + 1, hi + 1)
        check_fail_soft(search.window(pos.x, pos.o, alpha, beta, weak=False), truth, alpha, beta, pos.board_text())
        check_fail_soft(search.window(pos.x, pos.o, 0, 1, weak=True), sign(truth), 0, 1, pos.board_text())


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 3), GameSpec(4, 4, 4, True), GameSpec(9, 9, 4)], ids=spec_id)
def test_the_unset_move_lists_of_a_state_change_no_search(spec, monkeypatch):
    """A state leaves its per-ply move and score lists unset (``game.geometry.empty_grid_state``):
    filled with cells, the big-board search's values, scores, moves and node counts, and
    the depth-limited engine's, are those of zeroed lists (and naive.py's values where
    it reaches)."""
    from parallel_mnk.engines import limited as LM
    from parallel_mnk.game import geometry
    from parallel_mnk.kernels.grid import layout as GL

    def filled(fill):
        def state(geo, turn=1):
            st = geometry.empty_grid_state(geo, turn)
            lists = st[int(geo[GL.G_S_MOVES]):]
            lists[:] = 0 if fill is None else fill.choices(range(spec.cells), k=len(lists))
            return st
        return state

    naive = naive_solver(spec) if spec.cells <= 16 else None
    positions = random_positions(spec, 12, (max(1, spec.cells - 11), spec.cells - 3) if naive else (4, 9), seed=5,
                                 exact=False)
    seen = []
    for fill in (None, random.Random(1), random.Random(2)):
        monkeypatch.setattr("parallel_mnk.engines.exact.big.empty_grid_state", filled(fill))
        monkeypatch.setattr("parallel_mnk.engines.limited.empty_grid_state", filled(fill))
        answers = []
        for pos in positions:
            search = BigSearch(spec, 14)
            search.node_limit = 60_000
            scores = (search.score(pos.x, pos.o, weak=True), search.score(pos.x, pos.o, weak=False))
            if naive and not search.aborted:
                assert scores == (sign(naive.score(pos.x, pos.o)), naive.score(pos.x, pos.o)), pos.board_text()
            answers.append((scores, search.nodes, search.root_best, search.aborted,
                            LM.count_search(spec, LM.state_of(pos), 3, LM.FULL | F_NEAR)))
        seen.append(answers)
    assert seen[1] == seen[0] and seen[2] == seen[0]


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 1), GameSpec(5, 4, 3, True), GameSpec(15, 15, 5)], ids=spec_id)
@pytest.mark.parametrize("turn", [1, 2])
def test_an_empty_grid_state_is_the_empty_board(spec, turn, monkeypatch):
    """``empty_grid_state`` on memory that held something else: every slot before the
    move lists is the empty board's (zero; the side to move and its hash key; with
    k = 1 each line a threat of both sides, in the counts and the line sets), the lists
    are left as they were."""
    import numpy as np
    from parallel_mnk.game import geometry
    from parallel_mnk.kernels.grid import layout as GL

    geo = geometry.build_grid_geometry(spec)
    monkeypatch.setattr(geometry.np, "empty", lambda size, dtype: np.full(size, 7, dtype=dtype))
    st = geometry.empty_grid_state(geo, turn)
    want = np.zeros(int(geo[GL.G_S_MOVES]), dtype=np.int64)
    want[GL.S_TURN] = turn
    want[GL.S_HASH] = 0 if turn == 1 else geo[geo[GL.G_OFF_ZOB] + 2 * spec.cells]
    want[GL.S_THREAT + 1] = want[GL.S_THREAT + 2] = geo[GL.G_NLINES] if spec.k == 1 else 0
    if spec.k == 1:
        words, every = int(geo[GL.G_SET_WORDS]), (1 << int(geo[GL.G_NLINES])) - 1
        for player in (1, 2):
            at = int(geo[GL.G_S_SETS]) + (GL.SET_FOURS + player - 1) * words
            want[at:at + words] = np.frombuffer(every.to_bytes(8 * words, "little"), dtype="<i8")
    assert st[:len(want)].tolist() == want.tolist()
    assert set(st[len(want):].tolist()) == {7} and len(st) == geo[GL.G_S_SIZE]


def _check_line(pos: Position, result, weak: bool) -> None:
    """``result``'s value and score against naive.py, and each move of its line keeping them."""
    naive = naive_solver(pos.spec)
    truth = naive.score(pos.x, pos.o)
    assert result.value == Value.WIN if truth > 0 else Value.LOSS if truth < 0 else Value.DRAW
    assert result.score == (None if weak else truth)
    walk = pos.copy()
    want = truth
    for move in result.pv:
        assert sign(naive.child_scores(walk.x, walk.o)[move]) == sign(want) if weak else \
            naive.child_scores(walk.x, walk.o)[move] == want, (pos.board_text(), result.pv)
        walk.push(move)
        want = -want
        if walk.is_game_over():
            break
    assert walk.is_game_over() or weak and not result.pv[1:], result.pv


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("spec", WIDE, ids=spec_id)
def test_wide_gravity_endgames_match_naive(spec, workers):
    """9x8, 8x9, 10x7 Connect Four positions with 9 empty cells (quiet: no line to
    complete at once): solve's value, score, best move and line as naive.py's
    minimax says (the target's boards), on one process and split at the root over two."""
    for pos in recorded(spec, 1, 3, (9, 9)):
        _check_line(pos, solve(pos, options=Options(tt_size="2M", workers=workers)), weak=False)
        _check_line(pos, solve(pos, weak=True, options=Options(tt_size="2M", workers=workers)), weak=True)


@pytest.mark.slow
@pytest.mark.parametrize("spec", WIDE, ids=spec_id)
def test_more_wide_gravity_endgames_match_naive(spec):
    """The same on 8 positions a board with 9-11 empty cells, 1 and 2 workers."""
    for pos in endgames(spec, 8, seed=4, empty=(9, 11)):
        for workers in (1, 2):
            _check_line(pos, solve(pos, options=Options(tt_size="2M", workers=workers)), weak=False)
            _check_line(pos, solve(pos, weak=True, options=Options(tt_size="2M", workers=workers)), weak=True)


@pytest.mark.parametrize("prover", ["search", "auto"])
@pytest.mark.parametrize("workers", [1, 2])
def test_free_big_board_endgames_match_naive(workers, prover):
    """9x8 k=5 (free placement, 72 cells) with 5-7 empty cells: two draws, two wins and,
    after a winner's best move, a loss for the side to move, by naive.py (a solver that
    always said draw, or always win, fails): weak (alpha-beta; by default the pn
    prover) and exact (alpha-beta, and by default a draw by pairings where both sides
    hold one)."""
    spec = GameSpec(9, 8, 5)
    naive = naive_solver(spec)
    cases = []
    for text, score in big_cases.MIXED:
        pos = Position.from_board(spec, text)
        assert naive.score(pos.x, pos.o) == score, text
        cases.append(pos)
    win = next(p for p in cases if naive.score(p.x, p.o) > 0)
    scores = naive.child_scores(win.x, win.o)
    loss = win.copy()
    loss.push(win.move_of_cell(max(scores, key=scores.__getitem__)))   # (no line completed at once: not over)
    cases.append(loss)
    assert {sign(naive.score(p.x, p.o)) for p in cases} == {1, 0, -1}
    paired = 0
    for pos in cases:
        for settings in (None, Settings(BIG_PN_PAIRING_LINES=0)):   # (0: alpha-beta alone, no draw by pairings)
            exact = solve(pos, options=Options(tt_size="2M", workers=workers, settings=settings))
            _check_line(pos, exact, weak=False)
            paired += exact.proof == "pairing"
        weak = solve(pos, weak=True, options=Options(tt_size="2M", workers=workers, prover=prover))
        assert weak.proof != "pn" if prover == "search" else weak.proof == "pn", weak.proof
        _check_line(pos, weak, weak=True)
    assert paired > 0   # (a draw where each side holds a pairing: the line by the pairings checked too)


@pytest.mark.slow
def test_the_recorded_positions_are_the_generators():
    """tests/big_cases.py holds what bench/big_positions.py draws."""
    from bench.big_positions import mixed_endgames
    for (name, count, seed, empty), texts in big_cases.ENDGAMES.items():
        spec = next(s for s in WIDE if spec_id(s) == name)
        assert [p.board_text() for p in endgames(spec, count, seed, empty)] == texts, (name, count, seed, empty)
    spec = GameSpec(9, 8, 5)
    naive = naive_solver(spec)
    drawn = mixed_endgames(spec, 5, (6, 7), {1: 2, 0: 2}, lambda p: naive.score(p.x, p.o))
    assert [(p.board_text(), s) for p, s in drawn] == big_cases.MIXED


@pytest.mark.parametrize("prover, proof", [("search", "threats"), ("auto", "pn")])
@pytest.mark.parametrize("size", [9, 15, 19])
def test_wins_by_fours_are_certified(size, prover, proof, tmp_path):
    """k=5 positions whose side to move wins by continuous fours (3-14 of them):
    solve answers win with a first move, and its certificate passes the checker
    (alpha-beta's threat search at the root; by default past 64 cells the pn prover)."""
    for i, (pos, fours) in enumerate(fours_positions(size, 3, seed=size)):
        folder = tmp_path / f"{i}"
        result = solve(pos, weak=True, options=Options(certificate=folder, prover=prover))
        assert result.value is Value.WIN and result.proof == proof, (pos.board_text(), fours)
        assert result.best_move in pos.legal_moves
        out = io.StringIO()
        assert proofcheck.main([str(folder)], out=out) == 0, out.getvalue()
        assert out.getvalue().startswith("verified: ")
        assert (folder / f"{'x' if pos.turn == 1 else 'o'}-wins.jsonl.xz").stat().st_size < 4096


@pytest.mark.parametrize("prover", ["search", "auto"])
@pytest.mark.parametrize("workers", [1, 2])
def test_wins_by_fours_on_two_workers(workers, prover):
    """The same on the pool: a win, its line a legal game that ends in the mover's line."""
    for pos, _ in fours_positions(15, 3, seed=21):
        result = solve(pos, weak=True, options=Options(workers=workers, prover=prover))
        assert result.value is Value.WIN
        walk = pos.copy()
        for move in result.pv:
            walk.push(move)
        assert walk.outcome() is not None and walk.outcome().winner == pos.turn


@pytest.mark.parametrize("prover", ["search", "auto"])
def test_wins_by_threats_are_certified(tmp_path, prover):
    """15x15 positions that need threes as well (threat-space search): win, certified
    (alpha-beta's threat search at the root; by default the pn prover)."""
    for i, (pos, threes) in enumerate(threes_positions(15, 3, seed=4)):
        folder = tmp_path / f"{i}"
        result = solve(pos, weak=True, options=Options(certificate=folder, prover=prover))
        assert result.value is Value.WIN, (pos.board_text(), threes)
        out = io.StringIO()
        assert proofcheck.main([str(folder)], out=out) == 0, out.getvalue()


def test_gravity_values_past_64_cells_are_certified(tmp_path):
    """Wins, losses and draws of 9x8 endgames: the certificates of each value pass the checker."""
    for i, pos in enumerate(recorded(GameSpec(9, 8, 4, True), 2, 9, (8, 8))):
        folder = tmp_path / f"{i}"
        result = solve(pos, weak=True, options=Options(certificate=folder, tt_size="2M"))
        assert result.certificates
        out = io.StringIO()
        assert proofcheck.main([str(folder)], out=out) == 0, out.getvalue()


@pytest.mark.parametrize("prover", ["search", "auto"])
def test_a_limit_answers_unknown_with_bounds_and_a_move_so_far(prover):
    """The empty 15x15 board within 2,000 nodes: unknown, never a guess, with the bounds
    proved (nothing: the widest) and a move so far (the centre: where alpha-beta begins,
    the pn prover's judge's first choice)."""
    result = solve(Position(GameSpec(15, 15, 5)), Limit(nodes=2000), weak=True, options=Options(prover=prover))
    assert result.value is Value.UNKNOWN and result.nodes >= 2000
    assert result.bounds == (-1, 1) and result.best_move == "h8"
    exact = solve(Position(GameSpec(15, 15, 5)), Limit(nodes=2000))
    assert exact.bounds == (-112, 113) and exact.best_move == "h8"


@pytest.mark.parametrize("spec", [GameSpec(4, 4, 4), GameSpec(4, 4, 4, True), GameSpec(5, 4, 4, True)], ids=spec_id)
def test_a_stopped_search_proves_bounds_that_hold(spec):
    """The bounds a search stopped by its node budget reads off its children's table
    entries (:meth:`BigSearch.so_far`) hold the true score (naive.py's), weak and exact,
    and narrow at least once; the move so far is legal, and where a bound names it, its
    own value (naive.py's) is at least that bound."""
    naive = naive_solver(spec)
    narrowed = stopped = 0
    emptiest = 14 if spec.gravity else 11   # (naive.py's tree of a free 4x4 board with 14 empty cells: a minute)
    for pos in random_positions(spec, 25, (spec.cells - emptiest, spec.cells - 8), seed=13, exact=False):
        for weak in (False, True):
            truth = naive.score(pos.x, pos.o)
            truth = sign(truth) if weak else truth
            for budget in (1100, 2100):   # (the kernel reads its budget every 1024 nodes)
                search = BigSearch(spec, 14)
                search.node_limit = budget
                search.score(pos.x, pos.o, weak)
                if not search.aborted:
                    continue
                stopped += 1
                (lo, hi), cell = search.so_far(pos.x, pos.o, weak)
                where = (pos.board_text(), weak, budget, (lo, hi), truth)
                assert lo <= truth <= hi, where
                move = pos.move_of_cell(cell)
                assert move in pos.legal_moves, where
                widest = search.bounds(pos.x, pos.o, weak)
                if lo > widest[0]:   # the move that proved the lower bound is worth it
                    child = naive.child_scores(pos.x, pos.o)[int(move)]
                    assert (sign(child) if weak else child) >= lo, where
                narrowed += (lo, hi) != widest
    assert stopped >= 5 and narrowed > 0, (stopped, narrowed)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_big_solve_answers_bounds_that_hold_and_a_legal_move(workers):
    """A wide Connect Four endgame (past 64 cells) whose solve is stopped at once (a watch
    stopped before it starts), on one process and split over two: unknown, the true score
    (naive.py's) within the bounds, a legal move so far; the empty 15x15 board after 2,000
    nodes: unknown, nothing proved, a central move."""
    spec = WIDE[0]
    naive = naive_solver(spec)
    pos = recorded(spec, 1, 21, (11, 11))[0]
    truth = naive.score(pos.x, pos.o)
    for weak in (False, True):
        watch = Watch()
        watch.stop()
        r = solve(pos, weak=weak, options=Options(tt_size="2M", workers=workers, watch=watch))
        want = sign(truth) if weak else truth
        if r.value.known:   # (a search faster than the watch's first look: then it must be right)
            assert (r.score if not weak else r.value.rank) == want, r
            continue
        lo, hi = r.bounds
        assert lo <= want <= hi, (pos.board_text(), weak, r.bounds, truth)
        assert r.best_move in pos.legal_moves
    stopped = solve(Position(GameSpec(15, 15, 5)), Limit(nodes=2000), weak=True, options=Options(workers=workers))
    assert stopped.value is Value.UNKNOWN and stopped.bounds == (-1, 1) and stopped.best_move in ("h8", "g8", "i8")


@pytest.mark.parametrize("prover, proof", [("search", "wins by continuous fours"), ("auto", "proof-number search")])
def test_cli_solves_a_gomoku_position(prover, proof):
    """A win by fours on 15x15: the value, the prover that proved it, and a line that
    is the win: each attacker's move a four until the five (the defender blocking)."""
    pos, _ = fours_positions(15, 1, seed=15)[0]
    rc, out = run(["solve", "--cols", "15", "--rows", "15", "--k", "5", "--board", pos.board_text(), "--weak",
                   "--prover", prover])
    assert rc == 0 and "value: win" in out and f"proof: {proof}" in out, out
    line = next(s for s in out.splitlines() if s.startswith("best line: ")).split()[2:]
    walk = pos.copy()
    for i, name in enumerate(line):
        if i % 2 == 1:   # (the defender's move blocks the four the attacker's last move made)
            attacker, defender = (walk.x, walk.o) if pos.turn == 1 else (walk.o, walk.x)
            assert int(Move.parse(pos.spec, name)) in wins_in_one(pos.spec, attacker, defender), (line, i)
        walk.push(name)
    assert walk.outcome() is not None and walk.outcome().winner == pos.turn, line


def test_a_finished_big_position_says_game_over():
    board = "xxxxx........../oooo.........../" + "/".join(["..............."] * 13)
    rc, out = run(["solve", "--cols", "15", "--rows", "15", "--k", "5", "--board", board])
    assert rc == 0 and "game over: loss for O" in out, out


def test_cli_limit_on_the_empty_board_exits_3():
    rc, out = run(["solve", "--cols", "15", "--rows", "15", "--k", "5", "--moves", "", "--weak",
                   "--time-limit", "0.5"])
    assert rc == 3 and "unknown" in out


@pytest.mark.parametrize("argv, words", [
    (["--cols", "27", "--rows", "3", "--k", "3"], "26"),
    (["--cols", "15", "--rows", "15", "--k", "16"], "k"),
    (["--cols", "15", "--rows", "15", "--k", "5", "--board",
      "xxxxx........../ooooo........../" + "/".join(["..............."] * 13)], "both players"),
    (["--cols", "15", "--rows", "15", "--k", "5", "--moves", "h8,a1,i8,a2,j8,a3,k8,a4,l8,a5,m8"], "ended"),
    (["--cols", "15", "--rows", "15", "--k", "5", "--moves", "", "--prover", "dfpn", "--weak"], "64 cells"),
    (["--cols", "15", "--rows", "15", "--k", "5", "--moves", "", "--checkpoint", "/tmp/x.journal"], "64 cells"),
])
def test_bad_input_past_64_cells_is_one_line(argv, words, capsys):
    rc, _ = run(["solve", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err and words in err, err


def test_analyze_wide_gravity_matches_naive():
    """analyze on 9x8 endgames: every move's exact score as naive.py's, all proved."""
    from parallel_mnk import analyze
    spec = GameSpec(9, 8, 4, True)
    for pos in recorded(spec, 2, 13, (9, 9)):
        a = analyze(pos, options=Options(tt_size="2M"))
        assert a.complete
        truth = naive_solver(spec).child_scores(pos.x, pos.o)
        assert {m.move: m.score for m in a.moves} == truth, pos.board_text()


def test_analyze_a_gomoku_position_finds_the_winning_fours():
    """analyze --weak within a time limit on a 15x15 position with a win by fours:
    every move it proves a win is a win (its solve after the move is a loss for the
    opponent), and some move is proved a win."""
    from parallel_mnk import analyze
    pos, _ = fours_positions(15, 1, seed=31)[0]
    a = analyze(pos, Limit(time=3), weak=True)   # (here about 199 of its 202 moves are settled in 2 s)
    wins = [m.move for m in a.moves if m.value is Value.WIN]
    assert wins
    for move in wins[:3]:
        child = pos.copy()
        child.push(move)
        assert child.outcome() is not None or solve(child, weak=True).value is Value.LOSS


def test_serve_solves_past_64_cells():
    """The web API's solve and analyze on a 9x8 endgame: naive.py's value."""
    import http.client
    import json
    from checks import web_server
    pos = recorded(GameSpec(9, 8, 4, True), 1, 17, (9, 9))[0]
    truth = naive_solver(pos.spec).score(pos.x, pos.o)
    want = "win" if truth > 0 else "loss" if truth < 0 else "draw"
    with web_server(max_time=30, book="none") as server:
        conn = http.client.HTTPConnection(*server.server_address[:2], timeout=60)
        conn.request("GET", f"/api/solve?cols=9&rows=8&k=4&gravity=1&board={pos.board_text()}")
        body = json.loads(conn.getresponse().read())
        conn.close()
    assert body["value"] == want and body["score"] == truth, body


@pytest.mark.parametrize("board", ["15x15", "3x3"])
def test_a_certificate_path_that_is_a_file_is_refused_before_the_search(board, tmp_path, capsys):
    """Issue 46's FileExistsError after the solve: now a one-line error before it, on both paths."""
    path = tmp_path / "r.md"
    path.write_text("")
    game = ["--cols", "15", "--rows", "15", "--k", "5"] if board == "15x15" else ["--game", "tictactoe"]
    rc, out = run(["solve", *game, "--moves", "", "--weak", "--workers", "1", "--certificate", str(path)])
    err = capsys.readouterr().err
    assert rc == 2 and out == "" and err.count("\n") == 1 and "is a file" in err, err
