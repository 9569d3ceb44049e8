"""What a proposed `frequency` change may hold: the kind's checker over hand-written payloads.

A frequency limit's codes are parsed by priorAuthorization (CPT Category I is 5 digits, HCPCS Level II a letter
A-V and 4 digits; a range stays within one kind), its periods and lengths by ``frequency.check``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.intelligence.payer_rules import proposals

# A commercial payer's own physical-therapy limit: 97110 at most 20 units per calendar year.
THERAPY: dict[str, Any] = {
    "payer_type": "commercial",
    "payer_id": "acme01",
    "procedure_codes": "97110",
    "max_units": 20,
    "period": "calendar_year",
    "effective_from": "2026-01-01",
    "source": "ACME provider manual 2026, section 9.1 (therapy visits)",
}


def test_defaults_are_filled_and_the_payload_normalised():
    assert proposals.check("frequency", THERAPY) == {
        **THERAPY,
        "payer_id": "ACME01",  # compared upper-cased, as priorAuthorization stores payer ids
        "plan": "*",
        "period_length": None,
        "effective_to": None,
    }


def test_a_range_with_a_length_and_an_end_date():
    awv = {
        **THERAPY,
        "payer_type": "medicare_advantage",
        "procedure_codes": "g0438-g0439",
        "max_units": 1,
        "period": "months",
        "period_length": 11,
        "effective_to": "2026-12-31",
    }
    checked = proposals.check("frequency", awv)
    assert (checked["procedure_codes"], checked["period_length"], checked["effective_to"]) == (
        "G0438-G0439",
        11,
        "2026-12-31",
    )
    # approval checks the stored payload again: it must come back unchanged
    assert proposals.check("frequency", checked) == checked


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"period": "weekly"}, "period"),  # not a period
        ({"period": "months"}, "periodLength"),  # months without N
        ({"period": "rolling_days", "period_length": 0}, "period_length"),  # N <= 0
        ({"period": "rolling_days", "period_length": 3661}, "periodLength"),  # more than 10 years of days
        ({"period_length": 3}, "periodLength"),  # a calendar year has no length
        ({"max_units": 0}, "max_units"),  # N <= 0
        ({"max_units": -1}, "max_units"),
        ({"max_units": True}, "max_units"),  # a bool is no number of units
        ({"max_units": 2.5}, "max_units"),
        ({"procedure_codes": "97112-97110"}, "procedureCodes"),  # first code after the last
        ({"procedure_codes": "97110-G0438"}, "procedureCodes"),  # a range across kinds
        ({"procedure_codes": "9711"}, "procedureCode"),
        ({"procedure_codes": "9" * 100_000}, "procedure_codes"),  # refused before parsing
        ({"effective_to": "2025-12-31"}, "effectiveTo"),  # ends before it starts
        ({"effective_from": "2026-02-30"}, "effective_from"),
        ({"payer_type": "self_pay"}, "payerType"),
        ({"source": "line one\nline two"}, "source"),
        ({"units": 3}, "units"),  # not a field of a frequency limit
    ],
)
def test_a_bad_payload_is_refused_naming_the_field(change, field):
    with pytest.raises(InvalidInput) as refused:
        proposals.check("frequency", {**THERAPY, **change})
    assert field in str(refused.value) and str(refused.value).startswith("Invalid input:")


def test_a_missing_field_is_refused():
    for field in ("procedure_codes", "max_units", "period", "source", "effective_from", "payer_type"):
        with pytest.raises(InvalidInput, match=field):
            proposals.check("frequency", {k: v for k, v in THERAPY.items() if k != field})


@given(
    codes=st.text(alphabet="0123456789GJTZ- ", max_size=14),
    period=st.sampled_from(["day", "rolling_days", "months", "calendar_year", "lifetime", "week"]),
    length=st.one_of(st.none(), st.integers(-5, 4000)),
    units=st.integers(-3, 10_002),
)
def test_any_payload_is_refused_or_normalised_to_a_fixed_point(codes, period, length, units):
    payload = {**THERAPY, "procedure_codes": codes, "period": period, "period_length": length, "max_units": units}
    try:
        checked = proposals.check("frequency", payload)
    except InvalidInput as refused:
        assert str(refused).startswith("Invalid input:")
        return
    assert proposals.check("frequency", checked) == checked
    assert 1 <= checked["max_units"] <= 9999
    assert (checked["period_length"] is None) == (checked["period"] in ("day", "calendar_year", "lifetime"))
