"""bench/soak_serve.py, the soak of ``parallel-mnk serve``: its checks catch what they
must (a wrong value or score, an error body that is not one line of JSON), and,
slow, a short run of the whole soak passes on this tree: every answer with an
expected status and a right value, no traceback, memory and open files flat."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.soak_load import agrees, check_body

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("faults")   # the soak's load never beside a kill test (CI: --dist loadgroup)
JSON = {"content-type": "application/json"}


def test_a_wrong_value_or_score_is_caught_and_an_unsettled_one_is_not():
    ref_solve = {"value": "win", "score": 3}
    ref_analyze = {"value": "win", "score": 3, "scores": [3, -2, None]}
    assert agrees("solve", {"value": "win", "score": 3}, ref_solve, ref_analyze, weak=False) is None
    assert agrees("solve", {"value": "unknown", "score": None}, ref_solve, ref_analyze, weak=False) is None
    assert agrees("solve", {"value": "draw", "score": 0}, ref_solve, ref_analyze, weak=False) == "value draw != win"
    assert agrees("solve", {"value": "win", "score": 1}, ref_solve, ref_analyze, weak=False) == "score 1 != 3"
    assert agrees("solve", {"value": "win", "score": None}, ref_solve, ref_analyze, weak=True) is None
    got = {"value": "win", "score": 3, "scores": [3, -4, 5]}
    assert agrees("analyze", got, ref_solve, ref_analyze, weak=False) == "move 1: score -4 != -2"


@pytest.mark.parametrize("status, body, problem", [
    (200, b'{"value": "win"}', None),
    (400, b'{"error": "k must be at least 1, got 0"}\n', None),
    (400, b'{"error": "two\\nlines"}', "not one error line"),
    (400, b'{"error": "x", "trace": "..."}', "not one error line"),
    (500, b"Traceback (most recent call last):", "not JSON"),
])
def test_an_answer_must_be_json_and_an_error_one_line(status, body, problem):
    got = check_body(status, {**JSON, "content-length": str(len(body))}, body)[1]
    assert (got is None) if problem is None else (problem in got)
    assert "content length" in check_body(status, {**JSON, "content-length": "1"}, body)[1]


@pytest.mark.slow   # (about 2 minutes: 90 s of load, the positions' references, the server's start)
def test_a_short_soak_passes(tmp_path):
    out = tmp_path / "soak.json"
    proc = subprocess.run([sys.executable, "bench/soak_serve.py", "--minutes", "1.5", "--warmup", "20", "--sample",
                           "20", "--json", str(out)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["passed"] and figures["failures"] == [] and figures["tracebacks"] == 0
    assert figures["answered_info_at_end"] and figures["stopped_cleanly"]
    assert figures["requests"] > 500
    statuses = figures["by_status"]
    assert {"200", "400", "403", "404", "405", "409", "414", "501", "left"} <= set(statuses), statuses
    assert set(statuses) <= {"200", "400", "403", "404", "405", "409", "414", "501", "503", "0.9", "left",
                             "ConnectionResetError", "BrokenPipeError"}, statuses
    assert figures["by_kind"]["solve"].get("200", 0) > 0 and figures["by_kind"]["analyze"].get("200", 0) > 0
    assert figures["change"]["rss_pct"] <= 10 and figures["change"]["fds_pct"] <= 10
    refused = figures["refused"]   # 503s over the search requests answered (issue 47: printed and in the JSON)
    assert 0 < refused["search_requests"] and 0 <= refused["503"] <= refused["search_requests"]
    assert f"refused (503): {refused['503']} of {refused['search_requests']} search requests" in proc.stdout
    assert "PASSED" in proc.stdout
