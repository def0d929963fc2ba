"""Parallel scaling: wall time, speed-up and efficiency of 1 vs W workers on hard
positions, exact and weak (ratios measured in the same run), each speed-up also as
a share of what the machine allows (``ceiling``: W independent serial solves at
once, in the same run), the coordinator's CPU share and the workers' idle share;
search overhead (parallel nodes / serial nodes) at 1..16 workers; the same
speed-ups for whole ``parallel-mnk solve`` processes (what a user sees); worker
start-up time.

Node counts do not depend on how many real cores there are, so the overhead at
16 workers on a 2-core machine predicts the node side of scaling on a bigger
one; wall-clock speed-up is only meaningful up to the physical core count.
"""
from __future__ import annotations

import multiprocessing as mp
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Optional

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.parallel.scheduling.registry import get_pool
from parallel_mnk.parallel.scheduling.registry import shutdown_backends as shutdown_pool
from parallel_mnk.parallel.pools.procpool import ProcessPool
from parallel_mnk.parallel.scheduling.tasklog import speedup_bound
from parallel_mnk.runtime.ttable import transposition_table
from parallel_mnk import Options

from . import suite_scaling_long
from .common import connect4_set
from .peers import Peer

CONNECT4 = GameSpec(7, 6, 4, True)
TT_BITS = 23


def hard_positions(quick: bool) -> list[tuple[str, list[Position]]]:
    """(name, positions): Pons' Test_L1_R2 head, empty 6x6 gravity, empty (4,8,4) (quick: 6x5
    gravity, (4,7,4); pairing certificates made (5,5,4) and (4,7,4) too small to split)."""
    cases = []
    path = connect4_set("Test_L1_R2")
    if path is not None:
        n = 10 if quick else 50
        lines = [ln.split()[0] for ln in path.read_text().split("\n") if ln.strip()][:n]
        cases.append((f"Test_L1_R2 first {n}", [Position.from_moves(CONNECT4, m) for m in lines]))
    if quick:
        cases.append(("empty 6x5 gravity k4", [Position(GameSpec(6, 5, 4, True))]))
        cases.append(("empty 4x7 k4", [Position(GameSpec(4, 7, 4))]))
    else:
        cases.append(("empty 6x6 gravity k4", [Position(GameSpec(6, 6, 4, True))]))
        cases.append(("empty 4x8 k4", [Position(GameSpec(4, 8, 4))]))
    return cases


@dataclass
class Run:
    """One timed solve of a case's positions at some worker count."""
    wall: float
    nodes: int
    per_nodes: list[int]   # per process, 0 the coordinator
    per_cpu: list[float]
    span: int = 0          # the task logs' span (nodes), summed over the positions (parallel runs)
    phases: Optional[dict] = None   # the task logs' figures summed (parallel_mnk.parallel.scheduling.tasklog)

    @property
    def coordinator_share(self) -> float:
        """The coordinator's share of all the CPU the solve took."""
        total = sum(self.per_cpu)
        return self.per_cpu[0] / total if total and len(self.per_cpu) > 1 else 0.0

    def idle_share(self, workers: int) -> float:
        """Share of the workers' wall time they did not spend searching (CPU)."""
        if workers < 2:
            return 0.0
        return max(0.0, 1.0 - sum(self.per_cpu[1:]) / (workers * self.wall))


def _warm(workers: int) -> None:
    """Start the pool (or the serial table) and touch its pages before anything is timed."""
    tt = transposition_table(TT_BITS) if workers == 1 else get_pool(workers, TT_BITS).tt
    tt[:] = 0


def _run(positions: list[Position], workers: int, weak: bool = False, split_depth=None) -> Run:
    """Solve every position (no line), summing nodes, per-process nodes and CPU,
    spans and task-log figures (a serial solve's span is its nodes)."""
    _warm(workers)
    t = time.perf_counter()
    nodes = span = 0
    phases: Optional[dict] = None
    per_nodes: Optional[list[int]] = None
    per_cpu: Optional[list[float]] = None
    for p in positions:
        r = solve(p, weak=weak, options=Options(workers=workers, pv=False, tt_size=8 << TT_BITS, split_depth=split_depth, progress=False, serial_budget=None))
        nodes += r.nodes
        counts = [w.nodes for w in r.workers]
        cpus = [w.cpu_s for w in r.workers]
        per_nodes = counts if per_nodes is None else [a + b for a, b in zip(per_nodes, counts)]
        per_cpu = cpus if per_cpu is None else [a + b for a, b in zip(per_cpu, cpus)]
        if r.parallel is not None:
            span += r.parallel["span_nodes"]
            phases = add_figures(phases, r.parallel)
        else:
            span += r.nodes
    return Run(time.perf_counter() - t, nodes, per_nodes or [], per_cpu or [], span, phases)


def add_figures(total: Optional[dict], figures: dict) -> dict:
    """``total`` plus a solve's numeric task-log figures (``SolveResult.parallel``)."""
    out = dict(total or {})
    for key, value in figures.items():
        if isinstance(value, (int, float)) and key != "workers":
            out[key] = out.get(key, 0) + value
    return out


def span_columns(serial_nodes: int, run: Run, workers: int) -> dict:
    """A parallel run's span as a share of the serial nodes and the speed-up bound
    it gives (:func:`~parallel_mnk.parallel.scheduling.tasklog.speedup_bound`) at 16 and 64
    workers (from this run's work and span), and where its workers' time went:
    shares of worker time idle, in abandoned searches and in helpers' searches
    whose answer did not count, and the workers' node rate per busy second;
    ``wasted``: the nodes of those searches over the serial nodes."""
    cols: dict = {"span": run.span / serial_nodes if serial_nodes else None,
                  "bound_16": speedup_bound(serial_nodes, run.nodes, run.span, 16),
                  "bound_64": speedup_bound(serial_nodes, run.nodes, run.span, 64)}
    p = run.phases
    if p and p.get("probe_s"):
        total = workers * p["probe_s"]
        cols.update(idle_share_log=1 - p["busy_s"] / total, abandoned_share=p["abandoned_s"] / total,
                    helping_share=p["helping_s"] / total, starved_share=(p["starved_s"] + p["tail_s"]) / total,
                    busy_rate=(run.nodes - p["coordinator_nodes"]) / p["busy_s"] if p["busy_s"] else None,
                    wasted=(p["abandoned_nodes"] + p["helping_nodes"]) / serial_nodes if serial_nodes else None)
    return cols


def _serial_in_child(positions: list[Position], weak: bool, start, out) -> None:
    start.wait()
    out.put(_run(positions, 1, weak).wall)


def machine_ceiling(positions: list[Position], weak: bool, copies: int, alone: float) -> float:
    """What this machine gives ``copies`` independent serial solves of the case at once
    (each in its own process and table) over one alone (``alone`` seconds): their
    speed-up ``copies * alone / time``, the bound of a ``copies``-worker speed-up here."""
    if copies < 2:
        return 1.0
    ctx = mp.get_context("fork")
    out, start = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_serial_in_child, args=(positions, weak, start, out)) for _ in range(copies)]
    for p in procs:
        p.start()
    time.sleep(0.2)   # every child has loaded its kernels and table before the start
    t = time.perf_counter()
    start.set()
    for p in procs:
        p.join()
    both = time.perf_counter() - t
    if any(p.exitcode != 0 for p in procs):
        raise RuntimeError("a serial solve in a child process failed")
    return copies * alone / both


def cli_solve_seconds(spec: GameSpec, workers: int, weak: bool) -> float:
    """Wall seconds of a whole ``parallel-mnk solve`` process on the empty board of ``spec``."""
    args = [sys.executable, "-m", "parallel_mnk", "solve", "--cols", str(spec.cols), "--rows", str(spec.rows),
            "--k", str(spec.k), "--moves", "", "--workers", str(workers), "--no-progress", "--json"]
    args += ["--gravity"] if spec.gravity else []
    args += ["--weak"] if weak else []
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - t


def _pool_start_rows(workers_list, log) -> list[dict]:
    rows = []
    for n in sorted(set(workers_list) | {2}):
        if n < 2:
            continue
        shutdown_pool()
        t = time.perf_counter()
        pool = ProcessPool(n, 16)
        total = time.perf_counter() - t
        rows.append({"suite": "scaling", "case": "pool start", "workers": n, "time_s": total,
                     "per_worker_start_s": max(pool.start_times)})
        log(f"scaling: pool of {n}: {total:.3f} s in all, slowest worker fork {max(pool.start_times) * 1e3:.1f} ms")
        pool.close()
    return rows


def mode_name(split_depth: Optional[int]) -> str:
    """How a case's name says its split mode: nothing for the solver's own choice."""
    return "" if split_depth is None else (" lazy-smp" if split_depth == 0 else f" split-depth {split_depth}")


def _speedup_rows(name: str, positions: list[Position], weak: bool, workers_list, repeat: int,
                  ceilings: Optional[dict], log, split_depth: Optional[int] = None) -> tuple[list[dict], Run]:
    """Worker counts take turns within each repetition, and a speed-up is the median of
    the ratios of the same repetition (the CPU a VM gets drifts over tens of seconds,
    and runs far apart would compare two machines). ``ceilings`` (None: not
    measured) keeps the machine's ceiling per (case, W) for the other split modes."""
    case = name + (" weak" if weak else "") + mode_name(split_depth)
    runs: dict[int, list[Run]] = {n: [] for n in workers_list}
    for _ in range(repeat):
        for n in workers_list:
            runs[n].append(_run(positions, n, weak, split_depth if n > 1 else None))
    base = workers_list[0]
    serial = runs[base][0]
    alone = statistics.median(r.wall for r in runs[base])
    rows = []
    for n in workers_list:
        ratios = [b.wall / r.wall for b, r in zip(runs[base], runs[n])]
        speedup = statistics.median(ratios)
        first = runs[n][0]
        busiest = max(first.per_nodes[1:]) if n > 1 and len(first.per_nodes) > 1 else first.nodes
        ceiling = 1.0 if n == 1 else None
        if ceilings is not None and n > 1:
            if (name, weak, n) not in ceilings:
                ceilings[name, weak, n] = machine_ceiling(positions, weak, n, alone)
            ceiling = ceilings[name, weak, n]
        row = {"suite": "scaling", "case": case, "workers": n, "time_s": statistics.median(r.wall for r in runs[n]),
               "speedup": speedup, "speedup_runs": " ".join(f"{x:.2f}" for x in ratios), "efficiency": speedup / n,
               "ceiling": ceiling, "ceiling_fraction": speedup / ceiling if ceiling else None,
               "nodes": first.nodes, "overhead": first.nodes / serial.nodes,
               "node_speedup": serial.nodes / busiest if busiest else None,
               "coordinator_share": statistics.median(r.coordinator_share for r in runs[n]),
               "idle_share": statistics.median(r.idle_share(n) for r in runs[n]),
               "per_worker_nodes": " ".join(map(str, first.per_nodes)),
               **(span_columns(serial.nodes, first, n) if n > 1 else {})}
        if n > 1 and row.get("busy_rate"):
            row["busy_rate_vs_serial"] = row["busy_rate"] / (serial.nodes / serial.wall)
        rows.append(row)
        log(f"scaling: {case}, {n} worker(s): {row['time_s']:.2f} s, speedup {speedup:.2f} "
            f"(runs {row['speedup_runs']}), ceiling {ceiling or 0:.2f}, fraction {row['ceiling_fraction'] or 0:.2f}, "
            f"nodes x{row['overhead']:.2f}, coordinator {row['coordinator_share']:.1%} of the CPU, "
            f"workers idle {row['idle_share']:.1%}")
        if n > 1 and row.get("busy_rate"):
            log(f"scaling: {case}, {n} workers, task log: span {row['span']:.3f} of the serial nodes, idle "
                f"{row['idle_share_log']:.1%} (starved or tail {row['starved_share']:.1%}), abandoned searches "
                f"{row['abandoned_share']:.1%}, helpers' uncounted searches {row['helping_share']:.1%} of the "
                f"workers' time; node rate per busy second {row['busy_rate_vs_serial']:.2f} of the serial rate")
    return rows, serial


def _cli_rows(name: str, spec: GameSpec, weak: bool, workers_list, repeat: int, log) -> list[dict]:
    """Whole processes, wall clock: the speed-up a user of ``parallel-mnk solve`` sees."""
    case = name + (" weak" if weak else "")
    times: dict[int, list[float]] = {n: [] for n in workers_list}
    for _ in range(repeat):
        for n in workers_list:
            times[n].append(cli_solve_seconds(spec, n, weak))
    base = workers_list[0]
    rows = []
    for n in workers_list:
        ratios = [b / t for b, t in zip(times[base], times[n])]
        row = {"suite": "scaling-cli", "case": case, "workers": n, "time_s": statistics.median(times[n]),
               "speedup": statistics.median(ratios), "speedup_runs": " ".join(f"{x:.2f}" for x in ratios)}
        rows.append(row)
        log(f"scaling-cli: {case}, {n} worker(s): {row['time_s']:.2f} s per process, speedup {row['speedup']:.2f} "
            f"(runs {row['speedup_runs']})")
    return rows


def run(quick: bool = False, workers_list=(1, 2), overhead_workers=(1, 2, 4, 8, 16), repeat: int = 3,
        log=print, split_depths=(None,), peers: Optional[list[Peer]] = None) -> list[dict]:
    """Rows: speed-up per case (exact and weak), split mode (``split_depths``: None
    the solver's own, 0 Lazy SMP, d a fixed depth) and worker count, with the
    machine's ceiling, the span and the speed-up bound at 16 and 64 workers;
    overhead per worker count; whole-process speed-ups on the empty boards;
    pool start-up; outside ``quick`` the long cases (:mod:`.suite_scaling_long`:
    empty 7x6 whole processes against ``peers``, and at 16 workers)."""
    workers_list = sorted(set(workers_list))
    rows = []
    solve(Position(GameSpec(3, 3, 3)))  # compile before timing
    if quick:
        overhead_workers = tuple(w for w in overhead_workers if w <= 4)
        repeat = 1
    rows += _pool_start_rows(workers_list, log)
    ceilings: Optional[dict] = None if quick else {}
    for name, positions in hard_positions(quick):
        for weak in (False, True):
            for depth in split_depths:
                got, serial = _speedup_rows(name, positions, weak, workers_list, repeat, ceilings, log, depth)
                rows += got
                rows += _overhead_rows(name, positions, weak, depth, serial, workers_list, overhead_workers, quick,
                                       log)
            if len(positions) == 1 and positions[0].ply == 0 and not quick:
                rows += _cli_rows(name, positions[0].spec, weak, workers_list, repeat, log)
    if not quick:
        shutdown_pool()
        rows += suite_scaling_long.run(workers_list, repeat, peers, max(overhead_workers), log)
    shutdown_pool()
    return rows


def _overhead_rows(name: str, positions: list[Position], weak: bool, depth: Optional[int], serial: Run,
                   workers_list, overhead_workers, quick: bool, log) -> list[dict]:
    """Nodes at the worker counts not timed (node counts need no free cores)."""
    rows = []
    for n in overhead_workers:
        if n in workers_list or (n > 1 and quick and name.startswith("Test_L1_R2")):
            continue
        r = _run(positions, n, weak, depth if n > 1 else None)
        busiest = max(r.per_nodes[1:]) if len(r.per_nodes) > 1 else r.nodes
        case = name + (" weak" if weak else "") + mode_name(depth)
        row = {"suite": "overhead", "case": case, "workers": n, "nodes": r.nodes,
               "overhead": r.nodes / serial.nodes, "node_speedup": serial.nodes / busiest if busiest else None,
               "time_s": r.wall, "coordinator_share": r.coordinator_share,
               "per_worker_nodes": " ".join(map(str, r.per_nodes)), **span_columns(serial.nodes, r, n)}
        rows.append(row)
        log(f"overhead: {case}, {n} workers: nodes x{row['overhead']:.2f}, serial nodes / busiest "
            f"worker's {row['node_speedup'] or 0:.2f}, span {row['span']:.3f} of the serial nodes: speed-up "
            f"bound {row['bound_16']:.1f}x at 16 workers, {row['bound_64']:.1f}x at 64")
    return rows
