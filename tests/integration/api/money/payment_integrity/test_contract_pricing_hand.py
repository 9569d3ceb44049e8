"""Contract pricing through the product path: a hand-written contract_terms CSV and hand-written 835s are
uploaded and confirmed over the wire, the pipeline runs, and paymentIntegrity / cashTruth answer with the
prices, terms and variances written below by hand from the fixtures (tests/fixtures/csv/hand/README.md,
tests/fixtures/x12/hand/README.md). Both operational databases; the DuckDB marts and the same dbt build
on PostgreSQL are held to the same numbers."""

from __future__ import annotations

import base64
from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run
from tests.support.paths import X12_FIXTURES

pytestmark = pytest.mark.slow

CSV_HAND = X12_FIXTURES.parent / "csv" / "hand"

# claim -> (expected allowed, allowed, variance), by hand from contract_terms_hand.csv and contract_pricing.835
PRICED = {
    # 99213 on 2026-03-10: fee 92.00 (row 2, to 2026-06-30); AMT*B6 88.00
    "HCP-FS1": ("92.00", "88.00", "-4.00"),
    # 99213 on 2026-08-05: the mid-year fee 100.00 (row 3, from 2026-07-01); AMT*B6 92.00
    "HCP-FS2": ("100.00", "92.00", "-8.00"),
    # 73630-26 at 12.50 (row 4, modifier 26) + 73630 at 40.00 (row 5, no modifier); allowed 12.50 + 35.00
    "HCP-MOD": ("52.50", "47.50", "-5.00"),
    # 80053 has no fee: 60 % of 200.00 (row 6); AMT*B6 115.00
    "HCP-POC": ("120.00", "115.00", "-5.00"),
    # no AMT*B6: allowed = paid 70.00 + PR-2 15.00 = 85.00; fee 92.00
    "HCP-NOB6": ("92.00", "85.00", "-7.00"),
    # 36415 fee 50.00 lesser-of the 30.00 billed = 30.00; AMT*B6 25.00
    "HCP-LESSER": ("30.00", "25.00", "-5.00"),
    # CLP11 DRG 470 case rate 12000.00 (row 8); lines allowed 7500.00 + 4000.00
    "HCP-DRG": ("12000.00", "11500.00", "-500.00"),
    # inpatient (CLP08 11) 2026-05-01..2026-05-04 = 3 days x 1500.00 (row 9); AMT*B6 4200.00
    "HCP-PD": ("4500.00", "4200.00", "-300.00"),
    # the 837 says admitted 2026-05-30, discharged 2026-06-05: 6 days x 1500.00 (not the 835's 4); B6 8500.00
    "HCP-PD2": ("9000.00", "8500.00", "-500.00"),
}


@before_shared_run
def world_setup(hand_world: HandWorld):
    invalid = hand_world.upload("contract_terms_invalid.csv", folder=CSV_HAND, procedure="ingestion.uploadCsv")
    rows = hand_world.pages("ingestion.listImportRows", {"batchId": invalid["id"]})
    hand_world.rpc.mutation("ingestion.discardImportBatch", {"batchId": invalid["id"]})
    terms = hand_world.post("contract_terms_hand.csv", folder=CSV_HAND, procedure="ingestion.uploadCsv")
    claims = hand_world.post("contract_per_diem_admission.837", procedure="ingestion.uploadUniversal")
    remits = hand_world.post(
        "contract_pricing.835",
        "contract_per_diem_admission.835",
        "recoup_original_100.835",
        "recoup_debit_30.835",
    )
    return invalid, rows, terms, claims, remits


@pytest.fixture(scope="module")
def hand_world(shared_hand_world) -> HandWorld:
    """This module's tenant of the shared hand world."""
    tenant, _ = shared_hand_world.of(world_setup)
    return tenant


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, (invalid, rows, terms, claims, remits) = shared_hand_world.of(world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return {"invalid": invalid, "invalid_rows": rows, "terms": terms[0], "remits": [*claims, *remits]}


def test_contract_csv_rows_are_checked_with_clear_errors(world):
    assert world["invalid"]["kind"] == "csv_contract_terms"
    assert world["invalid"]["status"] == "needs_review"
    errors = {r["rowNumber"]: r["errors"] for r in world["invalid_rows"]}
    assert errors[2] == [
        "method: 'capitation' is not a pricing method "
        "(expected one of fee_schedule, percent_of_charges, drg_case_rate, per_diem)"
    ]
    assert errors[3] == ["rate: -5.00 is negative; a contract rate is 0 or more"]
    overlap = "(same payer, plan, method, procedure code, modifier and DRG in effect on the same days)"
    assert errors[4] == [f"effective_from/effective_to: overlaps row 5 {overlap}"]
    assert errors[5] == [f"effective_from/effective_to: overlaps row 4 {overlap}"]
    assert errors[6] == []


def test_contract_csv_posts_terms_not_money(world):
    assert world["terms"]["kind"] == "csv_contract_terms"
    assert world["terms"]["status"] == "confirmed"
    assert world["terms"]["validCount"] == 8
    assert [b["status"] for b in world["remits"]] == ["confirmed"] * 5


def _expected(world_rpc, claim: str) -> dict:
    return world_rpc.query("paymentIntegrity.expectedReimbursement", {"claimKey": claim}).data


@pytest.mark.parametrize("claim", sorted(PRICED))
def test_expected_reimbursement_prices_each_method(hand_world, world, claim):
    expected, allowed, variance = PRICED[claim]
    out = _expected(hand_world.rpc, claim)
    assert (out["expectedAllowedAmount"], out["allowedAmount"], out["varianceAmount"]) == (expected, allowed, variance)


def test_fee_schedule_names_its_term_and_switches_mid_year(hand_world, world):
    march, august = _expected(hand_world.rpc, "HCP-FS1"), _expected(hand_world.rpc, "HCP-FS2")
    assert march["pricing"]["level"] == "line"
    m_term, a_term = march["lines"][0]["term"], august["lines"][0]["term"]
    assert m_term["termId"].startswith("ct-") and a_term["termId"].startswith("ct-")
    assert m_term["termId"] != a_term["termId"]
    assert (m_term["method"], m_term["source"], m_term["effectiveFrom"], m_term["effectiveTo"]) == (
        "fee_schedule",
        "upload",
        "2026-01-01",
        "2026-06-30",
    )
    assert (a_term["effectiveFrom"], a_term["effectiveTo"]) == ("2026-07-01", None)


def test_modifier_term_wins_over_the_plain_code(hand_world, world):
    lines = _expected(hand_world.rpc, "HCP-MOD")["lines"]
    assert [(ln["modifier"], ln["expectedAllowedAmount"], ln["varianceAmount"]) for ln in lines] == [
        ("26", "12.50", "0.00"),
        (None, "40.00", "-5.00"),
    ]


def test_missing_amt_b6_falls_back_to_paid_plus_patient_share(hand_world, world):
    line = _expected(hand_world.rpc, "HCP-NOB6")["lines"][0]
    assert (line["allowedAmount"], line["allowedSource"], line["paidAmount"], line["patientResponsibility"]) == (
        "85.00",
        "paid_plus_patient",
        "70.00",
        "15.00",
    )
    other = _expected(hand_world.rpc, "HCP-FS1")["lines"][0]
    assert (other["allowedAmount"], other["allowedSource"]) == ("88.00", "amt_b6")


def test_drg_and_per_diem_price_the_claim_and_name_the_term(hand_world, world):
    drg = _expected(hand_world.rpc, "HCP-DRG")
    pricing = drg["pricing"]
    assert (pricing["level"], pricing["drgCode"], pricing["pricedOn"], pricing["expectedAllowedAmount"]) == (
        "claim",
        "470",
        "2026-03-06",
        "12000.00",
    )
    assert (pricing["term"]["method"], pricing["term"]["source"], pricing["term"]["effectiveFrom"]) == (
        "drg_case_rate",
        "upload",
        "2026-01-01",
    )
    # The lines of a claim priced as a whole carry no price of their own.
    assert [(ln["expectedAllowedAmount"], ln["term"]) for ln in drg["lines"]] == [(None, None), (None, None)]
    per_diem = _expected(hand_world.rpc, "HCP-PD")["pricing"]
    assert (per_diem["level"], per_diem["stayDays"], per_diem["term"]["method"]) == ("claim", 3, "per_diem")
    # The 837's admission date (DTP*435 2026-05-30) starts the stay, not the 835's statement start.
    admitted = _expected(hand_world.rpc, "HCP-PD2")["pricing"]
    assert (admitted["stayDays"], admitted["pricedOn"], admitted["expectedAllowedAmount"]) == (
        6,
        "2026-06-05",
        "9000.00",
    )


def test_no_term_means_null_and_a_reason(hand_world, world):
    old = _expected(hand_world.rpc, "HCP-OLD")
    assert (old["expectedAllowedAmount"], old["varianceAmount"], old["allowedAmount"]) == (None, None, "92.00")
    assert (old["pricing"]["level"], old["pricing"]["noTermReason"], old["pricing"]["term"]) == (
        "none",
        "no_term_in_effect",
        None,
    )
    assert old["pricing"]["explanation"]
    assert old["lines"][0]["expectedAllowedAmount"] is None
    uncontracted = _expected(hand_world.rpc, "HRP-001")["pricing"]
    assert (uncontracted["level"], uncontracted["noTermReason"]) == ("none", "no_contract_for_payer")


def test_underpayments_include_claim_level_prices(hand_world, world):
    out = hand_world.rpc.query("paymentIntegrity.underpayments", {}).data
    got = [(c["claimKey"], c["varianceAmount"]) for c in out["items"]]
    assert got == [
        ("HCP-DRG", "-500.00"),
        ("HCP-PD2", "-500.00"),
        ("HCP-PD", "-300.00"),
        ("HCP-FS2", "-8.00"),
        ("HCP-NOB6", "-7.00"),
        ("HCP-LESSER", "-5.00"),
        ("HCP-MOD", "-5.00"),
        ("HCP-POC", "-5.00"),
        ("HCP-FS1", "-4.00"),
    ]
    assert (out["claims"], out["totalVariance"]) == (9, "-1334.00")


def test_cash_truth_counts_a_recoupment_once(hand_world, world):
    out = hand_world.rpc.query("cashTruth.byPayer", {"fromDate": "2026-09-01", "toDate": "2026-10-31"}).data
    assert out["basis"] == "era"
    payers = {p["payerKey"]: p for p in out["payers"]}
    recoup = payers["HAND RECOUP PAYER"]
    # 100.00 paid on 2026-09-01, then a debit of 30.00 (reversal -100.00, correction +70.00): 70.00 in all.
    assert (recoup["remittances"], recoup["cashReceived"], recoup["eraPayments"], recoup["claimPayments"]) == (
        2,
        "70.00",
        "70.00",
        "70.00",
    )
    assert (recoup["cashExpected"], recoup["gap"]) == ("70.00", "0.00")
    plan = payers["HAND CONTRACT PLAN"]
    # BPR02 15193.50 + 8500.00; the shortfall is the 1334.00 of underpayments above, claim-level prices included.
    assert (plan["cashReceived"], plan["contractShortfall"], plan["cashExpected"], plan["gap"]) == (
        "23693.50",
        "1334.00",
        "25027.50",
        "1334.00",
    )
    days = hand_world.rpc.query("cashTruth.daily", {"fromDate": "2026-10-01", "toDate": "2026-10-01"}).data
    assert [(d["paymentDate"], d["cashReceived"]) for d in days["items"]] == [("2026-10-01", "-30.00")]


_MART_SQL = """select claim_key, pricing_level, contract_method, expected_allowed_amount, allowed_amount,
                      allowed_variance, no_term_reason
               from fct_claim_pricing where claim_key like 'HCP-%' {tenant} order by claim_key"""
# By hand, the same figures as above, one row per remittance claim.
_MART_ROWS = [
    ("HCP-DRG", "claim", "drg_case_rate", "12000.00", "11500.00", "-500.00", None),
    ("HCP-FS1", "line", None, "92.00", "88.00", "-4.00", None),
    ("HCP-FS2", "line", None, "100.00", "92.00", "-8.00", None),
    ("HCP-LESSER", "line", None, "30.00", "25.00", "-5.00", None),
    ("HCP-MOD", "line", None, "52.50", "47.50", "-5.00", None),
    ("HCP-NOB6", "line", None, "92.00", "85.00", "-7.00", None),
    ("HCP-OLD", "none", None, None, "92.00", None, "no_term_in_effect"),
    ("HCP-PD", "claim", "per_diem", "4500.00", "4200.00", "-300.00", None),
    ("HCP-PD2", "claim", "per_diem", "9000.00", "8500.00", "-500.00", None),
    ("HCP-POC", "line", None, "120.00", "115.00", "-5.00", None),
]


def _as_text(rows):
    return [tuple(str(v) if isinstance(v, Decimal) else v for v in r) for r in rows]


def test_duckdb_and_postgres_marts_hold_the_same_prices(hand_world, world):
    duck = hand_world.marts(_MART_SQL.format(tenant="and client_id = ?"), [hand_world.tenant.client_id])
    assert _as_text(duck) == _MART_ROWS
    if hand_world.admin_url:
        with hand_world.marts_on_postgres() as pg:
            got = pg.execute(_MART_SQL.format(tenant="")).fetchall()
            payment = pg.execute(
                "select sum(payment_amount) from fct_remittances where payer_key = 'HAND RECOUP PAYER'"
            ).fetchall()
        assert _as_text(got) == _MART_ROWS
        assert payment == [(Decimal("70.00"),)]


def test_a_repair_that_makes_terms_overlap_is_refused_at_confirm(hand_world):
    csv = (
        "Payer,Pricing Method,CPT,Rate,Effective Date,End Date\n"
        "Overlap Plan,Fee Schedule,99215,150.00,2026-01-01,2026-12-31\n"
        "Overlap Plan,Fee Schedule,99215,-1.00,2026-06-01,\n"
    )
    body = {"filename": "overlap_after_repair.csv", "contentBase64": base64.b64encode(csv.encode()).decode()}
    batch = hand_world.rpc.mutation("ingestion.uploadCsv", body).data["batch"]
    rows = {r["rowNumber"]: r for r in hand_world.pages("ingestion.listImportRows", {"batchId": batch["id"]})}
    # A negative rate makes row 3 no term at all, so no overlap is reported on upload.
    assert (rows[2]["errors"], rows[3]["errors"]) == ([], ["rate: -1.00 is negative; a contract rate is 0 or more"])
    repaired = hand_world.rpc.mutation(
        "ingestion.repairImportRow", {"rowId": rows[3]["id"], "fields": {"rate": "155.00"}}
    )
    assert repaired.data["status"] == "repaired"
    refused = hand_world.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]})
    assert refused.code == "PRECONDITION_FAILED"
    assert refused.error["message"] == (
        "Row 2: effective_from/effective_to: overlaps row 3 (same payer, plan, method, procedure code, modifier "
        "and DRG in effect on the same days); repair or exclude one of the rows"
    )
