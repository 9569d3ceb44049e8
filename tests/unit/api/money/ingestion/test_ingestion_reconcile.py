"""Reconciliation matching (pure)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from api.money.ingestion.matching import LedgerEntry, reconcile


def _charge(i, key, billed, day=None):
    return LedgerEntry(i, "charge", "charge", Decimal(billed), key, billed_amount=Decimal(billed), service_date=day)


def _paid(i, key, amount, billed=None, entry_type="payment", day=None):
    return LedgerEntry(
        i, entry_type, "paid", Decimal(amount), key, billed_amount=Decimal(billed) if billed else None, service_date=day
    )


@settings(max_examples=80)
@given(st.sets(st.integers(0, 40)), st.sets(st.integers(0, 40)))
def test_unmatched_counts_are_the_set_differences(claim_ids, remit_ids):
    entries, n = [], 0
    for c in sorted(claim_ids):
        n += 1
        entries.append(_charge(n, f"C{c}", f"{c + 1}.00"))
    for r in sorted(remit_ids):
        n += 1
        entries.append(_paid(n, f"C{r}", "5.00", billed=f"{r + 1}.00"))
    result = reconcile(entries)
    counts = result.counts()
    assert counts["unmatched_claim"] == len(claim_ids - remit_ids)
    assert counts["unmatched_remittance"] == len(remit_ids - claim_ids)
    assert counts["amount_mismatch"] == 0 and counts["duplicate_payment"] == 0
    assert result.matched == len(claim_ids & remit_ids)


def test_amount_mismatch_duplicates_and_reversal_netting():
    entries = [
        _charge(1, "A", "100.00"),
        _paid(2, "A", "80.00", billed="90.00"),
        _charge(3, "B", "50.00"),
        _paid(4, "B", "40.00", billed="50.00"),
        _paid(5, "B", "40.00", billed="50.00"),
        _charge(6, "C", "70.00"),
        _paid(7, "C", "60.00", billed="70.00"),
        _paid(8, "C", "-60.00", entry_type="reversal"),
        _paid(9, "C", "65.00", billed="70.00"),
    ]
    findings = {(f.exception_type, f.claim_key) for f in reconcile(entries).findings}
    assert findings == {("amount_mismatch", "A"), ("duplicate_payment", "B")}


def test_fallback_matches_a_unique_claim_by_amount_and_service_date():
    day = date(2024, 5, 1)
    entries = [_charge(1, "CLAIM-1", "123.45", day), _paid(2, "REMIT-KEY", "100.00", billed="123.45", day=day)]
    result = reconcile(entries)
    assert result.findings == [] and result.matched == 1


def _payer_paid(i, key, amount, payer, entry_type="payment"):
    return LedgerEntry(i, entry_type, "paid", Decimal(amount), key, billed_amount=Decimal("100.00"), payer=payer)


def test_a_second_payment_by_another_payer_is_cob_not_a_duplicate():
    # COB-1: Medicare pays 80, the Medigap secondary pays the 20 coinsurance: one claim, two payers.
    # DUP-1: the same payer pays 80 twice with no reversal between: a duplicate (expected 80, paid 160).
    # REV-1: the payer pays 80, reverses it and pays 80 again: no duplicate.
    entries = [
        _charge(1, "COB-1", "100.00"),
        _payer_paid(2, "COB-1", "80.00", "HAND MEDICARE"),
        _payer_paid(3, "COB-1", "20.00", "HAND MEDIGAP"),
        _charge(4, "DUP-1", "100.00"),
        _payer_paid(5, "DUP-1", "80.00", "HAND COMMERCIAL"),
        _payer_paid(6, "DUP-1", "80.00", "HAND COMMERCIAL"),
        _charge(7, "REV-1", "100.00"),
        _payer_paid(8, "REV-1", "80.00", "HAND COMMERCIAL"),
        _payer_paid(9, "REV-1", "-80.00", "HAND COMMERCIAL", entry_type="reversal"),
        _payer_paid(10, "REV-1", "80.00", "HAND COMMERCIAL"),
    ]
    findings = reconcile(entries).findings
    assert [(f.exception_type, f.claim_key, f.payer) for f in findings] == [
        ("duplicate_payment", "DUP-1", "HAND COMMERCIAL")
    ]
    assert (findings[0].expected_amount, findings[0].actual_amount) == (Decimal("80.00"), Decimal("160.00"))
    assert findings[0].entry_ids == (5, 6)
