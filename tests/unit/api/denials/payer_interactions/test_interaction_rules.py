"""When a payer interaction may be logged."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from api.core.errors import InvalidInput
from api.denials.payer_interactions import rules

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)


def test_past_and_present_are_accepted():
    rules.check_when(NOW - timedelta(days=3), None, NOW)
    rules.check_when(NOW, date(2026, 3, 10), NOW)


def test_a_moment_ahead_within_clock_skew_is_accepted():
    rules.check_when(NOW + timedelta(minutes=4), None, NOW)


def test_the_future_is_refused_naming_the_field():
    with pytest.raises(InvalidInput, match="'occurredAt'"):
        rules.check_when(NOW + timedelta(minutes=6), None, NOW)


def test_next_step_before_the_interaction_day_is_refused():
    with pytest.raises(InvalidInput, match="'nextStepOn'"):
        rules.check_when(NOW, date(2026, 3, 9), NOW)


def test_next_step_date_needs_a_next_step():
    with pytest.raises(InvalidInput, match="'nextStep'"):
        rules.check_next_step(None, date(2026, 3, 12))
    rules.check_next_step("call back", date(2026, 3, 12))
    rules.check_next_step(None, None)
