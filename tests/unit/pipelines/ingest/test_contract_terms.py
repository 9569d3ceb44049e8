"""The rules of an uploaded contract term (pipelines/ingest/contract_terms.py), on hand-written rows."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest import contract_terms as ct


def row(**over):
    base = {
        "payer_name": " Hand Contract Plan ",
        "method": "Fee Schedule",
        "procedure_code": "99213",
        "rate": "92.00",
        "effective_from": "2026-01-01",
    }
    return {**base, **over}


def test_a_fee_schedule_row_becomes_a_term():
    term, errors = ct.check_row(row(modifier="26", lesser_of="Y", effective_to="2026-06-30"))
    assert errors == []
    assert term == ct.Term(
        payer_name="Hand Contract Plan",
        payer_key="HAND CONTRACT PLAN",
        payer_id=None,
        plan_code=None,
        method="fee_schedule",
        procedure_code="99213",
        modifier="26",
        drg_code=None,
        rate=Decimal("92.00"),
        percent_of_charges=None,
        lesser_of=True,
        effective_from=date(2026, 1, 1),
        effective_to=date(2026, 6, 30),
    )


@pytest.mark.parametrize(
    ("spelling", "method"),
    [
        ("fee_schedule", "fee_schedule"),
        ("FEE SCHEDULE", "fee_schedule"),
        ("pct_of_charges", "percent_of_charges"),
        ("Percent of Charges", "percent_of_charges"),
        ("DRG", "drg_case_rate"),
        ("case rate", "drg_case_rate"),
        ("Per-Diem", "per_diem"),
        ("capitation", None),
        ("", None),
        (None, None),
    ],
)
def test_method_spellings(spelling, method):
    assert ct.normalise_method(spelling) == method


@pytest.mark.parametrize(
    ("over", "errors"),
    [
        (
            {"method": "capitation"},
            [
                "method: 'capitation' is not a pricing method "
                "(expected one of fee_schedule, percent_of_charges, drg_case_rate, per_diem)"
            ],
        ),
        ({"rate": "-0.01"}, ["rate: -0.01 is negative; a contract rate is 0 or more"]),
        ({"rate": None}, ["rate: required for a fee_schedule term"]),
        ({"procedure_code": None}, ["procedure_code: required for a fee_schedule term"]),
        ({"method": "drg_case_rate"}, ["drg_code: required for a drg_case_rate term"]),
        (
            {"method": "percent_of_charges", "rate": None},
            ["percent_of_charges: required for a percent_of_charges term"],
        ),
        ({"method": "percent_of_charges", "percent_of_charges": "120"}, ["percent_of_charges: 120 is outside 0-100"]),
        (
            {"method": "percent_of_charges", "percent_of_charges": "abc"},
            ["percent_of_charges: 'abc' is not a percent (0-100, e.g. 62.5)"],
        ),
        ({"lesser_of": "maybe"}, ["lesser_of: 'maybe' is not yes or no"]),
        ({"effective_to": "2025-12-31"}, ["effective_to: 2025-12-31 is before effective_from 2026-01-01"]),
    ],
)
def test_invalid_rows_say_why(over, errors):
    term, got = ct.check_row(row(**over))
    assert term is None
    assert got == errors


def test_percent_accepts_a_percent_sign():
    term, errors = ct.check_row(
        row(method="percent_of_charges", procedure_code=None, rate=None, percent_of_charges="62.5%")
    )
    assert errors == []
    assert term is not None and term.percent_of_charges == Decimal("62.5")


def _term(start: date, end: date | None, **over) -> ct.Term:
    text = {"effective_from": start.isoformat(), "effective_to": end.isoformat() if end else None}
    term, errors = ct.check_row(row(**text, **over))
    assert errors == [] and term is not None
    return term


def test_overlaps_are_reported_on_both_rows_and_only_for_the_same_key():
    jan = date(2026, 1, 1)
    terms = [
        (2, _term(jan, date(2026, 6, 30))),
        (3, _term(date(2026, 7, 1), None)),  # starts the day after: no overlap
        (4, _term(date(2026, 6, 30), date(2026, 6, 30), modifier="26")),  # another modifier: another key
        (5, _term(date(2026, 6, 30), None, procedure_code="99214")),
        (6, _term(date(2027, 1, 1), None, procedure_code="99214")),  # open-ended row 5 overlaps
    ]
    errors = ct.overlap_errors(terms)
    assert sorted(errors) == [5, 6]
    assert errors[5][0].startswith("effective_from/effective_to: overlaps row 6")


@settings(max_examples=200, deadline=None)
@given(
    a_start=st.integers(0, 60),
    a_len=st.integers(0, 60),
    b_start=st.integers(0, 60),
    b_len=st.one_of(st.none(), st.integers(0, 60)),
)
def test_overlap_is_a_shared_day(a_start, a_len, b_start, b_len):
    day0 = date(2026, 1, 1)
    a = _term(day0 + timedelta(a_start), day0 + timedelta(a_start + a_len))
    b_end = None if b_len is None else day0 + timedelta(b_start + b_len)
    b = _term(day0 + timedelta(b_start), b_end)
    a_days = {a_start + i for i in range(a_len + 1)}
    b_days = set(range(b_start, b_start + (b_len if b_len is not None else 200) + 1))
    assert ct.overlaps(a, b) == bool(a_days & b_days)
    assert (ct.overlap_errors([(1, a), (2, b)]) != {}) == bool(a_days & b_days)
