"""Provider-level adjustments to claims, and COB vs a real duplicate payment (issue 24 items 5 and 6):
hand-written files (tests/fixtures/x12/hand, see its README) through upload -> confirm -> reconciliation
-> the pipeline -> the procedures, on SQLite and PostgreSQL operational databases (DuckDB marts, and the
same dbt project on PostgreSQL for the PLB mart). Every expected figure is written by hand from the segments.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

D = Decimal
FILES_835 = (
    "plb_original.835",
    "plb_recoupment_wo_fb_l6.835",
    "dup_payment_first.835",
    "dup_payment_second.835",
    "cob_medicare_primary.835",
    "cob_medigap_secondary.835",
)
PLB_SQL = """
    select reason_code, meaning, reference_id, linked_claim_key, is_claim_recoupment, amount, recouped_amount,
           open_recouped_amount, interest_amount
    from fct_provider_adjustments where client_id = {client} order by reason_code"""


@before_shared_run
def world_setup(hand_world: HandWorld):
    hand_world.post("dup_claim.837", "cob_claim.837", procedure="ingestion.uploadUniversal")
    batches = hand_world.post(*FILES_835)
    assert {b["status"] for b in batches} == {"confirmed"}
    run = hand_world.rpc.mutation("ingestion.runReconciliation").data
    return run


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, run = shared_hand_world.of(world_setup)
    pipeline = hand_world.run_pipeline()
    assert pipeline["status"] == "succeeded", pipeline
    client = int(hand_world.tenant.client_id)
    plb = [hand_world.marts(PLB_SQL.format(client=client))]
    if hand_world.admin_url:
        with hand_world.marts_on_postgres() as pg:
            plb.append([tuple(r) for r in pg.execute(PLB_SQL.format(client=client)).fetchall()])
    return hand_world, run, plb


def _entries(hw, claim_key: str) -> list[tuple]:
    rows = hw.pages("ingestion.listFinancialEntries", {"claimKey": claim_key})
    return sorted((r["entryType"], r["component"], D(r["amount"]), r["paymentDate"]) for r in rows)


def test_a_claim_linked_wo_and_fb_post_as_recoupments_of_their_claims(world):
    hw = world[0]
    # WO:PLB-1 250 names the claim key; FB:FBICNPLB2 30 names PLB-2's payer claim number (CLP07) behind
    # the FB prefix. Both are money taken back: `recoupment`, component plb, negative.
    assert _entries(hw, "PLB-1") == [
        ("adjustment", "cas", D("50.00"), "2026-05-01"),
        ("payment", "paid", D("250.00"), "2026-05-01"),
        ("recoupment", "plb", D("-250.00"), "2026-06-01"),
    ]
    assert _entries(hw, "PLB-2") == [
        ("adjustment", "cas", D("20.00"), "2026-05-01"),
        ("payment", "paid", D("180.00"), "2026-05-01"),
        ("recoupment", "plb", D("-30.00"), "2026-06-01"),
    ]


def test_the_plb_mart_carries_the_meaning_and_the_linked_claim(world):
    expected = [
        ("FB", "forward_balance", "FBICNPLB2", "PLB-2", True, D("30.00"), D("30.00"), D("30.00"), D("0.00")),
        ("L6", "interest", None, None, False, D("-12.50"), D("0.00"), D("0.00"), D("12.50")),
        ("WO", "recoupment", "PLB-1", "PLB-1", True, D("250.00"), D("250.00"), D("250.00"), D("0.00")),
    ]
    for rows in world[2]:
        assert [tuple(D(str(v)) if isinstance(v, (float, Decimal)) else v for v in r) for r in rows] == expected


def test_recouped_claims_are_in_the_follow_up_queue(world):
    hw = world[0]
    queue = hw.pages("arOperations.followUpQueue")
    assert [(i["claimKey"], i["reason"], D(i["openAmount"])) for i in queue] == [
        ("PLB-1", "recouped", D("250.00")),
        ("PLB-2", "recouped", D("30.00")),
    ]
    # before the recoupment's remittance (2026-06-01) nothing was recouped (PLB-3 was still unpaid then)
    before = hw.pages("arOperations.followUpQueue", {"asOf": "2026-05-31"})
    assert [(i["claimKey"], i["reason"], D(i["openAmount"])) for i in before] == [
        ("PLB-3", "awaiting_remittance", D("400.00"))
    ]


def test_cash_truth_answers_plb_apart_from_the_real_shortfall(world):
    hw = world[0]
    answer = hw.rpc.query("cashTruth.byPayer", {}).data
    plb = next(p for p in answer["payers"] if p["payerKey"] == "HAND PLB PAYER")
    # cash 430 + 132.50; claims 250 + 180 + 400; PLB 250 + 30 - 12.50; recouped 280; interest 12.50;
    # no contract terms for this payer: the real gap is 0 (on main the PLB 267.50 was the "gap").
    got = {k: D(str(plb[k])) for k in ("cashReceived", "claimPayments", "providerAdjustments", "plbRecoupments",
                                       "plbInterest", "contractShortfall", "cashExpected", "gap")}  # fmt: skip
    assert got == {
        "cashReceived": D("562.50"),
        "claimPayments": D("830.00"),
        "providerAdjustments": D("267.50"),
        "plbRecoupments": D("280.00"),
        "plbInterest": D("12.50"),
        "contractShortfall": D("0.00"),
        "cashExpected": D("562.50"),
        "gap": D("0.00"),
    }
    gaps = hw.rpc.query("cashTruth.gaps", {"payer": "HAND PLB PAYER"}).data
    assert gaps["items"] == []
    assert (D(str(gaps["totalGap"])), D(str(gaps["totalProviderAdjustments"]))) == (D("0.00"), D("267.50"))


def test_a_real_duplicate_is_flagged_and_a_cob_pair_is_not(world):
    hw, run = world[0], world[1]
    # DUP-1 paid 80 twice by HAND DUP PAYER (two traces, no reversal); COB-1 paid 80 by Medicare and 20 by
    # the Medigap: one claim, two payers. PLB-1..3 have no 837: unmatched remittances.
    assert run["exceptionCounts"] == {
        "unmatched_remittance": 3,
        "unmatched_claim": 0,
        "amount_mismatch": 0,
        "duplicate_payment": 1,
    }
    detail = hw.rpc.query("ingestion.getReconciliationRun", {"runId": run["id"]}).data
    dup = [e for e in detail["exceptions"] if e["exceptionType"] == "duplicate_payment"]
    assert [(e["claimKey"], e["payer"], D(e["expectedAmount"]), D(e["actualAmount"])) for e in dup] == [
        ("DUP-1", "HAND DUP PAYER", D("80.00"), D("160.00"))
    ]


def test_the_cob_secondary_payer_is_in_the_scorecard(world):
    hw = world[0]
    items = hw.pages("payerIntelligence.scorecard")
    by_payer = {i["payerKey"]: (i["claimsAdjudicated"], D(str(i["paidAmount"]))) for i in items}
    # COB-1: Medicare paid 80, the Medigap secondary 20; each is a payer of the claim.
    assert by_payer["HAND MEDICARE"] == (1, D("80.00"))
    assert by_payer["HAND MEDIGAP"] == (1, D("20.00"))
    days = {i["payerKey"]: i["avgDaysToPay"] for i in items}
    # statement end 2026-02-10 (DTM*233): Medicare paid 2026-03-02 (20 days), the Medigap 2026-03-16 (34 days)
    assert (days["HAND MEDICARE"], days["HAND MEDIGAP"]) == (20.0, 34.0)
    ttp = {
        p["payerKey"]: (p["paidClaims"], p["meanDays"])
        for p in hw.rpc.query("payerIntelligence.timeToPay", {}).data["payers"]
    }
    assert (ttp["HAND MEDICARE"], ttp["HAND MEDIGAP"]) == ((1, 20.0), (1, 34.0))
