"""Row rules, repairs, entry planning and reversal linking (pure)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.money.ingestion.file_reader import ParseFailure, UnsupportedFormat, detect, parse_file
from api.money.ingestion.posting import PostedEntry, RowView, link_reversals, plan_entries
from api.money.ingestion.rules import RepairError, repair_tabular, repair_x12, validate

CLAIM = {
    "patient_control_number": "PCN1",
    "claim_status_code": "1",
    "total_charge": "100.00",
    "paid_amount": "70.00",
    "claim_level_adjustment_total": "0.00",
    "line_adjustment_total": "30.00",
    "payer_name": "ACME",
    "payment_date": "2024-03-01",
    "statement_from": "2024-02-01",
}


def test_unbalanced_remittance_claim_is_invalid_and_a_repair_revalidates_it():
    bad = {**CLAIM, "paid_amount": "60.00"}
    errors = validate("remittance_claim", bad)
    assert len(errors) == 1 and errors[0].startswith("claim_balance") and "PCN1" not in errors[0]
    data, still = repair_x12("remittance_claim", bad, {"paid_amount": "65"})
    assert data["paid_amount"] == "65.00" and still
    data, none = repair_x12("remittance_claim", bad, {"paid_amount": "70.00"})
    assert none == [] and data["paid_amount"] == "70.00"
    with pytest.raises(RepairError, match="patient_last_name"):
        repair_x12("remittance_claim", bad, {"patient_last_name": "x"})
    with pytest.raises(RepairError, match="2 decimals"):
        repair_x12("remittance_claim", bad, {"paid_amount": "1.234"})


def test_tabular_repair_uses_the_readers_rules():
    row = {"patient_account_number": "A1", "paid_amount": None, "payment_date": "2024-01-05"}
    data, errors = repair_tabular("payment", row, {"paid_amount": "(1,234.50)"})
    assert errors == [] and data["paid_amount"] == "-1234.50" and data["payment_date"] == "2024-01-05"
    _, errors = repair_tabular("payment", row, {"paid_amount": "abc"})
    assert errors == ["paid_amount: 'abc' is not a money amount"]
    _, errors = repair_tabular("payment", row, {"paid_amount": "1", "payment_date": None})
    assert errors == ["payment_date: required value missing"]
    with pytest.raises(RepairError):
        repair_tabular("payment", row, {"not_a_field": "1"})


def _rows(status: str, paid: str, cas: list[tuple[str, str, str]]) -> list[RowView]:
    claim = {**CLAIM, "claim_status_code": status, "paid_amount": paid}
    rows = [RowView(1, 1, "remittance_claim", claim)]
    for n, (group, carc, amount) in enumerate(cas, start=2):
        rows.append(
            RowView(
                n,
                n,
                "adjustment",
                {
                    "group_code": group,
                    "carc": carc,
                    "amount": amount,
                    "claim_status_code": status,
                    "patient_control_number": "PCN1",
                    "rarcs": [],
                },
                parent_row_number=1,
            )
        )
    return rows


def test_entry_types_for_payment_denial_patient_responsibility_and_reversal():
    paid = plan_entries(_rows("1", "70.00", [("CO", "45", "20.00"), ("PR", "2", "10.00")]))
    assert [(p.entry_type, p.amount) for p in paid] == [
        ("payment", Decimal("70.00")),
        ("adjustment", Decimal("20.00")),
        ("patient_responsibility", Decimal("10.00")),
    ]
    denied = plan_entries(_rows("4", "0.00", [("CO", "16", "100.00")]))
    assert [(p.entry_type, p.component, p.is_denial) for p in denied] == [("denial", "cas", True)]
    assert denied[0].billed_amount == Decimal("100.00")
    reversed_ = plan_entries(_rows("22", "-70.00", [("CR", "45", "-20.00")]))
    assert {p.entry_type for p in reversed_} == {"reversal"}
    orphan = plan_entries([RowView(5, 5, "adjustment", {"group_code": "CO", "amount": "1.00"}, parent_row_number=99)])
    assert orphan == [], "adjustments of an excluded claim are not posted"


def test_negative_payment_without_clp02_22_is_a_recoupment():
    # A payer takes 40.00 back on a CLP02=1 claim (no reversal): CLP04 -40.00 posts as a recoupment,
    # never as a negative payment; its CAS amounts post as for any adjudication.
    taken = plan_entries(_rows("1", "-40.00", [("CO", "45", "40.00")]))
    assert [(p.entry_type, p.component, p.amount) for p in taken] == [
        ("recoupment", "paid", Decimal("-40.00")),
        ("adjustment", "cas", Decimal("40.00")),
    ]
    # the same amount under CLP02=22 stays a reversal
    assert [p.entry_type for p in plan_entries(_rows("22", "-40.00", []))] == ["reversal"]


money = st.decimals(min_value=Decimal("-99999.99"), max_value=Decimal("99999.99"), places=2, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "4", "22"]),
            money,
            st.lists(
                st.tuples(
                    st.sampled_from(["CO", "PR", "OA", "PI", "CR"]), st.sampled_from(["45", "16", "1", "ZZ9"]), money
                ),
                max_size=4,
            ),
        ),
        min_size=1,
        max_size=8,
    ),
    st.lists(money, max_size=3),
)
def test_posted_amounts_always_tie_to_the_rows(claims, plbs):
    rows, number = [], 0
    for status, paid, cas in claims:
        number += 1
        parent = number
        rows.append(
            RowView(
                number, number, "remittance_claim", {**CLAIM, "claim_status_code": status, "paid_amount": str(paid)}
            )
        )
        for group, carc, amount in cas:
            number += 1
            rows.append(
                RowView(
                    number,
                    number,
                    "adjustment",
                    {
                        "group_code": group,
                        "carc": carc,
                        "amount": str(amount),
                        "claim_status_code": status,
                        "rarcs": [],
                    },
                    parent_row_number=parent,
                )
            )
    for amount in plbs:
        number += 1
        rows.append(RowView(number, number, "provider_adjustment", {"amount": str(amount), "reason_code": "WO"}))
    plans = plan_entries(rows)
    paid_total = sum((Decimal(r.data["paid_amount"]) for r in rows if r.entity == "remittance_claim"), Decimal(0))
    cas_total = sum((Decimal(r.data["amount"]) for r in rows if r.entity == "adjustment"), Decimal(0))
    assert sum((p.amount for p in plans if p.component == "paid"), Decimal(0)) == paid_total
    assert sum((p.amount for p in plans if p.component == "cas"), Decimal(0)) == cas_total
    assert sum((p.amount for p in plans if p.component == "plb"), Decimal(0)) == sum(plbs, Decimal(0))


def test_reversals_link_to_earlier_matching_entries_once():
    posted = [
        PostedEntry(1, "payment", "paid", Decimal("70.00"), "PCN1", None, None, batch_id=1, row_id=1),
        PostedEntry(2, "adjustment", "cas", Decimal("20.00"), "PCN1", "CO", "45", batch_id=1, row_id=2),
        PostedEntry(3, "payment", "paid", Decimal("70.00"), "PCN1", None, None, batch_id=9, row_id=50),
    ]
    plans = plan_entries(_rows("22", "-70.00", [("CR", "45", "-20.00"), ("CO", "45", "-20.00")]))
    for p, row_id in zip(plans, (40, 41, 42), strict=True):
        p.row_id = row_id
    link_reversals(plans, posted, batch_id=9)
    assert [p.reverses_entry_id for p in plans] == [1, 2, None]


def test_parse_reports_unsupported_formats_and_failures_without_rows():
    with pytest.raises(UnsupportedFormat, match="empty"):
        detect(b"", "x.csv")
    with pytest.raises(UnsupportedFormat, match="PNG"):
        detect(b"\x89PNG\r\n\x1a\n....", "x.png")
    with pytest.raises(ParseFailure) as failure:
        parse_file(
            b"ISA*00*          *00*          *ZZ*A              *ZZ*B              *240101*1200*^*00501*000000001*0*P*:~"
            b"GS*HP*A*B*20240101*1200*1*X*005010X221A1~ST*835*0001~BPR*I*1*C*ACH~",
            "t.835",
            "x12_835",
        )
    assert failure.value.report["segmentNumber"] and failure.value.report["file"] == "t.835"
