"""A user's script, type-checked by CI (``.ci/run``: mypy run from outside the tree, so
that it finds the package as the README's ``pip install -e`` installed it, by its
``py.typed``). Run it too: ``python tests/typing/api_client.py`` plays the README's
Python example."""
from __future__ import annotations

from typing import Optional

from parallel_mnk import PRESETS, Limit, Move, Options, Position, Side, SolveResult, Value, solve

position = Position(PRESETS["connect4"])
for text in "4453":
    position.push(text)
result: SolveResult = solve(position, Limit(time=60), options=Options(workers=1))
value: Value = result.value
best: Optional[Move] = result.best_move
turn: Side = position.turn
nodes: int = result.nodes
if __name__ == "__main__":
    print(turn, value, best, result.score)
