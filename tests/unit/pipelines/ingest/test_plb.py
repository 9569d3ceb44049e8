"""PLB03-1 meanings and PLB03-2 claim references (pure; X12 835 TR3 PLB03)."""

from __future__ import annotations

import csv
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from api.money.ingestion.posting import KnownClaims, RowView, plan_entries
from pipelines.ingest.plb import PLB_MEANINGS, is_claim_recoupment, plb_meaning, reference_candidates, resolve_claim
from tests.support.paths import REPO

SEED = REPO / "dbt_project/seeds/reference/plb03_1_provider_adjustment_reason_codes.csv"


def test_the_seed_and_the_map_agree():
    with SEED.open() as f:
        assert {r["code"]: r["meaning"] for r in csv.DictReader(f)} == PLB_MEANINGS


def test_meanings_by_hand():
    assert [plb_meaning(c) for c in ("WO", "FB", "L6", "72", "CS", "zz", None)] == [
        "recoupment", "forward_balance", "interest", "authorized_return", "adjustment", "adjustment", "adjustment",
    ]  # fmt: skip
    assert is_claim_recoupment("WO", Decimal("250.00")) and is_claim_recoupment("FB", Decimal("30.00"))
    assert not is_claim_recoupment("FB", Decimal("-30.00")) and not is_claim_recoupment("L6", Decimal("12.50"))
    assert not is_claim_recoupment("72", Decimal("10.00"))


def test_reference_candidates_by_hand():
    assert reference_candidates("WO", "PLB-1") == ["PLB-1"]
    assert reference_candidates("FB", "FBICNPLB2") == ["FBICNPLB2", "ICNPLB2"]
    assert reference_candidates("WO", "WO-123 HIC9") == ["WO-123 HIC9", "123 HIC9", "WO-123", "123"]
    assert reference_candidates("L6", None) == [] and reference_candidates("L6", "  ") == []


def test_a_claim_key_wins_over_a_payer_claim_number():
    assert resolve_claim("WO", "WOX1", {"WOX1"}, {"X1": "OTHER"}) == "WOX1"
    assert resolve_claim("FB", "FBICN2", {"A"}, {"ICN2": "PLB-2"}) == "PLB-2"
    assert resolve_claim("WO", "NOPE", {"A"}, {"B": "C"}) is None


@given(st.text(min_size=1, max_size=12).filter(lambda s: s.strip() == s and " " not in s))
def test_a_bare_claim_key_always_resolves_to_itself(key):
    assert resolve_claim("WO", key, {key}, {}) == key


def _plb(row_id: int, reason: str, ref: str | None, amount: str) -> RowView:
    data = {"reason_code": reason, "reference_id": ref, "amount": amount, "payer_name": "HAND PLB PAYER"}
    return RowView(row_id, row_id, "provider_adjustment", {**data, "payment_date": "2026-06-01"})


def test_posting_a_wo_fb_and_l6():
    known = KnownClaims({"PLB-1"}, {"ICNPLB2": "PLB-2"})
    rows = [_plb(1, "WO", "PLB-1", "250.00"), _plb(2, "FB", "FBICNPLB2", "30.00"), _plb(3, "L6", None, "-12.50"),
            _plb(4, "WO", "UNKNOWN", "5.00")]  # fmt: skip
    got = [(p.entry_type, p.component, p.amount, p.claim_key, p.carc) for p in plan_entries(rows, known=known)]
    assert got == [
        ("recoupment", "plb", Decimal("-250.00"), "PLB-1", "WO"),
        ("recoupment", "plb", Decimal("-30.00"), "PLB-2", "FB"),
        ("provider_adjustment", "plb", Decimal("-12.50"), None, "L6"),
        ("provider_adjustment", "plb", Decimal("5.00"), None, "WO"),
    ]
