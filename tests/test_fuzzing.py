"""The generated-input harness itself (tests/fuzzing.py): its watchdog, its bound on
the share of inputs that reach an answer, and Hypothesis' health checks: each made
to fail on purpose here, so that a fuzz test that passes has checked something."""
from __future__ import annotations

import signal
import time

import pytest
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck

import fuzzing
from fuzzing import Hang, fuzz, watchdog


class OuterAlarm(Exception):
    """What the outer alarm (standing in for pytest-timeout's) raises."""


@pytest.fixture
def outer_alarm():
    """An alarm handler standing in for pytest-timeout's; the timer is cleared after the test."""
    def handler(signum, frame):
        raise OuterAlarm()

    old = signal.signal(signal.SIGALRM, handler)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture(autouse=True)
def own_corpus(tmp_path, monkeypatch):
    monkeypatch.setattr(fuzzing, "CORPUS", tmp_path / "corpus")


def test_watchdog_stops_a_hang():
    with pytest.raises(Hang):
        with watchdog(0.2):
            time.sleep(5)


def test_watchdog_hands_an_earlier_outer_alarm_on(outer_alarm):
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    with pytest.raises(OuterAlarm):
        with watchdog(30):
            time.sleep(5)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0   # (spent: not set again)


def test_watchdog_sets_the_outer_alarm_again_after_its_block(outer_alarm):
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    with watchdog(30):
        time.sleep(0.05)
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    assert 0 < left <= 0.5
    with pytest.raises(OuterAlarm):
        time.sleep(5)


def test_too_few_inputs_reaching_an_answer_fail():
    with pytest.raises(AssertionError, match="reached an answer, under 50%"):
        fuzz("harness-junk", st.integers(), lambda n: n % 10 == 0, 50, min_valid=0.5)
    assert fuzz("harness-right", st.integers(), lambda n: True, 50, min_valid=0.5) >= 50


def test_health_checks_are_on():
    """A strategy that throws away nearly all it draws is refused, not run on a handful."""
    with pytest.raises(FailedHealthCheck):
        fuzz("harness-filter", st.integers(0, 10 ** 9).filter(lambda n: n % 1000 == 7), lambda n: True, 50)


def test_a_strategy_with_too_few_inputs_fails():
    with pytest.raises(AssertionError, match="1 inputs tried, fewer than 50"):
        fuzz("harness-one", st.just(1), lambda n: True, 50)


def test_a_failing_input_is_kept_in_the_corpus(tmp_path):
    def prop(n: int) -> bool:
        assert n < 10
        return True

    with pytest.raises(AssertionError):
        fuzz("harness-fail", st.integers(0, 100), prop, 50)
    kept = fuzzing.corpus("harness-fail")
    assert kept and all(n >= 10 for n in kept)


@pytest.mark.timeout(1)
def test_the_test_time_bound_outlasts_the_watchdog_and_keeps_no_input():
    """pytest-timeout's bound (1 s here) stops a fuzz test whose inputs each stay under
    the watchdog's 30 s: its failure comes out of fuzz() (caught here), and the input
    that was running is not kept as a failing one."""
    def slow(n: int) -> bool:
        time.sleep(0.3)
        return True

    with pytest.raises(BaseException, match="Timeout"):
        fuzz("harness-slow", st.integers(), slow, 50)
    assert fuzzing.corpus("harness-slow") == []
