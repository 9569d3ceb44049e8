"""Why a frequency limit applies to a claim line (pure): scope, dates, source, the facts that selected it, the
window and the earlier services counted (dates, units and claim keys only); each line is summarised."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from api.denials.prior_authorization.service import CodeRange
from api.intelligence.payer_applicability import applicability
from api.intelligence.payer_rules import frequency
from api.intelligence.payer_rules.service import LineFrequency

# The platform's subsequent annual wellness visit limit (42 CFR 410.15): 1 per 11 full months, G0438-G0439.
AWV = frequency.FrequencyLimit(
    payer_type="medicare",
    codes=CodeRange("G0438", "G0439"),
    max_units=1,
    period="months",
    period_length=11,
    effective_from=date(2011, 1, 1),
    source="42 CFR 410.15",
)


def _line(limit: frequency.FrequencyLimit, earlier: list[date], assumed: bool = False) -> LineFrequency:
    served = date(2026, 6, 1)
    priors = [frequency.EarlierService("G0439", d, Decimal(1), f"PCN-{d.month}") for d in earlier]
    verdict = frequency.evaluate(limit, frequency.ServiceLine("G0439", served, Decimal(1)), priors)
    return LineFrequency(2, "G0439", served, verdict, assumed)


def test_an_exceeded_platform_limit_says_why_in_dates_only():
    applied = applicability.from_frequency(_line(AWV, [date(2026, 2, 3)]), "medicare")
    assert (applied.kind, applied.reference, applied.source) == (
        "frequency_limit",
        "platform/medicare/G0438-G0439/frequency",
        "42 CFR 410.15",
    )
    assert (applied.scope.origin, applied.scope.breadth, applied.effective_from) == (
        "platform",
        "type_wide",
        date(2011, 1, 1),
    )
    assert [(s.fact, s.value) for s in applied.selected_by] == [
        ("line_number", "2"),
        ("procedure_code", "G0439"),
        ("service_date", "2026-06-01"),
        ("payer_type", "medicare"),
    ]
    assert applied.why == (
        "The platform's limit for every medicare payer (in G0438-G0439), line 2: G0439: at most 1 per 11 full "
        "months for this patient; 1 earlier on 2026-02-03, this line 1 -> exceeds"
    )
    detail = applied.frequency
    assert detail is not None
    # 11 months before June 2026 is July 2025: the window 2025-07-01 .. 2026-06-01 holds 2026-02-03
    assert (detail.window_from, detail.window_to, detail.used, detail.exceeds) == (
        date(2025, 7, 1),
        date(2026, 6, 1),
        Decimal(1),
        True,
    )
    assert [(e.service_date, e.claim_key) for e in detail.earlier] == [(date(2026, 2, 3), "PCN-2")]


def test_a_clients_payer_specific_limit_within_its_terms_with_an_assumed_payer_type():
    own = frequency.FrequencyLimit(
        payer_type="medicare",
        codes=CodeRange("G0439", "G0439"),
        max_units=2,
        period="calendar_year",
        period_length=None,
        effective_from=date(2026, 1, 1),
        source="Plan contract 4.1",
        payer_id="MCR01",
        limit_id=9,
    )
    applied = applicability.from_frequency(_line(own, [date(2026, 2, 3)], assumed=True), None)
    assert (applied.scope.origin, applied.scope.breadth, applied.reference) == (
        "client",
        "payer_specific",
        "payer_frequency_limits/9",
    )
    assert ("payer_type", "unknown: a common payer type's limit is assumed") in [
        (s.fact, s.value) for s in applied.selected_by
    ]
    assert ("payer_id", "MCR01") in [(s.fact, s.value) for s in applied.selected_by]
    # 1 earlier + this line's 1 = 2, not more than 2
    assert applied.frequency is not None and not applied.frequency.exceeds
    assert applied.why.endswith("-> within the limit") and applied.why.startswith("The client's limit for medicare")


def test_every_line_is_summarised_with_its_frequency_limit_or_none():
    applied = [applicability.from_frequency(_line(AWV, [date(2026, 2, 3)]), "medicare")]
    summaries = applicability.line_summaries([(1, "99213"), (2, "G0439")], applied)
    assert [
        (s.line_number, s.frequency_reference, s.exceeds_frequency, s.authorization_reference) for s in summaries
    ] == [
        (1, None, None, None),
        (2, "platform/medicare/G0438-G0439/frequency", True, None),
    ]


def test_a_limit_for_a_plan_names_the_plan_among_the_facts_that_selected_it():
    gold = frequency.FrequencyLimit(
        payer_type="medicare",
        codes=CodeRange("G0438", "G0439"),
        max_units=1,
        period="months",
        period_length=11,
        effective_from=date(2011, 1, 1),
        source="Plan GOLD rider 2",
        plan="GOLD",
        limit_id=4,
    )
    applied = applicability.from_frequency(_line(gold, []), "medicare")
    assert [(s.fact, s.value) for s in applied.selected_by] == [
        ("line_number", "2"),
        ("procedure_code", "G0439"),
        ("service_date", "2026-06-01"),
        ("payer_type", "medicare"),
        ("plan", "GOLD"),
    ]
