"""What a proposed payer-rule change may hold (the kind's checker), and a rule's versions."""

from __future__ import annotations

from datetime import date

import pytest

from api.core.errors import InvalidInput
from api.denials.deadlines.rules import LimitRule
from api.intelligence.payer_rules import proposals
from api.intelligence.payer_rules.versions import version_ends

LIMIT = {
    "payer_type": "medicare_advantage",
    "payer_id": "MAP01",
    "level": "reconsideration",
    "days": 60,
    "effective_from": "2026-01-01",
    "source": "Provider agreement section 4.2",
}


def test_a_limit_is_normalised_with_its_defaults():
    assert proposals.check("limit", LIMIT) == {
        **LIMIT,
        "day_count": "calendar",
        "roll_forward": False,
        "receipt_days": 0,
    }
    # no payer id: every payer of the type
    without = {k: v for k, v in LIMIT.items() if k != "payer_id"}
    assert proposals.check("limit", without)["payer_id"] == "*"


def test_a_level_the_payer_type_lacks_is_refused_naming_its_levels():
    # Medicare Advantage appeals by reconsideration (42 CFR 422.582); redetermination is Medicare's
    with pytest.raises(InvalidInput, match="reconsideration") as refused:
        proposals.check("limit", {**LIMIT, "level": "redetermination"})
    assert "'level'" in str(refused.value)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("days", 0),
        ("days", 3651),
        ("days", True),  # a bool is not a number of days
        ("days", "60"),
        ("receipt_days", 31),
        ("day_count", "weekdays"),
        ("roll_forward", "yes"),
        ("payer_type", "martian"),
        ("effective_from", "2026-02-30"),
        ("effective_from", "2200-01-01"),
        ("source", ""),
        ("source", "x" * 501),
        ("source", "line\nbreak"),
        ("payer_id", "P" * 81),
    ],
)
def test_a_bad_limit_is_refused_naming_the_field(field, value):
    with pytest.raises(InvalidInput, match=f"'{field}'"):
        proposals.check("limit", {**LIMIT, field: value})


def test_an_unknown_field_or_kind_is_refused():
    with pytest.raises(InvalidInput, match="'basis'"):
        proposals.check("limit", {**LIMIT, "basis": "date_of_service"})
    with pytest.raises(InvalidInput, match="'kind'"):
        proposals.check("eligibility", LIMIT)
    # nor a frequency limit
    with pytest.raises(InvalidInput, match="'days' is not a field of a frequency limit"):
        proposals.check("frequency", LIMIT)
    # a limit's payload is no authorization requirement: the kind's own checker refuses it
    with pytest.raises(InvalidInput, match="'days' is not a field of an authorization requirement"):
        proposals.check("authorization", LIMIT)


def test_the_dispatch_is_keyed_by_kind():
    assert proposals.KINDS == ("limit", "authorization", "frequency")
    assert proposals.CHECKERS["limit"] is proposals.check_limit
    assert proposals.CHECKERS["authorization"] is proposals.check_authorization
    assert proposals.CHECKERS["frequency"] is proposals.check_frequency


def _rule(rule_id: int | None, start: date, plan: str = "*", level: str = "reconsideration") -> LimitRule:
    return LimitRule("tricare", plan, level, 60, "calendar", False, "date_of_denial", 0, False, 0, "s", start, rule_id)


def test_each_version_ends_the_day_before_the_next_of_the_same_key():
    rules = [
        _rule(None, date(1900, 1, 1)),  # the platform default: not a client version
        _rule(1, date(2026, 1, 1)),
        _rule(3, date(2026, 4, 1)),
        _rule(2, date(2026, 3, 1)),
        _rule(4, date(2026, 2, 1), plan="TRI01"),  # another key: its own timeline
        _rule(5, date(2026, 2, 1), level="timely_filing"),
    ]
    # 2026-01-01 -> until 2026-02-28 (2026 is not a leap year), 2026-03-01 -> 2026-03-31, 2026-04-01 open
    assert version_ends(rules) == {
        1: date(2026, 2, 28),
        2: date(2026, 3, 31),
        3: None,
        4: None,
        5: None,
    }
