"""Synthetic UAT round trip: create -> simulate submission -> queue the payer's 835 -> it parses and confirms."""

from __future__ import annotations

from decimal import Decimal

from tests.integration.api.denials.claims.conftest import claim_body


def test_synthetic_claims_are_deterministic_and_flagged(make_member):
    member = make_member(role="specialist")
    rpc = member.rpc
    first = rpc.mutation("claims.createSyntheticUat", {"seed": 11, "count": 3}).data
    assert first["created"] == 3
    assert [c["claimKey"] for c in first["claims"]] == ["SYN11-00001", "SYN11-00002", "SYN11-00003"]
    assert all(c["isSynthetic"] and c["origin"] == "synthetic" and c["state"] == "draft" for c in first["claims"])
    again = rpc.mutation("claims.createSyntheticUat", {"seed": 11, "count": 4}).data
    assert again["created"] == 1
    assert [c["id"] for c in again["claims"][:3]] == [c["id"] for c in first["claims"]]
    assert [c["totalCharge"] for c in again["claims"][:3]] == [c["totalCharge"] for c in first["claims"]]
    other = make_member()
    same_seed = other.rpc.mutation("claims.createSyntheticUat", {"seed": 11, "count": 3}).data
    assert [c["totalCharge"] for c in same_seed["claims"]] == [c["totalCharge"] for c in first["claims"]]
    assert len(rpc.query("claims.list", {"isSynthetic": True}).data["items"]) == 4
    assert rpc.mutation("claims.createSyntheticUat", {"seed": -1}).code == "BAD_REQUEST"
    assert rpc.mutation("claims.createSyntheticUat", {"seed": 1, "count": 201}).code == "BAD_REQUEST"


def test_round_trip_denial_then_overturned_payment(make_member):
    member = make_member()
    rpc = member.rpc
    claim = rpc.mutation("claims.createSyntheticUat", {"seed": 5, "count": 1}).data["claims"][0]
    early = rpc.mutation("claims.queueSyntheticResponse", {"id": claim["id"], "outcome": "denied"})
    assert early.code == "PRECONDITION_FAILED" and "'draft'" in early.error["message"]
    submitted = rpc.mutation("claims.simulateSyntheticSubmission", {"id": claim["id"]}).data
    assert submitted["state"] == "submitted"
    history = rpc.query("claims.get", {"id": claim["id"]}).data["transitions"]
    assert [t["toState"] for t in history] == [
        "draft",
        "in_review",
        "ready_for_submission_preparation",
        "approved_for_submission_preparation",
        "submitted",
    ]
    twice = rpc.mutation("claims.simulateSyntheticSubmission", {"id": claim["id"]})
    assert twice.code == "PRECONDITION_FAILED" and "'submitted'" in twice.error["message"]
    bad = rpc.mutation("claims.queueSyntheticResponse", {"id": claim["id"], "outcome": "denied", "paidAmount": "1.00"})
    assert bad.code == "BAD_REQUEST" and "paidAmount" in bad.error["message"]
    assert rpc.mutation("claims.queueSyntheticResponse", {"id": claim["id"], "outcome": "lost"}).code == "BAD_REQUEST"

    denial = rpc.mutation("claims.queueSyntheticResponse", {"id": claim["id"], "outcome": "denied"}).data
    assert (denial["outcome"], denial["paidAmount"], denial["duplicate"]) == ("denied", "0.00", False)
    batch = rpc.query("ingestion.getImportBatch", {"batchId": denial["batchId"]}).data
    assert (batch["kind"], batch["status"], batch["errorReport"], batch["imbalance"]) == (
        "era_835",
        "parsed",
        None,
        None,
    )
    assert Decimal(batch["totals"]["total_paid"]) == Decimal("0.00")
    assert rpc.query("claims.get", {"id": claim["id"]}).data["state"] == "submitted"  # not before the confirm
    confirmed = rpc.mutation("ingestion.confirmImportBatch", {"batchId": denial["batchId"]}).data
    assert confirmed["batch"]["status"] == "confirmed" and confirmed["entriesPosted"] >= 1
    denied = rpc.query("claims.get", {"id": claim["id"]}).data
    assert denied["state"] == "adjudicated_denied"
    entries = rpc.query("ingestion.listFinancialEntries", {"batchId": denial["batchId"]}).data["items"]
    assert {e["claimKey"] for e in entries} == {claim["claimKey"]}
    assert sum(Decimal(e["amount"]) for e in entries if e["isDenial"]) == Decimal(claim["totalCharge"])

    payment = rpc.mutation("claims.queueSyntheticResponse", {"id": claim["id"], "outcome": "paid"}).data
    assert payment["batchId"] != denial["batchId"] and payment["traceNumber"] != denial["traceNumber"]
    rpc.mutation("ingestion.confirmImportBatch", {"batchId": payment["batchId"]}).data
    paid = rpc.query("claims.get", {"id": claim["id"]}).data
    assert paid["state"] == "adjudicated_paid"
    assert [a["amount"] for a in paid["amounts"] if a["kind"] == "paid"] == ["0.00", claim["totalCharge"]]
    assert sorted(x["targetId"] for x in paid["links"] if x["kind"] == "era") == sorted(
        [denial["batchId"], payment["batchId"]]
    )
    era = rpc.mutation("claims.prepareEraLink", {"id": claim["id"]}).data
    assert era["paidTotal"] == claim["totalCharge"] and era["deniedTotal"] == claim["totalCharge"]


def test_partial_payment_response(make_member):
    member = make_member()
    rpc = member.rpc
    claim = rpc.mutation("claims.createSyntheticUat", {"seed": 9, "count": 1}).data["claims"][0]
    rpc.mutation("claims.simulateSyntheticSubmission", {"id": claim["id"]}).data
    response = rpc.mutation(
        "claims.queueSyntheticResponse",
        {"id": claim["id"], "outcome": "partially_paid", "paidAmount": "10.00", "carc": "197"},
    ).data
    assert response["paidAmount"] == "10.00"
    rpc.mutation("ingestion.confirmImportBatch", {"batchId": response["batchId"]}).data
    assert rpc.query("claims.get", {"id": claim["id"]}).data["state"] == "adjudicated_partially_paid"


def test_real_claims_are_never_simulated(make_member):
    member = make_member()
    real = member.rpc.mutation("claims.create", claim_body()).data
    refused = member.rpc.mutation("claims.simulateSyntheticSubmission", {"id": real["id"]})
    assert refused.code == "PRECONDITION_FAILED" and "not synthetic" in refused.error["message"]
    response = member.rpc.mutation("claims.queueSyntheticResponse", {"id": real["id"], "outcome": "paid"})
    assert response.code == "PRECONDITION_FAILED" and "not synthetic" in response.error["message"]
