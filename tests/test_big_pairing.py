"""The defender's pairings on the array board (parallel_mnk/engines/provers/big_pairing.py)
and the pn prover past 64 cells disproving with them (engines/provers/big_threats.py):
every pairing found is one (docs/proof-format.md section 7) and the attacker does not
win after it (naive.py), both sides to move; a pairing that forgets the lines holding
attacker stones is refused; the prover's answers stay naive.py's with fewer nodes."""
from __future__ import annotations

import io
import json
import lzma

import numpy as np
import pytest

from checks import random_positions
from naive import naive_score
from parallel_mnk import GameSpec, Limit, Options, Position, proofcheck, solve
from parallel_mnk.api.settings import Settings
from parallel_mnk.game.rules import Value
from parallel_mnk.kernels.grid import layout as GL
from parallel_mnk.engines.provers.big_pairing import PairingFinder, is_pairing, torus_tiling
from parallel_mnk.engines.provers.big_threats import DISPROVEN, OPEN, Judge
from parallel_mnk.parallel.uses.big_pn import ThreatProof


def _board(judge: Judge, pos: Position) -> np.ndarray:
    st = judge.search.state(pos.x, pos.o)
    at = int(judge.search.geo[GL.G_S_BOARD])
    return st[at:at + pos.spec.cells].copy()


def _attacker_wins(pos: Position, attacker: int) -> bool:
    score = naive_score(pos.spec, pos.x, pos.o)
    return score > 0 if attacker == 1 + pos.ply % 2 else score < 0


@pytest.mark.parametrize("spec,stones", [(GameSpec(5, 4, 4), (8, 14)), (GameSpec(4, 5, 4), (8, 14)),
                                         (GameSpec(6, 4, 4), (12, 18)), (GameSpec(5, 5, 4), (14, 20))],
                         ids=str)
def test_every_pairing_found_is_one_and_the_attacker_does_not_win(spec, stones):
    judges = {a: Judge(spec, a, 0, 16, 0, pairing=(64, 4096)) for a in (1, 2)}
    found = 0
    for pos in random_positions(spec, 40, stones, seed=spec.cells, quiet=True):
        for attacker, judge in judges.items():
            board = _board(judge, pos)
            pairs = judge.pairings.find(board, 3 - attacker)
            if pairs is None:
                continue
            assert is_pairing(judge.lines, board, 3 - attacker, pairs), (pos.board_text(), attacker, pairs)
            assert not _attacker_wins(pos, attacker), (pos.board_text(), attacker, pairs)
            judged = judge.judge(pos.x, pos.o)   # disproven, unless a block is forced first (the rule before)
            assert judged.state == DISPROVEN or (judged.state == OPEN and judged.count == 1), pos.board_text()
            found += 1
    assert found >= 8   # (the sets hold pairings to find)


def test_a_pairing_must_cover_the_lines_holding_attacker_stones():
    """In random 5x4 k=4 positions, each pairing found covers the lines where the
    attacker has stones and the defender none; dropped the pairs on one such line,
    it is no pairing (the check reads those lines, not only empty ones)."""
    spec = GameSpec(5, 4, 4)
    judge = Judge(spec, 1, 0, 16, 0, pairing=(64, 4096))
    checked = 0
    for pos in random_positions(spec, 40, (8, 14), seed=3, quiet=True):
        board = _board(judge, pos)
        pairs = judge.pairings.find(board, 2)
        if not pairs:
            continue
        for line in judge.lines:
            on = set(int(c) for c in line)
            if (board[line] == 1).any() and not (board[line] == 2).any():
                assert any(set(p) <= on for p in pairs), (pos.board_text(), line)
                assert not is_pairing(judge.lines, board, 2, [p for p in pairs if not set(p) <= on])
                checked += 1
    assert checked >= 5


def test_no_live_line_is_the_empty_pairing():
    spec = GameSpec(4, 4, 4)
    finder = PairingFinder(Judge(spec, 1, 0, 16, 0).lines, 64, 16)
    board = np.zeros(spec.cells, dtype=np.int64)
    for line in finder.lines:   # an o stone on every line: x has nothing left to complete
        board[line[0]] = 2
    assert finder.find(board, 2) == []
    corners = np.zeros(spec.cells, dtype=np.int64)
    corners[[12, 15]] = 2   # o on a1 and d1: rows 2-4 pair their a and d cells, columns b and c two of theirs
    assert is_pairing(finder.lines, corners, 2, finder.find(corners, 2))
    assert finder.find(np.zeros(spec.cells, dtype=np.int64), 2) is None   # (the empty 4x4: 8 pairs, 10 lines)
    assert PairingFinder(finder.lines, 0, 16).find(board, 2) is None   # (bound 0: never looks)


def test_counting_rules_out_pairings_without_a_search():
    """A pair lies on at most ``k - 1`` lines: more live lines than ``k - 1`` times the
    empty cells' pairs and the finder tries no pair; at the bound exactly it searches."""
    finder = PairingFinder(np.array([[0, 1]]), 64, 16)   # k = 2: one line, one pair of empty cells
    assert finder.find(np.zeros(2, dtype=np.int64), 2) == [(0, 1)]
    finder = PairingFinder(np.array([[0, 1], [1, 2]]), 64, 16)   # two lines, one pair: none can exist
    assert finder.find(np.zeros(3, dtype=np.int64), 2) is None and finder.nodes == 0
    finder = PairingFinder(np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4]]), 64, 16)   # k = 3: 3 lines <= 2 x 2
    board = np.array([0, 0, 0, 0, 1])   # (an attacker stone: four empty cells)
    assert is_pairing(finder.lines, board, 2, finder.find(board, 2)) and finder.nodes > 0


def test_past_the_line_bound_the_finder_searches_until_a_search_there_fails():
    """Past ``max_lines`` live lines a search runs until one there fails (the first
    positions of a question on a board of large k), then never past it again; under
    the bound it goes on searching."""
    row = np.array([[i, i + 1, i + 2] for i in range(8)])   # a row of 10 cells, k = 3: 8 lines
    found = PairingFinder(row, 2, 64)
    empty = np.zeros(10, dtype=np.int64)
    assert is_pairing(row, empty, 2, found.find(empty, 2))   # past the bound (8 > 2 lines): found
    assert is_pairing(row, empty, 2, found.find(empty, 2))   # (none failed: it still looks)
    finder = PairingFinder(row, 2, 2)   # 2 pairs a search: the empty row needs 4
    assert finder.find(empty, 2) is None and finder.nodes > 0
    spent = finder.nodes
    assert finder.find(empty, 2) is None and finder.nodes == spent   # past the bound: no search since
    two_lines = empty.copy()
    two_lines[[3, 7]] = 2   # o on d and h: x's live lines [a, b, c] and [e, f, g]
    assert is_pairing(row, two_lines, 2, finder.find(two_lines, 2)) and finder.nodes > spent


@pytest.mark.parametrize("board", [(12, 12, 9), (20, 20, 12)])
def test_large_k_boards_are_drawn_by_a_pairing_at_the_root(tmp_path, board):
    """The empty 12x12 k=9 and 20x20 k=12 boards (128 and 522 live lines, past the bound
    of 64): draws by a pairing found at the root, certified and verified (with the bound
    a hard limit, unknown after minutes)."""
    result = solve(Position(GameSpec(*board)), Limit(nodes=1_000), weak=True,
                   options=Options(prover="pn", certificate=tmp_path))
    assert result.value is Value.DRAW and result.nodes <= 2 and len(result.certificates) == 1
    assert proofcheck.main([str(tmp_path)], out=io.StringIO()) == 0


@pytest.mark.parametrize("spec,stones", [(GameSpec(4, 4, 4), (4, 8)), (GameSpec(5, 4, 4), (10, 13))], ids=str)
def test_the_prover_with_pairings_gives_naive_answers_with_fewer_nodes(spec, stones):
    """Both questions of random positions: naive.py's answers with pairings on and off;
    with them some question is disproven by a pairing and the questions take fewer
    judgements in all."""
    judged = {True: 0, False: 0}
    found = 0
    for pos in random_positions(spec, 5, stones, seed=spec.cells + 1, quiet=True):
        for attacker in ("x", "o"):
            truth = _attacker_wins(pos, 1 if attacker == "x" else 2)
            for on in (True, False):
                proof = ThreatProof(pos, attacker, threes=0, vct_nodes=64)
                if not on:
                    proof.judge.pairings.max_lines = 0
                assert proof.run(lambda: False, lambda s: None) == truth, (pos.board_text(), attacker, on)
                judged[on] += proof.judge.judged
                found += proof.judge.pairings.found if on else 0
    assert found > 0 and judged[True] < judged[False], (found, judged)


DRAWN_9X8 = "x..oooxox/.oox.o..x/oxxxoxoxo/oo..xxox./.xxox.xoo/oxxoxxxxo/xooxoo..x/..ox.xooo"   # 16 empty cells


def test_a_draw_past_64_cells_is_proven_by_pairings_and_certified(tmp_path):
    """9x8 k=5 (72 cells), 16 empty cells: the pn prover disproves both questions by
    the defenders' pairings and writes both ``cannot-win`` certificates with ``pairs``
    records, which the independent checker verifies; alpha-beta finds the same draw;
    with pairings off the prover does not settle it within 20,000 nodes."""
    spec = GameSpec(9, 8, 5)
    pos = Position.from_board(spec, DRAWN_9X8)
    result = solve(pos, weak=True, options=Options(prover="pn", certificate=tmp_path))
    assert result.value is Value.DRAW and result.nodes < 100 and len(result.certificates) == 2
    assert proofcheck.main([str(tmp_path)], out=io.StringIO()) == 0
    records = [json.loads(line) for path in result.certificates for line in lzma.open(path, "rt")][1:]
    assert sum("pairs" in r for r in records) >= 2
    # walked along the pairings alone (the defender to move: a cell outside its pairs), no search
    assert [json.loads(lzma.open(path, "rt").readline())["nodes"] for path in result.certificates] == [0, 0]
    assert solve(pos, weak=True, options=Options(prover="search")).value is Value.DRAW
    off = solve(pos, Limit(nodes=20_000), weak=True,
                options=Options(prover="pn", settings=Settings(BIG_PN_PAIRING_LINES=0)))
    assert off.value is Value.UNKNOWN


DRAWN_9X8_DEEPER = "...xoxx.x/xxo.xoxo./xxox.o..o/.oxxxo.../oox.ox..o/oxo..x.xo/.oo...o.x/oxx..ooxo"   # 26 empty cells
DRAWN_10X8 = "xxoxx...xx/oox.xoooxo/.ox.oo.xox/...oxxoxx./xx...o..xo/.xxox.o.xo/..o.oo.xoo/oo..x.x.o."   # 28 empty


@pytest.mark.parametrize("cols, board, records", [(9, DRAWN_9X8_DEEPER, 10), (10, DRAWN_10X8, 1_000)])
def test_a_draw_past_64_cells_is_certified_along_the_provers_refutations(tmp_path, cols, board, records):
    """k=5 draws past 64 cells whose disproofs take the pn prover's tree some plies (no
    pairing at the root; the 10x8 one 0.28 M nodes and transpositions): both
    ``cannot-win`` certificates are written along the defenders' refutations its trees
    found and the pairings, without a search of their own (the walk before searched
    1.5 M and 8.3 M nodes), and the independent checker verifies them; on 9x8
    alpha-beta finds the same draw (on 10x8 it takes 6.5 M nodes: the checker is the
    reference)."""
    spec = GameSpec(cols, 8, 5)
    pos = Position.from_board(spec, board)
    result = solve(pos, weak=True, options=Options(prover="pn", certificate=tmp_path))
    assert result.value is Value.DRAW and result.nodes > 1_000 and len(result.certificates) == 2
    headers = [json.loads(lzma.open(path, "rt").readline()) for path in result.certificates]
    assert [h["nodes"] for h in headers] == [0, 0] and sum(h["records"] for h in headers) <= records, headers
    assert proofcheck.main([str(tmp_path)], out=io.StringIO()) == 0
    if cols == 9:
        assert solve(pos, weak=True, options=Options(prover="search")).value is Value.DRAW


def test_every_refutation_the_prover_keeps_leads_to_a_disproven_position():
    """Each defender's position the pn prover settles as disproven with a move keeps a
    legal move after which its store holds the attacker's position disproven (the
    certificate walk's first choice, :meth:`ThreatProof.refuting_move`), in both
    questions of a draw."""
    spec = GameSpec(9, 8, 5)
    pos = Position.from_board(spec, DRAWN_9X8_DEEPER)
    kept = 0
    for attacker in "xo":
        proof = ThreatProof(pos, attacker)
        assert proof.run(lambda: False, lambda s: None) is False
        for (x, o), (state, move) in list(proof.settled.items()):
            if state != DISPROVEN or move < 0:
                continue
            defender_moves = (bin(x).count("1") == bin(o).count("1")) == (attacker == "o")
            assert defender_moves and not ((x | o) >> move & 1)
            assert proof.refuting_move(x, o) == move
            child = (x | 1 << move, o) if attacker == "o" else (x, o | 1 << move)
            assert proof.lookup(*child)[0] == DISPROVEN
            kept += 1
    assert kept >= 2, kept


def test_the_torus_tiling_pairs_each_line_of_the_torus_once():
    """Every cell of the 8x8 torus paired with a neighbour that points back; each row,
    column, diagonal and anti-diagonal holds exactly one pair along it."""
    tiling = torus_tiling()
    along = {(1, 0): lambda x, y: y, (0, 1): lambda x, y: x, (1, 1): lambda x, y: (x - y) % 8,
             (1, -1): lambda x, y: (x + y) % 8}
    seen = {step: [] for step in along}
    for y in range(8):
        for x in range(8):
            dx, dy = (int(v) for v in tiling[y, x])
            assert (dx, dy) != (0, 0) and max(abs(dx), abs(dy)) == 1
            assert tuple(tiling[(y + dy) % 8, (x + dx) % 8]) == (-dx, -dy)
            step = (dx, dy) if (dx, dy) in along else (-dx, -dy)
            seen[step].append(along[step](x, y))
    for step, lines in seen.items():
        assert sorted(lines) == sorted(2 * list(range(8))), step   # (each pair seen from both its cells)


@pytest.mark.parametrize("cols,rows", [(12, 12), (20, 15)])
def test_tiled_pairings_pass_the_formats_rule(cols, rows):
    """k = 9 positions of 2-12 stones: every pairing the finder takes from the tiling (past
    its line bound of 1, no pair searched) passes the format's rule (docs/proof-format.md
    section 7, checked apart), at the first placement or a later one."""
    spec = GameSpec(cols, rows, 9)
    tiled = 0
    for pos in random_positions(spec, 20, (2, 12), seed=cols * rows, quiet=True):
        board = np.array([1 if pos.x >> c & 1 else 2 if pos.o >> c & 1 else 0 for c in range(spec.cells)])
        for attacker in (1, 2):
            finder = Judge(spec, attacker, 0, 16, 0).pairings
            finder.max_lines, finder.max_nodes, finder.cols = 1, 0, cols   # the tiling alone (no pair searched)
            pairs = finder.find(board, 3 - attacker)
            if not pairs:
                continue
            tiled += 1
            assert is_pairing(finder.lines, board, 3 - attacker, pairs), (pos.board_text(), attacker)
    assert tiled > 5


@pytest.mark.parametrize("board", [(26, 26, 9), (26, 26, 10)])
def test_boards_of_k_9_and_more_are_drawn_by_the_tiling(tmp_path, board):
    """The empty 26x26 k=9 and k=10 boards (the backtracking search finds no pairing that
    uses every cell): draws by the tiling, exact score 0, the certificate verified."""
    result = solve(Position(GameSpec(*board)), Limit(time=60), options=Options(certificate=tmp_path, pv=False))
    assert result.value is Value.DRAW and result.score == 0 and result.nodes == 0
    assert proofcheck.main([str(tmp_path)], out=io.StringIO()) == 0
