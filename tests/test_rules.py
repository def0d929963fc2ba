"""parallel_mnk.game.rules: GameSpec validation, notation at the edges, scores."""
import random

import pytest

from parallel_mnk import GameSpec, MnkError
from parallel_mnk.game.rules import (
    PRESETS, cell_index, cell_name, format_board_text, move_name, move_list_text, parse_board_text,
    parse_cell, move_index, move_list_indexes, ply_of_score, value_of_score, win_score,
)

TTT = GameSpec(3, 3, 3)
C4 = GameSpec(7, 6, 4, True)


# ---------------------------------------------------------------- GameSpec
@pytest.mark.parametrize("args", [(3, 3, 3), (1, 1, 1), (8, 8, 5), (26, 2, 3), (2, 32, 4), (1, 64, 4), (15, 15, 5), (19, 19, 5), (26, 26, 6),
                                  (7, 6, 4, True), (1, 6, 2, True)])
def test_valid_specs(args):
    spec = GameSpec(*args)
    assert spec.cells == spec.cols * spec.rows
    assert spec.gravity == (len(args) > 3 and args[3])


@pytest.mark.parametrize("args, fragment", [
    ((3, 3, 0), "k"),
    ((3, 3, -1), "k"),
    ((0, 3, 3), "at least one"),
    ((3, 0, 3), "at least one"),
    ((0, 0, 1), "at least one"),
    ((26, 27, 5), "676"),
    ((27, 1, 3), "26"),
    ((3, 3, 677), "676"),            # found by fuzzing: k past int64 overflowed, a huge one filled the memory
    ((3, 3, 10 ** 25), "676"),
    ((3.0, 3, 3), "integer"),
    ((3, "3", 3), "integer"),
    ((3, 3, None), "integer"),
    ((True, 3, 3), "integer"),
])
def test_invalid_specs(args, fragment):
    with pytest.raises(MnkError, match=fragment) as info:
        GameSpec(*args)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("args", [(9, 9, 5), (8, 9, 4), (15, 15, 5)])
def test_exact_solver_refuses_boards_over_64_cells(args):
    spec = GameSpec(*args)
    assert not spec.exact_solvable
    with pytest.raises(MnkError, match="at most 64 cells") as info:
        spec.require_exact()
    assert "\n" not in str(info.value) and "best" in str(info.value)
    assert GameSpec(8, 8, 5).exact_solvable


def test_mnk_error_is_value_error():
    assert issubclass(MnkError, ValueError)
    with pytest.raises(ValueError):
        GameSpec(3, 3, 0)


def test_spec_is_hashable_and_frozen():
    assert GameSpec(3, 3, 3) == GameSpec(3, 3, 3, False)
    assert len({GameSpec(3, 3, 3), GameSpec(3, 3, 3), GameSpec(3, 3, 3, True)}) == 2
    with pytest.raises(Exception):
        TTT.k = 4  # type: ignore[misc]


def test_presets_and_describe():
    assert PRESETS["connect4"] == GameSpec(7, 6, 4, True)
    assert PRESETS["tictactoe"] == GameSpec(3, 3, 3, False)
    assert C4.describe() == "7x6 k=4 gravity"
    assert TTT.describe() == "3x3 k=3"


# ---------------------------------------------------------------- scores
def test_win_score_matches_pons_on_7x6():
    assert win_score(C4, 7) == 18    # a win with the 4th stone
    assert win_score(C4, 42) == 1    # a win with the last stone of the board
    assert win_score(C4, 41) == 1
    for ply in range(7, 43):
        assert win_score(C4, ply) == (44 - ply) // 2


def test_win_score_small_boards():
    assert win_score(TTT, 5) == 3   # X wins with its 3rd stone
    assert win_score(TTT, 9) == 1   # X wins with the last stone
    assert win_score(TTT, 6) == 2   # O wins with its 3rd stone
    assert win_score(GameSpec(1, 1, 1), 1) == 1


def test_value_of_score():
    assert value_of_score(5) == "win"
    assert value_of_score(1) == "win"
    assert value_of_score(0) == "draw"
    assert value_of_score(-1) == "loss"
    assert value_of_score(-18) == "loss"


def test_ply_of_score_draw_and_simple_cases():
    assert ply_of_score(TTT, 0, 0) is None
    assert ply_of_score(TTT, 0, 5) is None
    assert ply_of_score(TTT, 3, 0) == 5     # X wins with its 3rd stone
    assert ply_of_score(TTT, 1, 8) == 9     # X wins with the last stone
    assert ply_of_score(C4, 1, 41) == 42    # O wins with the last stone
    assert ply_of_score(C4, -1, 40) == 42   # ... seen from X one ply earlier


def test_ply_of_score_pons_maximum():
    assert ply_of_score(C4, 18, 0) == 7     # (44 - 7) // 2 == 18: a win with the 4th stone
    assert ply_of_score(C4, 1, 6) == 41     # X wins with its last stone, not on ply 43
    assert ply_of_score(TTT, -1, 0) == 8    # O wins with its 4th stone, not on ply 10


@pytest.mark.parametrize("spec", [TTT, C4, GameSpec(4, 3, 3), GameSpec(2, 5, 2, True)])
def test_ply_of_score_inverts_the_worth(spec):
    assert ply_of_score(spec, 0, 0) is None
    for stones in range(spec.cells):
        # the side to move wins on a later ply of its own parity
        for end in range(stones + 1, spec.cells + 1, 2):
            assert ply_of_score(spec, win_score(spec, end), stones) == end
        # the opponent wins on a later ply of the other parity
        for end in range(stones + 2, spec.cells + 1, 2):
            assert ply_of_score(spec, -win_score(spec, end), stones) == end


# ---------------------------------------------------------------- cells
def test_cell_names_on_3x3():
    # a1 is the bottom-left cell; row 0 is the top inside the code
    assert parse_cell(TTT, "a1") == 6
    assert parse_cell(TTT, "c1") == 8
    assert parse_cell(TTT, "a3") == 0
    assert parse_cell(TTT, "c3") == 2
    assert parse_cell(TTT, "b2") == 4  # the centre
    assert cell_name(TTT, 0) == "a3"
    assert cell_name(TTT, 8) == "c1"
    assert cell_index(TTT, 2, 0) == 6



def test_cell_names_on_a_rectangular_board():
    spec = GameSpec(5, 3, 3)  # 5 columns a..e, 3 rows 1..3
    assert parse_cell(spec, "a1") == 10
    assert parse_cell(spec, "e1") == 14
    assert parse_cell(spec, "e3") == 4
    assert cell_name(spec, 7) == "c2"


@pytest.mark.parametrize("spec", [TTT, C4, GameSpec(5, 3, 3), GameSpec(1, 6, 2), GameSpec(26, 2, 3),
                                  GameSpec(2, 32, 4)])
def test_cell_name_round_trip(spec):
    names = [cell_name(spec, c) for c in range(spec.cells)]
    assert len(set(names)) == spec.cells
    for cell, name in enumerate(names):
        assert parse_cell(spec, name) == cell
        assert parse_cell(spec, name.upper()) == cell
        assert parse_cell(spec, f"  {name} ") == cell
    # row 1 is the bottom row
    bottom = [parse_cell(spec, f"{chr(ord('a') + c)}1") for c in range(spec.cols)]
    assert bottom == list(range(spec.cells - spec.cols, spec.cells))


@pytest.mark.parametrize("text", ["", "b", "2", "1a", "aa1", "a-1", "a1b", "a 1", "é1", "a1.5"])
def test_parse_cell_malformed(text):
    with pytest.raises(MnkError, match="not a cell name"):
        parse_cell(TTT, text)


@pytest.mark.parametrize("text", ["d1", "a0", "a4", "z9", "c10"])
def test_parse_cell_off_board(text):
    with pytest.raises(MnkError, match="off the 3x3 board"):
        parse_cell(TTT, text)


# ---------------------------------------------------------------- moves
def test_gravity_moves_are_columns_from_one():
    assert move_index(C4, "1") == 0
    assert move_index(C4, "7") == 6
    assert move_index(C4, " 4 ") == 3
    assert move_name(C4, 0) == "1"
    assert move_name(C4, 6) == "7"


@pytest.mark.parametrize("text, fragment", [("0", "off the board"), ("8", "off the board"),
                                            ("-1", "not a column"), ("a", "not a column"),
                                            ("d1", "not a column"), ("", "not a column"),
                                            ("1.0", "not a column"),
                                            ("\u00b2", "not a column"),    # found by fuzzing: int() refused it
                                            ("\u0663", "not a column")])   # an Arabic-Indic 3: ASCII digits only
def test_gravity_move_errors(text, fragment):
    with pytest.raises(MnkError, match=fragment):
        move_index(C4, text)


def test_free_moves_are_cells():
    assert move_index(TTT, "b2") == 4
    assert move_name(TTT, 4) == "b2"
    assert move_name(TTT, 6) == "a1"
    with pytest.raises(MnkError):
        move_index(TTT, "2")


@pytest.mark.parametrize("text", ["4453", "4,4,5,3", "4 4 5 3", " 4, 4 ,5,3 ", "4\t4\t5\t3"])
def test_parse_gravity_move_list(text):
    assert move_list_indexes(C4, text) == [3, 3, 4, 2]


def test_parse_move_list_empty():
    assert move_list_indexes(C4, "") == []
    assert move_list_indexes(C4, "   ") == []
    assert move_list_indexes(TTT, "") == []


def test_gravity_digit_string_needs_at_most_9_columns():
    wide = GameSpec(12, 2, 4, True)
    assert move_list_indexes(wide, "11") == [10]          # column 11, not 1,1
    assert move_list_indexes(wide, "10,11,1") == [9, 10, 0]
    assert move_list_indexes(wide, "1 12") == [0, 11]
    assert move_list_text(wide, [9, 10, 0]) == "10,11,1"
    with pytest.raises(MnkError):
        move_list_indexes(wide, "13")
    nine = GameSpec(9, 2, 4, True)
    assert move_list_indexes(nine, "19") == [0, 8]


def test_parse_free_move_list():
    assert move_list_indexes(TTT, "b2,a1,c3") == [4, 6, 2]
    assert move_list_indexes(TTT, "b2 a1  c3") == [4, 6, 2]
    assert move_list_indexes(TTT, "B2, A1") == [4, 6]
    assert move_list_text(TTT, [4, 6, 2]) == "b2,a1,c3"


@pytest.mark.parametrize("spec, text", [(TTT, "b2,zz"), (TTT, "b2,d1"), (TTT, "4453"), (C4, "4458"),
                                        (C4, "44a3"), (C4, "4,4,0"), (C4, "4\u00b2"), (TTT, "a\u0663")])
def test_parse_move_list_errors(spec, text):
    with pytest.raises(MnkError):
        move_list_indexes(spec, text)


@pytest.mark.parametrize("spec", [TTT, C4, GameSpec(12, 2, 4, True), GameSpec(5, 3, 3), GameSpec(9, 7, 4, True)])
def test_move_list_round_trip(spec):
    rng = random.Random(1234)
    limit = spec.cols if spec.gravity else spec.cells
    for _ in range(50):
        moves = [rng.randrange(limit) for _ in range(rng.randrange(12))]
        text = move_list_text(spec, moves)
        assert move_list_indexes(spec, text) == moves


# ---------------------------------------------------------------- board text
def test_parse_board_text():
    x, o = parse_board_text(TTT, "x.o/.x./...")
    assert x == (1 << 0) | (1 << 4)
    assert o == 1 << 2
    assert parse_board_text(TTT, "X.O/.x./...") == (x, o)   # case-insensitive
    assert parse_board_text(TTT, " x.o/.x./... ") == (x, o)  # surrounding blanks
    assert parse_board_text(TTT, ".../.../...") == (0, 0)


def test_board_text_bottom_row_is_last():
    spec = GameSpec(4, 2, 2, True)
    x, o = parse_board_text(spec, "..../xo..")
    assert x == 1 << parse_cell(spec, "a1")
    assert o == 1 << parse_cell(spec, "b1")


@pytest.mark.parametrize("text, fragment", [
    ("x.o/.x.", "2 rows"),
    ("x.o/.x./.../...", "4 rows"),
    ("x.o/.x/...", "row 2 from the top has 2 cells"),
    ("x.o/.x../...", "row 2 from the top has 4 cells"),
    ("x.o/.x./..?", "unknown character"),
    ("x.o/.x./.-.", "unknown character"),
    ("x.o/1x./...", "unknown character"),
    ("", "1 rows"),
])
def test_parse_board_text_errors(text, fragment):
    with pytest.raises(MnkError, match=fragment):
        parse_board_text(TTT, text)


@pytest.mark.parametrize("spec", [TTT, C4, GameSpec(5, 3, 3), GameSpec(1, 6, 2)])
def test_board_text_round_trip(spec):
    rng = random.Random(99)
    for _ in range(50):
        x = o = 0
        for cell in range(spec.cells):
            r = rng.random()
            if r < 0.3:
                x |= 1 << cell
            elif r < 0.6:
                o |= 1 << cell
        text = format_board_text(spec, x, o)
        assert len(text.split("/")) == spec.rows
        assert parse_board_text(spec, text) == (x, o)


# ---------------------------------------------------------------- Value and the error classes
def test_value_is_a_str_enum_that_reads_as_its_word():
    import json

    from parallel_mnk import Value
    from parallel_mnk.game.rules import value_of_score

    assert value_of_score(3) is Value.WIN and value_of_score(0) is Value.DRAW and value_of_score(-1) is Value.LOSS
    for v, word in [(Value.WIN, "win"), (Value.DRAW, "draw"), (Value.LOSS, "loss"), (Value.UNKNOWN, "unknown")]:
        assert v == word and str(v) == word and f"{v}" == word and f"{v:>8}" == f"{word:>8}"
        assert json.dumps({"value": v}) == json.dumps({"value": word})
    assert [v.negated() for v in Value] == [Value.LOSS, Value.DRAW, Value.WIN, Value.UNKNOWN]
    assert [Value.WIN.rank, Value.DRAW.rank, Value.LOSS.rank] == [1, 0, -1]
    assert all(v.known for v in (Value.WIN, Value.DRAW, Value.LOSS)) and not Value.UNKNOWN.known
    with pytest.raises(ValueError):
        Value.UNKNOWN.rank


@pytest.mark.parametrize("call, error", [
    (lambda: parse_cell(GameSpec(3, 3, 3), "z9"), "NotationError"),
    (lambda: move_list_indexes(GameSpec(7, 6, 4, True), "48"), "NotationError"),
    (lambda: parse_board_text(GameSpec(3, 3, 3), "x?./.../..."), "NotationError"),
    (lambda: GameSpec(27, 2, 3), "UnsupportedError"),
    (lambda: GameSpec(9, 9, 5).require_exact(), "UnsupportedError"),
])
def test_errors_are_mnk_errors_of_a_named_kind(call, error):
    from parallel_mnk.game import rules

    with pytest.raises(MnkError) as info:
        call()
    assert type(info.value) is getattr(rules, error) and issubclass(type(info.value), MnkError)
    assert "\n" not in str(info.value)


def test_generic_bounds_and_terminal_score():
    from parallel_mnk.game.rules import generic_bounds, terminal_score

    c4 = GameSpec(7, 6, 4, True)
    assert generic_bounds(c4.cells, 0) == (-21, 21)   # Pons' range on the empty board
    assert generic_bounds(c4.cells, 41) == (0, 1)
    assert terminal_score(c4, 7, won=True) == -win_score(c4, 7) and terminal_score(c4, 42, won=False) == 0
