"""PNG plots of a benchmark run (matplotlib, the optional ``bench`` extra).

Each function takes the result rows of :mod:`run_bench` and writes one file;
:func:`write_plots` writes every plot the rows have data for and returns their
paths (an empty list, with a message, when matplotlib is not installed).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, path: Path) -> bool:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def _by_case(rows: list[dict], suites: tuple[str, ...]) -> dict[str, list[dict]]:
    cases: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r.get("suite") in suites and r.get("workers") and r.get("case") != "pool start":
            cases[r["case"]].append(r)
    return {c: sorted(rs, key=lambda r: r["workers"]) for c, rs in cases.items()}


def plot_speedup(plt, rows: list[dict], path: Path) -> bool:
    """Speed-up and efficiency against workers, one line per case (wall time, same run)."""
    cases = {c: [r for r in rs if r.get("speedup") is not None] for c, rs in _by_case(rows, ("scaling",)).items()}
    cases = {c: rs for c, rs in cases.items() if rs}
    if not cases:
        return False
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    top = max(r["workers"] for rs in cases.values() for r in rs)
    for case, rs in cases.items():
        w = [r["workers"] for r in rs]
        a1.plot(w, [r["speedup"] for r in rs], marker="o", label=case)
        a2.plot(w, [r["efficiency"] for r in rs], marker="o", label=case)
    a1.plot([1, top], [1, top], "k:", label="ideal")
    a1.set(xlabel="workers", ylabel="speed-up (1 worker / N workers)", title="Speed-up")
    a2.set(xlabel="workers", ylabel="efficiency (speed-up / N)", title="Efficiency", ylim=(0, 1.1))
    a1.legend(fontsize=7)
    return _save(plt, fig, path)


def plot_overhead(plt, rows: list[dict], path: Path) -> bool:
    """Search overhead (parallel nodes / serial nodes) against workers."""
    cases = _by_case(rows, ("scaling", "overhead"))
    cases = {c: [r for r in rs if r.get("overhead") is not None] for c, rs in cases.items()}
    cases = {c: rs for c, rs in cases.items() if rs}
    if not cases:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for case, rs in cases.items():
        ax.plot([r["workers"] for r in rs], [r["overhead"] for r in rs], marker="o", label=case)
    ax.axhline(1.0, color="k", linestyle=":")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="workers", ylabel="nodes / serial nodes", title="Search overhead")
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def plot_nodes_per_worker(plt, rows: list[dict], path: Path) -> bool:
    """Nodes searched by each process (coordinator = 0) in the widest run of each case."""
    cases = {}
    for r in rows:
        if r.get("suite") in ("scaling", "overhead") and r.get("per_worker_nodes"):
            if r["case"] not in cases or r["workers"] > cases[r["case"]]["workers"]:
                cases[r["case"]] = r
    if not cases:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(cases)
    for i, (case, r) in enumerate(cases.items()):
        counts = [int(x) for x in str(r["per_worker_nodes"]).split()]
        ax.bar([j + i * width for j in range(len(counts))], counts, width=width,
               label=f"{case} ({r['workers']} workers)")
    ax.set(xlabel="process (0 = coordinator)", ylabel="nodes", title="Nodes per worker")
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def plot_time_per_suite(plt, rows: list[dict], path: Path) -> bool:
    """Total measured seconds per suite (compile time is its own 'startup' bar)."""
    totals: dict[str, float] = defaultdict(float)
    for r in rows:
        if isinstance(r.get("time_s"), (int, float)):
            totals[r["suite"]] += r["time_s"] * r.get("positions", 1) if r["suite"] == "connect4" else r["time_s"]
    if not totals:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.barh(list(totals), list(totals.values()))
    ax.set(xlabel="seconds (sum of measurements)", title="Time per suite")
    return _save(plt, fig, path)


def plot_seed_evaluations(plt, rows: list[dict], path: Path) -> bool:
    """Second seed experiment: leaf evaluations per search against depth (log scale)."""
    seed = [r for r in rows if r.get("suite") == "seed2"]
    if not seed:
        return False
    boards = sorted({r["case"] for r in seed})
    fig, axes = plt.subplots(1, len(boards), figsize=(4.2 * len(boards), 4), squeeze=False)
    for ax, board in zip(axes[0], boards):
        methods = []
        for r in seed:
            if r["case"] == board and r["method"] not in methods:
                methods.append(r["method"])
        for m in methods:
            rs = [r for r in seed if r["case"] == board and r["method"] == m]
            ax.plot([r["depth"] for r in rs], [r["evals_per_search"] for r in rs], marker="o", label=m)
        ax.set_yscale("log")
        ax.set(xlabel="depth", ylabel="evaluations per search", title=board)
    axes[0][0].legend(fontsize=7)
    return _save(plt, fig, path)


def plot_many_cores(plt, rows: list[dict], path: Path) -> bool:
    """The many-cores suite: search-time speed-up against workers, ours per pool and
    the peers', one panel a case (the empty 7x6 board weak and exact, the free
    boards), with the ideal and, on 7x6, the machine's ceiling; a case whose
    fewest workers are B > 1 shows its speed-up over B (ideal W / B)."""
    ours = [r for r in rows if r.get("suite") in ("many-cores", "many-cores-peer") and r.get("speedup")]
    if not ours:
        return False
    counts: dict[str, set[int]] = defaultdict(set)
    for r in ours:
        counts[r["case"]].add(r["workers"])
    cases = sorted((c for c, ws in counts.items() if len(ws) > 1),   # (a case at one count has no curve)
                   key=lambda c: (not c.startswith("empty 7x6"), c.endswith("exact"), c))
    if not cases:
        return False
    ceiling = sorted((r["workers"], r["ceiling"]) for r in rows if r.get("suite") == "many-cores-ceiling")
    fig, axes = plt.subplots(1, len(cases), figsize=(5.5 * len(cases), 4.2), squeeze=False)
    top = max(r["workers"] for r in ours)
    for ax, case in zip(axes[0], cases):
        lines: dict[str, list[dict]] = defaultdict(list)
        for r in ours:
            if r["case"] == case:
                label = f"ours, {r['pool']} pool" if r["suite"] == "many-cores" else "c4 threads"
                lines[label].append(r)
        for label, rs in lines.items():
            rs = sorted(rs, key=lambda r: r["workers"])
            if label == "ours, process pool" or label == "ours, thread pool":
                base = [r for r in ours if r["case"] == case and r["workers"] == 1 and r["suite"] == "many-cores"]
                rs = (base if rs[0]["workers"] != 1 else []) + rs
            ax.plot([r["workers"] for r in rs], [r["speedup"] for r in rs], marker="o", label=label)
        fewest = min((r.get("base_workers", 1) for r in ours if r["case"] == case), default=1)
        ax.plot([fewest, top], [1, top / fewest], "k:", label="ideal")
        if ceiling and case.startswith("empty 7x6"):
            ax.plot([1] + [w for w, _ in ceiling], [1] + [c for _, c in ceiling], "k--", alpha=0.5,
                    label="ceiling (independent solves)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ticks = sorted({r["workers"] for r in ours})
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_yticks(ticks, [str(t) for t in ticks])
        ax.set(xlabel="workers (threads)", ylabel=f"speed-up over {fewest} (search time)", title=case)
        ax.legend(fontsize=7)
    return _save(plt, fig, path)


PLOTS = {
    "many_cores.png": plot_many_cores,
    "speedup.png": plot_speedup,
    "overhead.png": plot_overhead,
    "nodes_per_worker.png": plot_nodes_per_worker,
    "time_per_suite.png": plot_time_per_suite,
    "seed_evaluations.png": plot_seed_evaluations,
}


def write_plots(out_dir: Path, rows: list[dict], log=print) -> list[Path]:
    """Write every plot the rows have data for into ``out_dir``; returns the paths."""
    plt = _pyplot()
    if plt is None:
        log("plots: matplotlib is not installed (pip install -e '.[bench]'); no PNG written")
        return []
    written = []
    for name, fn in PLOTS.items():
        path = out_dir / name
        if fn(plt, rows, path):
            written.append(path)
    return written
