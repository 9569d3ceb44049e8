"""Estimators of the twin's calibration, with figures computed by hand."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.revenue_recovery_digital_twin import calibration as cal

D = date(2026, 1, 1)


def rec(opened: int, **kw) -> cal.CaseRecord:
    kw.setdefault("payer", "P")
    kw.setdefault("category", "auth")
    kw.setdefault("amount", 100.0)
    for key in ("due_on", "decided_on", "ended_on"):
        if isinstance(kw.get(key), int):
            kw[key] = D + timedelta(days=kw[key])
    return cal.CaseRecord(opened_on=D + timedelta(days=opened), **kw)


def test_jeffreys_by_hand() -> None:
    """2 of 3: Beta(2.5, 1.5), mean 2.5 / 4 = 0.625."""
    e = cal.jeffreys(2, 3)
    assert e.value == pytest.approx(0.625)
    assert 0 < e.low < 0.625 < e.high < 1


def test_garwood_by_hand() -> None:
    """3 events in 1 week: 3, interval chi2(.025; 6)/2 = 0.6186 .. chi2(.975; 8)/2 = 8.7673 (Garwood's table)."""
    e = cal.garwood_rate(3, 1.0)
    assert e.value == 3
    assert e.low == pytest.approx(0.6186, abs=1e-4)
    assert e.high == pytest.approx(8.7673, abs=1e-4)
    assert cal.garwood_rate(0, 2.0).low == 0


@given(st.integers(0, 200), st.integers(0, 200))
def test_jeffreys_interval_holds_its_mean_and_more_wins_never_lower_it(k: int, extra: int) -> None:
    n = k + extra
    e = cal.jeffreys(k, n)
    assert 0 <= e.low <= e.value <= e.high <= 1
    if extra:
        assert cal.jeffreys(k + 1, n).value >= e.value


@given(st.integers(0, 500), st.floats(0.5, 104))
def test_garwood_interval_holds_its_rate(k: int, weeks: float) -> None:
    e = cal.garwood_rate(k, weeks)
    assert e.low <= e.value <= e.high


def test_work_times_follow_each_owner_one_case_at_a_time() -> None:
    """Owner 1: opened day 0 decided 4 (4 days); opened day 1 decided 6: began at 4, so 2 days; opened day 10
    decided 13: began on opening, 3 days."""
    rs = [
        rec(0, owner=1, decided_on=4, decision="won"),
        rec(1, owner=1, decided_on=6, decision="lost"),
        rec(10, owner=1, decided_on=13, decision="won"),
    ]
    assert [t for _, t in cal.work_times(rs)] == [4.0, 2.0, 3.0]


def test_backlog_ends_at_decision_ending_or_deadline() -> None:
    rs = [
        rec(0, decided_on=5, decision="won"),  # in backlog days 0..4
        rec(0, due_on=3),  # never worked: lost at its deadline
        rec(0, ended_on=2),  # written off
        rec(0),  # no deadline, still open
    ]
    assert len(cal.backlog_at(rs, D)) == 4
    assert len(cal.backlog_at(rs, D + timedelta(days=3))) == 2
    assert len(cal.backlog_at(rs, D + timedelta(days=5))) == 1


def test_calibrate_by_hand_and_round_trip() -> None:
    """Two weeks, cell (P, auth): 4 cases -> 2 a week; 3 decided, 2 won -> 0.625; 1 withdrawn not counted."""
    rs = [
        rec(0, owner=1, decided_on=2, decision="won", recovered=100.0),
        rec(1, owner=1, decided_on=3, decision="partially_won", recovered=50.0),
        rec(2, owner=2, decided_on=5, decision="lost"),
        rec(3, owner=2, decided_on=6, decision="withdrawn"),
    ]
    c = cal.calibrate(rs, D, D + timedelta(days=13))
    assert c.arrivals[("P", "auth")].value == pytest.approx(2.0)
    assert c.success["auth"].value == pytest.approx(0.625)
    assert c.success["auth"].n == 3
    assert c.team_size == 2
    assert c.recovered_share["auth"] == pytest.approx(0.75)
    assert cal.from_dict(c.as_dict()) == c


def test_too_little_history_is_said() -> None:
    with pytest.raises(cal.NotEnoughHistory, match="no case"):
        cal.calibrate([], D, D + timedelta(days=6))
    with pytest.raises(cal.NotEnoughHistory, match="no appeal outcome"):
        cal.calibrate([rec(0)], D, D + timedelta(days=6))
