"""Work left per case state, slack and bands, against hand counts."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.deadline_risk import risk

D = date


def test_work_days_per_state():
    # triage 1 + evidence 3 + draft 2 + approval 1 + submission 1
    assert risk.remaining_work_days("open") == 8
    assert risk.remaining_work_days("triaged") == 7
    assert risk.remaining_work_days("in_appeal") == 2
    assert risk.remaining_work_days("awaiting_payer") == 0
    assert risk.remaining_work_days("won") == 0


def test_completed_steps_reduce_the_work():
    assert risk.remaining_work_days("open", frozenset({"evidence"})) == 5
    assert risk.remaining_work_days("in_appeal", frozenset({"approval", "submission"})) == 0


def test_assess_open_case_short_of_time():
    # Fri 2024-04-26 -> Mon 2024-05-06: Apr 29, 30, May 1, 2, 3, 6 = 6 business days; open needs 8
    found = risk.assess("open", D(2024, 5, 6), D(2024, 4, 26))
    assert found == risk.Risk(business_days_left=6, work_days_needed=8, slack=-2, band="critical")


def test_assess_overdue_and_no_deadline():
    overdue = risk.assess("in_appeal", D(2024, 5, 6), D(2024, 5, 8))
    assert (overdue.business_days_left, overdue.slack, overdue.band) == (-2, -4, "missed")
    assert risk.assess("open", None, D(2024, 5, 8)) == risk.Risk(None, 8, None, "no_deadline")


@pytest.mark.parametrize(
    ("slack", "band"), [(-1, "critical"), (0, "high"), (2, "high"), (3, "medium"), (10, "medium"), (11, "low")]
)
def test_bands(slack, band):
    assert risk.band_for(slack, overdue=False) == band


@pytest.mark.parametrize(
    ("days", "horizon"),
    [
        (-1, "overdue"),
        (0, "within_7_days"),
        (7, "within_7_days"),
        (8, "within_30_days"),
        (30, "within_30_days"),
        (31, "later"),
    ],
)
def test_horizons(days, horizon):
    as_of = D(2024, 2, 28)
    assert risk.horizon_for(D.fromordinal(as_of.toordinal() + days), as_of) == horizon
    assert risk.horizon_for(None, as_of) == "no_deadline"


dates = st.dates(min_value=D(2000, 1, 1), max_value=D(2080, 12, 31))


@given(st.sampled_from(sorted(risk.RISK_STATES)), dates, dates)
def test_slack_shrinks_as_time_passes(state, a, b):
    due = D(2050, 6, 30)
    early, late = min(a, b), max(a, b)
    s_early, s_late = risk.assess(state, due, early).slack, risk.assess(state, due, late).slack
    assert s_early is not None and s_late is not None and s_late <= s_early
