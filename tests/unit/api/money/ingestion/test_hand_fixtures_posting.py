"""Hand-written 835s (tests/fixtures/x12/hand) through the import rows and the ledger posting plan.

Expected entries are written by hand from the segments of each file.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from api.money.ingestion.posting import RowView, plan_entries
from api.money.ingestion.records import rows_from_835
from pipelines.ingest.x12 import parse_x12_file

HAND = Path(__file__).resolve().parents[4] / "fixtures" / "x12" / "hand"


def _plans(name: str) -> list[tuple[str | None, str, str | None, Decimal, str | None, bool]]:
    rows = rows_from_835(parse_x12_file(HAND / name).tables)
    assert all(r.status == "valid" for r in rows), [r.errors for r in rows if r.errors]
    views = [RowView(i, r.row_number, r.entity, r.data, r.parent_row_number) for i, r in enumerate(rows, 1)]
    return [(p.claim_key, p.entry_type, p.carc, p.amount, p.denial_category, p.is_denial) for p in plan_entries(views)]


def test_unknown_carc_posts_as_an_unclassified_adjustment():
    assert _plans("unknown_carc.835") == [
        ("UNK-1", "payment", None, Decimal("60.00"), None, False),
        ("UNK-1", "adjustment", "45", Decimal("30.00"), "contractual", False),
        ("UNK-1", "adjustment", "ZZ9", Decimal("10.00"), "unclassified", False),
    ]


def test_zero_and_negative_amounts_post_as_adjustments():
    assert _plans("zero_and_negative.835") == [
        ("ZERO-1", "payment", None, Decimal("100.00"), None, False),
        ("ZERO-1", "adjustment", "97", Decimal("0.00"), "bundling", False),
        ("NEG-1", "payment", None, Decimal("130.00"), None, False),
        ("NEG-1", "adjustment", "94", Decimal("-30.00"), "contractual", False),
    ]


def test_predetermination_posts_no_payment_and_no_denial():
    # The CAS amount still posts (the ledger ties to the file), as an adjustment that denies nothing.
    assert _plans("predetermination.835") == [
        ("PRED-1", "adjustment", "50", Decimal("150.00"), "medical_necessity", False),
    ]


def test_reversal_entries_are_never_denials():
    plans = _plans("reversal.835")
    assert [(p[0], p[1], p[3], p[5]) for p in plans] == [
        ("REV-1", "payment", Decimal("80.00"), False),
        ("REV-1", "denial", Decimal("20.00"), True),
        ("REV-1", "reversal", Decimal("-80.00"), False),
        ("REV-1", "reversal", Decimal("-20.00"), False),
        ("REV-2", "reversal", Decimal("-10.00"), False),
        ("REV-2", "reversal", Decimal("10.00"), False),
        ("REV-1", "payment", Decimal("80.00"), False),
        ("REV-1", "adjustment", Decimal("20.00"), False),
    ]


def test_ledger_reads_the_first_rarc_in_file_order():
    plans = [p for p in _plans("rarc_order_and_co59.835") if p[1] != "payment"]
    assert plans == [
        ("RARC-1", "denial", "16", Decimal("20.00"), "registration", True),
        ("RARC-1", "denial", "16", Decimal("50.00"), "registration", True),
        ("RARC-1", "denial", "16", Decimal("150.00"), "registration", True),
        ("MPR-1", "adjustment", "59", Decimal("40.00"), "contractual", False),
    ]
