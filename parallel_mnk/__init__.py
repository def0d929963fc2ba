"""parallel_mnk: an exact, parallel solver for (m,n,k)-games (Tic-Tac-Toe, Gomoku
boards, Connect Four with gravity).

    >>> from parallel_mnk import PRESETS, Position, solve
    >>> pos = Position(PRESETS["connect4"])
    >>> for move in "4453":
    ...     pos.push(move)
    >>> result = solve(pos, workers=1)
    >>> result.value, result.score, str(result.best_move)
    (<Value.LOSS: 'loss'>, -2, '6')

The records and rules load at once; :func:`solve`, :func:`analyze` and
:func:`best_move` load the numba kernels on first use (``import parallel_mnk``
alone does not import numba).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import moved
from .api.options import Limit, Watch
from .api.results import LimitedResult, SolveResult, WorkerStats
from .game.moves import Move, Side
from .game.position import Outcome, Position
from .game.rules import (PRESETS, GameSpec, IllegalMoveError, InvalidPositionError, MnkError, NotationError,
                         UnsupportedError, Value, format_move, format_move_list, parse_move, parse_move_list)

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from .frontends.analysis import Analysis, analyze
    from .frontends.solver import best_move, solve

__all__ = ["GameSpec", "PRESETS", "Position", "Move", "Side", "Outcome", "Value", "Limit", "Watch", "SolveResult",
           "WorkerStats", "LimitedResult", "Analysis", "solve", "analyze", "best_move",
           "format_move", "parse_move", "format_move_list", "parse_move_list",
           "MnkError", "IllegalMoveError", "InvalidPositionError", "NotationError", "UnsupportedError"]
__version__ = "0.1.0"
moved.install()   # the module paths from before the layer folders, with a deprecation warning

_LAZY = {"solve": "frontends.solver", "best_move": "frontends.solver", "analyze": "frontends.analysis",
         "Analysis": "frontends.analysis"}


def __getattr__(name: str) -> Any:
    """The engines' entry points, imported on first use (they load numba)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
