"""Where a cold compile goes, per kernel: run as ``python -m bench.compile_profile
FAMILY ...`` with an empty ``NUMBA_CACHE_DIR``; loads the families one after another
and prints one JSON row per compiled function.

numba broadcasts a ``numba:compile`` event around each dispatcher compile (the
compiles of its callees, done during its type inference, nested inside) and a
``numba:llvm_lock`` event around each call into LLVM. A row's ``exclusive_s`` is
its compile's wall time less the compiles nested in it, ``llvm_s`` the LLVM time
in it (optimising, linking and emitting machine code), ``front_end_s`` the rest
(numba's Python passes: bytecode, inlining, type inference, lowering to LLVM IR);
``inclusive_s`` counts the nested compiles too (numba's ``get_metadata`` timers
measure that). ``signatures`` is how many times the function was compiled.
"""
from __future__ import annotations

import json
import sys
import time
from collections import defaultdict


def profile(names: list[str]) -> list[dict]:
    """Load the families ``names`` in this process, recording numba's events."""
    from numba.core import event

    from parallel_mnk.runtime import families

    compiles, llvm = event.RecordingListener(), event.RecordingListener()
    event.register("numba:compile", compiles)
    event.register("numba:llvm_lock", llvm)
    for name in names:
        families.load(name, announce=False)
    timeline = sorted([(t, "compile", e) for t, e in compiles.buffer] + [(t, "llvm", e) for t, e in llvm.buffer],
                      key=lambda x: x[0])
    stack: list[list] = []   # [name, start, nested seconds, llvm seconds]
    rows: dict[str, dict] = defaultdict(lambda: {"signatures": 0, "exclusive_s": 0.0, "llvm_s": 0.0,
                                                 "inclusive_s": 0.0})
    depth, llvm_start = 0, 0.0
    for t, kind, e in timeline:
        if kind == "compile" and e.is_start:
            func = e.data["dispatcher"].py_func
            stack.append([f"{func.__module__.replace('parallel_mnk.kernels.', '')}.{func.__qualname__}", t, 0.0, 0.0])
        elif kind == "compile":
            name, start, nested, in_llvm = stack.pop()
            row = rows[name]
            row["signatures"] += 1
            row["exclusive_s"] += t - start - nested
            row["llvm_s"] += in_llvm
            row["inclusive_s"] += t - start
            if stack:
                stack[-1][2] += t - start
        elif e.is_start:
            depth += 1
            llvm_start = t if depth == 1 else llvm_start
        else:
            depth -= 1
            if depth == 0 and stack:
                stack[-1][3] += t - llvm_start
    out = [{"case": name, **row, "front_end_s": row["exclusive_s"] - row["llvm_s"]} for name, row in rows.items()]
    return sorted(out, key=lambda r: -r["exclusive_s"])


def main(argv: list[str]) -> int:
    """Profile the families named in ``argv`` (one JSON line); a name that is no
    family, or none given, is one line on stderr and exit status 2."""
    from parallel_mnk.runtime.families import FAMILIES, family

    unknown = []
    for name in argv:
        try:
            family(name)
        except ValueError:
            unknown.append(name)
    if not argv or unknown:
        print(f"compile_profile: give kernel families ({', '.join(FAMILIES)}), "
              f"not {' '.join(unknown) or 'none'}", file=sys.stderr)
        return 2
    t = time.perf_counter()
    rows = profile(argv)
    print(json.dumps(rows))
    print(f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
