"""policyImpact's pure parts: the proposed limit rules and the monthly history figures."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from api.denials.deadlines import rules
from api.intelligence.policy_impact import impact


def test_a_payers_limit_copies_the_rule_it_replaces_with_its_days():
    [medicare] = impact.proposed_limits(
        rules.RULES, payer_type="medicare", payer_id="mcr01", days=60, effective_from=date(2026, 1, 1)
    )
    base = rules.rule_for("medicare", "redetermination", "MCR01", rules.RULES)
    assert base is not None
    assert (medicare.plan, medicare.level, medicare.days, medicare.effective_from) == (
        "MCR01",
        "redetermination",
        60,
        date(2026, 1, 1),
    )
    # everything but the days, the scope and the date is the replaced rule's (42 CFR 405.942's 5-day receipt)
    assert (medicare.receipt_days, medicare.roll_forward, medicare.basis, medicare.day_count) == (
        base.receipt_days,
        base.roll_forward,
        base.basis,
        base.day_count,
    )
    assert medicare.origin == "client"  # wins over the platform's rule of the same scope


def test_a_payer_id_alone_proposes_one_rule_per_payer_type_with_appeals():
    found = impact.proposed_limits(
        rules.RULES, payer_type=None, payer_id="X1", days=30, effective_from=date(2026, 1, 1)
    )
    assert {r.payer_type for r in found} == {t for t in rules.PAYER_TYPES if rules.appeal_levels(t)}
    assert all(r.plan == "X1" and r.days == 30 for r in found)


def test_the_engine_applies_the_proposed_limit_from_its_date_only():
    facts = rules.CaseFacts("medicare", "MA", "MCR01", notice_date=date(2026, 3, 2), service_date=date(2026, 1, 20))
    proposed = impact.proposed_limits(
        rules.RULES, payer_type="medicare", payer_id="MCR01", days=60, effective_from=date(2026, 1, 1)
    )
    _, now = rules.case_deadlines(facts, rules.RULES)
    _, then = rules.case_deadlines(facts, (*rules.RULES, *proposed))
    # received 03-02 + 5 = 03-07; + 120 = 07-05 (Sunday) -> 07-06; + 60 = 05-06 (Wednesday)
    assert (now[0].deadline.due_on, then[0].deadline.due_on) == (date(2026, 7, 6), date(2026, 5, 6))
    later = impact.proposed_limits(
        rules.RULES, payer_type="medicare", payer_id="MCR01", days=60, effective_from=date(2026, 4, 1)
    )
    assert rules.case_deadlines(facts, (*rules.RULES, *later))[1][0].deadline.due_on == date(2026, 7, 6)


def test_months_back_and_monthly_figures():
    months = impact.months_back(date(2026, 3, 31), 4)
    assert months == [date(2025, 12, 1), date(2026, 1, 1), date(2026, 2, 1), date(2026, 3, 1)]
    lines = [
        impact.Served(1, date(2026, 3, 5), Decimal("500.00"), True),
        impact.Served(1, date(2026, 3, 6), Decimal("600.00"), False),
        impact.Served(2, date(2026, 1, 9), Decimal("50.00"), False),
    ]
    found = impact.monthly(lines, months)
    assert [(m.claims, m.lines, m.charges, m.lines_without_authorization) for m in found] == [
        (0, 0, Decimal("0.00"), 0),
        (1, 1, Decimal("50.00"), 1),
        (0, 0, Decimal("0.00"), 0),
        (1, 2, Decimal("1100.00"), 1),
    ]
    assert impact.average([m.charges for m in found]) == Decimal("287.50")
    assert impact.average([]) == Decimal("0.00")


@given(st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 12, 31)), st.integers(min_value=1, max_value=24))
def test_months_back_are_consecutive_and_end_with_the_month(last, count):
    months = impact.months_back(last, count)
    assert len(months) == count and months[-1] == last.replace(day=1)
    assert all((b.year * 12 + b.month) - (a.year * 12 + a.month) == 1 for a, b in pairwise(months))
