"""Which rule applies to a case (payerRules' pure part), with dates counted by hand in the comments."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.deadlines import rules

D = date
NOTICE, SERVICE = D(2026, 3, 2), D(2026, 2, 10)


def _due(facts: rules.CaseFacts, limits=rules.RULES) -> dict[str, tuple[date, str, bool]]:
    _kind, found = rules.case_deadlines(facts, limits)
    return {s.level: (s.deadline.due_on, s.payer_type, s.assumed) for s in found}


def _facts(**kw) -> rules.CaseFacts:
    return rules.CaseFacts(**{"payer_class": None, "notice_date": NOTICE, "service_date": SERVICE, **kw})


@pytest.mark.parametrize(
    ("payer_class", "indicator", "expected"),
    [
        ("medicare", "16", ("medicare_advantage", False)),
        ("medicare", "MB", ("medicare", False)),
        ("other_government", "CH", ("tricare", False)),
        (None, "ch", ("tricare", False)),
        ("medicaid", None, ("medicaid", False)),
        ("commercial", "12", ("commercial", False)),
        ("other", "WC", ("commercial", False)),
        ("other_government", "VA", ("unknown", True)),
        (None, None, ("unknown", True)),
        ("self_pay", "09", (None, False)),
    ],
)
def test_payer_type_from_the_filing_indicator_and_class(payer_class, indicator, expected):
    found = rules.payer_type_of(payer_class, indicator)
    assert (found.payer_type, found.assumed) == expected


def test_medicare_advantage_and_tricare_windows():
    # MA: 2026-03-02 + 65 = 2026-05-06 (42 CFR 422.582(b)); TRICARE: + 90 = 2026-05-31 (32 CFR 199.10)
    assert _due(_facts(filing_indicator="16"))["reconsideration"][0] == D(2026, 5, 6)
    assert _due(_facts(filing_indicator="CH"))["reconsideration"][0] == D(2026, 5, 31)
    # both: timely filing 2026-02-10 + 365 = 2027-02-10
    assert _due(_facts(filing_indicator="CH"))["timely_filing"][0] == D(2027, 2, 10)


def test_unknown_payer_gets_the_shortest_windows_assumed():
    # appeal: Medicaid 60 days -> 2026-05-01; timely filing: commercial 90 days -> 2026-05-11
    assert _due(_facts()) == {
        "first_level_appeal": (D(2026, 5, 1), "medicaid", True),
        "timely_filing": (D(2026, 5, 11), "commercial", True),
    }


def test_soft_denial_has_no_appeal_deadline():
    assert _due(_facts(payer_class="medicare", soft_denial=True)) == {
        "timely_filing": (D(2027, 2, 10), "medicare", False)
    }


def test_stated_deadline_is_the_appeal_deadline_and_keeps_the_level():
    found = _due(_facts(payer_class="medicare", stated_appeal_due=D(2026, 4, 20)))
    assert found["redetermination"] == (D(2026, 4, 20), "medicare", False)
    _kind, scheduled = rules.case_deadlines(_facts(payer_class="medicare", stated_appeal_due=D(2026, 4, 20)))
    assert scheduled[0].source == rules.EXPORT_SOURCE


def _client_rule(days: int, effective: date, plan: str = "*", rule_id: int = 1) -> rules.LimitRule:
    base = rules.rule_for("commercial", "first_level_appeal")
    assert base is not None
    return replace(base, plan=plan, days=days, effective_from=effective, rule_id=rule_id, source="contract")


def test_a_clients_rule_applies_from_its_effective_date_and_a_payer_rule_wins():
    limits = (*rules.RULES, _client_rule(90, D(2026, 1, 1)), _client_rule(30, D(2026, 6, 1), rule_id=2))
    # notice 2026-03-02: the 90-day rule (the June one is not yet in force): Mar 29, Apr 59, May 31 -> 2026-05-31
    assert _due(_facts(payer_class="commercial"), limits)["first_level_appeal"][0] == D(2026, 5, 31)
    # notice 2026-07-01 under the June rule: + 30 = 2026-07-31
    july = _facts(payer_class="commercial", notice_date=D(2026, 7, 1))
    assert _due(july, limits)["first_level_appeal"][0] == D(2026, 7, 31)
    # a client rule for payer P1 wins over the type-wide one for P1 only: 2026-03-02 + 10 = 2026-03-12
    payer = (*limits, _client_rule(10, D(2025, 1, 1), plan="P1", rule_id=3))
    assert _due(_facts(payer_class="commercial", payer_id="P1"), payer)["first_level_appeal"][0] == D(2026, 3, 12)
    assert _due(_facts(payer_class="commercial", payer_id="P2"), payer)["first_level_appeal"][0] == D(2026, 5, 31)


days = st.dates(min_value=D(1950, 1, 1), max_value=D(2150, 12, 31))


@given(notice=days, service=days)
def test_an_unknown_payers_deadlines_are_never_later_than_any_common_payer_types(notice, service):
    unknown = _due(_facts(notice_date=notice, service_date=service))
    appeal, filing = unknown["first_level_appeal"][0], unknown["timely_filing"][0]
    for payer_type in rules.COMMON_TYPES:
        levels = rules.appeal_levels(payer_type)
        first = rules.rule_for(payer_type, levels[0])
        tf = rules.rule_for(payer_type, rules.TIMELY_FILING)
        assert first is not None and tf is not None
        assert appeal <= rules.due_date(first, notice)
        assert filing <= rules.due_date(tf, service)


@given(notice=days, service=days, indicator=st.sampled_from(["16", "CH", "MB", "MC", "12", "", "VA"]))
def test_a_soft_denial_never_has_an_appeal_deadline(notice, service, indicator):
    facts = rules.CaseFacts(
        payer_class=None, filing_indicator=indicator, notice_date=notice, service_date=service, soft_denial=True
    )
    _kind, found = rules.case_deadlines(facts)
    assert [s.deadline.rule.kind for s in found] == ["timely_filing"]
