"""df-pn over threats past 64 cells (parallel_mnk/engines/provers/big_dfpn.py): its
answers against naive.py on small boards (the array board takes any size), the
moves it keeps for what it settles, and a search stopped and taken up again."""
from __future__ import annotations

import pytest

from checks import random_positions
from naive import naive_score
from test_big_pn import _questions   # (both questions of random positions, naive.py's answers)
from parallel_mnk import GameSpec, Position
from parallel_mnk.engines.exact.big import BigSearch, table_bits
from parallel_mnk.engines.provers.big_dfpn import ThreatDfpn
from parallel_mnk.engines.provers.big_threats import DISPROVEN, INF, OPEN, PROVEN, Judge
from parallel_mnk.game.geometry import Images, symmetries
from parallel_mnk.game.rules import format_board_text

SMALL = [  # (spec, positions, stones)
    (GameSpec(3, 3, 3), 8, (0, 4)),
    (GameSpec(4, 4, 3), 4, (3, 6)),
    (GameSpec(4, 4, 4), 6, (4, 8)),
    (GameSpec(5, 4, 4), 4, (8, 10)),
]


def _dfpn(spec: GameSpec, attacker: str, table: int = 1 << 18) -> ThreatDfpn:
    """A df-pn of the question "does ``attacker`` win?" with a small threat search
    (the search decides most positions) and pairings."""
    judge = Judge(spec, 1 if attacker == "x" else 2, 1, 64, 20, BigSearch(spec, table_bits(12)), 0, 1 << 12, (64, 512))
    return ThreatDfpn(judge, Images(symmetries(spec)), {}, table)


@pytest.mark.parametrize("spec,count,stones", SMALL, ids=lambda v: str(v) if isinstance(v, tuple) else None)
def test_answers_match_naive_on_small_boards(spec, count, stones):
    """Both questions of random positions, df-pn from the position: naive.py's
    answer. Positions are keyed up to symmetry, so the table's entry of a position
    may be its symmetric image's (its moves then in that frame)."""
    for pos, attacker, truth in _questions(spec, count, stones, seed=spec.cells + 3):
        dfpn = _dfpn(spec, attacker)
        state, pn, dn = dfpn.run(pos.x, pos.o, 1 << 40)
        assert state == (PROVEN if truth else DISPROVEN), (pos.board_text(), attacker)
        assert (pn, dn) == ((0, INF) if truth else (INF, 0))


@pytest.mark.parametrize("spec,count,stones", [(GameSpec(5, 4, 4), 6, (6, 10))], ids=str)
def test_every_settled_move_leads_where_it_says(spec, count, stones):
    """What df-pn settles with a move keeps a legal move: the attacker's winning
    move leads to a position settled proven, or one naive.py says it wins (a win by
    threats its judge found; or its line completed), the defender's refutation to
    one settled disproven."""
    kept = 0
    for pos, attacker, _ in _questions(spec, count, stones, seed=spec.cells + 5):
        dfpn = _dfpn(spec, attacker)
        dfpn.run(pos.x, pos.o, 1 << 40)
        a = 1 if attacker == "x" else 2
        for (x, o), (state, move) in list(dfpn.settled.items()):
            if move < 0:
                continue
            assert not ((x | o) >> move & 1)
            x_moves = x.bit_count() == o.bit_count()
            child = (x | 1 << move, o) if x_moves else (x, o | 1 << move)
            got = dfpn.settled.get(dfpn.images.of(*child)[0], (OPEN, -1))[0]
            if state == PROVEN:
                assert x_moves == (a == 1)   # (the attacker to move)
                assert got == PROVEN or Position.from_board(spec, format_board_text(spec, *child)).is_game_over() or \
                    naive_score(spec, *child) < 0
            else:
                assert x_moves == (a == 2) and got == DISPROVEN   # (the defender to move)
            kept += 1
    assert kept > 10, kept


def test_a_search_stopped_or_out_of_nodes_goes_on_to_the_same_answer():
    """A budget of a few nodes ends a search open with its numbers; ``stop()`` ends
    one midway (``stopped``); runs taken up again on the same df-pn (its table and
    settled positions kept) end with the answer of one uninterrupted run."""
    spec = GameSpec(5, 4, 4)
    asked = 0
    for pos, attacker, truth in _questions(spec, 2, (6, 8), seed=11):
        whole = _dfpn(spec, attacker)
        assert whole.run(pos.x, pos.o, 1 << 40)[0] == (PROVEN if truth else DISPROVEN)
        parts = _dfpn(spec, attacker)
        for i in range(10_000):
            start = parts.judge.nodes   # (odd runs: a budget of 64 nodes; even: stopped past 96)
            stop = (lambda: False) if i % 2 else (lambda: parts.judge.nodes - start > 96)
            state, pn, dn = parts.run(pos.x, pos.o, 64 if i % 2 else 1 << 40, stop)
            if state != OPEN:
                break
            assert 0 < pn < INF and 0 < dn < INF and parts.stopped == (i % 2 == 0)
            asked += 1
        assert state == (PROVEN if truth else DISPROVEN), (pos.board_text(), attacker)
    assert asked > 5, asked


def test_a_move_is_kept_in_the_frame_of_its_key_whichever_image_came_first():
    """A position of the attacker to move settled by its judgement (a win by
    threats), its symmetric image judged first (the table's entry then in the
    image's frame): the move kept for its key, read back in the position's own frame,
    is an empty cell after which naive.py says the attacker wins (a judgement's move
    is in the frame it was judged in)."""
    spec = GameSpec(4, 4, 3)
    perms = symmetries(spec)
    checked = 0
    for pos in random_positions(spec, 16, (2, 4), seed=9, quiet=True):
        attacker = "x" if pos.ply % 2 == 0 else "o"
        for perm in perms:
            img_x = sum(1 << perm[c] for c in range(spec.cells) if pos.x >> c & 1)
            img_o = sum(1 << perm[c] for c in range(spec.cells) if pos.o >> c & 1)
            if (img_x, img_o) == (pos.x, pos.o):
                continue
            dfpn = _dfpn(spec, attacker)
            key, own = dfpn.images.of(pos.x, pos.o)
            if dfpn._entry(img_x, img_o, key)[2].state != PROVEN:   # (the image judged first)
                break
            assert dfpn._numbers(pos.x, pos.o, key) == (0, INF)
            cell = own.index(dfpn.settled[key][1])
            assert not ((pos.x | pos.o) >> cell & 1), (pos.board_text(), perm)
            child = (pos.x | 1 << cell, pos.o) if attacker == "x" else (pos.x, pos.o | 1 << cell)
            after = Position.from_board(spec, format_board_text(spec, *child))
            assert after.is_game_over() or naive_score(spec, *child) < 0, (pos.board_text(), perm, cell)
            checked += 1
            break
    assert checked >= 3, checked
