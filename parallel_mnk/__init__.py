"""parallel_mnk: an exact, parallel solver for (m,n,k)-games (Tic-Tac-Toe, Gomoku
boards, Connect Four with gravity).

    >>> from parallel_mnk import GameSpec, Position, solve
    >>> spec = GameSpec(cols=3, rows=3, k=3)
    >>> solve(Position(spec)).value == "draw"
    True

The records and rules load at once; :func:`solve`, :func:`analyze` and
:func:`best_move` load the numba kernels on first use (``import parallel_mnk``
alone does not import numba).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import moved
from .api.options import Limit, Watch
from .api.results import LimitedResult, SolveResult, WorkerStats
from .game.position import Outcome, Position
from .game.rules import GameSpec, MnkError, Value

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from .frontends.analysis import Analysis, analyze
    from .frontends.solver import best_move, solve

__all__ = ["GameSpec", "Position", "Outcome", "Value", "Limit", "Watch", "SolveResult", "WorkerStats",
           "LimitedResult", "MnkError", "Analysis", "solve", "analyze", "best_move"]
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
