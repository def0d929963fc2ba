"""How ``parallel-mnk solve`` prints an answer for people (``--json`` is the result's
own ``to_dict``)."""
from __future__ import annotations

from typing import TextIO

from ..api.results import SolveResult
from ..game.position import Position
from ..game.rules import format_move
from .analysis import describe_score

PROOF_NAMES = {"pairing": "pairing certificates (the search cut with them)",
               "threats": "wins by continuous fours (the search closed nodes with them)",
               "search": "alpha-beta search",
               "dfpn": "depth-first proof-number search (df-pn)",
               "book": "opening book (no search)"}


def _describe_score(result: SolveResult, position: Position) -> str:
    if result.score is None:
        return ""
    # a finished draw reads "draw with best play" here (analyze says "the board is full")
    return describe_score(position, result.score, terminal=result.terminal and result.score != 0)


def _describe_bounds(result: SolveResult) -> str:
    """The bounds of an unknown value in words: ``score between +1 and +5 (a win)`` ..."""
    assert result.bounds is not None
    lo, hi = result.bounds
    value = "a win" if lo > 0 else "a loss" if hi < 0 else "a draw" if lo == hi == 0 else \
        "a draw or a win" if lo >= 0 else "a draw or a loss" if hi <= 0 else "win, draw or loss still open"
    return f"score between {lo:+d} and {hi:+d} ({value})"


def print_solve(result: SolveResult, position: Position, out: TextIO) -> None:
    """``solve``'s answer for people: the game, the board, the value and score for the side to move, the best
    move and line, the nodes, time and processes, and the prover."""
    spec = position.spec
    to_move = "X" if position.turn == 1 else "O"
    out.write(f"{spec.describe()}, {position.ply} stones, {to_move} to move\n")
    out.write(str(position) + "\n")
    if result.terminal:
        out.write(f"game over: {result.value} for {to_move} ({_describe_score(result, position)})\n")
        return
    if not result.value.known:
        out.write("value: unknown (stopped by the time limit)\n")
        if result.bounds is not None:
            out.write(f"proved so far: {_describe_bounds(result)} for {to_move}\n")
        if result.best_move is not None:
            out.write(f"best move so far: {format_move(spec, result.best_move)} (not proved)\n")
    else:
        score = "" if result.score is None else f", score {result.score:+d} ({_describe_score(result, position)})"
        out.write(f"value: {result.value} for {to_move}{score}\n")
        assert result.best_move is not None, "a known value comes with a best move"
        out.write(f"best move: {format_move(spec, result.best_move)}\n")
        out.write(f"best line: {' '.join(format_move(spec, m) for m in result.pv)}\n")
    rate = result.nodes / result.time_s if result.time_s > 0 else 0.0
    pool = len(result.workers) - 1  # entry 0 is this process (the serial search or the coordinator)
    how = "1 process" if pool <= 0 else f"{pool} worker process{'es' if pool != 1 else ''} + coordinator"
    out.write(f"nodes: {result.nodes:,}  time: {result.time_s:.3f} s  ({rate / 1e6:.2f} M nodes/s, {how})\n")
    if result.proof is not None:
        out.write(f"proof: {PROOF_NAMES[result.proof]}\n")
