"""What a parallel solve spent its time on, from the coordinator's log of its
tasks: where the workers' time went (the phases) and the *span*, the nodes on
the solve's critical path.

The coordinator tells the log when a probe (one split tree) begins and ends,
when a task goes to a place and when its answer comes back, and which search
decided each split-tree node. From that:

* worker time, per place, in seconds of wall clock (``W * probe time`` in all):
  ``busy`` (a task handed out and not yet answered: search, pipe and queueing),
  of which ``helping`` (a second searcher on a running task whose answer did not
  count), ``abandoned`` (searches stopped unfinished: a cutoff made them
  useless) and ``split`` (searches stopped to be split: what they finished is in
  the table, for the tasks that took over), with the nodes of those kinds of search; idle as ``first_wait`` (probe start to the place's first task: the
  tree's expansion and the first dispatch), ``turn`` (answer back to next task
  while there was work to hand out: the coordinator's turn), ``starved``
  (nothing could be handed out: young brothers waiting for their elder, or the
  probe's last tasks running elsewhere) and ``tail`` (last answer to the probe's
  end);
* the span: for each probe, the nodes of the searches the root's value waited
  for, along the longest chain: a leaf of the split tree costs the nodes of the
  search that decided it (0 when a bound decided it), an inner node with
  young-brothers-wait its eldest child's span plus the longest of the others'
  (they start together once it is settled), without it the longest child's.
  Probes run one after the other, so the solve's span is their sum plus the
  coordinator's own serial nodes (added by the driver). With unlimited workers
  a solve still takes at least its span; with ``P`` workers at least
  ``max(work / P, span)`` (work: all nodes), which bounds the speed-up over a
  serial solve of ``serial`` nodes by ``serial / max(work / P, span)``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

from .split import Node, SplitTree

PHASES = ("busy", "helping", "abandoned", "split", "first_wait", "turn", "starved", "tail")


@dataclass
class Figures:
    """The log's totals for one solve (seconds are worker-seconds of wall clock)."""

    probes: int = 0
    tasks: int = 0
    helper_tasks: int = 0
    splits: int = 0            # running tasks split (their lines became split-tree nodes)
    probe_s: float = 0.0
    coordinator_cpu_s: float = 0.0   # the coordinator's own CPU time during the probes (its turns)
    span: int = 0
    seconds: dict = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    abandoned_nodes: int = 0   # nodes of searches stopped unfinished (a cutoff made them useless)
    helping_nodes: int = 0     # nodes of helpers' searches whose answer did not count
    split_nodes: int = 0       # nodes of searches stopped to be split

    def to_dict(self) -> dict:
        return {"probes": self.probes, "tasks": self.tasks, "helper_tasks": self.helper_tasks, "splits": self.splits,
                "probe_s": round(self.probe_s, 6), "coordinator_cpu_s": round(self.coordinator_cpu_s, 6),
                "span_nodes": self.span,
                "abandoned_nodes": self.abandoned_nodes, "helping_nodes": self.helping_nodes,
                "split_nodes": self.split_nodes,
                **{f"{k}_s": round(v, 6) for k, v in self.seconds.items()}}


@dataclass
class TaskRecord:
    """One task of the trace (:attr:`TaskLog.trace`): its probe (0, 1, ...), place and
    kind, when it started and answered (seconds from its probe's start), its
    nodes and how it ended (``counted``, ``uncounted``: a helper's or a stale
    answer, ``abandoned``, ``split``, ``lost``), ``after``: the index in the
    trace of the task whose event (an answer, or being split) was the last the
    coordinator saw before handing this one out (-1: none in this probe), and
    ``stopped_after``: the same when it was asked to stop (-1: it was not)."""

    probe: int
    place: int
    helper: bool
    after: int
    start: float
    end: float = -1.0
    nodes: int = 0
    outcome: str = ""
    stopped_after: int = -1


class _Place:
    """A place's state in the current probe."""

    __slots__ = ("free_since", "first", "starved", "started", "helper", "record")

    def __init__(self, now: float) -> None:
        self.free_since: Optional[float] = now   # None while it holds a task
        self.first = True
        self.starved = False
        self.started = 0.0
        self.helper = False
        self.record = -1   # its task's index in the trace


class TaskLog:
    """The log of one solve's tasks on ``places`` places (see the module docstring)."""

    def __init__(self, places: int, clock=time.perf_counter, cpu_clock=time.thread_time) -> None:
        self.n = places
        self.clock = clock
        self.cpu_clock = cpu_clock
        self._probe_cpu = 0.0
        self.figures = Figures()
        self._places: list[_Place] = []
        self._decided: dict[int, int] = {}   # id(node) -> nodes of the search that decided it
        self._probe_start = 0.0
        self.trace: list[TaskRecord] = []    # every task of the solve, in the order handed out
        self._last_event = -1                # trace index of the task of the probe's latest event

    # ------------------------------------------------------------ what the coordinator reports
    def probe_begin(self) -> None:
        """A split tree's search starts; every place is free."""
        now = self.clock()
        self._probe_start = now
        self._probe_cpu = self.cpu_clock()
        self._places = [_Place(now) for _ in range(self.n)]
        self._decided = {}
        self._last_event = -1

    def started(self, place: int, helper: bool) -> None:
        """Place ``place`` (1..n) was handed a task (``helper``: a second searcher of a running one)."""
        p = self._place(place)
        if p is None:
            return
        now = self.clock()
        if p.free_since is not None:
            gap = now - p.free_since
            kind = "first_wait" if p.first else ("starved" if p.starved else "turn")
            self.figures.seconds[kind] += gap
        p.free_since, p.first, p.starved, p.started, p.helper = None, False, False, now, helper
        self.figures.tasks += 1
        self.figures.helper_tasks += helper
        p.record = len(self.trace)
        self.trace.append(TaskRecord(self.figures.probes, place, helper, self._last_event, now - self._probe_start))

    def answered(self, place: int, counted: bool, abandoned: bool, nodes: int = 0, split: bool = False) -> None:
        """Place ``place``'s task answered (or was lost) after ``nodes`` nodes:
        ``counted`` when its result decided its node, ``abandoned`` when it
        stopped unfinished (``split``: stopped to be split)."""
        p = self._place(place)
        if p is None or p.free_since is not None:
            return
        now = self.clock()
        busy = now - p.started
        self.figures.seconds["busy"] += busy
        if abandoned and split:
            self.figures.seconds["split"] += busy
            self.figures.split_nodes += nodes
            outcome = "split"
        elif abandoned:
            self.figures.seconds["abandoned"] += busy
            self.figures.abandoned_nodes += nodes
            outcome = "abandoned"
        elif p.helper and not counted:
            self.figures.seconds["helping"] += busy
            self.figures.helping_nodes += nodes
            outcome = "uncounted"
        else:
            outcome = "counted" if counted else "uncounted"
        p.free_since = now
        if p.record >= 0:
            r = self.trace[p.record]
            r.end, r.nodes, r.outcome = now - self._probe_start, nodes, outcome
            self._last_event = p.record

    def stopping(self, place: int) -> None:
        """The task running at place ``place`` is asked to stop (abandoned, or split)."""
        p = self._place(place)
        if p is not None and p.free_since is None and p.record >= 0 and self.trace[p.record].stopped_after < 0:
            self.trace[p.record].stopped_after = self._last_event

    def split(self, place: int) -> None:
        """The task running at place ``place`` was split."""
        self.figures.splits += 1
        p = self._place(place)
        if p is not None and p.free_since is None and p.record >= 0:
            self._last_event = p.record

    def starving(self, place: int) -> None:
        """Place ``place`` stays idle after a dispatch: nothing could be handed out."""
        p = self._place(place)
        if p is not None and p.free_since is not None and not p.first:
            p.starved = True

    def decided(self, node: Node, nodes: int) -> None:
        """``node`` was decided by a search of ``nodes`` nodes."""
        self._decided.setdefault(id(node), nodes)   # (the first result counts)

    def probe_end(self, tree: Optional[SplitTree]) -> None:
        """The probe is over (its tasks answered or reset): idle places' tails,
        the probe's span added."""
        now = self.clock()
        for p in self._places:
            if p.free_since is not None:
                self.figures.seconds["tail" if not p.first else "first_wait"] += now - p.free_since
        self.figures.probes += 1
        self.figures.probe_s += now - self._probe_start
        self.figures.coordinator_cpu_s += self.cpu_clock() - self._probe_cpu
        if tree is not None:
            self.figures.span += self.span_of(tree)
        self._places = []

    # ------------------------------------------------------------ the span
    def span_of(self, tree: SplitTree) -> int:
        """The probe's span (see the module docstring) from the searches recorded by :meth:`decided`."""
        return self._span(tree.root, tree.ybw)

    def _span(self, node: Node, ybw: bool) -> int:
        if not node.children:
            return self._decided.get(id(node), 0)
        spans = [self._span(c, ybw) for c in node.children]
        if ybw:
            return spans[0] + max(spans[1:], default=0)
        return max(spans)

    def _place(self, place: int) -> Optional[_Place]:
        return self._places[place - 1] if 1 <= place <= len(self._places) else None


def speedup_bound(serial_nodes: int, work: int, span: int, workers: int) -> float:
    """The speed-up over a serial solve of ``serial_nodes`` that a parallel solve
    of ``work`` nodes and span ``span`` can reach on ``workers`` workers at most:
    ``serial_nodes / max(work / workers, span)``."""
    return serial_nodes / max(work / workers, span, 1)
