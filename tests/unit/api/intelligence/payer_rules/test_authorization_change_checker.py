"""What a proposed `authorization` change may hold: the kind's checker over hand-written payloads.

The requirement rules are priorAuthorization's (CPT Category I is 5 digits, HCPCS Level II a letter A-V and
4 digits: the AMA's CPT code set and CMS's HCPCS Level II file; a range stays within one kind; POS is the
2-digit CMS place-of-service code; revenue codes are NUBC's 4 digits, ``450`` = ``0450``), so these cases
also pin that the checker asks priorAuthorization rather than a copy of its rules.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.intelligence.payer_rules import proposals

# Magnetic resonance of the brain (70551-70553) for one commercial payer, from its provider manual.
MRI: dict[str, Any] = {
    "payer_type": "commercial",
    "payer_id": "ACME01",
    "procedure_codes": "70551-70553",
    "effective_from": "2026-01-01",
    "source": "ACME provider manual 2026, section 7.3",
}


def test_defaults_are_filled_and_the_payload_normalised():
    checked = proposals.check("authorization", {**MRI, "payer_id": " acme01 ", "revenue_code": "610"})
    assert checked == {
        "payer_type": "commercial",
        "payer_id": "ACME01",  # upper-cased like priorAuthorization stores it
        "plan": "*",
        "procedure_codes": "70551-70553",
        "place_of_service": "*",
        "revenue_code": "0610",  # NUBC revenue codes are 4 digits: 610 is 0610
        "requires_authorization": True,
        "effective_from": "2026-01-01",
        "effective_to": None,
        "source": "ACME provider manual 2026, section 7.3",
    }


def test_an_exemption_with_an_end_date_and_a_single_hcpcs_code():
    exempt = {**MRI, "procedure_codes": "j0585", "requires_authorization": False, "effective_to": "2026-12-31"}
    checked = proposals.check("authorization", exempt)
    assert (checked["procedure_codes"], checked["requires_authorization"], checked["effective_to"]) == (
        "J0585",
        False,
        "2026-12-31",
    )


def test_checking_twice_answers_the_same_payload():
    # approval checks the stored payload again: it must come back unchanged
    once = proposals.check("authorization", MRI)
    assert proposals.check("authorization", once) == once


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"procedure_codes": "70553-70551"}, "procedureCodes"),  # first code after the last
        ({"procedure_codes": "70551-J0585"}, "procedureCodes"),  # a range across kinds
        ({"procedure_codes": "7055"}, "procedureCode"),  # 4 digits: no CPT code
        ({"procedure_codes": "Z1234"}, "procedureCode"),  # HCPCS Level II letters are A-V
        ({"procedure_codes": "7" * 100_000}, "procedure_codes"),  # an attacker's size, refused before parsing
        ({"place_of_service": "2"}, "placeOfService"),
        ({"revenue_code": "45"}, "revenueCode"),
        ({"effective_to": "2025-12-31"}, "effectiveTo"),  # ends before it starts
        ({"effective_from": "2026-02-30"}, "effective_from"),
        ({"effective_from": "3000-01-01"}, "effective_from"),
        ({"payer_type": "self_pay"}, "payer_type"),
        ({"requires_authorization": "yes"}, "requires_authorization"),
        ({"source": "   "}, "source"),
        ({"source": "line one\nline two"}, "source"),
        ({"payer_id": 42}, "payer_id"),
        ({"units": 3}, "units"),  # not a field of a requirement
    ],
)
def test_a_bad_payload_is_refused_naming_the_field(change, field):
    with pytest.raises(InvalidInput) as refused:
        proposals.check("authorization", {**MRI, **change})
    assert field in str(refused.value)


def test_a_missing_code_or_source_is_refused():
    for field in ("procedure_codes", "source", "effective_from", "payer_type"):
        with pytest.raises(InvalidInput, match=field):
            proposals.check("authorization", {k: v for k, v in MRI.items() if k != field})


def test_an_unknown_kind_names_the_kinds():
    with pytest.raises(InvalidInput, match="limit, authorization, frequency"):
        proposals.check("eligibility", MRI)


@given(
    codes=st.text(alphabet="0123456789AJTFUZ- ", max_size=14),
    pos=st.text(alphabet="0123456789* ", max_size=3),
    revenue=st.text(alphabet="0123456789* ", max_size=5),
)
def test_any_payload_is_refused_or_normalised_to_a_fixed_point(codes, pos, revenue):
    payload = {**MRI, "procedure_codes": codes, "place_of_service": pos, "revenue_code": revenue}
    try:
        checked = proposals.check("authorization", payload)
    except InvalidInput as refused:
        assert str(refused).startswith("Invalid input:")
        return
    assert proposals.check("authorization", checked) == checked
    low, _dash, high = checked["procedure_codes"].partition("-")
    assert len(low) == 5 and (not high or (len(high) == 5 and low < high))
