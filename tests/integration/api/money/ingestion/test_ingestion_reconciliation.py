"""Reconciliation over a generated corpus with planted gaps; profiles; synthetic corpora over RPC."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pipelines.ingest.x12 import parse_x12
from pipelines.synthetic import CorpusSpec, generate_corpus
from tests.integration.api.money.ingestion.conftest import all_pages, expect_ok, upload_json, upload_multipart


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    # The situations of issue 8 (COB chains, re-deliveries, ...) are off here: this corpus plants only the
    # unmatched claims and remittances (COB: test_a_cob_secondary_payment_is_no_duplicate_payment).
    generate_corpus(CorpusSpec(seed=7, claims=200, claims_per_file=100).without_situations(), out)
    return out


def test_a_cob_secondary_payment_is_no_duplicate_payment(member, tmp_path):
    """Generator truth ``situations.cob``: Medicare primary (CLP02=19) then a secondary payer (CLP02=2)
    paying the coinsurance is one claim adjudicated by two payers, not a claim paid twice."""
    import json

    spec = dataclasses.replace(CorpusSpec(seed=7, claims=100, claims_per_file=100).without_situations(), cob_rate=1.0)
    generate_corpus(spec, tmp_path)
    assert json.loads((tmp_path / "ground_truth.json").read_text())["situations"]["cob"]["claims"] > 0
    for name in ("claims_00001_837P.837", "claims_00001_837I.837", "remits_00001.835"):
        batch = upload_multipart(member.rpc, (tmp_path / name).read_bytes(), name).data["batch"]
        expect_ok(member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}))
    run = member.rpc.mutation("ingestion.runReconciliation").data
    assert run["exceptionCounts"]["duplicate_payment"] == 0


def _pcns(path: Path, table: str) -> set[str]:
    result = parse_x12(path.read_bytes(), source=path.name)
    return set(result.tables[table]["patient_control_number"].to_list())


def test_reconciliation_finds_the_planted_unmatched_claims_and_remittances(member, corpus):
    # Planted gaps: the 837I of file 1 is withheld (its remittances have no claim) and the
    # 835 of file 2 is withheld (its claims have no remittance).
    uploaded = ["claims_00001_837P.837", "claims_00002_837P.837", "claims_00002_837I.837", "remits_00001.835"]
    for name in uploaded:
        batch = upload_multipart(member.rpc, (corpus / name).read_bytes(), name).data["batch"]
        assert batch["status"] == "parsed", (name, batch["invalidCount"], batch["errorReport"])
        expect_ok(member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}))
    withheld_claims = _pcns(corpus / "claims_00001_837I.837", "claims")
    unremitted = _pcns(corpus / "claims_00002_837P.837", "claims") | _pcns(corpus / "claims_00002_837I.837", "claims")
    remitted = _pcns(corpus / "remits_00001.835", "remittance_claims")
    assert withheld_claims <= remitted

    run = member.rpc.mutation("ingestion.runReconciliation").data
    assert run["exceptionCounts"]["unmatched_remittance"] == len(withheld_claims)
    assert run["exceptionCounts"]["unmatched_claim"] == len(unremitted)
    assert run["exceptionCounts"]["duplicate_payment"] == 0
    assert run["exceptionCounts"]["amount_mismatch"] == 0
    assert run["matched"] == len(remitted - withheld_claims)

    detail = member.rpc.query("ingestion.getReconciliationRun", {"runId": run["id"]}).data
    found = {(e["exceptionType"], e["claimKey"]) for e in detail["exceptions"]}
    assert {k for t, k in found if t == "unmatched_remittance"} == withheld_claims
    assert {k for t, k in found if t == "unmatched_claim"} == unremitted

    first = detail["exceptions"][0]
    resolved = member.rpc.mutation(
        "ingestion.resolveReconciliationException",
        {"exceptionId": first["id"], "resolution": "payer_follow_up", "note": "called payer"},
    ).data
    assert resolved["status"] == "resolved" and resolved["resolvedBy"] == member.user_id
    twice = member.rpc.mutation(
        "ingestion.resolveReconciliationException", {"exceptionId": first["id"], "resolution": "other", "note": "again"}
    )
    assert twice.code == "PRECONDITION_FAILED" and "resolved" in twice.error["message"]
    runs = member.rpc.query("ingestion.listReconciliationRuns", {}).data["items"]
    assert [r["id"] for r in runs] == [run["id"]]


def test_a_second_payment_of_the_same_claim_is_a_duplicate_payment(member, corpus):
    remit = (corpus / "remits_00001.835").read_bytes()
    claims = (corpus / "claims_00001_837P.837").read_bytes()
    for name, data in (
        ("c.837", claims),
        ("r1.835", remit),
        # A new envelope AND new trace numbers: a second remittance paying the same claims again
        # (the same remittance merely re-sent would be recognised and post nothing).
        ("r2.835", remit.replace(b"CLEARHOUSE01", b"CLEARHOUSE02").replace(b"TRN*1*", b"TRN*1*R")),
    ):
        batch = upload_json(member.rpc, data, name).data["batch"]
        expect_ok(member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}))
    run = member.rpc.mutation("ingestion.runReconciliation").data
    paid_twice = parse_x12(remit, source="r").tables["remittance_claims"]
    paid_keys = set(paid_twice.filter(paid_twice["paid_amount"] > 0)["patient_control_number"].to_list())
    assert run["exceptionCounts"]["duplicate_payment"] == len(
        paid_keys & _pcns(corpus / "claims_00001_837P.837", "claims")
    )
    assert run["exceptionCounts"]["duplicate_payment"] > 0


def test_bank_deposits_upload_and_post_to_the_cent(member, corpus):
    """The generator's bank deposits file goes through uploadCsv like any export and posts as
    deposit entries whose sum is the ground truth's deposit total."""
    import json
    from decimal import Decimal

    truth = json.loads((corpus / "ground_truth.json").read_text())["money"]
    text = (corpus / "deposits.csv").read_text()
    batch = member.rpc.mutation("ingestion.uploadCsv", {"filename": "deposits.csv", "content": text}).data["batch"]
    assert batch["kind"] == "csv_deposits" and batch["status"] == "parsed", batch
    expect_ok(member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}))
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert {e["entryType"] for e in entries} == {"deposit"}
    assert len(entries) == truth["deposits"]
    assert sum(Decimal(e["amount"]) for e in entries) == Decimal(truth["deposits_total"])
