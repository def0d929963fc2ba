"""Shared pieces of the benchmark suites: data location, machine facts, timing,
and writing results (CSV, JSON, Markdown)."""
from __future__ import annotations

import csv
import json
import platform
import sys
from pathlib import Path
from typing import Iterable, Optional

import numba
import numpy as np
import psutil

from parallel_mnk.runtime.ttable import shared_huge_pages

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def connect4_set(name: str) -> Optional[Path]:
    """Path of one of Pons' sets in ../shared/data/connect4, or None when absent."""
    path = SHARED_DATA / "connect4" / name
    return path if path.is_file() else None


def machine_facts() -> dict:
    """CPU, memory and software versions, for the results folder."""
    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_model": model,
        "physical_cores": psutil.cpu_count(logical=False),
        "logical_cores": psutil.cpu_count(logical=True),
        "usable_cpus": len(psutil.Process().cpu_affinity()) if hasattr(psutil.Process(), "cpu_affinity") else None,
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": sys.version.split()[0],
        "numba": numba.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
        # whether the process pool's shared table can have 2 MiB pages (the serial one has them)
        "shared_memory_huge_pages": shared_huge_pages(),
    }


def cpu_busy_others(sample_s: float = 0.5) -> float:
    """System-wide CPU use (percent) during a short sample: a sign of a busy neighbour."""
    return psutil.cpu_percent(interval=sample_s)


def write_results(out_dir: Path, rows: list[dict], facts: dict) -> None:
    """``results.csv`` (one row per measurement), ``results.json`` (rows + machine)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for row in rows:
            w.writerow(row)
    with open(out_dir / "results.json", "w") as f:
        json.dump({"machine": facts, "rows": rows}, f, indent=1)


def write_json(path: Path, data: dict) -> None:
    """``data`` as indented JSON at ``path``."""
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def markdown_table(rows: Iterable[dict], columns: list[str]) -> str:
    """A Markdown table of ``columns`` (missing values left blank)."""
    rows = list(rows)
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        out.append("| " + " | ".join(_fmt(row.get(c, "")) for c in columns) + " |")
    return "\n".join(out)


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        return f"{v:.3g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)
