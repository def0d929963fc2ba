"""The root's null-window probes (parallel_mnk/probes.py) against a fake search of a
known score: every score in range is found, with the windows c4 would use."""
from __future__ import annotations

import pytest

from parallel_mnk.engines.exact.probes import probe_score, weak_value


def fake_search(score: int, asked: list, slack: int = 0):
    """A fail-soft search of a position whose score is ``score``: the value it
    returns for a window is a true bound, ``slack`` beyond the window when it can."""
    def probe(alpha: int, beta: int) -> int:
        asked.append((alpha, beta))
        if score <= alpha:
            return max(score, alpha - slack)
        if score >= beta:
            return min(score, beta + slack)
        return score
    return probe


@pytest.mark.parametrize("slack", [0, 1, 5])
@pytest.mark.parametrize("score", range(-4, 5))
def test_weak_value_is_the_sign_in_at_most_two_null_windows(score, slack):
    asked: list = []
    assert weak_value(fake_search(score, asked, slack)) == (score > 0) - (score < 0)
    assert asked[0] == (-1, 0) and all(b == a + 1 for a, b in asked) and len(asked) <= 2
    if score < 0 or (score > 0 and slack > 0):
        assert len(asked) == 1   # the first fail-soft value decides


def test_weak_value_stops_when_a_probe_is_stopped():
    assert weak_value(lambda alpha, beta: None) is None
    answers = iter([0, None])
    assert weak_value(lambda alpha, beta: next(answers)) is None


@pytest.mark.parametrize("score", range(-6, 7))
def test_probe_score_finds_every_score(score):
    asked: list = []
    probe = fake_search(score, asked, 1)
    assert probe_score(-6, 6, lambda lo, hi, med: probe(med, med + 1)) == score
    assert all(b == a + 1 for a, b in asked)
