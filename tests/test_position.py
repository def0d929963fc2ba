"""parallel_mnk.game.position: push/pop, legal moves, outcome, board text validation."""
import pickle
import random

import numpy as np
import pytest

from checks import random_positions
from naive import all_lines
from parallel_mnk import (GameSpec, MnkError, Move, NotationError, Outcome, Position, Side, format_move, format_move_list,
                          parse_move, parse_move_list)
from parallel_mnk.game.moves import moves_of
from parallel_mnk.game.rules import parse_cell

TTT = GameSpec(3, 3, 3)
C4 = GameSpec(7, 6, 4, True)


def bit(spec, name):
    return 1 << parse_cell(spec, name)


def bits(spec, *names):
    return sum(bit(spec, n) for n in names)


# ---------------------------------------------------------------- basics
def test_empty_position():
    pos = Position(TTT)
    assert pos.ply == 0
    assert pos.turn == 1
    assert (pos.x, pos.o) == (0, 0)
    assert pos.stones() == (0, 0)
    assert pos.legal_moves == list(range(9))
    assert pos.outcome() is None
    assert not pos.is_game_over()
    assert pos.board_text() == ".../.../..."
    assert Position(C4).legal_moves == list(range(7))


def test_push_free_placement():
    pos = Position(TTT)
    pos.push("b2")
    assert pos.x == bit(TTT, "b2") == 1 << 4
    assert pos.o == 0
    assert pos.ply == 1 and pos.turn == 2
    assert pos.stones() == (0, pos.x)  # (own, opp) from O's point of view
    pos.push("a1")
    assert pos.o == bit(TTT, "a1") == 1 << 6
    assert pos.turn == 1
    assert pos.stones() == (pos.x, pos.o)
    assert pos.legal_moves == [0, 1, 2, 3, 5, 7, 8]
    assert pos.move_stack == [4, 6]


def test_push_gravity_drops_to_the_lowest_empty_cell():
    pos = Position(C4)
    pos.push("4")
    assert pos.x == 1 << (5 * 7 + 3)  # bottom row is row 5 from the top
    assert pos.x == bit(C4, "d1")
    pos.push(Move(C4, 3))
    assert pos.o == bit(C4, "d2")
    pos.push("1")
    assert pos.x == bits(C4, "d1", "a1")
    assert pos.move_stack == [3, 3, 0]
    assert pos.board_text() == "......./......./......./......./...o.../x..x..."


def test_pop_undoes_push():
    for spec, indexes in ((TTT, [4, 0, 8, 2]), (C4, [3, 3, 4, 2, 3])):
        moves = moves_of(spec, indexes)
        pos = Position(spec)
        history = []
        for m in moves:
            history.append((pos.x, pos.o, pos.ply, pos.turn))
            pos.push(m)
        for m in reversed(moves):
            assert pos.pop() == m
            assert (pos.x, pos.o, pos.ply, pos.turn) == history.pop()
        assert pos.move_stack == []
        with pytest.raises(MnkError, match="no move to undo"):
            pos.pop()


def test_pop_after_a_win_reopens_the_game():
    pos = Position.from_moves(TTT, "a1,a2,b1,b2,c1")
    assert pos.outcome() == Outcome(1, 5)
    assert pos.legal_moves == []
    pos.pop()
    assert pos.outcome() is None
    assert "c1" in pos.legal_moves


@pytest.mark.parametrize("move, fragment", [
    (-1, "not the int -1"), (9, "not the int 9"), (True, "not bool True"), (1.0, "not float 1.0"),
    ("a9", "off the 3x3 board"), ("", "not a cell name"), (None, "not NoneType None"),
    (Move(TTT, 9), "9 is the index of no move"), (Move(TTT, -1), "-1 is the index of no move"),
])
def test_push_rejects_non_moves(move, fragment):
    pos = Position(TTT)
    with pytest.raises(MnkError, match=fragment):
        pos.push(move)
    assert pos.ply == 0


@pytest.mark.parametrize("move", ["0", "8", Move(C4, 7), Move(C4, -1)])
def test_push_rejects_columns_off_the_board(move):
    with pytest.raises(MnkError, match="off the board|index of no move"):
        Position(C4).push(move)


def test_push_rejects_a_taken_cell():
    pos = Position.from_moves(TTT, "b2")
    with pytest.raises(MnkError, match="already taken"):
        pos.push("b2")
    assert pos.ply == 1 and pos.move_stack == [4]


def test_push_rejects_a_full_column():
    spec = GameSpec(4, 2, 3, True)
    pos = Position.from_moves(spec, "11")
    assert pos.legal_moves == [1, 2, 3]
    with pytest.raises(MnkError, match="column 1 is full"):
        pos.push("1")
    assert pos.ply == 2


def test_push_rejects_a_move_after_the_game_ended():
    pos = Position.from_moves(TTT, "a1,a2,b1,b2,c1")
    with pytest.raises(MnkError, match="after the game ended"):
        pos.push("c3")
    full = Position.from_moves(GameSpec(1, 2, 2, True), "11")  # 1x2 board full, nobody won
    assert full.outcome() == Outcome(None, 2)
    with pytest.raises(MnkError):
        full.push("1")


def test_from_moves_text_and_moves_agree():
    assert Position.from_moves(TTT, "b2,a1,c3").x == Position.from_moves(TTT, moves_of(TTT, [4, 6, 2])).x
    a = Position.from_moves(C4, "4453")
    b = Position.from_moves(C4, "4,4,5,3")
    c = Position.from_moves(C4, ["4", "4", Move(C4, 4), "3"])
    assert (a.x, a.o) == (b.x, b.o) == (c.x, c.o)
    assert a.move_stack == [3, 3, 4, 2]
    empty = Position.from_moves(C4, "")
    assert empty.ply == 0


@pytest.mark.parametrize("spec, moves, fragment", [
    (TTT, "b2,b2", "move 2: cell b2 is already taken"),
    (TTT, "b2,d4", "off the 3x3 board"),
    (TTT, "a1,a2,b1,b2,c1,c3", "move 6: c3 is played after the game ended"),
    (GameSpec(4, 2, 3, True), "111", "move 3: column 1 is full"),
    (C4, "48", "off the board"),
    (C4, ["4", "4", 9], "move 3: a move is a Move or its text"),
])
def test_from_moves_errors(spec, moves, fragment):
    with pytest.raises(MnkError, match=fragment):
        Position.from_moves(spec, moves)


def test_copy_is_independent():
    pos = Position.from_moves(TTT, "b2,a1")
    dup = pos.copy()
    dup.push("a3")
    assert pos.ply == 2 and dup.ply == 3
    assert pos.move_stack == [4, 6]
    assert dup.pop() == 0 and dup.pop() == 6
    assert pos.move_stack == [4, 6]


def test_str_draws_the_board_with_a1_bottom_left():
    assert str(Position.from_moves(TTT, "b2,a1")) == "3 . . .\n2 . X .\n1 O . .\n  a b c"
    c4 = str(Position.from_moves(C4, "44"))
    assert c4.splitlines()[-1] == "  1 2 3 4 5 6 7"
    assert c4.splitlines()[-2] == "1 . . . X . . ."
    assert c4.splitlines()[-3] == "2 . . . O . . ."


# ---------------------------------------------------------------- outcome
@pytest.mark.parametrize("spec, moves, winner, ply", [
    (TTT, "a1,a2,b1,b2,c1", 1, 5),      # row
    (TTT, "a1,b1,a2,b2,a3", 1, 5),      # column
    (TTT, "a1,b1,b2,c1,c3", 1, 5),      # diagonal
    (TTT, "c1,a1,b2,b1,a3", 1, 5),      # anti-diagonal
    (TTT, "a1,a2,b1,b2,c3,c2", 2, 6),   # O wins
    (TTT, "b2,a1,a2,c2,b1,b3,c1,a3,c3", None, 9),  # full board, draw
    (C4, "1212121", 1, 7),              # vertical
    (C4, "1122334", 1, 7),              # horizontal
    (C4, "12233434447", None, None),    # not over
    (C4, "122334344", None, None),
    (GameSpec(4, 4, 4, True), "1223343444", None, None),
    (C4, "12234334744", 1, 11),         # diagonal a1-d4
    (GameSpec(5, 5, 1), "c3", 1, 1),    # k = 1: the first stone wins
    (GameSpec(1, 1, 1), "a1", 1, 1),
    (GameSpec(1, 1, 2), "a1", None, 1),
])
def test_outcome(spec, moves, winner, ply):
    pos = Position.from_moves(spec, moves)
    out = pos.outcome()
    if ply is None:
        assert out is None
        assert pos.legal_moves
    else:
        assert out == Outcome(winner, ply)
        assert pos.is_game_over()
        assert pos.legal_moves == []


def test_outcome_result_strings():
    assert Outcome(1, 5).result == "1-0"
    assert Outcome(2, 6).result == "0-1"
    assert Outcome(None, 9).result == "1/2-1/2"


def test_outcome_agrees_with_an_independent_line_check():
    """Random games on several boards: outcome() after every move matches a plain scan of all lines."""
    rng = random.Random(2024)
    specs = [TTT, C4, GameSpec(4, 4, 3), GameSpec(5, 3, 4, True), GameSpec(1, 6, 3), GameSpec(6, 1, 2, True),
             GameSpec(4, 5, 2)]
    for spec in specs:
        lines = all_lines(spec.cols, spec.rows, spec.k)
        for _ in range(30):
            pos = Position(spec)
            while True:
                x_line = any(pos.x & m == m for m in lines)
                o_line = any(pos.o & m == m for m in lines)
                full = pos.x | pos.o == (1 << spec.cells) - 1
                expected = Outcome(1, pos.ply) if x_line else Outcome(2, pos.ply) if o_line else \
                    Outcome(None, pos.ply) if full else None
                assert pos.outcome() == expected, (spec, pos.move_stack)
                if expected is not None:
                    break
                pos.push(rng.choice(pos.legal_moves))


def test_legal_moves_gravity_skip_full_columns():
    spec = GameSpec(3, 2, 3, True)
    pos = Position.from_moves(spec, "22")
    assert pos.legal_moves == [0, 2]
    pos.push("1")
    pos.push("1")
    assert pos.legal_moves == [2]


# ---------------------------------------------------------------- board text
def test_from_board_side_to_move_follows_the_counts():
    pos = Position.from_board(TTT, "x../.o./...")
    assert pos.turn == 1 and pos.ply == 2
    assert pos.x == bit(TTT, "a3") and pos.o == bit(TTT, "b2")
    pos = Position.from_board(TTT, "x../.o./..x")
    assert pos.turn == 2
    assert pos.move_stack == []
    pos.push("c3")
    assert pos.o == bits(TTT, "b2", "c3")


def test_from_board_round_trips_random_games():
    rng = random.Random(7)
    for spec in (TTT, C4, GameSpec(4, 4, 3), GameSpec(5, 3, 3, True)):
        for pos in random_positions(spec, 40, (0, spec.cells), rng=rng, keep_over=True, distinct=False):
            again = Position.from_board(spec, pos.board_text())
            assert (again.x, again.o, again.ply, again.turn) == (pos.x, pos.o, pos.ply, pos.turn)
            assert again.outcome() == pos.outcome()
            assert again.board_text() == pos.board_text()


def test_from_board_accepts_a_finished_game():
    pos = Position.from_board(TTT, "xxx/oo./...")
    assert pos.outcome() == Outcome(1, 5)
    pos = Position.from_board(TTT, "xx./ooo/x..")
    assert pos.outcome() == Outcome(2, 6)
    # two lines through one stone (a3) are fine: that stone was played last
    pos = Position.from_board(TTT, "xxx/xoo/xoo")
    assert pos.outcome() == Outcome(1, 9)
    # a full board without a line is a draw
    assert Position.from_board(TTT, "xox/xoo/oxx").outcome() == Outcome(None, 9)
    # gravity: the winning stone on top of its column
    pos = Position.from_board(GameSpec(3, 4, 3, True), ".../x../x../xoo")
    assert pos.outcome() == Outcome(1, 5)


@pytest.mark.parametrize("spec, text, fragment", [
    (TTT, "xx./.../...", "stone counts"),
    (TTT, "o../.../...", "stone counts"),
    (TTT, "oo./.x./...", "stone counts"),
    (TTT, "xxx/xx./oo.", "stone counts"),
    (GameSpec(3, 3, 3, True), "x../.../..o", "column 1 has a stone above an empty cell"),
    (GameSpec(3, 3, 3, True), ".../.o./x..", "column 2 has a stone above an empty cell"),
    (C4, "......./......./......./......x/......./xo....o", "column 7 has a stone above an empty cell"),
    (TTT, "xxx/ooo/x..", "both players"),
    (GameSpec(3, 3, 1), "x../.o./...", "both players"),
    (TTT, "xxx/oo./o..", "did not make the last move"),
    (TTT, "xx./ooo/xx.", "did not make the last move"),
    (GameSpec(7, 3, 3), "xxx.xxx/oo.oo.o/.......", "no single last stone"),
    (GameSpec(4, 4, 3), "xxx./o.oo/o.o./.xxx", "no single last stone"),
    # gravity: X's line is covered by a later O stone, so its last stone cannot be on top
    (GameSpec(3, 4, 3, True), "o../x../x../xo.", "no single last stone"),
])
def test_from_board_rejects_impossible_boards(spec, text, fragment):
    with pytest.raises(MnkError, match=fragment) as info:
        Position.from_board(spec, text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text", ["xo./.x./...?", "x.o/.x.", "x.o/.x./..z"])
def test_from_board_rejects_malformed_text(text):
    with pytest.raises(MnkError):
        Position.from_board(TTT, text)


# ---------------------------------------------------------------- equality, peek, repr
def test_positions_are_equal_by_game_and_stones():
    a = Position.from_moves(TTT, "a1,b2,c3")
    b = Position.from_moves(TTT, "c3,b2,a1")      # another order, the same stones
    assert a == b and a.move_stack != b.move_stack
    assert a != Position.from_moves(TTT, "a1,b2") and a != Position.from_moves(GameSpec(3, 3, 2), "a1,b2,c3")
    assert a == Position.from_board(TTT, a.board_text())
    with pytest.raises(TypeError):
        hash(a)                                    # mutable: not a dict key (use board_text() or (x, o))


def test_peek_is_the_last_move():
    pos = Position.from_moves(C4, "4453")
    assert pos.peek() == 2
    pos.pop()
    assert pos.peek() == 4
    with pytest.raises(MnkError, match="no move"):
        Position(C4).peek()


@pytest.mark.parametrize("spec", [TTT, C4, GameSpec(5, 4, 3), GameSpec(26, 3, 3), GameSpec(10, 4, 4, True)])
def test_repr_evaluates_to_an_equal_position(spec):
    rng = random.Random(spec.cells)
    for _ in range(20):
        pos = Position(spec)
        for _ in range(rng.randint(0, spec.cells)):
            if pos.is_game_over():
                break
            pos.push(rng.choice(pos.legal_moves))
        for candidate in (pos, Position.from_board(spec, pos.board_text())):
            text = repr(candidate)
            back = eval(text, {"GameSpec": GameSpec, "Position": Position})
            assert back == candidate, text
            assert text.startswith("Position.from_moves(" if candidate.move_stack or not candidate.ply
                                   else "Position.from_board(")


# ---------------------------------------------------------------- moves as the CLI writes them
def test_push_takes_the_cli_notation_and_moves_print_in_it():
    pos = Position(TTT)
    pos.push("b2")
    pos.push("a1")
    assert [str(m) for m in pos.move_stack] == ["b2", "a1"]
    assert pos == Position.from_moves(TTT, "b2,a1") == Position.from_moves(TTT, ["b2", "a1"])
    c4 = Position(C4)
    for move in "4453":
        c4.push(move)
    assert c4 == Position.from_moves(C4, "4453") and str(c4.peek()) == "3" and c4.peek() == 2
    assert [str(m) for m in c4.legal_moves] == list("1234567")


def test_a_move_is_its_index_and_prints_as_written():
    move = Move.parse(C4, "4")
    assert move == 3 and hash(move) == hash(3) and str(move) == "4" and repr(move) == "Move('4')"
    assert f"{move:>3}" == "  4" and pickle.loads(pickle.dumps(move)).spec == C4
    assert str(Move(TTT, 4)) == "b2" and Move.parse(TTT, "B2") == 4


def test_a_move_of_another_game_is_refused():
    with pytest.raises(MnkError, match="a move of 7x6 k=4 gravity, not of 7x6 k=4"):
        Position(GameSpec(7, 6, 4)).push(Move(C4, 3))


@pytest.mark.parametrize("call", [
    lambda: Position(C4).push(4),
    lambda: Position(C4).push(np.int64(4)),
    lambda: Position.from_moves(C4, [4, 4, 5]),
    lambda: 4 in Position(C4).legal_moves,
    lambda: format_move(C4, 3),
    lambda: format_move_list(C4, [3, 3]),
    lambda: Position(TTT).push(4),
])
def test_a_bare_int_is_refused_as_a_move_everywhere(call):
    """One rule for every call that takes a move: a Move or its text; an int could be
    the CLI's column 4 or the index 4 (column 5), so it is refused, in one line."""
    with pytest.raises(NotationError, match=r"a move is a Move or its text, like '(4|b2)', not the int 4|not the int 3"):
        call()


def test_python_chess_habits_hold():
    """What a python-chess user writes: legal_moves a property to iterate and ask ``in``,
    a move equal to its text, parse_move_list giving Moves."""
    pos = Position.from_moves(C4, [Move(C4, 3), "4", "5"])
    assert list(pos.legal_moves) == [Move(C4, c) for c in range(7)] and len(pos.legal_moves) == 7
    assert "4" in pos.legal_moves and Move(C4, 0) in pos.legal_moves and "9" not in pos.legal_moves
    assert "d1" not in pos.legal_moves and Move(TTT, 0) not in pos.legal_moves   # no move of this game
    assert pos.peek() == "5" and pos.peek() != "4" and pos.peek() == Move(C4, 4)
    assert parse_move_list(C4, "445") == ["4", "4", "5"] and all(isinstance(m, Move) for m in parse_move_list(C4, "445"))
    assert parse_move(TTT, "b2") == "B2" == Move(TTT, 4) and format_move(TTT, "b2") == "b2"
    assert format_move_list(C4, parse_move_list(C4, "4,4,5")) == "445"
    ttt = Position.from_moves(TTT, "c3,a1")
    assert ttt.peek() == "a1" and "a1" not in ttt.legal_moves and "b2" in ttt.legal_moves
    assert [str(m) for m in ttt.legal_moves[:2]] == ["a3", "b3"]
    empty = Position.from_moves(GameSpec(1, 2, 2, True), "11")
    assert not empty.legal_moves and list(empty.legal_moves) == []


def test_sides_are_x_and_o():
    pos = Position(TTT)
    assert pos.turn is Side.X and pos.turn == 1 and str(pos.turn) == "X" and pos.turn.other is Side.O
    for move in "a1 b1 a2 b2 a3".split():
        pos.push(move)
    assert pos.outcome().winner is Side.X and f"{pos.outcome().winner}" == "X"
