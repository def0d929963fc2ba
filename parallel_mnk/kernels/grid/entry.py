"""The array board family's entry points: what the depth-limited engine
(:mod:`parallel_mnk.engines.limited`) and the exact search past 64 cells
(:mod:`parallel_mnk.engines.exact.big`) call on boards of any size up to 26x26: the board
state's moves and evaluation (:mod:`.stones`), the search (:mod:`.search`) and
threat-space search (:mod:`.tss`). Its arrays (geometry, state, tables, scratch)
are int64 words (:mod:`.layout`), the geometry read-only. Compiling them compiles no exact search."""
from ..core.jit import CTL as I
from ..core.jit import GEO, boolean, i64
from .stones import candidate_moves, clear_stone, evaluate, move_score, play, set_stone, unplay, winning_cells
from .search import forced_win_by_fours, negamax_limited
from .tss import vct

__all__ = ["candidate_moves", "clear_stone", "evaluate", "forced_win_by_fours", "move_score", "negamax_limited",
           "play", "set_stone", "unplay", "vct", "winning_cells"]

SIGNATURES = {
    "set_stone": (GEO, I, i64, i64),
    "clear_stone": (GEO, I, i64),
    "play": (GEO, I, i64),
    "unplay": (GEO, I, i64),
    "winning_cells": (GEO, I, i64, I),
    "evaluate": (GEO, I),
    "move_score": (GEO, I, i64, i64),
    "candidate_moves": (GEO, I, boolean, I),
    "negamax_limited": (GEO, I, I, I, I, i64, i64, i64, i64, i64, i64),
    "forced_win_by_fours": (GEO, I, I, i64, boolean, i64),
    "vct": (GEO, I, I, i64, i64, i64, I, I, i64),
}
