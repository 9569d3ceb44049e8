"""From posted import rows to claims, and from a remittance to a claim state (pure parts of intake)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from api.denials.claims.intake import (
    PostedRow,
    adjudication_state,
    adjudications,
    claims_from_837_rows,
    claims_from_csv_rows,
    patient_ref,
    place_of_service,
    plan_of,
)
from api.money.ingestion.models import FinancialEntry

KEY = b"k" * 32


def _claim_row(number: int, key: str | None, **extra) -> PostedRow:
    data = {
        "patient_control_number": key,
        "total_charge": "150.00",
        "payer_name": "HAND PAYER",
        "payer_id": "HP001",
        "facility_code": "13",
        "frequency_code": "1",
        "statement_from": "2025-01-05",
        "statement_to": "2025-01-10",
        "diagnosis_codes": ["R51"],
        "subscriber_member_id": "M0001",
        "patient_last_name": "DOE",
        **extra,
    }
    return PostedRow(number, number, "claim", data, None)


def _line_row(number: int, parent: int, charge: str, **extra) -> PostedRow:
    data = {
        "procedure_code": "99284",
        "modifier_1": "25",
        "modifier_2": None,
        "revenue_code": "0450",
        "charge_amount": charge,
        "units": "1",
        "service_date_from": "2025-01-05",
        "service_date_to": None,
        **extra,
    }
    return PostedRow(number, number, "claim_line", data, parent)


def test_837_rows_become_claims_with_their_lines_and_no_clear_phi():
    rows = [
        _claim_row(1, "A-1"),
        _line_row(2, 1, "100.00"),
        _line_row(3, 1, "50.00"),
        _claim_row(4, "A-1"),  # a repeated CLM01: the first wins
        _line_row(5, 4, "9.00"),
        _claim_row(6, None),  # no key: nothing to record
    ]
    claims = claims_from_837_rows(rows, KEY)
    assert [c.claim_key for c in claims] == ["A-1"]
    claim = claims[0]
    assert claim.total_charge == Decimal("150.00")
    assert (claim.payer, claim.payer_id, claim.facility_type, claim.bill_type) == ("HAND PAYER", "HP001", "13", "131")
    assert (claim.statement_from, claim.statement_to) == (date(2025, 1, 5), date(2025, 1, 10))
    assert [line["charge"] for line in claim.lines] == [Decimal("100.00"), Decimal("50.00")]
    assert claim.lines[0]["modifiers"] == ["25"]
    assert claim.patient_ref is not None and claim.patient_ref.startswith("pt_")
    assert "M0001" not in claim.patient_ref and "DOE" not in claim.patient_ref


def test_patient_ref_is_keyed_and_stable():
    assert patient_ref(KEY, "M1", "DOE") == patient_ref(KEY, "m1 ", "doe")
    assert patient_ref(KEY, "M1", "DOE") != patient_ref(b"other", "M1", "DOE")
    assert patient_ref(KEY, None, "") is None


def test_csv_rows_sharing_a_key_are_one_claim():
    def row(n: int, key: str, billed: str, code: str | None) -> PostedRow:
        return PostedRow(
            n,
            n,
            "csv_claim",
            {
                "patient_account_number": key,
                "billed_amount": billed,
                "service_from": "2025-02-01",
                "procedure_code": code,
            },
            None,
        )

    claims = claims_from_csv_rows(
        [row(1, "C-1", "10.00", "99213"), row(2, "C-1", "5.50", "80053"), row(3, "C-2", "7.00", None)], KEY
    )
    assert [(c.claim_key, c.total_charge, len(c.lines)) for c in claims] == [
        ("C-1", Decimal("15.50"), 2),
        ("C-2", Decimal("7.00"), 0),
    ]
    assert claims[0].statement_to == date(2025, 2, 1)


@pytest.mark.parametrize(
    ("claim_type", "expected"),
    [
        ("837P", "11"),  # 005010X222A1 CLM05-1: the place of service (code source 237)
        ("837D", "11"),  # 005010X224A2 CLM05-1: the same
        ("837I", None),  # 005010X223A2 CLM05-1: the facility type of the type of bill, not a place
        (None, None),  # an envelope that names no implementation guide: not known to be a place
    ],
)
def test_clm05_1_is_the_claims_place_of_service_only_where_it_is_one(claim_type, expected):
    rows = [_claim_row(1, "P-1", claim_type=claim_type, facility_code="11"), _line_row(2, 1, "150.00")]
    (claim,) = claims_from_837_rows(rows, KEY)
    assert claim.place_of_service == expected
    assert claim.facility_type == "11"  # kept as the facility code it is, whatever the type


def test_each_837_line_keeps_its_own_sv105_and_the_claim_its_sbr03_plan():
    rows = [
        _claim_row(1, "P-1", claim_type="837P", facility_code="11", subscriber_group_number=" gold-ppo-7 "),
        _line_row(2, 1, "100.00", place_of_service=None),  # no SV105: the claim's
        _line_row(3, 1, "30.00", place_of_service="22"),
        _line_row(4, 1, "20.00", place_of_service="2A"),  # not a code: stored as none, not refused
    ]
    (claim,) = claims_from_837_rows(rows, KEY)
    assert (claim.place_of_service, claim.plan) == ("11", "GOLD-PPO-7")
    assert [line["place_of_service"] for line in claim.lines] == [None, "22", None]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("22", "22"),
        (" 11 ", "11"),
        ("2", "02"),  # a spreadsheet's number lost the leading zero of telehealth 02
        (2, "02"),
        ("222", None),
        ("2A", None),
        ("", None),
        (None, None),
        ("\u0661\u0662", None),  # Arabic-Indic digits are digits to Python, not a CMS code
    ],
)
def test_a_place_of_service_is_two_ascii_digits_or_none(value, expected):
    assert place_of_service(value) == expected


def test_a_plan_is_trimmed_upper_cased_and_bounded():
    assert plan_of("  gold ppo  ") == "GOLD PPO"
    assert plan_of("   ") is None and plan_of(None) is None
    assert plan_of("x" * 100) == "X" * 80


def test_csv_rows_carry_their_place_of_service_and_the_claims_plan():
    def row(n: int, pos: str | None, plan: str | None) -> PostedRow:
        data = {
            "patient_account_number": "C-9",
            "billed_amount": "10.00",
            "service_from": "2025-02-01",
            "procedure_code": "70551",
            "place_of_service": pos,
            "plan": plan,
        }
        return PostedRow(n, n, "csv_claim", data, None)

    (claim,) = claims_from_csv_rows([row(1, "11", "Gold PPO"), row(2, "22", None), row(3, "xx", None)], KEY)
    # the claim's place and plan are its first row's; each line keeps its own row's place
    assert (claim.place_of_service, claim.plan) == ("11", "GOLD PPO")
    assert [line["place_of_service"] for line in claim.lines] == ["11", "22", None]


def test_adjudication_state_by_status_paid_and_denied():
    zero, some = Decimal("0.00"), Decimal("10.00")
    assert adjudication_state("1", some, zero) == "adjudicated_paid"
    assert adjudication_state("1", some, some) == "adjudicated_partially_paid"
    assert adjudication_state("1", zero, some) == "adjudicated_denied"
    assert adjudication_state("4", zero, zero) == "adjudicated_denied"
    assert adjudication_state("1", zero, zero) == "adjudicated_paid"  # all to the patient's deductible
    assert adjudication_state("22", some, zero) is None
    assert adjudication_state("25", zero, some) is None


def _entry(row_id: int, entry_type: str, amount: str, *, denial: bool = False) -> FinancialEntry:
    return FinancialEntry(row_id=row_id, entry_type=entry_type, amount=Decimal(amount), is_denial=denial, component="x")


def test_the_last_decision_of_a_file_wins_and_reversals_are_skipped():
    rows = [
        PostedRow(10, 1, "remittance_claim", {"patient_control_number": "K", "claim_status_code": "4"}, None),
        PostedRow(11, 2, "adjustment", {}, 1),
        PostedRow(12, 3, "remittance_claim", {"patient_control_number": "K", "claim_status_code": "22"}, None),
        PostedRow(13, 4, "remittance_claim", {"patient_control_number": "K", "claim_status_code": "1"}, None),
        PostedRow(14, 5, "adjustment", {}, 4),
        PostedRow(15, 6, "adjustment", {}, 4),
    ]
    entries = [
        _entry(11, "denial", "100.00", denial=True),
        _entry(12, "reversal", "-1.00"),
        _entry(13, "payment", "80.00"),
        _entry(14, "denial", "15.00", denial=True),
        _entry(15, "patient_responsibility", "5.00"),
    ]
    found = adjudications(rows, entries)["K"]
    assert (found.status, found.paid, found.denied, found.patient) == (
        "1",
        Decimal("80.00"),
        Decimal("15.00"),
        Decimal("5.00"),
    )
