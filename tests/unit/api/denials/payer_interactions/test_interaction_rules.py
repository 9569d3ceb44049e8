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


# What the wire input refuses, the rules refuse for a caller that is not the wire (the voice agent's calls).


@pytest.mark.parametrize(
    ("value", "one_line", "why"),
    [
        ("", True, "1 to 80 characters"),
        ("x" * 81, True, "1 to 80 characters"),
        ("two\nlines", True, "one line"),
        ("nul\x00", False, "control characters"),
    ],
)
def test_a_text_the_wire_would_refuse_is_refused_naming_the_field(value: str, one_line: bool, why: str):
    with pytest.raises(InvalidInput, match=f"'referenceNumber' .*{why}"):
        rules.check_text("referenceNumber", value, rules.MAX_REFERENCE, one_line=one_line)


def test_text_within_its_bounds_passes():
    rules.check_text("referenceNumber", "x" * rules.MAX_REFERENCE, rules.MAX_REFERENCE, one_line=True)
    rules.check_text("summary", "line one\nline two\tand a tab", rules.MAX_SUMMARY, one_line=False)
    rules.check_text("nextStep", None, rules.MAX_NEXT_STEP, one_line=False)


def test_the_vocabulary_is_the_published_one():
    rules.check_vocabulary("phone", "outbound", rules.OUTCOMES[0])
    with pytest.raises(InvalidInput, match="'outcome' is not one of"):
        rules.check_vocabulary("phone", "outbound", "shrugged")
    with pytest.raises(InvalidInput, match="'channel' is not one of"):
        rules.check_vocabulary("pigeon", "outbound", rules.OUTCOMES[0])


def test_the_wire_input_declares_the_rules_bounds():
    from api.denials.payer_interactions.schemas import LogInteractionIn

    properties = LogInteractionIn.model_json_schema(by_alias=True)["properties"]

    def max_length(field: str) -> int | None:
        spec = properties[field]
        return next((s["maxLength"] for s in [spec, *spec.get("anyOf", [])] if "maxLength" in s), None)

    bounds = {
        "claimKey": rules.MAX_CLAIM_KEY,
        "payer": rules.MAX_PAYER,
        "payerRepresentative": rules.MAX_REPRESENTATIVE,
        "referenceNumber": rules.MAX_REFERENCE,
        "summary": rules.MAX_SUMMARY,
        "nextStep": rules.MAX_NEXT_STEP,
    }
    assert {field: max_length(field) for field in bounds} == bounds
