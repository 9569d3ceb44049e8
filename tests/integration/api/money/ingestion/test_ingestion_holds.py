"""Holds and re-deliveries over the real wire: envelope errors fail, imbalances hold until acknowledged,
an invalid BPR16 falls back to DTM*405, the same remittance in a new envelope posts nothing, and a
debit (BPR03=D) posts as money taken back. Fixtures: tests/fixtures/x12/hand (see its README)."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest

from api.platform.audit.digest import digest
from tests.integration.api.money.ingestion.conftest import all_pages, money_sum, upload_json
from tests.support.paths import X12_FIXTURES

HAND = X12_FIXTURES / "hand"


def _upload(rpc, name: str) -> dict:
    return upload_json(rpc, (HAND / name).read_bytes(), name, "ingestion.uploadEra").data


def _confirm(rpc, batch_id: int, **extra):
    return rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch_id, **extra})


def _ledger(rpc) -> list[dict]:
    return all_pages(rpc, "ingestion.listFinancialEntries", {})


def test_wrong_se01_fails_the_batch_with_a_report_naming_the_segment(member):
    batch = _upload(member.rpc, "wrong_se01_unbalanced.835")["batch"]
    assert batch["status"] == "failed" and batch["rowCount"] == 0
    report = batch["errorReport"]
    assert (report["segmentNumber"], report["segmentId"], report["expected"]) == (16, "SE", "SE01=14")
    assert report["category"] == "envelope" and report["lenientParse"] is True
    refused = _confirm(member.rpc, batch["id"])
    assert refused.code == "PRECONDITION_FAILED"
    assert _ledger(member.rpc) == []


def test_unbalanced_bpr02_is_held_until_a_confirm_acknowledges_it(member, services):
    batch = _upload(member.rpc, "unbalanced_bpr02.835")["batch"]
    assert batch["status"] == "held"
    assert batch["imbalance"] == {
        "transactions": [
            {
                "transactionIndex": 0,
                "traceNumber": "HANDTRACE250B",
                "expected": "250.00",
                "actual": "230.00",
                "difference": "20.00",
            }
        ],
        "claims": [],
    }
    listed = member.rpc.query("ingestion.listImportBatches", {"status": "held"}).data["items"]
    assert [(b["id"], b["imbalance"]["transactions"][0]["difference"]) for b in listed] == [(batch["id"], "20.00")]

    refused = _confirm(member.rpc, batch["id"])
    assert refused.code == "PRECONDITION_FAILED"
    message = refused.error["message"]
    assert "BPR02 250.00" in message and "230.00" in message and "difference 20.00" in message
    assert "acknowledgeImbalance" in message
    assert _ledger(member.rpc) == []
    too_short = _confirm(member.rpc, batch["id"], acknowledgeImbalance={"reason": "ok"})
    assert too_short.code == "BAD_REQUEST"

    reason = "payer confirmed by phone: 20.00 interest paid outside the claims"
    confirmed = _confirm(member.rpc, batch["id"], acknowledgeImbalance={"reason": reason}).data
    assert confirmed["batch"]["status"] == "confirmed" and confirmed["entriesPosted"] == 4
    assert confirmed["postedTotals"] == {"adjustment": "50.00", "patient_responsibility": "20.00", "payment": "230.00"}
    after = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert after["imbalanceAckReason"] == reason
    assert after["imbalanceAckBy"] == member.user_id and after["imbalanceAckAt"] is not None

    events = member.rpc.query(
        "audit.list", {"procedure": "ingestion.confirmImportBatch", "targetId": str(batch["id"])}
    ).data["items"]
    assert len(events) == 1 and events[0]["actorUserId"] == member.user_id
    sent = {"batch_id": batch["id"], "acknowledge_imbalance": {"reason": reason}}
    assert events[0]["inputDigest"] == digest(sent, services.digest_key)


def test_an_unbalanced_claim_holds_until_it_is_excluded(member):
    batch = _upload(member.rpc, "unbalanced_claim.835")["batch"]
    assert batch["status"] == "held"
    assert batch["imbalance"] == {
        "transactions": [],
        "claims": [{"claimIndex": 0, "claimOrdinal": 1, "expected": "50.00", "actual": "40.00", "difference": "10.00"}],
    }
    assert _confirm(member.rpc, batch["id"]).code == "PRECONDITION_FAILED"
    claim = member.rpc.query("ingestion.listImportRows", {"batchId": batch["id"], "status": "invalid"}).data["items"]
    assert [r["rowNumber"] for r in claim] == [1]
    member.rpc.mutation("ingestion.setImportRowDecision", {"rowId": claim[0]["id"], "decision": "exclude"}).data
    assert member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data["status"] == "parsed"
    confirmed = _confirm(member.rpc, batch["id"]).data
    assert confirmed["postedTotals"] == {"patient_responsibility": "20.00", "payment": "80.00"}
    assert confirmed["batch"]["imbalanceAckReason"] is None


def test_invalid_bpr16_parses_with_a_warning_and_the_dtm405_date(member):
    batch = _upload(member.rpc, "invalid_bpr16_dtm405.835")["batch"]
    assert batch["status"] == "parsed" and batch["errorReport"] is None
    assert batch["quality"]["header_warnings"] == [
        "segment 4 (BPR): BPR16 is not a valid CCYYMMDD date; the DTM*405 production date is used as the payment date"
    ]
    assert batch["remittances"][0]["paymentDate"] == "2026-10-30"
    _confirm(member.rpc, batch["id"]).data
    assert {e["paymentDate"] for e in _ledger(member.rpc)} == {"2026-10-30"}


def test_the_public_sample_with_bpr16_20002316_parses_with_its_production_date(member):
    sample = X12_FIXTURES / "lfh_5010_managed_care_invalid_bpr16.835"
    batch = upload_json(member.rpc, sample.read_bytes(), "managed-care.835").data["batch"]
    assert batch["status"] == "parsed" and batch["totals"]["bpr_total"] == "945.00"
    assert batch["remittances"][0]["paymentDate"] == "2002-03-14"
    assert len(batch["quality"]["header_warnings"]) == 1


def test_the_same_remittance_in_a_new_envelope_posts_nothing(member):
    first = _upload(member.rpc, "balanced_230.835")["batch"]
    _confirm(member.rpc, first["id"]).data
    before = _ledger(member.rpc)
    assert money_sum(before, entryType="payment") == Decimal("230.00") and len(before) == 4

    again = _upload(member.rpc, "balanced_230_redelivered.835")
    assert again["duplicate"] is False, "new envelope, new content hash"
    batch = again["batch"]
    assert batch["status"] == "duplicate_remittance" and batch["redeliveryOfBatchId"] == first["id"]
    assert batch["remittances"][0]["postedByBatchId"] == first["id"]
    refused = _confirm(member.rpc, batch["id"])
    assert refused.code == "PRECONDITION_FAILED" and f"import batch {first['id']}" in refused.error["message"]
    after = _ledger(member.rpc)
    assert len(after) == 4 and money_sum(after, entryType="payment") == Decimal("230.00")
    assert money_sum(after) == Decimal("300.00")  # 230.00 paid + 50.00 CO-45 + 20.00 PR-2


def test_two_concurrent_confirms_of_two_deliveries_post_once(member, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL")
    batches = [_upload(member.rpc, name)["batch"] for name in ("balanced_230.835", "balanced_230_redelivered.835")]
    assert [b["status"] for b in batches] == ["parsed", "parsed"], "neither is posted yet"
    start = threading.Barrier(2)
    answers: dict[int, dict] = {}

    def confirm(batch_id: int) -> None:
        start.wait()
        answers[batch_id] = _confirm(member.rpc, batch_id).data

    threads = [threading.Thread(target=confirm, args=(b["id"],)) for b in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(a["batch"]["status"] for a in answers.values())
    assert statuses == ["confirmed", "duplicate_remittance"]
    assert sorted(a["entriesPosted"] for a in answers.values()) == [0, 4]
    ledger = _ledger(member.rpc)
    assert len(ledger) == 4 and money_sum(ledger, entryType="payment") == Decimal("230.00")


def test_a_debit_remittance_posts_money_taken_back_not_a_payment(member):
    paid = _upload(member.rpc, "balanced_230.835")["batch"]
    _confirm(member.rpc, paid["id"]).data
    batch = _upload(member.rpc, "debit_reversal_150.835")["batch"]
    assert batch["status"] == "parsed" and batch["imbalance"] is None
    assert batch["totals"]["bpr_total"] == "-150.00"
    assert batch["remittances"][0]["amount"] == "-150.00" and batch["remittances"][0]["debit"] is True
    confirmed = _confirm(member.rpc, batch["id"]).data
    assert confirmed["postedTotals"] == {"reversal": "-200.00"}  # -150.00 paid and -50.00 CO-45
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert sorted((e["entryType"], e["component"], e["amount"]) for e in entries) == [
        ("reversal", "cas", "-50.00"),
        ("reversal", "paid", "-150.00"),
    ]
    ledger = _ledger(member.rpc)
    assert money_sum(ledger, entryType="payment") == Decimal("230.00"), "the debit is not a payment"
    assert money_sum(ledger, component="paid") == Decimal("80.00")  # 230.00 paid, 150.00 taken back


def test_an_unknown_carc_is_reported_on_the_batch_and_posts_unclassified(member):
    """tests/fixtures/x12/hand/unknown_carc.835: CO-45 30.00 (known) and CO-ZZ9 10.00 (no such code)."""
    batch = _upload(member.rpc, "unknown_carc.835")["batch"]
    assert batch["status"] == "parsed"
    assert batch["quality"]["unknown_carcs"] == [
        {"carc": "ZZ9", "groupCodes": ["CO"], "adjustments": 1, "amount": "10.00"}
    ]
    _confirm(member.rpc, batch["id"]).data
    adjustments = [e for e in _ledger(member.rpc) if e["entryType"] == "adjustment"]
    assert sorted((e["carc"], e["amount"], e["denialCategory"]) for e in adjustments) == [
        ("45", "30.00", "contractual"),
        ("ZZ9", "10.00", "unclassified"),
    ]
