"""What the command line and the web server ask alike: the game from a preset or
its sizes, the position from a move list or board text, and the checks of a time
limit, with the CLI's one-line messages. Both front ends call these, so that a
request to ``parallel-mnk serve`` fails with the words ``parallel-mnk`` uses.

The JSON of each command is the result's own ``to_dict`` (:class:`SolveResult`,
:class:`~parallel_mnk.api.results.Analysis`, :class:`LimitedResult`).
"""
from __future__ import annotations

from typing import Optional, Union

from ..game.position import Position
from ..proofcheck import printable   # the checker's (standard library only): one function for both
from ..game.rules import PRESETS, GameSpec, MnkError
from ..runtime.ttable import check_table_bits


def game_spec(game: Optional[str], cols: Optional[int], rows: Optional[int], k: Optional[int],
              gravity: bool) -> GameSpec:
    """The game of ``--game`` (a preset; ``cols``/``rows``/``k`` given override its
    sizes, ``gravity`` adds gravity) or of ``--cols --rows --k [--gravity]``. A k
    longer than both sides (no line fits: every game a draw) is refused as a
    mistake (the Python API takes it)."""
    if game is not None:
        base = PRESETS.get(game)
        if base is None:
            raise MnkError(f"unknown game {game!r} (choose from {', '.join(sorted(PRESETS))})")
        spec = GameSpec(base.cols if cols is None else cols, base.rows if rows is None else rows,
                        base.k if k is None else k, base.gravity or gravity)
    else:
        missing = [f"--{name}" for name, value in (("cols", cols), ("rows", rows), ("k", k)) if value is None]
        if missing:
            raise MnkError(f"give the game: {', '.join(missing)} missing (or --game connect4|tictactoe)")
        assert cols is not None and rows is not None and k is not None
        spec = GameSpec(cols, rows, k, gravity)
    if spec.k > max(spec.cols, spec.rows):
        raise MnkError(f"k={spec.k} is longer than both sides of {spec.cols}x{spec.rows}: no line fits")
    return spec


def game_notes(game: Optional[str], cols: Optional[int], rows: Optional[int], k: Optional[int],
               gravity: bool) -> list[str]:
    """What the command line tells a user who changed a preset with ``--cols``,
    ``--rows``, ``--k`` or ``--gravity``: the game that is played instead (one
    line each, empty when the preset is played as it is)."""
    base = PRESETS.get(game) if game is not None else None
    if base is None:
        return []
    changed = [f"--{name} {value}" for name, value, own in (("cols", cols, base.cols), ("rows", rows, base.rows),
                                                            ("k", k, base.k)) if value is not None and value != own]
    if gravity and not base.gravity:
        changed.append("--gravity")
    if not changed:
        return []
    spec = game_spec(game, cols, rows, k, gravity)
    return [f"--game {game} with {' '.join(changed)} is {spec.describe()}, not {game} ({base.describe()})"]


def position_of(spec: GameSpec, moves: Optional[str], board: Optional[str]) -> Position:
    """The position of ``--moves`` or ``--board`` (not both); neither is the empty board."""
    if moves is not None and board is not None:
        raise MnkError("give either --moves or --board, not both")
    if board is not None:
        return Position.from_board(spec, board)
    return Position.from_moves(spec, moves or "")


def check_time_limit(time_limit: Optional[float]) -> None:
    """Refuse a time limit that is not positive (None: no limit)."""
    if time_limit is not None and not time_limit > 0:
        raise MnkError(f"--time-limit must be positive, got {time_limit}")



def table_size(tt_size: Optional[str], tt_bits: Optional[int]) -> Union[int, str, None]:
    """The table of ``--tt-size SIZE`` (as given) or ``--tt-bits N`` (the bytes of its
    2**N entries, N checked), as ``Options(tt_size=)`` takes it; None: neither."""
    if tt_bits is None:
        return tt_size
    check_table_bits(tt_bits)
    return 8 << tt_bits
