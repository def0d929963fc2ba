"""Writing a certificate on several processes: the walk of
:mod:`parallel_mnk.engines.provers.certificate`, split.

The main process walks from the root breadth first until the open positions of a
level (distinct canonical forms, none the checker's rules settle) are at least
``CERTIFY_TASKS_PER_WORKER`` a worker, writing the records above them. Workers (forked:
they inherit the loaded kernels) take those positions from a queue, the biggest
expected first (fewest stones, then the order of the level), and walk each
depth first with a walk of their own (memo, table, finders, records) kept from one
position to the next. Their records and the main process's are merged, one record
a position: two workers may meet a position, and either record proves it (each walk
closed the claim below its own records). The merged records are then walked from the
root as the checker will walk them, and only those it reaches are written: the file
holds no record the checker does not use, as the serial walk's does not.

:func:`certify` is the step of ``solve(options=Options(certificate=DIR))`` after the
solve: the value's certificates, by this walk, the serial one or, past 64 cells,
:func:`parallel_mnk.engines.provers.big_certificate.extract_big`.
"""
from __future__ import annotations

import json
import multiprocessing as mp
import queue
import time
from pathlib import Path
from typing import Any, Optional

from ...api.options import SolveOptions
from ...api.results import SolveResult
from ...engines.provers.big_certificate import extract_big
from ...engines.provers.certificate import (Certificate, RecordFile, Walk, claims_of, extract, frontier, header,
                                           load_records, new_certificate)
from ...game.position import Position
from ...game.rules import parse_cell
from ...runtime.running import StatusLine
from ...api.settings import current

START_METHOD = "fork"   # workers inherit the loaded kernels, as the pool's do


def reached(walk: Walk, position: Position, lines: dict[int, str]) -> list[str]:
    """The record ``lines`` (by memo key) that the checker's walk from ``position``
    reaches, in the order it reaches them (RuntimeError where one it needs is missing)."""
    spec, used, seen = walk.spec, [], set()
    stack = [(position.x, position.o, position.ply)]
    while stack:
        x, o, ply = stack.pop()
        key = walk.key_of(x, o, ply)
        if key is None or key in seen:
            continue
        seen.add(key)
        perm, line = walk.perms[int(walk.image[2])], lines.get(key)
        own, opp = (x, o) if ply % 2 == 0 else (o, x)
        if ("x" if ply % 2 == 0 else "o") == walk.claimant:
            if line is None:
                raise RuntimeError("a merged certificate lacks a move record: the walks disagree")
            used.append(line)
            stack.append(walk.play(x, o, ply, perm.index(parse_cell(spec, json.loads(line)["m"]))))
        elif line is not None and '"pairs":' in line:
            used.append(line)
        else:
            legal = walk.search.legal_mask(own, opp)
            stack.extend(walk.play(x, o, ply, c) for c in range(spec.cells) if legal >> c & 1)
    return used


def _worker(index: int, cert: Certificate, tt_bits: int, tasks, results) -> None:
    """A worker: walk the queued positions until a None, then report its counts."""
    records = RecordFile(cert.path, f".w{index}")
    try:
        walk = Walk(cert.spec, cert.attacker, cert.claim, tt_bits, records, cert)
        while True:
            task = tasks.get()
            if task is None:
                break
            walk.run(*task)
            results.put(("task", index, cert.records, len(walk.proved)))
        results.put(("done", index, str(records.close()), len(walk.proved), walk.search.nodes, cert.depth,
                     cert.pairings, cert.leaves))
    except BaseException as e:   # reported, then this process ends
        records.discard()
        results.put(("error", index, f"{type(e).__name__}: {e}"))


def extract_parallel(position: Position, attacker: str, claim: str, directory: Path, tt_bits: int = 22,
                     workers: int = 2, progress: Optional[bool] = False) -> Certificate:
    """:func:`parallel_mnk.engines.provers.certificate.extract` on ``workers`` processes
    (module docstring): the same file, name and contract."""
    started = time.perf_counter()
    cert = new_certificate(position, attacker, claim, directory)
    records, main = RecordFile(cert.path), RecordFile(cert.path, ".main")
    status = StatusLine(progress)
    procs: list = []
    streams: list[Path] = []
    try:
        walk = Walk(position.spec, attacker, claim, tt_bits, main, cert)
        tasks = frontier(walk, position, current().CERTIFY_TASKS_PER_WORKER * workers)
        tasks.sort(key=lambda t: t[2])   # fewest stones first (a stable sort keeps the level's order)
        ctx: Any = mp.get_context(START_METHOD)
        task_queue, results = ctx.Queue(), ctx.Queue()
        for task in tasks:
            task_queue.put(task)
        for _ in range(workers):
            task_queue.put(None)
        procs = [ctx.Process(target=_worker, args=(i, Certificate(cert.spec, cert.root, attacker, claim, cert.path),
                                                   tt_bits, task_queue, results), daemon=True)
                 for i in range(workers)]
        for proc in procs:
            proc.start()
        done, finished, shown = 0, 0, {i: (0, 0) for i in range(workers)}
        positions = nodes = 0
        while finished < workers:
            try:
                msg = results.get(timeout=1.0)
            except queue.Empty:
                if any(not p.is_alive() and p.exitcode not in (0, None) for p in procs):
                    raise RuntimeError("a certificate worker died") from None
                continue
            if msg[0] == "error":
                raise RuntimeError(f"certificate worker {msg[1]}: {msg[2]}")
            if msg[0] == "task":
                done += 1
                shown[msg[1]] = (msg[2], msg[3])
            else:
                finished += 1
                streams.append(Path(msg[2]))
                positions += msg[3]
                nodes += msg[4]
                cert.depth = max(cert.depth, msg[5])
                cert.pairings += msg[6]
                cert.leaves += msg[7]
            status.update(lambda: f"certificate {attacker} {claim}: {done} of {len(tasks)} parts, "
                                  f"{sum(r for r, _ in shown.values()):,} records, {status.elapsed():.0f} s")
        for proc in procs:
            proc.join()
        streams.insert(0, main.close())
        used = reached(walk, position, load_records(position.spec, streams))
        for line in used:
            records.out.write(line)
        cert.records, cert.moves = len(used), sum('"m":' in line for line in used)
        cert.pairings = cert.records - cert.moves
        cert.positions, cert.nodes = len(walk.proved) + positions, walk.search.nodes + nodes
    except BaseException:
        records.discard()
        main.discard()
        raise
    finally:
        status.finish()
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for stream in streams:
            stream.unlink(missing_ok=True)
        for i in range(len(procs)):
            cert.path.with_name(cert.path.name + f".w{i}").unlink(missing_ok=True)
    cert.seconds = time.perf_counter() - started
    records.finish(header(cert))
    return cert


def certify(position: Position, result: SolveResult, opts: SolveOptions, folder: Path) -> None:
    """Write the certificates of ``result``'s value of ``position`` into ``folder`` and
    list them in ``result.certificates``: one file per claim the value needs
    (:func:`~parallel_mnk.engines.provers.certificate.claims_of`), on ``opts.workers``
    processes (one past 64 cells). A value the limit left unknown gets none
    (``certificates`` empty: nothing proved, nothing written); a finished game
    needs none (``certificates`` stays None)."""
    if result.terminal:
        return
    result.certificates = []
    if not result.value.known:
        return
    for attacker, claim in claims_of(position, result.value):
        if not position.spec.exact_solvable:
            cert = extract_big(position, attacker, claim, folder, opts.tt_bits, opts.progress)
        elif opts.workers > 1:
            cert = extract_parallel(position, attacker, claim, folder, min(opts.tt_bits, 24), opts.workers,
                                    opts.progress)
        else:
            cert = extract(position, attacker, claim, folder, min(opts.tt_bits, 24), opts.progress)
        result.certificates.append(str(cert.path))
