"""Uploads: every X12 fixture and CSVs over the real RPC wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from pipelines.ingest.x12 import parse_x12
from tests.integration.api.money.ingestion.conftest import (
    X12_DIR,
    all_pages,
    expect_ok,
    upload_json,
    upload_multipart,
    x12_bytes,
)

FIXTURES = sorted(p.name for p in X12_DIR.iterdir() if p.suffix in (".835", ".837"))
# Small enough for a per-test upload; the 438 KB volume file is covered by one test of its own.
SMALL = [f for f in FIXTURES if not f.startswith("oopfactory_4010_large")]


def _dec(value) -> Decimal:
    return Decimal(value if value is not None else 0).quantize(Decimal("0.01"))


def _parser_totals(data: bytes) -> dict[str, Decimal]:
    result = parse_x12(data, source="t", strict_envelopes=False)
    t = result.tables
    if result.kind == "837":
        return {
            "total_charge": _dec(t["claims"]["total_charge"].sum()),
            "rows": t["claims"].height + t["claim_lines"].height,
        }
    return {
        "total_paid": _dec(t["remittance_claims"]["paid_amount"].sum()),
        "cas_total": _dec(t["remittance_adjustments"]["amount"].sum()),
        "plb_total": _dec(t["provider_adjustments"]["amount"].sum()),
        "rows": sum(
            t[n].height
            for n in ("remittance_claims", "remittance_service_lines", "remittance_adjustments", "provider_adjustments")
        ),
    }


# Published samples whose envelope control values are wrong (see tests/unit/pipelines/ingest/x12/
# test_x12_fixtures.py LENIENT): the parser's lenient mode reads them, an upload fails with the report.
ENVELOPE_ERRORS = {
    "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835": "IEA",
    "stupidedi_5010_two_plb_with_preamble.835": "SE",
}


def test_each_x12_fixture_uploads_into_a_batch_matching_the_parser(member):
    for name in SMALL:
        data = x12_bytes(name)
        res = upload_json(member.rpc, data, name)
        batch = res.data["batch"]
        assert res.data["duplicate"] is False
        assert batch["kind"] == ("claims_837" if name.endswith(".837") else "era_835"), name
        if name in ENVELOPE_ERRORS:
            report = batch["errorReport"]
            assert batch["status"] == "failed" and batch["rowCount"] == 0, name
            assert report["segmentId"] == ENVELOPE_ERRORS[name] and report["lenientParse"] is True, name
            continue
        expected = _parser_totals(data)
        assert batch["status"] in ("parsed", "needs_review", "held"), name
        assert batch["rowCount"] == expected.pop("rows"), name
        for key, value in expected.items():
            assert Decimal(batch["totals"][key]) == value, (name, key)
        assert (batch["status"] == "held") == (batch["imbalance"] is not None), name
        if batch["status"] != "held":
            assert (batch["status"] == "needs_review") == (batch["invalidCount"] > 0), name


def test_large_masked_file_fails_on_its_envelope_but_parses_leniently(member):
    data = x12_bytes("oopfactory_4010_large_6st_masked.835")
    batch = upload_multipart(member.rpc, data, "big.835", "ingestion.uploadEra").data["batch"]
    claims = (
        parse_x12(data, source="t", strict_envelopes=False)
        .quality.filter((pl.col("check") == "claim_balance") & ~pl.col("ok"))
        .height
    )
    assert claims > 0, "the lenient parser still reads the masked file"
    assert batch["status"] == "failed" and batch["rowCount"] == 0
    report = batch["errorReport"]
    assert report["category"] == "envelope" and report["lenientParse"] is True
    assert report["segmentId"] == "SE" and report["expected"].startswith("SE02=")
    refused = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]})
    assert refused.code == "PRECONDITION_FAILED"


def test_same_content_twice_returns_the_same_batch_marked_duplicate(member):
    data = x12_bytes("pyx12_5010_denial_cas_lq.835")
    first = upload_json(member.rpc, data, "a.835").data
    again = upload_multipart(member.rpc, data, "renamed.835", "ingestion.uploadEra").data
    assert again["duplicate"] is True and first["duplicate"] is False
    assert again["batch"]["id"] == first["batch"]["id"]
    raw = member.rpc.http.post(
        "/api/rpc/ingestion.uploadUniversal",
        content=data,
        headers={**member.rpc.headers(), "Content-Type": "application/octet-stream", "X-Filename": "third.835"},
    )
    assert raw.status_code == 200 and raw.json()["result"]["data"]["duplicate"] is True
    listed = member.rpc.query("ingestion.listImportBatches", {}).data["items"]
    assert [b["id"] for b in listed] == [first["batch"]["id"]]


def test_empty_and_unknown_files_are_bad_requests_with_no_batch(member):
    empty = upload_json(member.rpc, b"", "empty.csv")
    assert empty.code == "BAD_REQUEST" and "empty" in empty.error["message"]
    garbage = upload_json(member.rpc, b"%PDF-1.4 \x00\x01binary", "scan.pdf")
    assert garbage.code == "BAD_REQUEST" and "PDF" in garbage.error["message"]
    wrong = upload_json(
        member.rpc, b"Account Number,Paid Amount,Payment Date\nA1,10.00,2024-01-02\n", "p.csv", "ingestion.uploadEra"
    )
    assert wrong.code == "BAD_REQUEST" and "uploadUniversal" in wrong.error["message"]
    assert member.rpc.query("ingestion.listImportBatches", {}).data["items"] == []


def test_truncated_x12_gives_a_failed_batch_with_the_segment_and_no_rows(member):
    data = x12_bytes("stupidedi_5010_multi_claims_dental_single_check.835")
    cut = data[: data.index(b"~CLP", len(data) // 2) + 1]  # the file stops after a whole segment
    res = upload_json(member.rpc, cut, "cut.835", "ingestion.uploadEra").data
    batch = res["batch"]
    assert batch["status"] == "failed" and batch["rowCount"] == 0
    report = batch["errorReport"]
    assert report["file"] == "cut.835" and report["segmentNumber"] > 0 and report["expected"]
    assert "truncated" in report["message"]
    assert member.rpc.query("ingestion.listImportRows", {"batchId": batch["id"]}).data["items"] == []
    refused = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]})
    assert refused.code == "PRECONDITION_FAILED"
    assert member.rpc.query("ingestion.listFinancialEntries", {}).data["items"] == []


def test_csv_with_broken_quoting_gives_a_failed_batch_naming_the_line(member):
    text = 'Account Number,Payer,Paid Amount,Payment Date\nA1,Aetna,10.00,2024-01-02\nA2,"Unclosed,5.00,2024-01-03\n'
    batch = member.rpc.mutation("ingestion.uploadCsv", {"filename": "broken.csv", "content": text}).data["batch"]
    assert batch["status"] == "failed" and batch["rowCount"] == 0
    assert batch["errorReport"]["line"] and "quote" in batch["errorReport"]["message"]


def test_reprocess_replaces_rows_and_is_refused_once_confirmed(member):
    data = x12_bytes("stupidedi_5010_secondary_multi_triplet_cas_modifiers.835")
    batch = upload_json(member.rpc, data, "s.835").data["batch"]
    again = member.rpc.mutation("ingestion.reprocess", {"batchId": batch["id"]}).data
    assert again["rowCount"] == batch["rowCount"] and again["status"] == "parsed"
    rows = all_pages(member.rpc, "ingestion.listImportRows", {"batchId": batch["id"]})
    assert len(rows) == batch["rowCount"]
    expect_ok(member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}))
    assert member.rpc.mutation("ingestion.reprocess", {"batchId": batch["id"]}).code == "PRECONDITION_FAILED"


def test_other_organizations_cannot_see_or_touch_a_batch(make_member):
    owner, stranger = make_member(), make_member()
    batch = upload_json(owner.rpc, x12_bytes("pyx12_5010_denial_cas_lq.835"), "d.835").data["batch"]
    row = owner.rpc.query("ingestion.listImportRows", {"batchId": batch["id"]}).data["items"][0]
    for call in (
        stranger.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}),
        stranger.rpc.query("ingestion.listImportRows", {"batchId": batch["id"]}),
        stranger.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}),
        stranger.rpc.mutation("ingestion.reprocess", {"batchId": batch["id"]}),
        stranger.rpc.mutation("ingestion.setImportRowDecision", {"rowId": row["id"], "decision": "exclude"}),
    ):
        assert call.code in ("NOT_FOUND", "FORBIDDEN"), call.body
    # Pointing the header at the owner's client is refused before any domain work.
    forged = stranger.rpc.as_(stranger.token, owner.client_id).query(
        "ingestion.getImportBatch", {"batchId": batch["id"]}
    )
    assert forged.code in ("FORBIDDEN", "NOT_FOUND")
    assert stranger.rpc.query("ingestion.listImportBatches", {}).data["items"] == []
    assert owner.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data["status"] == "parsed"


def test_auditor_cannot_upload(make_member):
    auditor = make_member(role="auditor")
    res = upload_json(auditor.rpc, x12_bytes("pyx12_5010_denial_cas_lq.835"), "d.835")
    assert res.code == "FORBIDDEN"
