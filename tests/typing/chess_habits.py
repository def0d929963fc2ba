"""A python-chess user's script: what someone used to ``chess.Board`` and
``chess.engine.analyse(board, limit)`` writes first, type-checked by CI from outside the
tree (``.ci/run``, as ``api_client.py``) and run by tests/test_api.py. Each habit is an
assert: ``python tests/typing/chess_habits.py`` prints ``all habits hold``."""
from __future__ import annotations

from typing import Optional

from parallel_mnk import (PRESETS, Analysis, GameSpec, LegalMoves, Limit, MnkError, Move, OptionError, Options,
                          Position, SolveResult, Value, analyze, parse_move_list, solve)

board = Position.from_moves(PRESETS["connect4"], "445")          # the CLI's columns 4, 4, 5
legal: LegalMoves = board.legal_moves                            # a property, as board.legal_moves
assert list(board.legal_moves) == [Move(board.spec, c) for c in range(7)]
assert "3" in board.legal_moves and len(board.legal_moves) == 7
for move in board.legal_moves:                                   # iterate it
    assert isinstance(move, Move) and str(move) in "1234567"
assert board.peek() == "5"                                       # a move equals its text
board.push("3")                                                  # push its text
moves: list[Move] = parse_move_list(board.spec, "4453")           # Moves, not ints
assert Position.from_moves(board.spec, moves) == board
try:
    board.push(4)                                                # type: ignore[arg-type]  # a bare int: 4 or 5?
except MnkError as e:
    assert "not the int 4" in str(e)
else:
    raise AssertionError("a bare int was taken as a move")

ttt = Position.from_moves(PRESETS["tictactoe"], "c3")
assert ttt.peek() == "c3" and "a1" in ttt.legal_moves and "c3" not in ttt.legal_moves

later = board.copy()                                             # copy() as board.copy(), then push on
for text in "333644":                                            # 4453's perfect line: 0.2 s of search, not 2.5 s
    later.push(text)
result: SolveResult = solve(later, Limit(time=30), options=Options(workers=1))
assert result.value is Value.LOSS and str(result).startswith("loss for X, score -2")
best: Optional[Move] = result.best_move
assert best is not None and best in later.legal_moves
table: Analysis = analyze(ttt, options=Options(workers=1))
assert str(table).startswith("draw for O, score +0")

stopped = solve(Position(GameSpec(7, 7, 5)), Limit(nodes=2_000))   # (a board whose kernels the test run loads)
assert stopped.value is Value.UNKNOWN and stopped.bounds is not None and stopped.best_move is not None

for wrong in (lambda: solve(board, options=Options(workers="2")),     # type: ignore[arg-type]
              lambda: solve(PRESETS["tictactoe"]),                    # type: ignore[arg-type]
              lambda: solve(board, 5)):                               # type: ignore[arg-type]
    try:
        wrong()
    except OptionError as e:
        assert "\n" not in str(e)
    else:
        raise AssertionError("a wrong argument was taken")

if __name__ == "__main__":
    print("all habits hold")
