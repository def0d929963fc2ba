"""What tells two machines of one kind apart for a many-worker solve: the CPU's
clock, its last-level cache, NUMA nodes, and the memory's speed for the two
access patterns a solve has (streaming, and random reads like a transposition
table's probes), for one process and for as many processes as the solve has
workers at once.

:func:`memory_figures` measures with numpy only (no kernel compiled), so the
figures do not depend on the solver's code: a yardstick beside the peers' own
1 -> 16 thread ratio (``suite_many_cores``).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import time
from pathlib import Path
from typing import Optional

import numpy as np

STREAM_MIB = 256     # each process's arrays for the copy (two of them): far above any cache
TABLE_MIB = 1024     # the table of random reads (a 1 GiB transposition table)
READS = 1 << 22      # random reads a pass
PASSES = 5           # the best pass counts (a first pass may pay page faults; random reads vary 15 % a pass)


def cpu_facts() -> dict:
    """The CPU's clock (MHz as the kernel reports it now, and its maximum where
    known), last-level cache size, NUMA node count and whether it runs under a
    hypervisor (Linux; the keys it cannot read are None)."""
    facts: dict = {"cpu_mhz": None, "cpu_max_mhz": None, "llc": None, "numa_nodes": None, "hypervisor": None}
    try:
        info = Path("/proc/cpuinfo").read_text()
        mhz = [float(line.split(":")[1]) for line in info.splitlines() if line.startswith("cpu MHz")]
        facts["cpu_mhz"] = round(sum(mhz) / len(mhz)) if mhz else None
        flags = next((line for line in info.splitlines() if line.startswith("flags")), "")
        facts["hypervisor"] = " hypervisor" in flags
    except OSError:
        pass
    top = Path("/sys/devices/system/cpu/cpu0")
    try:
        facts["cpu_max_mhz"] = int((top / "cpufreq/cpuinfo_max_freq").read_text()) // 1000
    except (OSError, ValueError):
        pass
    levels = sorted(top.glob("cache/index*"))
    if levels:
        try:
            facts["llc"] = (levels[-1] / "size").read_text().strip()
        except OSError:
            pass
    nodes = list(Path("/sys/devices/system/node").glob("node[0-9]*"))
    facts["numa_nodes"] = len(nodes) or None
    return facts


def _arrays(kind: str) -> tuple:
    """The arrays one process measures ``kind`` on, allocated and touched."""
    if kind == "stream":
        a = np.ones(STREAM_MIB << 17, dtype=np.float64)
        return a, np.zeros_like(a)
    return np.ones(TABLE_MIB << 17, dtype=np.uint64), np.random.default_rng(os.getpid()).integers(0, TABLE_MIB << 17,
                                                                                                 READS)


def _measure(kind: str, arrays: tuple) -> float:
    """Best of :data:`PASSES`: GB/s of a copy (read + write) for ``"stream"``,
    million random 8-byte reads a second for ``"random"``."""
    best = float("inf")
    for _ in range(PASSES):
        t = time.perf_counter()
        if kind == "stream":
            np.copyto(arrays[1], arrays[0])
        else:
            int(arrays[0][arrays[1]].sum())
        best = min(best, time.perf_counter() - t)
    return 2 * arrays[0].nbytes / best / 1e9 if kind == "stream" else READS / best / 1e6


def _child(kind: str, ready, out) -> None:
    arrays = _arrays(kind)
    ready.wait()   # (every process has its arrays: the passes run at the same time)
    out.put(_measure(kind, arrays))


def _at_once(kind: str, procs: int) -> float:
    """The sum over ``procs`` processes measuring ``kind`` at the same time."""
    ctx = mp.get_context("fork")
    ready, out = ctx.Barrier(procs), ctx.Queue()
    children = [ctx.Process(target=_child, args=(kind, ready, out)) for _ in range(procs)]
    for c in children:
        c.start()
    total = sum(out.get() for _ in children)
    for c in children:
        c.join()
    return total


def memory_figures(procs: Optional[int] = None) -> dict:
    """Streaming copy (GB/s) and random reads (M/s) for one process and for
    ``procs`` at once (default: the CPUs this process may use), and the ratio of
    the two (how far the memory scales with the cores)."""
    procs = procs or len(os.sched_getaffinity(0))
    figures = {"memory_procs": procs, "stream_gbs_1": round(_at_once("stream", 1), 2),
               "random_mreads_1": round(_at_once("random", 1), 2)}
    if procs > 1:
        figures["stream_gbs_all"] = round(_at_once("stream", procs), 2)
        figures["random_mreads_all"] = round(_at_once("random", procs), 2)
        figures["stream_scaling"] = round(figures["stream_gbs_all"] / figures["stream_gbs_1"], 2)
        figures["random_scaling"] = round(figures["random_mreads_all"] / figures["random_mreads_1"], 2)
    return figures
