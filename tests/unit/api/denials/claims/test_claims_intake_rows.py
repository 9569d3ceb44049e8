"""From posted import rows to claims, and from a remittance to a claim state (pure parts of intake)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from api.denials.claims.intake import (
    PostedRow,
    adjudication_state,
    adjudications,
    claims_from_837_rows,
    claims_from_csv_rows,
    patient_ref,
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


def _line_row(number: int, parent: int, charge: str) -> PostedRow:
    data = {
        "procedure_code": "99284",
        "modifier_1": "25",
        "modifier_2": None,
        "revenue_code": "0450",
        "charge_amount": charge,
        "units": "1",
        "service_date_from": "2025-01-05",
        "service_date_to": None,
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
