"""The evidence design: windows, the treated and comparison slices, the tally and the comparison of two
records, on hand numbers."""

from __future__ import annotations

import math
from datetime import date

import pytest

from api.evidence.evidence import design
from api.evidence.evidence.design import CellRow, Scope


def test_add_months_crosses_years_both_ways():
    assert design.add_months(date(2026, 1, 1), -1) == date(2025, 12, 1)
    assert design.add_months(date(2026, 11, 1), 3) == date(2027, 2, 1)
    assert design.add_months(date(2026, 3, 1), -24) == date(2024, 3, 1)


def test_the_start_month_belongs_to_after():
    # start 2026-03-17, 2 months before, 3 after: before = Jan, Feb; after = Mar, Apr, May
    w = design.windows(date(2026, 3, 17), 2, 3)
    assert (w.before_from, w.before_last, w.after_from, w.after_last, w.after_until) == (
        date(2026, 1, 1),
        date(2026, 2, 1),
        date(2026, 3, 1),
        date(2026, 5, 1),
        date(2026, 6, 1),
    )
    assert [w.period(date(2026, m, 1)) for m in range(1, 7)] == ["before", "before", "after", "after", "after", None]
    assert w.period(date(2025, 12, 1)) is None


@pytest.mark.parametrize("months", [0, 25, -1, True])
def test_windows_refuse_months_outside_1_to_24(months):
    with pytest.raises(ValueError, match="from 1 to 24"):
        design.windows(date(2026, 3, 1), months, 6)


def row(payer="AETNA", cls="commercial", line="cardiology", fac="MAIN", cat="eligibility", carc="27", claims=1, m=1):
    return CellRow(date(2026, m, 1), payer, cls, line, fac, cat, carc, claims)


SCOPE = Scope("AETNA", "eligibility", None, "cardiology", None)


def test_treated_slice_is_the_scopes_payer_service_line_and_facility():
    assert design.in_treated(row(), SCOPE)
    assert design.in_treated(
        row(payer="aetna", fac="NORTH", cat="none", carc="NONE"), SCOPE
    )  # outcome is not the slice
    assert not design.in_treated(row(line="oncology"), SCOPE)
    assert not design.in_treated(row(payer="CIGNA"), SCOPE)


def test_comparison_is_same_payer_class_other_service_line():
    assert design.in_control(row(payer="CIGNA", line="oncology"), SCOPE, "commercial")
    assert design.in_control(row(line="oncology"), SCOPE, "commercial")  # the same payer, another line
    assert not design.in_control(row(payer="CIGNA"), SCOPE, "commercial")  # same service line: neither group
    assert not design.in_control(row(payer="MEDICARE", cls="medicare", line="oncology"), SCOPE, "commercial")
    assert not design.in_control(row(line="oncology"), SCOPE, None)  # the payer's class is unknown
    assert not design.in_control(row(), SCOPE, "commercial")  # treated


def test_without_a_payer_any_class_compares_and_a_facility_scope_uses_other_facilities():
    scope = Scope(None, "eligibility", None, None, "MAIN")
    assert design.in_control(row(payer="MEDICARE", cls="medicare", fac="NORTH"), scope, None)
    assert not design.in_control(row(payer="MEDICARE", cls="medicare"), scope, None)


def test_line_and_facility_scope_compares_cells_differing_in_either():
    scope = Scope(None, "eligibility", None, "cardiology", "MAIN")
    assert design.in_control(row(fac="NORTH"), scope, None)
    assert design.in_control(row(line="oncology"), scope, None)
    assert not design.in_control(row(), scope, None)


def test_a_scope_naming_neither_line_nor_facility_has_no_comparison():
    scope = Scope("AETNA", "eligibility", None, None, None)
    assert not design.has_comparison(scope)
    assert not design.in_control(row(payer="CIGNA"), scope, "commercial")


def test_outcome_is_the_category_and_the_carc_when_given():
    assert design.is_outcome(row(), SCOPE)
    assert not design.is_outcome(row(cat="none", carc="NONE"), SCOPE)
    with_carc = Scope("AETNA", "eligibility", "27", "cardiology", None)
    assert design.is_outcome(row(carc="27"), with_carc)
    assert not design.is_outcome(row(carc="31"), with_carc)


def test_tally_counts_events_and_trials_per_group_and_period():
    w = design.windows(date(2026, 3, 1), 2, 2)  # before Jan-Feb, after Mar-Apr
    rows = [
        row(claims=4, m=1),  # treated before, denied: 4/4
        row(cat="none", carc="NONE", claims=6, m=2),  # treated before, paid: -> 4/10
        row(claims=1, m=3),  # treated after, denied
        row(cat="none", carc="NONE", claims=9, m=4),  # treated after, paid: -> 1/10
        row(payer="CIGNA", line="oncology", claims=3, m=2),  # control before, denied
        row(payer="CIGNA", line="oncology", cat="none", carc="NONE", claims=17, m=1),  # -> 3/20
        row(payer="CIGNA", line="oncology", claims=5, m=3),  # control after -> 5/20
        row(payer="CIGNA", line="oncology", cat="coding", carc="16", claims=15, m=4),  # a trial, not an event
        row(payer="CIGNA", claims=50, m=3),  # same line, other payer: neither
        row(claims=99, m=5),  # outside the windows
    ]
    t = design.tally(rows, SCOPE, w, "commercial")
    assert t == design.Tally((4, 10), (1, 10), (3, 20), (5, 20))
    no_cmp = design.tally(rows, Scope("AETNA", "eligibility", None, None, None), w, "commercial")
    assert no_cmp == design.Tally((4, 10), (1, 10), None, None)


def test_compare_two_estimates_as_independent():
    # -0.10 (se 0.03) vs +0.02 (se 0.04): diff -0.12, se = sqrt(0.0009 + 0.0016) = 0.05
    d = design.compare(-0.10, 0.03, 0.02, 0.04)
    assert d.estimate == pytest.approx(-0.12)
    assert d.standard_error == pytest.approx(0.05)
    assert d.ci_low == pytest.approx(-0.12 - 1.959963984540054 * 0.05)
    assert d.ci_high == pytest.approx(-0.12 + 1.959963984540054 * 0.05)
    # z = -2.4, p = 2 * (1 - Phi(2.4)) = erfc(2.4 / sqrt 2)
    assert d.p_value == pytest.approx(math.erfc(2.4 / math.sqrt(2)))
    assert d.significant and "independent" in d.statement


def test_compare_without_an_estimate_says_which():
    d = design.compare(None, None, 0.02, 0.04)
    assert d.estimate is None and not d.significant
    assert "the first record has no difference-in-differences" in d.statement
