"""parallel_mnk: an exact, parallel solver for (m,n,k)-games (Tic-Tac-Toe, Gomoku
boards, Connect Four with gravity).

    >>> from parallel_mnk import PRESETS, Options, Position, solve
    >>> pos = Position.from_moves(PRESETS["connect4"], "4453")
    >>> result = solve(pos, options=Options(workers=1))
    >>> result.value, result.score, result.best_move in ("6", "7")
    (<Value.LOSS: 'loss'>, -2, True)

Everything a user calls is here; the functions are those of
:mod:`parallel_mnk.entrance` (``solve``, ``analyze``, ``best_move``, ``build_book``, ``campaign``).
The records and rules load at once; the functions load the numba kernels on
first use (``import parallel_mnk`` alone does not import numba).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .api.options import Limit, Options, Watch
from .api.results import Analysis, LimitedResult, MoveAnalysis, SolveResult, WorkerStats
from .api.settings import Settings
from .game.moves import Move, Side, format_move, format_move_list, parse_move, parse_move_list
from .game.position import LegalMoves, Outcome, Position
from .game.rules import (PRESETS, GameSpec, IllegalMoveError, InvalidPositionError, MnkError, NotationError,
                         OptionError, ResourceError, UnsupportedError, Value)

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from .entrance import analyze, best_move, build_book, campaign, solve

__all__ = ["GameSpec", "PRESETS", "Position", "LegalMoves", "Move", "Side", "Outcome", "Value",
           "solve", "analyze", "best_move", "build_book", "campaign", "Limit", "Options", "Settings", "Watch",
           "SolveResult", "Analysis", "MoveAnalysis", "LimitedResult", "WorkerStats",
           "format_move", "parse_move", "format_move_list", "parse_move_list",
           "MnkError", "IllegalMoveError", "InvalidPositionError", "NotationError", "OptionError", "ResourceError",
           "UnsupportedError"]
__version__ = "0.1.0"

_LAZY = ("solve", "analyze", "best_move", "build_book", "campaign")   # they load numba: imported on first use


def __getattr__(name: str) -> Any:
    """The library's functions (:mod:`parallel_mnk.entrance`), imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import entrance

    value = getattr(entrance, name)
    globals()[name] = value
    return value
