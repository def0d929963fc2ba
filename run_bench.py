#!/usr/bin/env python
"""Run parallel_mnk's benchmark suites and write their figures.

    python run_bench.py                 # every suite (long: the empty 7x6 board takes minutes)
    python run_bench.py --quick         # a small representative subset
    python run_bench.py --suites connect4,boards --out /tmp/bench

Results go to bench/results/<timestamp>/ (results.csv, results.json with machine
facts); a Markdown summary is printed at the end. JIT compile time is measured
apart (suite 'startup') and never counted in the other figures.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench import (common, plots, suite_big, suite_books, suite_boards, suite_certificates, suite_cluster,
                   suite_connect4, suite_gravity, suite_many_cores, suite_pn_workers, suite_provers, suite_scaling,
                   suite_seed, suite_startup)
from bench.peers import Peer
from parallel_mnk.game.rules import MnkError
from parallel_mnk.runtime.ttable import parse_size

SUITES = ["startup", "connect4", "gravity", "boards", "scaling", "seed1", "seed2", "connect4-empty", "cluster", "books",
          "certificates", "many-cores", "big", "provers", "pn-workers"]
QUICK_SUITES = ["startup", "connect4", "boards", "scaling", "seed1", "seed2"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _peer(text: str) -> Peer:
    try:
        return Peer.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _size(text: str) -> str:
    """A table size for the solves (``512M``, ``1G``), checked as the CLI checks it."""
    try:
        parse_size(text)
    except MnkError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _worker_counts(text: str) -> list[int]:
    """Comma list of worker counts, ascending (the smallest is the baseline of the speed-ups)."""
    return sorted({_positive(x) for x in text.split(",")})


def _split_depths(text: str) -> list:
    """Comma list of split modes: 'auto' (None) or a depth 0-8."""
    out = []
    for x in text.split(","):
        if x == "auto":
            out.append(None)
        elif x.isdigit() and 0 <= int(x) <= 8:
            out.append(int(x))
        else:
            raise argparse.ArgumentTypeError(f"not a split mode (auto or 0-8): {x!r}")
    return out


def _families(text: str) -> list[str]:
    """Comma list of kernel families (parallel_mnk.runtime.families)."""
    names = [x for x in text.split(",") if x]
    unknown = [x for x in names if x not in suite_startup.FAMILIES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"not a kernel family: {', '.join(unknown) or repr(text)} "
                                         f"(choose from {', '.join(suite_startup.FAMILIES)})")
    return names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small subset (a couple of minutes)")
    parser.add_argument("--suites", help=f"comma list of suites: {','.join(SUITES)} (default: all)")
    parser.add_argument("--limit", type=int, help="connect4: positions per set")
    parser.add_argument("--workers", type=_worker_counts, default=None,
                        help="boards, scaling and provers: worker counts timed against each other (default 1,2); "
                             "big: the most of them (default 1); pn-workers and many-cores: the counts whose "
                             "nodes and times go against the fewest's (default 1,2,4,8,16)")
    parser.add_argument("--split-depths", type=_split_depths, default=[None], metavar="LIST",
                        help="scaling: split modes compared, comma list of 'auto' (the solver's own choice, the "
                             "default), 0 (Lazy SMP: every worker on the root window) and depths 1-8")
    parser.add_argument("--repeat", type=_positive, default=3, help="scaling: runs per measurement (median)")
    parser.add_argument("--families", type=_families, metavar="LIST",
                        help="startup: only these kernel families, each cold and warm (default: every family, all "
                             "at once, and outside --quick whole commands and the per-kernel compile profile)")
    parser.add_argument("--out", type=Path, help="results folder (default bench/results/<timestamp>)")
    parser.add_argument("--tt-size", metavar="SIZE", type=_size,
                        help="many-cores: the table of every solve, like 1G (default: the CLI's, by board and workers)")
    parser.add_argument("--peer", action="append", type=_peer, default=[], metavar="[empty:][WxH=]CMD",
                        help="connect4, gravity, scaling: a solver reading Pons' lines on stdin and printing 'line score "
                             "nodes time_us', run on the same positions (a 7x6 one, or WxH=CMD; after empty: only "
                             "on the empty boards); may be repeated")
    args = parser.parse_args(argv)
    suites = args.suites.split(",") if args.suites else (QUICK_SUITES if args.quick else SUITES)
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        print(f"run_bench.py: error: unknown suite(s) {', '.join(unknown)}; choose from {', '.join(SUITES)}",
              file=sys.stderr)
        return 2
    out = args.out or Path(__file__).resolve().parent / "bench" / "results" / time.strftime("%Y%m%d-%H%M%S")
    facts = common.machine_facts()
    facts["cpu_busy_percent_at_start"] = common.cpu_busy_others()
    if facts["shared_memory_huge_pages"] == "never" and {"scaling", "boards", "cluster"} & set(suites):
        print("note: shared memory gets no huge pages here (transparent_hugepage/shmem_enabled is 'never'), "
              "so a parallel node costs a few % more than a serial one; see bench/README.md", flush=True)
    rows: list[dict] = []
    for suite in suites:
        print(f"== {suite}", flush=True)
        log = lambda msg: print(msg, flush=True)  # noqa: E731
        if suite == "startup":
            rows += suite_startup.run(quick=args.quick, families=args.families, log=log)
        elif suite == "connect4":
            rows += suite_connect4.run(quick=args.quick, limit=args.limit, peers=args.peer, log=log)
        elif suite == "gravity":
            rows += suite_gravity.run(quick=args.quick, peers=args.peer, log=log)
        elif suite == "boards":
            rows += suite_boards.run(quick=args.quick, workers_list=args.workers or [1, 2], log=log)
        elif suite == "scaling":
            rows += suite_scaling.run(quick=args.quick, workers_list=args.workers or [1, 2], repeat=args.repeat,
                                     log=log, split_depths=args.split_depths, peers=args.peer)
        elif suite == "seed1":
            rows += suite_seed.run_seed1(quick=args.quick, log=log)
        elif suite == "seed2":
            rows += suite_seed.run_seed2(quick=args.quick, log=log)
        elif suite == "connect4-empty":
            rows += suite_boards.run(boards=suite_boards.EMPTY_CONNECT4, weak=True, log=log)
        elif suite == "cluster":
            rows += suite_cluster.run(quick=args.quick, repeat=args.repeat, log=log)
        elif suite == "books":
            rows += suite_books.run(quick=args.quick, log=log)
        elif suite == "certificates":
            rows += suite_certificates.run(quick=args.quick, log=log)
        elif suite == "big":
            rows += suite_big.run(quick=args.quick, workers=max(args.workers) if args.workers else 1,
                                  log=log)
        elif suite == "provers":
            rows += suite_provers.run(quick=args.quick, workers_list=args.workers or [1, 2], log=log)
        elif suite == "pn-workers":
            rows += suite_pn_workers.run(args.workers or suite_pn_workers.WORKERS, log=log)
        elif suite == "many-cores":
            counts = args.workers or suite_many_cores.WORKERS
            rows += suite_many_cores.run(counts, peers=args.peer, tt_size=args.tt_size, log=log)
    common.write_results(out, rows, facts)
    if any(r["suite"] == "many-cores" for r in rows):
        common.write_json(out / "machine_profile.json", suite_many_cores.machine_profile(rows, facts))
    written = plots.write_plots(out, rows, log=print)
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "connect4"],
                                ["case", "solver", "positions", "wrong", "mean_time_s", "mean_nodes", "nodes_per_s",
                                 "ref_time_s", "ref_nodes", "time_vs_ref", "nodes_vs_ref", "differ"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] in ("gravity", "gravity-rules")],
                                ["suite", "case", "solver", "positions", "wrong", "nodes", "time_s", "cpu_s",
                                 "differ", "error"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] in ("startup", "startup-cli")],
                                ["suite", "case", "cache", "time_s", "in_process_s"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "compile"][:25],
                                ["case", "signatures", "exclusive_s", "front_end_s", "llvm_s", "inclusive_s"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "boards"],
                                ["suite", "case", "workers", "value", "score", "nodes", "proof", "time_s",
                                 "ref_time_s", "time_vs_ref"]))
    print()
    scaling = [r for r in rows if r["suite"] in ("scaling", "overhead", "scaling-cli", "scaling-long")]
    print(common.markdown_table(scaling, ["suite", "case", "workers", "time_s", "speedup", "efficiency", "ceiling",
                                          "ceiling_fraction", "nodes", "overhead", "node_speedup", "span", "bound_16",
                                          "bound_64", "coordinator_share", "idle_share", "abandoned_share",
                                          "busy_rate_vs_serial", "per_worker_start_s"]
                                + sorted({k for r in scaling for k in r if k.startswith("vs_")})))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "seed1"],
                                ["case", "board", "method", "value", "states", "published_states", "match", "time_s",
                                 "published_time_s", "note"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "seed2" and r["depth"] in (3, 5, 7)],
                                ["case", "depth", "method", "evals_per_search", "speedup_vs_minimax",
                                 "published_speedup", "same_value_as_minimax"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "pn-workers"],
                                ["case", "workers", "value", "nodes", "overhead", "jobs", "idle", "rate", "model_16", "time_s",
                                 "wall_s"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "cluster"],
                                ["case", "positions", "pool_time_s", "ray_time_s", "ratio", "ray_tasks",
                                 "overhead_per_task_ms", "watches_per_task", "pool_nodes", "ray_nodes", "same_scores"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"].startswith("many-cores")
                                 and r["suite"] != "many-cores-machine"],
                                ["suite", "case", "pool", "solver", "workers", "base_workers", "value", "time_s",
                                 "process_s", "nodes", "speedup", "process_speedup", "overhead", "busy_share", "rate",
                                 "splits", "pool_start_s", "vs_peer", "vs_peer_process", "ceiling", "ceiling_slowest"]))
    machine = [r for r in rows if r["suite"] == "many-cores-machine"]
    print(common.markdown_table(machine, sorted({k for r in machine for k in r if k not in ("suite", "case")})))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "certificates"],
                                ["case", "claim", "solve_s", "records", "pairing_records", "positions", "rule_leaves",
                                 "depth", "bytes", "extract_s", "check_s", "check_positions_per_s", "check_peak_mb",
                                 "error"]))
    print()
    print(common.markdown_table([r for r in rows if r["suite"] == "provers"],
                                ["case", "prover", "workers", "value", "nodes", "time_s", "wall_s", "peak_mb", "proof",
                                 "jobs", "error"]))
    print()
    print(common.markdown_table(suite_big.summary(rows), ["case", "positions", "ok", "median_s", "max_s",
                                                          "median_bytes", "max_check_s"]))
    print(f"\nresults written to {out}" + (f" ({len(written)} plots)" if written else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
