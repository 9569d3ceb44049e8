"""The reasons revenue turned out not to be collectable, and the one merge of the two sources (pure)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from api.intelligence.revenue_invalidation.reasons import (
    REASONS,
    Item,
    case_reason,
    merge,
    remittance_reason,
    summarize,
)

D = Decimal


def test_remittance_reasons_follow_the_category_and_group():
    assert remittance_reason("timely_filing", "CO") == "timely_filing_missed"
    assert remittance_reason("non_covered", "CO") == "non_covered"
    # a non-covered denial the payer did not put on the provider (no CO) closed like any other
    assert remittance_reason("non_covered", "OA") == "appeal_window_closed"
    assert remittance_reason("medical_necessity", "CO") == remittance_reason(None, None) == "appeal_window_closed"


def test_case_reasons():
    day = date(2026, 5, 1)
    base = {"decided_on": day, "due_on": None, "last_outcome": None}
    assert case_reason("timely_filing", "CO", decision="written_off", **base) == "timely_filing_missed"
    assert case_reason("non_covered", "co", decision="lost", **base) == "non_covered"
    assert case_reason("coding", "CO", decision="lost", **base) == "appeal_lost"
    assert case_reason("coding", "CO", decision="written_off", **{**base, "last_outcome": "lost"}) == "appeal_lost"
    late = {**base, "due_on": date(2026, 4, 30)}
    assert case_reason("coding", "CO", decision="written_off", **late) == "appeal_window_closed"
    assert case_reason("coding", "CO", decision="written_off", **{**late, "due_on": day}) == "written_off"
    # an appeal was decided (withdrawn): writing off after the deadline is a person's call, not the window's
    assert case_reason("coding", "CO", decision="written_off", **{**late, "last_outcome": "withdrawn"}) == "written_off"


def item(key, on, source="remittance", amount="10.00", reason="appeal_window_closed", case_id=None, payer="P"):
    return Item(key, payer, D(amount), on, reason, source, case_id)


def test_merge_counts_a_claim_once_remittance_first_newest_first():
    jan, feb = date(2026, 1, 31), date(2026, 2, 2)
    remittance = [item("A", jan), item("B", feb)]
    cases = [
        item("A", feb, "case", case_id=7, reason="written_off"),  # the remittance rule knows claim A: dropped
        item("C", jan, "case", case_id=9, reason="appeal_lost"),
        item("D", feb, "case", case_id=3, reason="written_off"),  # claim D written off by the rule in another month
    ]
    merged = merge(remittance, cases, written_off_claims={"A", "D"})
    assert [(i.claim_key, i.source) for i in merged] == [("B", "remittance"), ("A", "remittance"), ("C", "case")]


def test_summary_totals_by_reason_payer_and_month():
    found = summarize(
        [
            item("A", date(2026, 1, 3), amount="400.00", payer="X"),
            item("B", date(2026, 1, 9), amount="100.00", payer="Y", reason="appeal_lost"),
            item("C", date(2026, 2, 1), amount="50.50", payer="X", reason="appeal_lost"),
        ]
    )
    assert (found.total.items, found.total.amount) == (3, D("550.50"))
    assert {k: (t.items, t.amount) for k, t in found.by_reason.items()} == {
        "appeal_window_closed": (1, D("400.00")),
        "appeal_lost": (2, D("150.50")),
    }
    assert {k: (t.items, t.amount) for k, t in found.by_payer.items()} == {"X": (2, D("450.50")), "Y": (1, D("100.00"))}
    assert {k: (t.items, t.amount) for k, t in found.by_month.items()} == {
        "2026-01": (2, D("500.00")),
        "2026-02": (1, D("50.50")),
    }
    assert set(found.by_reason) <= set(REASONS)
