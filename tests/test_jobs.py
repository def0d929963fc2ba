"""parallel_mnk.frontends.jobs: one search at a time, in arrival order, a bounded queue, a
client's new request stopping the search it replaces, and a search whose client has gone
dropped or stopped (fake searches, no kernels)."""
from __future__ import annotations

import threading
import time

import pytest

from parallel_mnk.api.settings import DEFAULTS
from parallel_mnk.frontends.jobs import Busy, Gone, Jobs, Replaced

POLL_S = DEFAULTS.SERVE_POLL_S


def hold(release: threading.Event, log: list, name: str):
    """A fake search: notes when it starts and ends, runs until ``release`` is set
    or its watch is stopped."""
    def search(watch):
        log.append(("start", name))
        watch.count(7)
        while not release.is_set() and not watch.stopped:
            time.sleep(0.005)
        log.append(("end", name))
        return name
    return search


def start(jobs: Jobs, client, name, search, gone=None):
    """Run ``jobs.run`` in a thread; returns (thread, box) where box gets the answer or the error."""
    box: dict = {}

    def target():
        try:
            box["answer"] = jobs.run(client, name, search, gone)
        except Exception as e:   # noqa: BLE001 - the test reads it
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, box


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def one_running_one_waiting(jobs: Jobs):
    """Client a's search running (until ``release``), client b's waiting behind it:
    ``(release, log, (thread, box) of a, (thread, box) of b)``."""
    log, release = [], threading.Event()
    first = start(jobs, "a", "long", hold(release, log, "long"))
    wait_for(lambda: jobs.status("a")["state"] == "searching")
    second = start(jobs, "b", "x", hold(release, log, "never"))
    wait_for(lambda: jobs.status("b")["state"] == "waiting")
    return release, log, first, second


def test_searches_run_one_at_a_time_in_arrival_order():
    jobs, log, release = Jobs(), [], threading.Event()
    threads = []
    for i in range(4):
        threads.append(start(jobs, f"c{i}", f"s{i}", hold(release, log, f"s{i}")))
        wait_for(lambda i=i: jobs.status(None)["waiting"] + jobs.status(None)["running"] == i + 1)
    assert jobs.status("c0")["state"] == "searching" and jobs.status("c3")["state"] == "waiting"
    assert jobs.status(None) == {"state": "idle", "running": 1, "waiting": 3}
    release.set()
    for thread, box in threads:
        thread.join(5)
        assert not box.get("error")
    assert log == [(what, f"s{i}") for i in range(4) for what in ("start", "end")]   # never two at once
    assert jobs.searches == 4 and jobs.status(None) == {"state": "idle", "running": 0, "waiting": 0}


def test_a_new_request_of_the_same_client_stops_its_running_search():
    jobs, log, release = Jobs(), [], threading.Event()
    old, old_box = start(jobs, "page", "analyze", hold(release, log, "old"))
    wait_for(lambda: jobs.status("page")["state"] == "searching")
    status = jobs.status("page")
    assert status["kind"] == "analyze" and status["nodes"] == 7 and status["elapsed_s"] >= 0
    other, other_box = start(jobs, "other page", "x", hold(release, log, "other"))
    wait_for(lambda: jobs.status("other page")["state"] == "waiting")
    new, new_box = start(jobs, "page", "solve", lambda watch: "new")
    old.join(5)
    assert isinstance(old_box["error"], Replaced)
    wait_for(lambda: jobs.status("other page")["state"] == "searching")   # the new one waits its turn
    assert jobs.status("page")["state"] == "waiting"
    release.set()
    for thread in (other, new):
        thread.join(5)
    assert (other_box["answer"], new_box["answer"]) == ("other", "new")
    assert log.index(("end", "old")) < log.index(("start", "other"))


def test_a_new_request_of_the_same_client_stops_its_waiting_search():
    jobs = Jobs()
    release, log, (first, _), (waiting, waiting_box) = one_running_one_waiting(jobs)
    newer, newer_box = start(jobs, "b", "y", lambda watch: "newer")
    waiting.join(5)
    assert isinstance(waiting_box["error"], Replaced)
    assert ("start", "never") not in log
    release.set()
    newer.join(5)
    first.join(5)
    assert newer_box["answer"] == "newer"


def test_the_queue_is_bounded_in_length_and_in_time():
    jobs, log, release = Jobs(max_waiting=1, wait_s=0.3), [], threading.Event()
    first, _ = start(jobs, None, "long", hold(release, log, "long"))
    wait_for(lambda: jobs.status(None)["running"] == 1)
    second, second_box = start(jobs, None, "x", lambda watch: "x")
    wait_for(lambda: jobs.status(None)["waiting"] == 1)
    with pytest.raises(Busy, match="waiting already"):
        jobs.run(None, "y", lambda watch: "y")      # the queue is full: refused at once
    second.join(5)
    assert isinstance(second_box["error"], Busy) and "0.3 s" in str(second_box["error"])   # waited its time
    assert jobs.status(None) == {"state": "idle", "running": 1, "waiting": 0}
    release.set()
    first.join(5)
    assert jobs.run(None, "z", lambda watch: "z") == "z"


def test_stop_all_and_errors_free_the_pool():
    jobs = Jobs()
    _, _, (first, first_box), (second, second_box) = one_running_one_waiting(jobs)
    jobs.stop_all()
    first.join(5)
    second.join(5)
    assert isinstance(first_box["error"], Replaced) and isinstance(second_box["error"], Replaced)

    def fail(watch):
        raise ValueError("bug")

    with pytest.raises(ValueError):
        jobs.run("a", "bad", fail)
    assert jobs.run("a", "good", lambda watch: 1) == 1


def test_a_search_whose_client_has_gone_leaves_the_queue_or_stops():
    jobs, log, release = Jobs(), [], threading.Event()
    left, running_gone = threading.Event(), threading.Event()
    first = start(jobs, "a", "long", hold(release, log, "long"), running_gone.is_set)
    wait_for(lambda: jobs.status("a")["state"] == "searching")
    waiting = start(jobs, "b", "x", hold(release, log, "never"), left.is_set)
    wait_for(lambda: jobs.status("b")["state"] == "waiting")
    left.set()                                   # the waiting one's client goes
    waiting[0].join(5)
    assert isinstance(waiting[1]["error"], Gone) and ("start", "never") not in log
    assert jobs.status("b")["state"] == "idle" and jobs.status(None)["waiting"] == 0
    assert jobs.status("a")["state"] == "searching"   # the running one's client is still there
    t0 = time.monotonic()
    running_gone.set()
    first[0].join(5)
    assert isinstance(first[1]["error"], Gone) and log[-1] == ("end", "long")
    assert time.monotonic() - t0 < 1.0           # POLL_S (0.02 s) and the fake search's 5 ms, on a busy machine
    assert jobs.status(None) == {"state": "idle", "running": 0, "waiting": 0}


def test_gone_is_asked_only_while_the_search_waits_or_runs():
    jobs, asked = Jobs(), []
    assert jobs.run("a", "quick", lambda watch: 1, lambda: asked.append(1) or False) == 1
    time.sleep(2 * POLL_S)                       # (a question already under way when it ended)
    n = len(asked)
    time.sleep(5 * POLL_S)
    assert len(asked) == n                       # the poller ended with the search
    assert jobs.run("a", "slow", lambda watch: time.sleep(6 * POLL_S) or 2, lambda: asked.append(1) or False) == 2
    assert len(asked) > n                        # asked while it ran, and it never was gone
