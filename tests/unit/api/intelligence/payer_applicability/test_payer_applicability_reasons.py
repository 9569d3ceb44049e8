"""Why a limit applies to a claim: scope, source and the claim facts that selected it, from the deadline
engine's answer. Dates counted by hand in the comments."""

from __future__ import annotations

from datetime import date

from api.denials.deadlines import rules
from api.denials.deadlines.rules import CaseFacts, LimitRule
from api.intelligence.payer_applicability import applicability
from api.intelligence.payer_applicability.applicability import Selector


def _applied(facts: CaseFacts, limits: tuple[LimitRule, ...] = rules.RULES) -> list[applicability.Applied]:
    kind, found = rules.case_deadlines(facts, limits)
    return [applicability.from_scheduled(s, kind, facts) for s in found]


def test_medicare_advantage_by_its_filing_indicator_gets_the_platform_reconsideration():
    facts = CaseFacts(
        payer_class="medicare",
        filing_indicator="16",
        payer_id="MAP01",
        notice_date=date(2026, 3, 2),
        service_date=date(2026, 2, 10),
    )
    appeal, filing = _applied(facts)
    # 2026-03-02 + 65 days (42 CFR 422.582(b)): Mar 29, Apr 59, +6 = 2026-05-06
    assert (appeal.kind, appeal.limit and appeal.limit.due_on) == ("appeal_limit", date(2026, 5, 6))
    assert (appeal.scope.origin, appeal.scope.breadth, appeal.scope.payer_type) == (
        "platform",
        "type_wide",
        "medicare_advantage",
    )
    assert appeal.effective_from is None  # a platform default: every date
    assert "42 CFR 422.582" in appeal.source
    assert appeal.selected_by == (
        Selector("filing_indicator", "16"),
        Selector("payer_class", "medicare"),
        Selector("notice_date", "2026-03-02"),
    )
    assert "claim filing indicator 16" in appeal.why
    # timely filing from the date of service: 2026-02-10 + 365 = 2027-02-10
    assert (filing.kind, filing.limit and filing.limit.due_on) == ("timely_filing_limit", date(2027, 2, 10))
    assert filing.selected_by[-1] == Selector("service_date", "2026-02-10")


def test_a_clients_payer_specific_rule_says_its_scope_and_date():
    own = LimitRule(
        "medicare_advantage",
        "MAP01",
        "reconsideration",
        60,
        "calendar",
        False,
        "date_of_denial",
        0,
        False,
        10_007,
        "Provider agreement section 4.2",
        date(2026, 1, 1),
        7,
    )
    facts = CaseFacts(payer_class="medicare", filing_indicator="16", payer_id="MAP01", notice_date=date(2026, 3, 2))
    (appeal,) = _applied(facts, (*rules.RULES, own))
    # 2026-03-02 + 60 = Mar 29, Apr +31 = 2026-05-01
    assert appeal.limit is not None and appeal.limit.due_on == date(2026, 5, 1)
    assert (appeal.scope.origin, appeal.scope.breadth, appeal.scope.payer_id) == ("client", "payer_specific", "MAP01")
    assert (appeal.effective_from, appeal.source, appeal.reference) == (
        date(2026, 1, 1),
        "Provider agreement section 4.2",
        "payer_rules/7",
    )
    assert Selector("payer_id", "MAP01") in appeal.selected_by
    assert appeal.why.startswith("The client's rule for medicare_advantage payer MAP01")


def test_an_unknown_payer_says_the_window_was_assumed():
    facts = CaseFacts(payer_class=None, notice_date=date(2026, 3, 2))
    (appeal,) = _applied(facts)
    # Medicaid's 60 days is the shortest common window: 2026-03-02 + 60 = 2026-05-01
    assert appeal.limit is not None and (appeal.limit.due_on, appeal.scope.payer_type) == (
        date(2026, 5, 1),
        "medicaid",
    )
    assert Selector("payer_type", "unknown: the shortest common window is assumed") in appeal.selected_by


def test_a_soft_denial_has_only_the_corrected_claims_timely_filing():
    facts = CaseFacts(
        payer_class="medicare",
        filing_indicator="MB",
        notice_date=date(2026, 3, 2),
        service_date=date(2026, 2, 10),
        soft_denial=True,
    )
    (filing,) = _applied(facts)
    assert filing.kind == "timely_filing_limit" and Selector("soft_denial", "true") in filing.selected_by
    assert filing.why.startswith("A soft denial")
