"""parallel_mnk: an exact, parallel solver for (m,n,k)-games (Tic-Tac-Toe, Gomoku boards,
Connect Four with gravity).

    >>> from parallel_mnk import GameSpec, Position, solve
    >>> spec = GameSpec(cols=3, rows=3, k=3)
    >>> solve(Position(spec)).value
    'draw'
"""
from .position import Outcome, Position
from .rules import GameSpec, MnkError
from .search import SolveResult, WorkerStats, solve

__all__ = ["GameSpec", "MnkError", "Outcome", "Position", "SolveResult", "WorkerStats", "solve"]
__version__ = "0.1.0"
