"""Subscription and deadline rules of notifications."""

from __future__ import annotations

import typing
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.notifications import rules
from api.denials.notifications.schemas import Kind

TODAY = date(2026, 3, 10)


def test_the_wire_vocabulary_is_the_rules_vocabulary():
    assert set(typing.get_args(Kind)) == set(rules.KINDS)


@pytest.mark.parametrize("kind", rules.KINDS)
def test_every_kind_is_on_by_default(kind):
    assert rules.is_enabled({}, kind) is True


def test_a_subscription_turns_only_its_own_kind_off():
    subs = {("assigned", "in_app"): False, ("mention", "in_app"): True}
    assert rules.is_enabled(subs, "assigned") is False
    assert rules.is_enabled(subs, "mention") is True
    assert rules.is_enabled(subs, "deadline_approaching") is True


def test_unknown_kind_or_channel_is_a_programming_error():
    with pytest.raises(ValueError, match="kind"):
        rules.is_enabled({}, "birthday")
    with pytest.raises(ValueError, match="channel"):
        rules.is_enabled({}, "assigned", "sms")


@pytest.mark.parametrize(
    ("due_on", "horizon", "expected"),
    [
        (date(2026, 3, 10), 0, True),  # due today
        (date(2026, 3, 17), 7, True),  # last day of the horizon
        (date(2026, 3, 18), 7, False),  # one past it
        (date(2026, 3, 9), 7, False),  # already past: no longer "approaching"
    ],
)
def test_due_within_is_inclusive_at_both_ends(due_on, horizon, expected):
    assert rules.due_within(due_on, TODAY, horizon) is expected


def test_negative_horizon_is_refused():
    with pytest.raises(ValueError):
        rules.due_within(TODAY, TODAY, -1)


@given(offset=st.integers(min_value=-400, max_value=400), horizon=st.integers(min_value=0, max_value=365))
def test_due_within_matches_the_day_count(offset, horizon):
    assert rules.due_within(TODAY + timedelta(days=offset), TODAY, horizon) == (0 <= offset <= horizon)


def test_deadline_key_is_per_case_and_due_date():
    assert rules.deadline_key(42, date(2026, 3, 17)) == "deadline:42:2026-03-17"
    assert rules.deadline_key(42, date(2026, 3, 18)) != rules.deadline_key(42, date(2026, 3, 17))


@pytest.mark.parametrize(
    ("due_on", "title"),
    [
        (date(2026, 3, 10), "Appeal deadline for case 42 is today (2026-03-10)"),
        (date(2026, 3, 11), "Appeal deadline for case 42 is tomorrow (2026-03-11)"),
        (date(2026, 3, 15), "Appeal deadline for case 42 is in 5 days (2026-03-15)"),
    ],
)
def test_deadline_titles(due_on, title):
    assert rules.deadline_title(42, due_on, TODAY) == title
