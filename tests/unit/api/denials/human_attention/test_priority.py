"""The worklist's score: hand-computed values, and an order that holds from day to day."""

from __future__ import annotations

import csv
import math
from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.human_attention import priority
from tests.support.paths import REPO

TODAY = date(2026, 11, 23)


def test_score_by_hand():
    # 6000 x 0.4 / 3 h = 800 per hour; 30 days left: x exp(-30/45) = 0.513417 -> 410.73
    key = priority.priority_key(Decimal("6000.00"), 0.4, "medical_necessity", TODAY + timedelta(days=30))
    assert priority.score_on(key, TODAY) == pytest.approx(800 * math.exp(-30 / 45), rel=1e-12)
    assert priority.score_on(key, TODAY + timedelta(days=30)) == pytest.approx(800.0, rel=1e-12)
    assert priority.urgency(0) == 1.0 and priority.urgency(45) == pytest.approx(math.exp(-1))


def test_deadline_is_the_case_s_or_an_assumed_window():
    assert priority.deadline(date(2026, 12, 1), date(2026, 1, 1), TODAY) == (date(2026, 12, 1), False)
    assert priority.deadline(None, date(2026, 6, 1), TODAY) == (date(2026, 6, 1) + timedelta(days=180), True)
    assert priority.deadline(None, None, TODAY) == (TODAY + timedelta(days=180), True)


def test_nothing_at_stake_still_has_a_key():
    assert math.isfinite(priority.priority_key(Decimal("0"), 0.5, None, TODAY))


def test_every_denial_category_has_an_effort():
    with (REPO / "dbt_project/seeds/reference/denial_categories.csv").open() as f:
        denials = {row["category"] for row in csv.DictReader(f) if row["is_denial"] == "Y"}
    assert denials == set(priority.EFFORT_HOURS)
    assert priority.effort_hours(None) == priority.effort_hours("unclassified") == priority.DEFAULT_EFFORT_HOURS


amounts = st.decimals(min_value=1, max_value=10**7, places=2)
cases = st.tuples(
    amounts,
    st.floats(min_value=0.01, max_value=0.99),
    st.sampled_from([*priority.EFFORT_HOURS, None]),
    st.integers(0, 400),
)


@given(cases, cases, st.integers(0, 400))
def test_the_stored_order_is_the_order_of_the_scores_on_any_day(a, b, shift):
    def key(c):
        amount, p, category, days = c
        return priority.priority_key(amount, p, category, TODAY + timedelta(days=days))

    def score(c, today):
        amount, p, category, days = c
        # below a cent per hour the value is a cent (the documented floor: the logarithm needs it)
        value = max(priority.value_per_hour(amount, p, category), priority.MIN_VALUE_PER_HOUR)
        return value * priority.urgency((TODAY + timedelta(days=days) - today).days)

    later = TODAY + timedelta(days=shift)
    sa, sb = score(a, later), score(b, later)
    if abs(sa - sb) > 1e-9 * max(sa, sb):
        assert (key(a) > key(b)) == (sa > sb)
    assert priority.score_on(key(a), later) == pytest.approx(sa, rel=1e-9)
