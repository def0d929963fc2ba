"""The proof-number prover past 64 cells (parallel_mnk/parallel/uses/big_pn.py,
engines/provers/big_threats.py): its answers against naive.py on small boards (the
array board takes any size), its zone rule against naive.py move by move, wins
on 15x15 certified and verified, the journal, the CLI."""
from __future__ import annotations

import io
import random

import pytest

from bench.big_positions import threes_positions
from checks import random_positions
from fuzzing import run_cli
from naive import naive_score
from parallel_mnk import GameSpec, Limit, Options, Position, proofcheck, solve
from parallel_mnk.api.settings import DEFAULTS, applied
from parallel_mnk.engines.provers.big_threats import OPEN, Judge
from parallel_mnk.game.rules import Value
from parallel_mnk.engines.provers.big_certificate import extract_big
from parallel_mnk.parallel.scheduling.big_pn_journal import BigPnJournal
from parallel_mnk.parallel.uses.big_pn import ThreatProof

SMALL = [  # (spec, positions, stones): boards naive.py answers at once (the bigger two: slow)
    (GameSpec(3, 3, 3), 8, (0, 4)),
    (GameSpec(4, 4, 3), 5, (1, 6)),
    pytest.param(GameSpec(5, 4, 4), 4, (8, 10), marks=pytest.mark.slow),
    pytest.param(GameSpec(5, 5, 4), 5, (12, 14), marks=pytest.mark.slow),
]


def _questions(spec: GameSpec, count: int, stones: tuple[int, int], seed: int):
    """(position, attacker, does it win by naive.py) for both sides of random positions."""
    for pos in random_positions(spec, count, stones, seed=seed, quiet=True):
        score = naive_score(spec, pos.x, pos.o)
        mover = "x" if pos.ply % 2 == 0 else "o"
        yield pos, mover, score > 0
        yield pos, ("o" if mover == "x" else "x"), score < 0


@pytest.mark.parametrize("dfpn,eps", [(0, 0.0), (48, 0.0), (1 << 20, 0.0), (0, 0.25)],
                         ids=["judge-jobs", "small-dfpn-jobs", "dfpn-jobs", "judge-jobs-eps"])
@pytest.mark.parametrize("spec,count,stones", SMALL, ids=lambda v: str(v) if isinstance(v, tuple) else None)
def test_answers_match_naive_on_small_boards(spec, count, stones, dfpn, eps, use_settings):
    """Both questions of random positions, with a small threat search (so that the
    tree, its zones and its transpositions decide most of them), its jobs judging a
    leaf's moves (the tree best first, or keeping to a node's last child within 1 + eps),
    or df-pn below it of a few nodes (the tree then grows) or of many (df-pn decides):
    naive.py's answer."""
    use_settings(BIG_PN_TREE_EPS=eps)
    for pos, attacker, truth in _questions(spec, count, stones, seed=spec.cells):
        got = ThreatProof(pos, attacker, threes=1, vct_nodes=64, dfpn_nodes=dfpn).run(lambda: False, lambda s: None)
        assert got == truth, (pos.board_text(), attacker)


def test_jobs_on_the_workers_give_naive_answers(monkeypatch, use_settings):
    """The same questions with the jobs on two processes of the pool, a leaf's moves
    cut into chunks of at least 4 (their judgements taken into the tree as they come
    back), every other question with a job under way counted as its leaf's proof
    (``BIG_PN_BUSY_PROVES`` 2, else its disproof), with the 1+eps trick or without: naive.py's answers; the coordinator
    judges no move itself (each leaf is expanded once all its chunks are back), and
    leaves were shared by both workers."""
    from parallel_mnk.parallel.scheduling.registry import get_coordinator
    from parallel_mnk.parallel.uses import big_pn_pool
    backend = get_coordinator("process", 2, 12).backend
    use_settings(BIG_PN_CHUNK_MIN=4)
    shared = []
    collect = big_pn_pool.JudgePool._collect

    def collect_and_look(self, slot, event):
        works = [work for _, work in self.running_jobs.values()]
        shared.append(len(works) == 2 and works[0] is works[1])
        collect(self, slot, event)

    monkeypatch.setattr(big_pn_pool.JudgePool, "_collect", collect_and_look)
    asked = 0
    for spec, count, stones in ((GameSpec(4, 4, 3), 5, (1, 6)), (GameSpec(3, 3, 3), 6, (0, 4))):
        for i, (pos, attacker, truth) in enumerate(_questions(spec, count, stones, seed=spec.cells + 7)):
            many = 2 if i % 2 else 8
            use_settings(BIG_PN_CHUNK_MIN=4, BIG_PN_BUSY_PROVES=many, BIG_PN_TREE_EPS=0.25 if i % 3 else 0.0)
            proof = ThreatProof(pos, attacker, threes=1, vct_nodes=64)
            assert proof.run_on(backend, lambda: False, lambda s: None) == truth, (pos.board_text(), attacker)
            assert proof.jobs == 0 or proof.tree.busy_proves == (many == 2)
            assert proof.judge.judged <= 1, (pos.board_text(), attacker)   # (the root only)
            assert proof.jobs == 0 or 0 <= proof.idle_s <= proof.slot_s   # (the workers' time without a job)
            asked += proof.jobs
    assert asked > 20 and any(shared)   # (jobs ran: not every question settled at its root)


def test_dfpn_with_its_expansions_judged_on_the_workers_gives_one_process_answers(use_settings):
    """The same questions with df-pn jobs of 48 nodes and ``BIG_PN_POOL_DFPN``, each
    node the coordinator's df-pn expands having its moves judged on two processes of
    the pool at once (chunks that end at a move settling the node): naive.py's
    answers, and the same settled positions (states and moves) as one process, whose
    search it is; the workers judged, and their time without a chunk is counted."""
    from parallel_mnk.parallel.scheduling.registry import get_coordinator
    backend = get_coordinator("process", 2, 12).backend
    use_settings(BIG_PN_POOL_DFPN=True)
    judged, here = 0, [0, 0]   # (jobs on the workers; positions judged by the coordinator, by one process)
    for spec, count, stones in ((GameSpec(4, 4, 3), 5, (1, 6)), (GameSpec(5, 4, 4), 3, (6, 8))):
        for pos, attacker, truth in _questions(spec, count, stones, seed=spec.cells + 7):
            alone = ThreatProof(pos, attacker, threes=1, vct_nodes=64, dfpn_nodes=48)
            pooled = ThreatProof(pos, attacker, threes=1, vct_nodes=64, dfpn_nodes=48)
            assert alone.run(lambda: False, lambda s: None) == truth, (pos.board_text(), attacker)
            assert pooled.run_on(backend, lambda: False, lambda s: None) == truth, (pos.board_text(), attacker)
            assert pooled.settled == alone.settled, (pos.board_text(), attacker)
            assert 0 <= pooled.idle_s <= pooled.slot_s
            judged += sum(w.tasks for w in pooled.worker_stats.values())
            here[0] += pooled.judge.judged
            here[1] += alone.judge.judged
    assert judged > 5 and here[0] < here[1], (judged, here)   # (the workers judged some of the moves)


def test_the_prover_takes_its_boards_threat_budget():
    """A question's judge searches threats with the budget its board takes
    (Settings.big_pn_budget): the narrow one on 10x8, the wide one on 10x10 and
    15x15, a budget given by name on any."""
    from parallel_mnk.api.settings import BIG_PN_BUDGETS
    for spec, budget in ((GameSpec(10, 8, 5), BIG_PN_BUDGETS[0]), (GameSpec(10, 10, 5), BIG_PN_BUDGETS[1]),
                         (GameSpec(15, 15, 5), BIG_PN_BUDGETS[1])):
        judge = ThreatProof(Position(spec), "x").judge
        assert (judge.threes, judge.vct_nodes) == budget, spec
    with applied(DEFAULTS.replace(BIG_PN_THREES=2, BIG_PN_VCT_NODES=99)):
        judge = ThreatProof(Position(GameSpec(15, 15, 5)), "x").judge
        assert (judge.threes, judge.vct_nodes) == (2, 99)
    r = solve(threes_position("15-two"), weak=True, options=Options(prover="pn", workers=1))   # (--json says it)
    assert r.value is Value.WIN and r.parallel["threat_budget"] == list(BIG_PN_BUDGETS[1]), r.parallel


@pytest.mark.parametrize("pool_dfpn", [False, True], ids=["judge-jobs", "dfpn-batches"])
def test_a_worker_killed_mid_job_past_64_cells(tmp_path, monkeypatch, use_settings, pool_dfpn):
    """A worker killed while its job runs (SIGKILL right after the third job is
    handed out), the workers judging the tree's leaves' moves or the moves of the
    nodes the coordinator's df-pn expands: the job is handed out again, the worker
    restarted, and the answer, its move and a verified certificate are those of one
    process. (A kill can land after the job's answer went out: the solve is tried
    again, at most 4 times, until a kill loses a job; every try's answer is checked.)"""
    import os
    import signal
    from parallel_mnk.parallel.pools.procpool import ProcessPool

    # (narrow threat budgets: with the 15x15 board's own, the root's judgement proves it, with no job to lose)
    use_settings(BIG_PN_DFPN_NODES=64, BIG_PN_POOL_DFPN=pool_dfpn, BIG_PN_THREES=1, BIG_PN_VCT_NODES=1 << 12)
    pos = threes_position("15-two")
    alone = solve(pos, weak=True, options=Options(prover="pn", workers=1))
    killed: list[int] = []
    started: list[int] = []
    start = ProcessPool.start

    def start_and_kill(self, slot, task):
        ok = start(self, slot, task)
        started.append(slot)
        if ok and not killed and len(started) >= 3:
            pid = self.pids()[slot - 1]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        return ok

    monkeypatch.setattr(ProcessPool, "start", start_and_kill)
    for attempt in range(4):
        killed.clear()
        started.clear()
        folder = tmp_path / str(attempt)
        r = solve(pos, weak=True, options=Options(prover="pn", workers=2, certificate=folder))
        assert killed, r.parallel
        assert 0 <= r.parallel["idle"] <= 1, r.parallel
        assert (r.value, r.best_move) == (alone.value, alone.best_move) == (Value.WIN, alone.best_move)
        assert sum(w.tasks for w in r.workers[1:]) >= r.parallel["lost"] + 1
        assert proofcheck.main([str(folder)], out=io.StringIO()) == 0
        if r.parallel["lost"] >= 1:
            break
    assert r.parallel["lost"] >= 1, r.parallel   # (a job was lost with its worker, and handed out again)


def _zone_cases(spec: GameSpec, count: int, stones: tuple[int, int], seed: int):
    """Positions whose side to move (the defender) has its moves cut by a zone, with
    the zone and the attacker (1 or 2)."""
    judges = {a: Judge(spec, a, 0, 1 << 12, 20) for a in (1, 2)}
    for pos in random_positions(spec, count, stones, seed=seed, quiet=True, exact=False):
        attacker = 2 if pos.ply % 2 == 0 else 1
        j = judges[attacker].judge(pos.x, pos.o)
        if j.state == OPEN and j.zone:
            yield pos, j.cells, attacker


# positions whose win needs threes (bench.big_positions.threes_positions: 15x15 seed 9 [1] needs one,
# 10x10 and 9x9 seed 2 (8-20 stones) one, 15x15 seed 4 two), kept as text: generating them takes seconds
THREES = {
    15: ".............../.............../...o.........../.........x...../.............../....xo........./"
        ".....o.o......./.......xo..x.../....xxoo..xo.../.......xx....../.............../.............../"
        ".............../.............../...............",
    10: "........../......x.../......x.../........../..o..o..../...x.x.o../..oox...../....xo..../........../"
        "..........",
    9: ".....x.../.....x.../........./.o..o..../..x.x.o../.oox...../...xo..../........./.........",
    "15-two": ".............../.............../.............../.............../.......o......./"
              "....o...o....../....o.xxox...../..x..x.x.o...../....xx.o...o.../.............../"
              "......x......../.............../.............../.............../...............",
}


def threes_position(name) -> Position:
    """The position ``name`` of :data:`THREES`."""
    text = THREES[name]
    size = text.index("/")
    return Position.from_board(GameSpec(size, size, 5), text)


ZONE_SETS = [(GameSpec(4, 4, 3), (3, 7), 60), (GameSpec(5, 4, 4), (9, 11), 60), (GameSpec(5, 5, 4), (13, 15), 250)]
ZONE_PARAMS = ZONE_SETS[:2] + [pytest.param(*ZONE_SETS[2], marks=pytest.mark.slow)]


def _defences(spec: GameSpec, stones: tuple[int, int], count: int) -> tuple[int, list, int]:
    """Over the zone cases of a set: how many, the defences outside their zone that
    hold (naive.py: the attacker does not win after them), and the zone cells where
    the defence holds."""
    cases, outside, held_inside = 0, [], 0
    for pos, zone, attacker in _zone_cases(spec, count, stones, seed=11 + spec.cells):
        for cell in range(spec.cells):
            if (pos.x | pos.o) >> cell & 1:
                continue
            after = pos.copy()
            after.push(after.move_of_cell(cell))
            wins = after.is_game_over() and after.outcome().winner == attacker or \
                (not after.is_game_over() and naive_score(spec, after.x, after.o) > 0)
            if not zone >> cell & 1 and not wins:
                outside.append((pos.board_text(), cell))
            elif zone >> cell & 1 and not wins:
                held_inside += 1
        cases += 1
    return cases, outside, held_inside


@pytest.mark.parametrize("spec,stones,count", ZONE_PARAMS, ids=str)
def test_every_defence_outside_the_zone_loses(spec, stones, count):
    """The zone rule, move by move: after each defender move outside the zone, the
    attacker wins (naive.py); some zone cells hold (the sets have defences to find)."""
    cases, outside, held_inside = _defences(spec, stones, count)
    assert cases >= 5 and held_inside > 0
    assert outside == []


@pytest.mark.slow
@pytest.mark.parametrize("drop", ["first", "last"])
def test_a_zone_one_cell_smaller_lets_a_defence_through(monkeypatch, drop):
    """Mutant judges whose zones lose their first (or last) cell: the check above
    finds a defence outside the zone that holds."""
    real = Judge._zone

    def smaller(self, st, line):
        moves, zone = real(self, st, line)
        return moves, zone & (zone - 1) if drop == "first" else zone & ~(1 << (zone.bit_length() - 1))

    monkeypatch.setattr(Judge, "_zone", smaller)
    assert any(_defences(*case)[1] for case in ZONE_SETS)


@pytest.mark.parametrize("name", [9, 10, pytest.param("15-two", marks=pytest.mark.slow)])
def test_wins_needing_threes_are_proven_by_the_tree_and_certified(name, tmp_path):
    """Positions past 64 cells whose win needs threes, the prover's own threat search
    held to continuous fours: the tree proves them (its zones answer the defences
    of each three), and the certificate written from its moves passes the checker."""
    pos = threes_position(name)
    mover = "x" if pos.ply % 2 == 0 else "o"
    proof = ThreatProof(pos, mover, threes=0, vct_nodes=1 << 10)
    assert proof.run(lambda: False, lambda s: None) is True, pos.board_text()
    assert proof.tree is not None and proof.jobs > 0
    folder = tmp_path / "cert"
    extract_big(pos, mover, "wins", folder, hint=proof.winning_move)
    out = io.StringIO()
    assert proofcheck.main([str(folder)], out=out) == 0, out.getvalue()


def test_solve_by_the_pn_prover_past_64_cells(tmp_path):
    """``solve(prover="pn")`` on 15x15: a win with a legal line that ends in the
    mover's line, proof "pn", its certificate verified."""
    pos = threes_position(15)
    folder = tmp_path / "cert"
    result = solve(pos, weak=True, options=Options(prover="pn", certificate=folder))
    assert result.value is Value.WIN and result.proof == "pn"
    walk = pos.copy()
    for move in result.pv:
        walk.push(move)
    assert walk.outcome() is not None and walk.outcome().winner == pos.turn
    assert proofcheck.main([str(folder)], out=io.StringIO()) == 0


def test_a_node_limit_in_one_process_stops_between_judgements():
    """One process, 15x15 ``h8 a1 i9 a2`` (a win of 12.9 M nodes): a node limit stops
    the proof within about one judgement's budget of it (df-pn judged a node's moves,
    up to 200 of them, before it looked: 3.02 M nodes at a limit of 100,000), with
    the bounds and a move so far."""
    pos = Position.from_moves(GameSpec(15, 15, 5), "h8 a1 i9 a2")
    budget = DEFAULTS.big_pn_budget(pos.spec.cells)[1]
    for limit in (100_000, 1_000_000):
        r = solve(pos, Limit(nodes=limit), weak=True, options=Options(workers=1, progress=False))
        assert r.value is Value.UNKNOWN and limit <= r.nodes <= limit + 3 * budget, (limit, r.nodes)
        assert r.bounds == (-1, 1) and r.best_move in pos.legal_moves


def test_the_journal_resumes_and_refuses_another_position(tmp_path, use_settings):
    """A proof stopped by a node limit keeps what it settled; the same solve goes on
    from it and settles the question; a journal of another position is one line,
    exit 2."""
    use_settings(BIG_PN_THREES=0)
    pos = threes_position(10)
    journal = tmp_path / "j.sqlite"
    how = Options(prover="pn", checkpoint=str(journal))
    stopped = solve(pos, Limit(nodes=3000), weak=True, options=how)
    assert stopped.value is Value.UNKNOWN
    j = BigPnJournal(journal, pos)
    kept = sum(len(j.settled(a)) for a in "xo")
    j.close()
    assert kept > 0
    resumed = solve(pos, weak=True, options=how)
    fresh = solve(pos, weak=True, options=Options(prover="pn"))
    assert resumed.value is fresh.value is Value.WIN
    assert resumed.nodes < fresh.nodes   # (what the journal settled is not proved again)
    other = Position.from_moves(GameSpec(10, 10, 5), "e5")
    code, out, err = run_cli(["solve", "--cols", "10", "--rows", "10", "--k", "5", "--board", other.board_text(),
                              "--weak", "--prover", "pn", "--checkpoint", str(journal)])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "another proof" in err, err


@pytest.mark.parametrize("extra,words", [
    (["--backend", "thread"], "workers are processes"),
    (["--prover", "dfpn"], "at most 64 cells"),
])
def test_what_the_prover_past_64_cells_refuses(extra, words):
    """One line, exit 2: another backend for the pn prover past 64 cells, df-pn there."""
    argv = ["solve", "--cols", "15", "--rows", "15", "--k", "5", "--moves", "h8", "--weak"]
    if "--prover" not in extra:
        argv += ["--prover", "pn"]
    code, out, err = run_cli(argv + extra)
    assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err


def test_random_small_board_positions_agree_with_the_tree_numbers():
    """Proven questions name a winning move that naive.py confirms."""
    spec = GameSpec(4, 4, 3)
    rng = random.Random(5)
    checked = 0
    for pos in random_positions(spec, 10, (1, 5), rng=rng, quiet=True):
        mover = "x" if pos.ply % 2 == 0 else "o"
        proof = ThreatProof(pos, mover, threes=0, vct_nodes=64)
        if proof.run(lambda: False, lambda s: None):
            move = proof.winning_move(pos.x, pos.o)
            after = pos.copy()
            after.push(after.move_of_cell(move))
            assert after.is_game_over() or naive_score(spec, after.x, after.o) < 0, pos.board_text()
            checked += 1
    assert checked > 0


@pytest.mark.slow
def test_the_threes_positions_are_the_generators():
    """:data:`THREES` is what bench.big_positions.threes_positions gives."""
    assert threes_position(15).board_text() == threes_positions(15, 2, seed=9)[1][0].board_text()
    assert threes_position(10).board_text() == threes_positions(10, 1, seed=2, stones=(8, 20))[0][0].board_text()
    assert threes_position(9).board_text() == threes_positions(9, 1, seed=2, stones=(8, 20))[0][0].board_text()
    assert threes_position("15-two").board_text() == threes_positions(15, 1, seed=4)[0][0].board_text()
