"""Splitting a running task where its search has finished a move (DTS's rule).

A task is one window search of a frontier node of the split tree. When workers
are idle and no task may start (young brothers wait for their elder), a running
task is split instead: its search publishes the line it is on (at each of its
first plies, the move it is inside and how many moves of that node it finished:
:func:`.shm.path_of`), and at the shallowest node of that line where a move is
finished, the other moves may be searched at once by other workers (their elder
is done: young brothers may go).

:func:`split_point` picks that node; :func:`split_along` rebuilds the split tree
down to it. Each node on the line is expanded (:meth:`.split.SplitTree.deepen`);
its moves that a search of one node decides (the table holds what the task
finished; ``settle``) are settled at once; the moves are reordered so that the
settled ones come first, then the one the task is inside, then the others. The
task itself is abandoned by the coordinator: what it finished is in the table,
so the new tasks redo only the nodes on its line.
"""
from __future__ import annotations

from typing import Callable, Optional

from .split import Node, SplitTree

# what a search of one node decides of a split-tree node for its window: (value, kind), or None
Settle = Callable[[Node], Optional[tuple[int, int]]]
Line = dict[int, tuple[int, int, int]]   # ply -> (cell, child_ply, done): see shm.path_of


def split_point(line: Line, cells: int, min_empty: int) -> Optional[int]:
    """The ply of the shallowest node on ``line`` where a move is finished and at
    least ``min_empty`` of the board's ``cells`` are empty; None when there is none."""
    for ply in sorted(line):
        done = line[ply][2]
        if done >= 1 and cells - ply >= min_empty:
            return ply
    return None


def choose(lines: dict[int, tuple[float, Line]], cells: int, min_empty: int) -> Optional[tuple[int, int]]:
    """The task to split among running ones, ``lines``: place -> (when it started,
    its line): the one whose :func:`split_point` is shallowest (the most work to
    share), the oldest of those; ``(place, ply of the split point)``, or None."""
    best = None
    for place, (started, line) in lines.items():
        at = split_point(line, cells, min_empty)
        if at is not None and (best is None or (at, started) < best[0]):
            best = ((at, started), place)
    return None if best is None else (best[1], best[0][0])


def split_along(tree: SplitTree, node: Node, line: Line, until: int, settle: Settle) -> None:
    """Expand the frontier node ``node`` of ``tree`` and, below it, the nodes of
    ``line`` down to the one of ``until`` stones (see the module docstring)."""
    cur: Optional[Node] = node
    while cur is not None and cur.static_lo < cur.static_hi and not cur.settled():
        tree.deepen(cur)
        for child in cur.children:
            if cur.settled():
                break
            if child.is_task and not child.settled():
                known = settle(child)
                if known is not None:
                    tree.record(child, *known)
        if not cur.children or cur.settled():
            break
        inside = _move_inside(cur, line)
        first = [c for c in cur.children if c.settled()]
        if inside is not None and not inside.settled():
            first.append(inside)
        tree.reorder(cur, first)
        if inside is None or inside.settled() or cur.ply >= until:
            break
        cur = inside


def _move_inside(node: Node, line: Line) -> Optional[Node]:
    """The child of ``node`` the task's search is inside: the line's move at this
    ply, or on a forced line (no step published at this ply) the one open child."""
    step = line.get(node.ply)
    if step is not None:
        return next((c for c in node.children if c.cell == step[0]), None)
    open_children = [c for c in node.children if not c.settled()]
    return open_children[0] if len(open_children) == 1 else None

