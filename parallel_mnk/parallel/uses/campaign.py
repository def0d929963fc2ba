"""A proof campaign past 64 cells: "x wins from the empty board" of a free-placement
board (15x15 Gomoku: Allis et al. 1993), proved reply by reply, resumable and
certified as it goes.

x's first move is fixed (the centre unless told); o's replies fall into classes
under the board's symmetries that keep the position after it (the centre's 224
replies on 15x15: 35 classes). Each class's representative (the first move and
the reply) is one question, "does x win?", for the pn prover past 64 cells
(:class:`.big_pn.ThreatProof`), run in rounds: every open class gets a slice of
expansions (nearest replies first; the slice doubles each round), on the pool's
workers when there are several. A class proven gets its certificate at once
(``after-<reply>/x-wins.jsonl.xz``: "after <first> and <reply>, x wins", a
partial result anyone can check); once every class is proven, the whole proof's
certificate (``x-wins.jsonl.xz``, from the empty board) is x's first move and
the classes' records merged (:func:`merge_certificates`).

The folder holds a journal a class (``<reply>.sqlite``,
:class:`..scheduling.big_pn_journal.BigPnJournal`) and ``campaign.json`` (each
class's state and figures), written after each slice and when the run stops
(a limit, Ctrl-C): the same command goes on where it stopped.
"""
from __future__ import annotations

import json
import lzma
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ...api.settings import current
from ...engines.provers.big_certificate import extract_big
from ...engines.provers.pn_certificate import FORMAT_2
from ...game.geometry import least_image, symmetries
from ...game.position import Position
from ...game.rules import GameSpec, MnkError, cell_name, format_board_text, parse_cell
from ...runtime import running
from ..pools.backend import Backend
from ..scheduling import registry
from ..scheduling.big_pn_journal import BigPnJournal
from .big_pn import ThreatProof

STATE_FILE = "campaign.json"
FORMAT = "mnk-campaign/1"


@dataclass
class ReplyClass:
    """One class of o's replies: its representative ``reply`` (a cell name), the
    ``cells`` of the class, their ``distance`` from the first move (in king moves),
    its ``state`` (``open``, ``proved``: x wins; ``disproved``: x does not), and
    what its proof cost over every run: ``jobs``, ``nodes``, ``seconds``, and its
    certificate's ``records`` and ``bytes``."""

    reply: str
    cells: list[str]
    distance: int
    state: str = "open"
    jobs: int = 0
    nodes: int = 0
    seconds: float = 0.0
    records: int = 0
    bytes: int = 0


@dataclass
class CampaignState:
    """``campaign.json``: the game, the first move and the classes."""

    cols: int
    rows: int
    k: int
    first: str
    classes: list[ReplyClass] = field(default_factory=list)
    certificate: Optional[str] = None   # the whole proof's, once every class is proved
    settings: dict = field(default_factory=dict)   # the settings that shape its proofs (PROOF_SETTINGS)


PROOF_SETTINGS = ("BIG_PN_THREES", "BIG_PN_VCT_NODES", "BIG_FOURS", "BIG_PN_ZONE_THREES",
                  "BIG_PN_ZONE_NODES", "BIG_PN_PAIRING_LINES", "BIG_PN_PAIRING_NODES")   # a resumed campaign must keep them
EARLIER_SETTINGS = {"BIG_PN_ZONE_THREES": 0, "BIG_PN_ZONE_NODES": 1 << 12, "BIG_PN_PAIRING_LINES": 0,
                    "BIG_PN_PAIRING_NODES": 512}   # a state written before they were kept ran so


def proof_settings(spec: GameSpec) -> dict:
    """The settings in force that shape a class's proof on ``spec``'s board (the threat
    budget as the board takes it: :meth:`~parallel_mnk.api.settings.Settings.big_pn_budget`)."""
    s = current()
    out = {name: getattr(s, name) for name in PROOF_SETTINGS}
    out["BIG_PN_THREES"], out["BIG_PN_VCT_NODES"] = s.big_pn_budget(spec.cells)
    return out


def reply_classes(spec: GameSpec, first: int) -> list[ReplyClass]:
    """o's replies to x's ``first`` cell by symmetry class, nearest first (then by
    the representative's cell name order of the board: its least cell)."""
    perms = symmetries(spec)
    groups: dict[tuple[int, int], list[int]] = {}
    for cell in range(spec.cells):
        if cell != first:
            groups.setdefault(least_image(perms, 1 << first, 1 << cell)[0], []).append(cell)
    fc, fr = first % spec.cols, first // spec.cols
    out = []
    for cells in groups.values():
        rep = min(cells)
        distance = max(abs(rep % spec.cols - fc), abs(rep // spec.cols - fr))
        out.append(ReplyClass(cell_name(spec, rep), [cell_name(spec, c) for c in sorted(cells)], distance))
    out.sort(key=lambda c: (c.distance, -len(c.cells), c.cells[0]))
    return out


class Campaign:
    """The campaign in ``folder`` of ``spec`` (free placement) from x's ``first``
    cell (module docstring); :meth:`run` proves, :meth:`table` reports."""

    def __init__(self, spec: GameSpec, first: int, folder: Path) -> None:
        if spec.gravity:
            raise MnkError("a campaign proves free-placement boards (no --gravity)")
        if spec.cells <= 64:
            raise MnkError("a campaign is for boards past 64 cells (solve --prover pn proves smaller ones whole)")
        self.spec, self.first, self.folder = spec, first, Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise MnkError(f"--folder {self.folder} is a file: give a folder (made if missing)")
        self.running: Optional[ThreatProof] = None   # the proof of the slice in progress
        self.running_base = 0   # its nodes before the slice
        self.kept: dict[str, tuple[ThreatProof, BigPnJournal]] = {}   # open classes' proofs between slices
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / STATE_FILE
        if path.exists():
            self.state = self._load(path)
        else:
            self.state = CampaignState(spec.cols, spec.rows, spec.k, cell_name(spec, first),
                                       reply_classes(spec, first), settings=proof_settings(spec))
            self._save()
        if self.state.settings != proof_settings(spec):
            kept = " ".join(f"--setting {n}={v}" for n, v in self.state.settings.items())
            raise MnkError(f"{self.folder} runs its proofs with {kept}: give the same settings to go on")

    def _load(self, path: Path) -> CampaignState:
        """The state of an earlier run; one line when it is another campaign's."""
        try:
            raw = json.loads(path.read_text())
            if raw.get("format") != FORMAT:
                raise ValueError
            classes = [ReplyClass(**c) for c in raw["classes"]]
            state = CampaignState(raw["cols"], raw["rows"], raw["k"], raw["first"], classes, raw.get("certificate"),
                                  {**EARLIER_SETTINGS, **raw["settings"]})
        except (ValueError, KeyError, TypeError):
            raise MnkError(f"{path} is not a campaign's state ({FORMAT})") from None
        spec = self.spec
        if (state.cols, state.rows, state.k, state.first) != (spec.cols, spec.rows, spec.k,
                                                              cell_name(spec, self.first)):
            raise MnkError(f"{path.parent} holds the campaign of {state.cols}x{state.rows} k={state.k} from "
                           f"{state.first}, not this one")
        return state

    def _save(self) -> None:
        path = self.folder / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"format": FORMAT, **asdict(self.state)}, indent=1) + "\n")
        tmp.replace(path)

    def position(self, c: ReplyClass) -> Position:
        """The class's representative position: x's first move and the reply."""
        spec = self.spec
        reply = parse_cell(spec, c.reply)
        return Position.from_board(spec, format_board_text(spec, 1 << self.first, 1 << reply))

    def run(self, stop: Callable[[], bool], backend: Optional[Backend], status: Callable[[str], None]) -> bool:
        """Prove the open classes in rounds until each is settled (True when all are
        proved) or ``stop()`` says so (False; the journals and the state written)."""
        try:
            return self._rounds(stop, backend, status)
        finally:
            for _, journal in self.kept.values():
                journal.close()
            self.kept.clear()

    def _rounds(self, stop: Callable[[], bool], backend: Optional[Backend], status: Callable[[str], None]) -> bool:
        expansions = current().BIG_PN_SLICE_EXPANSIONS
        while not stop():
            open_classes = [c for c in self.state.classes if c.state == "open"]
            if not open_classes:
                break
            for c in open_classes:
                if stop():
                    break
                self._slice(c, expansions, stop, backend, status)
                if c.state == "disproved":
                    return False
            expansions *= 2
        done = all(c.state == "proved" for c in self.state.classes)
        if done and self.state.certificate is None:
            self.state.certificate = merge_certificates(self).name
            self._save()
        return done

    def _slice(self, c: ReplyClass, expansions: int, stop: Callable[[], bool], backend: Optional[Backend],
               status: Callable[[str], None]) -> None:
        """One slice of ``expansions`` expansions of the class's proof (its tree kept from the last
        slice, or built again from its journal); its certificate when proved."""
        pos = self.position(c)
        kept = self.kept.pop(c.reply, None)
        if kept is None:
            journal = BigPnJournal(self.folder / f"{c.reply}.sqlite", pos)
            proof = ThreatProof(pos, "x", journal.settled("x"))
        else:
            proof, journal = kept
        started = time.perf_counter()
        jobs0, self.running_base = proof.jobs, proof.nodes
        self.running = proof
        target = proof.expansions + expansions
        got: Optional[bool] = None
        ended = False
        try:
            classes = self.state.classes
            proved = f"{sum(k.state == 'proved' for k in classes)} of {len(classes)} classes proved"

            def show(line: str) -> None:
                status(f"{proved}; after {self.state.first} {c.reply}: {line}")
            if backend is None:
                got = proof.run(lambda: stop() or proof.expansions >= target, show)
            else:
                got = proof.run_on(backend, stop, show, lambda: proof.expansions >= target)
            ended = True
        finally:
            self.running = None
            journal.snapshot("x", proof.settled, proof.nodes)
            if ended and got is None:
                self._keep(c.reply, proof, journal)
            else:
                journal.close()
            c.jobs += proof.jobs - jobs0
            c.nodes += proof.nodes - self.running_base
            c.seconds = round(c.seconds + time.perf_counter() - started, 3)
            if got is not None:
                c.state = "proved" if got else "disproved"
            if got:
                cert = extract_big(pos, "x", "wins", self.folder / f"after-{c.reply}", hint=proof.winning_move)
                c.records, c.bytes = cert.records, cert.path.stat().st_size
            self._save()

    def _keep(self, reply: str, proof: ThreatProof, journal: BigPnJournal) -> None:
        """Keep an open class's proof for its next slice; past ``CAMPAIGN_TREE_NODES``
        tree nodes and df-pn table entries in all, drop the largest kept (their journals
        have what they settled)."""
        self.kept[reply] = (proof, journal)
        size = {r: (p.tree.nodes if p.tree is not None else 0) + len(p.dfpn.table) for r, (p, _) in self.kept.items()}
        while self.kept and sum(size.values()) > current().CAMPAIGN_TREE_NODES:
            largest = max(size, key=lambda r: size[r])
            self.kept.pop(largest)[1].close()
            del size[largest]

    def nodes(self) -> int:
        """Nodes of every class's proof, over every run, the slice in progress's included."""
        live = 0 if self.running is None else self.running.nodes - self.running_base
        return sum(c.nodes for c in self.state.classes) + live

    def table(self) -> str:
        """The progress as text: a line a class, then the totals and an estimate."""
        classes = self.state.classes
        lines = [f"{'reply':>5} {'cells':>5} {'dist':>4} {'state':>9} {'jobs':>8} {'nodes':>13} {'seconds':>9} "
                 f"{'records':>9} {'bytes':>10}"]
        for c in classes:
            lines.append(f"{c.reply:>5} {len(c.cells):>5} {c.distance:>4} {c.state:>9} {c.jobs:>8,} {c.nodes:>13,} "
                         f"{c.seconds:>9.1f} {c.records:>9,} {c.bytes:>10,}")
        proved = [c for c in classes if c.state == "proved"]
        replies = sum(len(c.cells) for c in proved)
        total = sum(len(c.cells) for c in classes)
        spent = sum(c.seconds for c in classes)
        lines.append(f"proved {len(proved)} of {len(classes)} classes ({replies} of {total} replies) after "
                     f"{self.state.first}; {sum(c.nodes for c in classes):,} nodes, {spent:,.0f} s in all")
        if self.state.certificate:
            lines.append(f"x wins from the empty board: certificate {self.state.certificate}")
        open_ = [c for c in classes if c.state == "open"]
        if open_:
            took = f"; the proved ones took {max(c.seconds for c in proved):,.1f} s at most" if proved else ""
            lines.append(f"open: {len(open_)} classes ({sum(len(c.cells) for c in open_)} replies), "
                         f"{sum(c.seconds for c in open_):,.1f} s spent on them so far{took}; no estimate of what "
                         "they need (a proof's size is known when it ends)")
        return "\n".join(lines)


def merge_certificates(campaign: Campaign) -> Path:
    """The whole proof's certificate, ``x-wins.jsonl.xz`` in the campaign's folder:
    from the empty board, x's first move and every class's records (the first
    record of a position kept: each file's records prove their positions on their
    own, so any one of them does). mnk-proof/2, checked like any other by ``verify``."""
    spec, folder = campaign.spec, campaign.folder
    empty = "/".join("." * spec.cols for _ in range(spec.rows))
    records = [json.dumps({"p": empty, "m": cell_name(spec, campaign.first)}, separators=(",", ":"))]
    seen = {empty}
    for c in campaign.state.classes:
        with lzma.open(folder / f"after-{c.reply}" / "x-wins.jsonl.xz", "rt", encoding="utf-8") as f:
            next(f)   # (its header)
            for line in f:
                line = line.strip()
                if not line:
                    continue
                p = json.loads(line)["p"]
                if p not in seen:
                    seen.add(p)
                    records.append(line)
    head = {"format": FORMAT_2, "cols": spec.cols, "rows": spec.rows, "k": spec.k, "gravity": False, "root": empty,
            "attacker": "x", "claim": "wins", "solver": "parallel-mnk", "records": len(records),
            "campaign": campaign.state.first}
    path = folder / "x-wins.jsonl.xz"
    tmp = path.with_suffix(".tmp")
    with lzma.open(tmp, "wt", encoding="utf-8") as f:
        f.write(json.dumps(head) + "\n")
        for line in records:
            f.write(line + "\n")
    tmp.replace(path)
    return path


def run_campaign(spec: GameSpec, first: int, folder: Path, workers: int, backend: str, address: Optional[str],
                 time_limit: Optional[float], node_limit: Optional[int], progress: Optional[bool],
                 status_sink: Optional[Callable[[str], None]] = None) -> Campaign:
    """:class:`Campaign` of ``spec`` from x's ``first`` in ``folder``, run until every
    class is settled, ``time_limit`` seconds or ``node_limit`` nodes of this run
    (None: none), on ``workers`` (``backend``: process or ray; one: this process)."""
    campaign = Campaign(spec, first, folder)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    nodes0 = campaign.nodes()
    pool = None if workers <= 1 else \
        registry.get_coordinator(backend, workers, current().SIDE_POOL_TT_BITS, address).backend
    line = running.StatusLine(progress)

    def stop() -> bool:
        return (deadline is not None and time.monotonic() >= deadline) or \
            (node_limit is not None and campaign.nodes() - nodes0 >= node_limit)

    def status(text: str) -> None:
        line.update(lambda: text)
        if status_sink is not None:
            status_sink(text)

    try:
        campaign.run(stop, pool, status)
    finally:
        line.finish()
    return campaign
