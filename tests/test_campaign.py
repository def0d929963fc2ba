"""``parallel-mnk campaign`` (parallel/uses/campaign.py): "x wins from the empty
board" of a board past 64 cells, proved reply class by reply class, resumable and
certified. The 9x9 k=4 board stands in for 15x15 Gomoku (the same code, seconds
instead of days): its classes, a run stopped by a node limit and resumed on two
processes with nothing proved lost, whose certificates ``verify`` accepts, and
what is refused."""
from __future__ import annotations

import io
import json

import pytest

from fuzzing import run_cli
from parallel_mnk import GameSpec, proofcheck
from parallel_mnk.api.settings import DEFAULTS
from parallel_mnk.game.rules import parse_cell
from parallel_mnk.parallel.uses.campaign import reply_classes

ARGS = ["campaign", "--cols", "9", "--rows", "9", "--k", "4", "--no-progress"]


def test_the_replies_fall_into_symmetry_classes():
    """After the centre: 80 replies in 14 classes, 4 or 8 cells each, nearest first;
    15x15's centre: 224 replies in 35 classes; an off-centre first move keeps fewer
    symmetries (e5 of 9x8: 2)."""
    classes = reply_classes(GameSpec(9, 9, 4), parse_cell(GameSpec(9, 9, 4), "e5"))
    assert len(classes) == 14 and sum(len(c.cells) for c in classes) == 80
    assert {len(c.cells) for c in classes} == {4, 8}
    assert [c.distance for c in classes] == sorted(c.distance for c in classes) and classes[0].distance == 1
    big = reply_classes(GameSpec(15, 15, 5), parse_cell(GameSpec(15, 15, 5), "h8"))
    assert len(big) == 35 and sum(len(c.cells) for c in big) == 224
    assert [(c.reply, len(c.cells), c.distance) for c in big[:2]] == [("g9", 4, 1), ("h9", 4, 1)]
    wide = reply_classes(GameSpec(9, 8, 4), parse_cell(GameSpec(9, 8, 4), "e5"))
    assert sum(len(c.cells) for c in wide) == 71 and max(len(c.cells) for c in wide) == 2


def _state(folder) -> dict:
    return json.loads((folder / "campaign.json").read_text())


def test_a_stopped_campaign_resumes_and_loses_nothing(tmp_path):
    """A run stopped by a node limit: exit 3, some classes open, the state and the
    journals written; the same command (on two processes now, no tree kept between
    slices: each built again from its journal) goes on: the classes proved before keep
    their figures (not proved again), every class is proved with records, each
    class's certificate is "after e5 and the reply, x wins", and the whole proof from
    the empty board verifies. (A run from start to end, its summary and its ``verify``:
    the README's example, tests/test_readme.py.)"""
    code, out, err = run_cli(ARGS + ["--folder", str(tmp_path), "--workers", "1", "--max-nodes", "100000"])
    assert code == 3 and "open: " in out, err
    first = {c["reply"]: c for c in _state(tmp_path)["classes"]}
    proved = {r for r, c in first.items() if c["state"] == "proved"}
    assert 0 < len(proved) < len(first)
    assert list(tmp_path.glob("*.sqlite"))
    code, out, err = run_cli(ARGS + ["--folder", str(tmp_path), "--workers", "2", "--json",
                                     "--setting", "CAMPAIGN_TREE_NODES=0"])   # (each slice from its journal)
    assert code == 0, err
    again = {c["reply"]: c for c in json.loads(out)["classes"]}
    assert all(again[r] == first[r] for r in proved)
    assert all(c["state"] == "proved" and c["records"] > 0 for c in again.values())
    for reply in list(again)[:3]:
        v = proofcheck.check_file(tmp_path / f"after-{reply}" / "x-wins.jsonl.xz")
        assert v.claim == "wins" and v.attacker == "x" and v.root.count("x") == 1 and v.root.count("o") == 1
    text = io.StringIO()
    assert proofcheck.main([str(tmp_path / "x-wins.jsonl.xz")], out=text) == 0, text.getvalue()
    assert text.getvalue().startswith("verified: x wins from ........./")


@pytest.mark.parametrize("extra,words", [
    (["--gravity"], "free-placement"),
    (["--cols", "8", "--rows", "8"], "past 64 cells"),
    (["--first", "z9"], "off the"),
    (["--max-nodes", "0"], "at least 1"),
])
def test_what_a_campaign_refuses(tmp_path, extra, words):
    """One line, exit 2."""
    argv = ARGS + ["--folder", str(tmp_path)] + extra
    code, out, err = run_cli(argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err


def test_a_campaign_goes_on_only_with_its_settings(tmp_path):
    """The settings that shape its proofs are kept in its state: a run with others is
    one line, exit 2; with the same ones it goes on."""
    base = ARGS + ["--folder", str(tmp_path), "--workers", "1", "--setting", "BIG_PN_THREES=2"]
    assert run_cli(base + ["--max-nodes", "1"])[0] == 3
    assert _state(tmp_path)["settings"]["BIG_PN_THREES"] == 2
    code, out, err = run_cli(ARGS + ["--folder", str(tmp_path), "--workers", "1", "--max-nodes", "1"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "BIG_PN_THREES=2" in err, err
    assert run_cli(base + ["--max-nodes", "1"])[0] == 3


def test_a_campaign_keeps_the_threat_budget_its_board_took(tmp_path):
    """With the defaults (by the board) the state keeps the budget the board took, so
    that the same budget given by name goes on, and another is one line, exit 2."""
    base = ARGS + ["--folder", str(tmp_path), "--workers", "1", "--max-nodes", "1"]
    assert run_cli(base)[0] == 3
    threes, nodes = DEFAULTS.big_pn_budget(81)
    kept = _state(tmp_path)["settings"]
    assert (kept["BIG_PN_THREES"], kept["BIG_PN_VCT_NODES"]) == (threes, nodes)
    assert run_cli(base + ["--setting", f"BIG_PN_THREES={threes}", "--setting", f"BIG_PN_VCT_NODES={nodes}"])[0] == 3
    code, out, err = run_cli(base + ["--setting", f"BIG_PN_VCT_NODES={nodes + 1}"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and f"BIG_PN_VCT_NODES={nodes}" in err, err


def test_a_state_kept_before_the_zone_settings_goes_on_as_it_ran(tmp_path):
    """A state written before the zone settings were kept (its proofs ran with
    continuous-four zones only) goes on with the defaults, which run so."""
    import json
    assert run_cli(ARGS + ["--folder", str(tmp_path), "--workers", "1", "--max-nodes", "1"])[0] == 3
    path = tmp_path / "campaign.json"
    state = json.loads(path.read_text())
    for name in ("BIG_PN_ZONE_THREES", "BIG_PN_ZONE_NODES"):
        del state["settings"][name]
    path.write_text(json.dumps(state))
    assert run_cli(ARGS + ["--folder", str(tmp_path), "--workers", "1", "--max-nodes", "1"])[0] == 3
    code, out, err = run_cli(ARGS + ["--folder", str(tmp_path), "--workers", "1", "--max-nodes", "1",
                                     "--setting", "BIG_PN_ZONE_THREES=1"])
    assert code == 2 and "BIG_PN_ZONE_THREES=0" in err, err


def test_a_file_for_a_folder_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    code, out, err = run_cli(ARGS + ["--folder", str(tmp_path / "f")])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "is a file" in err, err


def test_another_campaigns_folder_is_refused(tmp_path):
    """A folder holding the campaign of another first move: one line, exit 2."""
    assert run_cli(ARGS + ["--folder", str(tmp_path), "--max-nodes", "1", "--workers", "1"])[0] == 3
    code, out, err = run_cli(ARGS + ["--folder", str(tmp_path), "--first", "d4", "--workers", "1"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not this one" in err, err
