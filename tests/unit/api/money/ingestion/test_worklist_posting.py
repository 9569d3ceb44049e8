"""What a row of the hospital's denial worklist posts (pure), by hand: its group and CARC classify it
(PR is the patient's share, never a denial; CO-45 is contractual), and a repaired row's combined code
is split by the reader's own rules."""

from __future__ import annotations

from decimal import Decimal

import pytest

from api.money.ingestion.posting import RowView, plan_entries
from api.money.ingestion.rules import repair_tabular


def _row(group: str | None, carc: str, amount: str = "100.00") -> RowView:
    data = {
        "patient_account_number": "W-1",
        "payer_name": "Hand Worklist Payer",
        "denial_date": "2026-03-02",
        "group_code": group,
        "carc": carc,
        "denied_amount": amount,
    }
    return RowView(1, 1, "csv_denial", data)


@pytest.mark.parametrize(
    ("group", "carc", "entry_type", "is_denial", "category"),
    [
        ("CO", "27", "denial", True, "eligibility"),
        ("PR", "1", "patient_responsibility", False, "patient_responsibility"),
        ("PR", "27", "patient_responsibility", False, "patient_responsibility"),
        ("CO", "45", "adjustment", False, "contractual"),
        (None, "197", "denial", True, "authorization"),  # no group column: contractual (CO) codes
        ("OA", "18", "denial", True, "duplicate"),
        ("CO", "ZZ9", "adjustment", False, "unclassified"),  # an unknown CARC is reported, never a denial
    ],
)
def test_a_worklist_row_posts_by_its_group_and_carc(group, carc, entry_type, is_denial, category):
    (plan,) = plan_entries([_row(group, carc)])
    assert (plan.entry_type, plan.is_denial, plan.denial_category) == (entry_type, is_denial, category)
    assert (plan.component, plan.amount, plan.group_code or "", plan.carc) == (
        "denied",
        Decimal("100.00"),
        group or "CO",
        carc,
    )


def test_a_zero_denied_amount_is_no_denial():
    (plan,) = plan_entries([_row("CO", "27", "0.00")])
    assert (plan.entry_type, plan.is_denial) == ("adjustment", False)


def test_a_repaired_row_has_its_combined_code_split():
    data = {"patient_account_number": "W-1", "denial_date": "2026-03-02", "carc": "XX-27", "denied_amount": "5.00"}
    fixed, errors = repair_tabular("denial", data, {"carc": "PR-1"})
    assert (fixed["group_code"], fixed["carc"], errors) == ("PR", "1", [])
    still, errors = repair_tabular("denial", data, {"carc": "QQ 5"})
    assert still["carc"] == "QQ 5" and errors == [
        "carc: 'QQ 5' starts with the unknown group code 'QQ' (expected one of CO, PR, OA, PI, CR)"
    ]
