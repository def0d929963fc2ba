"""Other solvers run on the same positions in the same run, for a peer column.

A *peer* is any program that reads Pons' line format on stdin (one position a
line: a move string of column digits from 1, an empty line for the empty board;
anything after a space is ignored) and prints, for each line, ``line score nodes
time_us``: the score in Pons' convention (the same as ours), its node count and
its solve time in microseconds. Pons' solver and Steininger's c4 each take a
driver of about twenty lines to do that (bench/README.md says how to build them;
they are never shipped here). A peer solves one board size: ``--peer CMD`` is a
7x6 peer, ``--peer 6x6=CMD`` one for another size. ``--peer empty:CMD`` (or
``empty:6x6=CMD``) runs only on the empty boards: for builds whose table is too big
to clear once per position (c4 with 1 GB, c4 with 2 threads).
"""
from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class Peer:
    """A peer command and the board it solves (``cols x rows``)."""
    name: str
    command: str
    cols: int = 7
    rows: int = 6
    empty_only: bool = False

    def runs_on(self, cols: int, rows: int, lines: list[str]) -> bool:
        """Whether this peer answers ``lines`` of a ``cols`` x ``rows`` board."""
        return (self.cols, self.rows) == (cols, rows) and (not self.empty_only or all(not ln for ln in lines))

    @staticmethod
    def parse(text: str) -> "Peer":
        """A peer from ``CMD`` (7x6), ``WxH=CMD`` or either after ``empty:`` (the
        empty boards only); ValueError with a one-line reason."""
        empty_only = text.startswith("empty:")
        if empty_only:
            text = text[len("empty:"):]
        size, sep, command = text.partition("=")
        cols, rows = 7, 6
        if sep and "x" in size and size.replace("x", "").isdigit():
            try:
                cols, rows = (int(v) for v in size.split("x"))
            except ValueError:
                raise ValueError(f"bad peer board size {size!r} (expected WxH=CMD)") from None
        else:
            command = text
        words = shlex.split(command)
        if not words:
            raise ValueError(f"empty peer command {text!r}")
        return Peer(Path(words[0]).name, command, cols, rows, empty_only)


@dataclass
class PeerAnswer:
    """One line of a peer's output."""
    line: str
    score: int
    nodes: int
    time_s: float


class PeerError(RuntimeError):
    """A peer that could not be run, or printed something else than the contract."""


def run_peer(peer: Peer, lines: list[str], timeout: Optional[float] = None) -> tuple[list[PeerAnswer], float]:
    """Run ``peer`` on ``lines`` (move strings); returns its answers, one per line
    in order, and the wall time of the whole process (start-up included)."""
    started = time.perf_counter()
    try:
        proc = subprocess.run(shlex.split(peer.command), input="".join(m + "\n" for m in lines),
                              capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PeerError(f"peer {peer.name}: {e}") from None
    wall = time.perf_counter() - started
    out = [ln for ln in proc.stdout.split("\n") if ln.strip()]
    if proc.returncode != 0 or len(out) != len(lines):
        err = (proc.stderr.strip().splitlines() or [""])[-1]
        raise PeerError(f"peer {peer.name}: exit status {proc.returncode}, {len(out)} answers for "
                        f"{len(lines)} lines{': ' + err if err else ''}")
    answers = []
    for asked, text in zip(lines, out):
        fields = text.split()
        try:
            score, nodes, time_us = int(fields[-3]), int(fields[-2]), float(fields[-1])
        except (IndexError, ValueError):
            raise PeerError(f"peer {peer.name}: cannot read {text!r} (expected 'line score nodes time_us')") from None
        line = " ".join(fields[:-3])
        if line != asked:
            raise PeerError(f"peer {peer.name}: answered {line!r} for {asked!r}")
        answers.append(PeerAnswer(line, score, nodes, time_us / 1e6))
    return answers, wall


def peer_rows(peer: Peer, suite: str, case: str, lines: list[str], expected: list[Optional[int]],
              ours: list[int], weak: bool = False, log=print) -> list[dict]:
    """The peer's row for ``case`` (same positions as ours): wrong scores against
    ``expected``, the lines where it and we differ, total nodes and time. A peer
    that fails gives a row with its error instead (the suite goes on)."""
    try:
        answers, wall = run_peer(peer, lines)
    except PeerError as e:
        log(f"{suite}: {case}: {e}")
        return [{"suite": suite, "case": case, "solver": peer.name, "error": str(e)}]
    scores = [a.score for a in answers]
    if weak:
        scores = [(s > 0) - (s < 0) for s in scores]
    wrong = sum(1 for s, e in zip(scores, expected) if e is not None and s != e)
    differ = [ln or "(empty)" for ln, s, o in zip(lines, scores, ours) if s != o]
    nodes = sum(a.nodes for a in answers)
    time_s = sum(a.time_s for a in answers)
    log(f"{suite}: {case}: {peer.name}: {len(lines)} positions, {wrong} wrong, {nodes:,} nodes, {time_s:.2f} s"
        + (f"; scores differ from ours on {len(differ)}: {' '.join(differ[:5])}" if differ else ""))
    return [{"suite": suite, "case": case, "solver": peer.name, "positions": len(lines), "wrong": wrong,
             "nodes": nodes, "time_s": time_s, "process_s": wall, "differ": len(differ),
             "differ_lines": " ".join(differ[:20])}]


def on_empty_7x6(peers: list[Peer], weak: bool, suite: str, log=print) -> list[tuple[Peer, PeerAnswer, float]]:
    """Each 7x6 peer of ``peers`` once on the empty board (``-w`` added when ``weak``):
    ``(peer, its answer, whole-process seconds)``; a peer that fails is logged under
    ``suite`` and left out."""
    out = []
    for peer in peers:
        if not peer.runs_on(7, 6, [""]):
            continue
        cmd = Peer(peer.name, peer.command + (" -w" if weak else ""), 7, 6, True)
        try:
            answers, wall = run_peer(cmd, [""])
        except PeerError as e:
            log(f"{suite}: {e}")
            continue
        out.append((peer, answers[0], wall))
    return out
