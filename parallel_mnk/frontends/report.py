"""How ``parallel-mnk solve`` and ``analyze`` print an answer for people (``--json``
is the result's own ``to_dict``): :func:`print_solve`; :func:`render` (the board
with each move's score on it) and :func:`pons_line` (the input followed by one
score per column, or per cell, as Pons' ``-a`` output)."""
from __future__ import annotations

from typing import TextIO

from ..api.results import ILLEGAL, UNKNOWN, Analysis, MoveAnalysis, SolveResult, counted
from ..game.position import Position
from ..game.rules import move_name, ply_of_score

PROOF_NAMES = {"pairing": "pairing certificates (the search cut with them)",
               "threats": "wins by continuous fours (the search closed nodes with them)",
               "search": "alpha-beta search",
               "dfpn": "depth-first proof-number search (df-pn)",
               "pn": "proof-number search with relevance zones, threats and pairings",
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
    to_move = position.turn
    out.write(f"{spec.describe()}, {counted(position.ply, 'stone')}, {to_move} to move\n")
    out.write(str(position) + "\n")
    if result.terminal:
        out.write(f"game over: {result.value} for {to_move} ({_describe_score(result, position)})\n")
        return
    if not result.value.known:
        out.write("value: unknown (stopped by the time limit)\n")
        if result.bounds is not None:
            out.write(f"proved so far: {_describe_bounds(result)} for {to_move}\n")
        if result.best_move is not None:
            out.write(f"best move so far: {move_name(spec, result.best_move)} (not proved)\n")
    else:
        score = "" if result.score is None else f", score {result.score:+d} ({_describe_score(result, position)})"
        out.write(f"value: {result.value} for {to_move}{score}\n")
        assert result.best_move is not None, "a known value comes with a best move"
        out.write(f"best move: {move_name(spec, result.best_move)}\n")
        out.write(f"best line: {' '.join(move_name(spec, m) for m in result.pv)}\n")
    rate = result.nodes / result.time_s if result.time_s > 0 else 0.0
    pool = len(result.workers) - 1  # entry 0 is this process (the serial search or the coordinator)
    how = "1 process" if pool <= 0 else f"{pool} worker process{'es' if pool != 1 else ''} + coordinator"
    out.write(f"nodes: {result.nodes:,}  time: {result.time_s:.3f} s  ({rate / 1e6:.2f} M nodes/s, {how})\n")
    if result.proof is not None:
        out.write(f"proof: {PROOF_NAMES[result.proof]}\n")


def _token(m: MoveAnalysis) -> str:
    """A move's entry on the board: its score, its value when weak, ``?`` unknown."""
    if not m.value.known:
        return UNKNOWN
    if m.score is None:
        return m.value
    return f"{m.score:+d}" if m.score else "0"


def describe_score(position: Position, score: int, terminal: bool = False) -> str:
    """``draw with best play``, ``X wins with its stone 5 (ply 9)``, ``X has won``."""
    end = ply_of_score(position.spec, score, position.ply)
    if end is None:
        return "draw with best play" if not terminal else "the board is full"
    winner = position.turn if score > 0 else position.turn.other
    if terminal:
        return f"{winner} has won"
    return f"{winner} wins with its stone {(end + 1) // 2} (ply {end})"


def grid_lines(analysis: Analysis) -> list[str]:
    """The board with the scores. Free placement: each empty cell shows its
    move's score, taken cells X/O. Gravity: the board, the column numbers, and
    under them each column's score (blank for a full column)."""
    pos, spec = analysis.position, analysis.spec
    tokens = [_token(m) for m in analysis.moves]
    width = max([1, len(str(spec.cols))] + [len(t) for t in tokens])
    label = len(str(spec.rows))
    slots = analysis.slots()
    lines = []
    for r in range(spec.rows):
        cells = []
        for c in range(spec.cols):
            bit = 1 << (r * spec.cols + c)
            if pos.x & bit:
                t = "X"
            elif pos.o & bit:
                t = "O"
            else:
                entry = None if spec.gravity else slots[r * spec.cols + c]
                t = "." if entry is None else _token(entry)
            cells.append(f"{t:>{width}}")
        lines.append(f"{spec.rows - r:>{label}} " + " ".join(cells))
    names = [str(c + 1) if spec.gravity else chr(ord("a") + c) for c in range(spec.cols)]
    lines.append(" " * (label + 1) + " ".join(f"{n:>{width}}" for n in names))
    if spec.gravity:
        row = " ".join(f"{'' if m is None else _token(m):>{width}}" for m in slots)
        lines.append((" " * (label + 1) + row).rstrip())
    return lines


def render(analysis: Analysis) -> str:
    """The human form: header, the grid, the value, the best moves, nodes and time."""
    pos, spec = analysis.position, analysis.spec
    mover = pos.turn
    head = f"{spec.describe()}, {counted(pos.ply, 'stone')}, {mover} to move"
    if analysis.terminal:
        assert analysis.terminal_score is not None
        return "\n".join([head, str(pos),
                          f"game over: {analysis.value} for {mover} "
                          f"({describe_score(pos, analysis.terminal_score, terminal=True)}); no move to analyse"]) + "\n"
    what = "value" if analysis.weak else "score"
    where = "under its column (blank: full column)" if spec.gravity else "on its cell"
    lines = [head, f"{what} of each move for {mover}, {where}:"]
    lines += grid_lines(analysis)
    solved = sum(m.value.known for m in analysis.moves)
    if not analysis.value.known:
        lines.append(f"value: unknown (stopped by the time limit: {solved} of {counted(len(analysis.moves), 'move')} "
                     f"solved, '?' for the others)")
    else:
        score = "" if analysis.score is None else \
            f", score {analysis.score:+d} ({describe_score(pos, analysis.score)})"
        lines.append(f"value: {analysis.value} for {mover}{score}")
        best = [move_name(spec, m) for m in analysis.best_moves]
        lines.append(f"best move{'s' if len(best) > 1 else ''}: {' '.join(best)}")
    how = "1 process" if analysis.workers == 1 else f"{analysis.workers} workers"
    lines.append(f"nodes: {analysis.nodes:,}  time: {analysis.time_s:.3f} s  ({how})")
    return "\n".join(lines) + "\n"


def pons_line(text: str, analysis: Analysis) -> str:
    """``text`` followed by one entry per column (per cell, row-major from the
    top-left, when free), space separated: what Pons' solver prints with ``-a``
    (-1000 for a full column; ``?`` unknown)."""
    return " ".join([text, *analysis.line_entries()])
