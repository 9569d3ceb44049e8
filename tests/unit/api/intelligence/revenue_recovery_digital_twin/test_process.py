"""The simulation: reproducible from its seed, honest properties, caps refused before running."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.intelligence.revenue_recovery_digital_twin import calibration as cal
from api.intelligence.revenue_recovery_digital_twin import process

E = cal.Estimate


def calibration(rate_k: int = 26, work: float = 2.0, team: int = 2) -> cal.Calibration:
    """Two cells over 13 weeks (rate_k cases each), P(success) 0.5 (n 20), work 2 days."""
    cells = {("A", "auth"): rate_k, ("B", "coding"): rate_k}
    return cal.Calibration(
        first=date(2026, 1, 1),
        last=date(2026, 3, 31),
        weeks=13.0,
        arrivals={c: cal.garwood_rate(k, 13.0) for c, k in cells.items()},
        success={"auth": cal.jeffreys(10, 20), "coding": cal.jeffreys(10, 20)},
        work_days=E(work, work * 0.9, work * 1.1, 50, "t"),
        team_size=team,
        missed_deadlines=cal.jeffreys(0, 10),
        amounts={c: [100.0, 300.0] for c in cells},
        deadline_days={c: [20, 40] for c in cells},
        recovered_share={"auth": 1.0, "coding": 1.0},
    )


START = [process.Queued("A", "auth", 500.0, 10.0, 5.0), process.Queued("B", "coding", 200.0, 3.0, None)]


BASE = process.Scenario()


def run(scenario: process.Scenario = BASE, seed: int = 3, reps: int = 30, weeks: int = 8):
    return process.simulate(calibration(), START, scenario, horizon_weeks=weeks, replications=reps, seed=seed)


def test_same_seed_same_answer_other_seed_other_answer() -> None:
    assert run(seed=11) == run(seed=11)
    assert run(seed=11) != run(seed=12)


def test_answer_shape_and_intervals() -> None:
    got = run()
    assert len(got.backlog) == len(got.recovered) == 8
    for s in [*got.backlog, *got.recovered, got.total_recovered, got.final_backlog]:
        assert s.low <= s.mean <= s.high
    assert got.staff == 2


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(process.ORDERS), st.integers(-1, 3))
def test_money_and_counts_stay_within_what_arrived(seed: int, order: str, delta: int) -> None:
    """Never a negative backlog; recovered never more than every amount that could arrive (the start's plus
    the largest amount for each case decided)."""
    got = run(process.Scenario(staff_delta=delta, order=order), seed=seed, reps=5, weeks=4)
    assert all(s.low >= 0 for s in got.backlog)
    assert got.total_recovered.high <= 500.0 + 300.0 * got.decided.high


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_nothing_recovered_without_success_or_when_everything_is_written_off(seed: int) -> None:
    assert run(process.Scenario(success_multiplier=0.0), seed=seed, reps=5, weeks=4).total_recovered.high == 0
    skipped = run(process.Scenario(skip_categories=("auth", "coding")), seed=seed, reps=5, weeks=4)
    assert skipped.total_recovered.high == 0
    assert skipped.decided.high == 0


def test_a_much_larger_team_clears_more_on_average() -> None:
    """Not a pathwise law (the streams differ), but with 30 replications 10 more specialists lower the mean
    final backlog and raise the decided count."""
    base, more = run(reps=30), run(process.Scenario(staff_delta=10), reps=30)
    assert more.final_backlog.mean <= base.final_backlog.mean
    assert more.decided.mean >= base.decided.mean


@pytest.mark.parametrize(
    ("kwargs", "scenario", "message"),
    [
        ({"horizon_weeks": 53, "replications": 1}, process.Scenario(), "horizonWeeks"),
        ({"horizon_weeks": 1, "replications": 501}, process.Scenario(), "replications"),
        ({"horizon_weeks": 1, "replications": 1}, process.Scenario(staff_delta=-2), "specialists"),
        ({"horizon_weeks": 1, "replications": 1}, process.Scenario(order="random"), "order"),
        ({"horizon_weeks": 1, "replications": 1}, process.Scenario(success_multiplier=float("nan")), "success"),
    ],
)
def test_caps_are_refused(kwargs, scenario, message) -> None:
    with pytest.raises(process.Refused, match=message):
        process.simulate(calibration(), START, scenario, seed=0, **kwargs)


def test_an_attackers_size_is_refused_before_running() -> None:
    """A huge arrival rate x 52 weeks x 500 replications: refused by the case budget, at once."""
    huge = calibration(rate_k=100_000)
    with pytest.raises(process.Refused, match="simulate up to"):
        process.simulate(huge, START, process.Scenario(), horizon_weeks=52, replications=500, seed=0)
