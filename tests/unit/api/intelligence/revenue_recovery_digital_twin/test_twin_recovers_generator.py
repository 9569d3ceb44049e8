"""The twin against a generator it never sees (tests/support/recovery_history.py, which imports no twin code):
calibrated on a generated year, its 95% intervals cover the generator's own parameters, and its forecast of
the held-out quarter that follows covers what the generator did."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from api.intelligence.revenue_recovery_digital_twin import calibration as cal
from api.intelligence.revenue_recovery_digital_twin import process, service
from tests.support.recovery_history import Truth, generate

START = date(2025, 1, 5)
YEAR_END = START + timedelta(days=363)
QUARTER_END = YEAR_END + timedelta(days=91)
SEEDS = range(10)
TRUTH = Truth()


def history(seed: int) -> list[cal.CaseRecord]:
    return [cal.CaseRecord(**r) for r in generate(TRUTH, START, 455, seed)]


@pytest.fixture(scope="module")
def fitted() -> list[tuple[list[cal.CaseRecord], cal.Calibration]]:
    out = []
    for seed in SEEDS:
        records = history(seed)
        out.append((records, cal.calibrate(records, START, YEAR_END)))
    return out


def test_arrival_rates_are_covered_by_their_intervals(fitted) -> None:
    """6 cells x 10 seeds; a 95% interval may miss now and then, never often (>= 85% coverage)."""
    hits = [e.low <= TRUTH.rates[cell] <= e.high for _, c in fitted for cell, e in c.arrivals.items()]
    assert len(hits) == 60
    assert sum(hits) / len(hits) >= 0.85


def test_success_probabilities_are_covered(fitted) -> None:
    hits = [e.low <= TRUTH.success[k] <= e.high for _, c in fitted for k, e in c.success.items()]
    assert len(hits) == 30
    assert sum(hits) / len(hits) >= 0.85


def test_work_time_and_team_size(fitted) -> None:
    """Work days recovered from decision dates alone (Lindley's recursion per owner); day rounding widens the
    spread, so at least 7 of 10 intervals cover the generator's mean of 2 days, and every estimate is within 15%."""
    hits = [c.work_days.low <= TRUTH.work_days <= c.work_days.high for _, c in fitted]
    assert sum(hits) >= 7
    assert all(abs(c.work_days.value - TRUTH.work_days) / TRUTH.work_days <= 0.15 for _, c in fitted)
    assert all(c.team_size == TRUTH.specialists for _, c in fitted)


def test_held_out_quarter_falls_within_the_stated_interval(fitted) -> None:
    """The twin, knowing only the year, forecasts the next 13 weeks from the year-end backlog; the quarter's
    actual end backlog and recovered dollars fall in the 95% predictive intervals in at least 8 of 10 seeds."""
    backlog_hits = recovered_hits = 0
    for records, c in fitted:
        start = service.start_of(records, YEAR_END)
        got = process.simulate(c, start, process.Scenario(), horizon_weeks=13, replications=120, seed=7)
        actual_backlog = len(cal.backlog_at(records, QUARTER_END))
        actual = cal.recovered_between(records, YEAR_END + timedelta(days=1), QUARTER_END)
        backlog_hits += got.final_backlog.low <= actual_backlog <= got.final_backlog.high
        recovered_hits += got.total_recovered.low <= actual <= got.total_recovered.high
    assert backlog_hits >= 8
    assert recovered_hits >= 8


def test_backtest_states_its_error() -> None:
    records = history(3)
    bt = service.backtest(records, START, YEAR_END, seed=1)
    assert bt["available"] is True
    assert bt["actualBacklog"] == len(cal.backlog_at(records, YEAR_END))
    assert 0 <= bt["recoveredError"] < 0.35
    assert bt["recoveredWithinInterval"] is True


def test_calibration_reads_history_as_known_then() -> None:
    """A decision after the window's end is not known in it: the same window gives the same calibration."""
    records = history(1)
    cut = [r for r in records if r.opened_on <= YEAR_END]
    assert cal.calibrate(records, START, YEAR_END) == cal.calibrate(cut, START, YEAR_END)
