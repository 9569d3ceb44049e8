"""Issue 9 finding 6: an upload above UPLOAD_PARSE_IN_REQUEST_MAX_BYTES (8 MiB) is streamed to the
landing zone and answered at once as `parsing`; the job queue parses it (Worker.run_once, as in
production) into its result. A file that is broken near its end never half-imports: the batch fails
with the report and has no rows.

The files are generated here with their numbers known by construction: N claim rows of 10.00 each.
"""

from __future__ import annotations

import base64
import hashlib

import pytest

from api.infra.jobs.worker import Worker
from tests.integration.api.money.ingestion.conftest import upload_multipart

pytestmark = pytest.mark.slow

ROWS = 42_000
HEADER = b"Account Number,Billed Amount,Service Date,Payer,Notes\n"
NOTES = b"n" * 270  # an unmapped column, so each row is ~305 bytes and the file is over 12 MB


def _claims_csv(broken_tail: bool = False) -> bytes:
    body = b"".join(b"ACC%07d,10.00,2026-01-02,Aetna,%s\n" % (i, NOTES) for i in range(ROWS))
    tail = b'ACCBROKEN,"10.00,2026-01-02,Aetna,unterminated\n' if broken_tail else b""
    return HEADER + body + tail


def _run_parse_jobs(services) -> int:
    worker = Worker(services.database, kinds=["ingestion.parse_batch"], worker_id="large-upload-test")
    ran = 0
    while worker.run_once():
        ran += 1
    return ran


def test_a_large_upload_is_parsing_then_parsed_by_the_job_queue(member, services, settings):
    data = _claims_csv()
    assert len(data) > 12 * 1024 * 1024

    answer = upload_multipart(member.rpc, data, "big_claims.csv", "ingestion.uploadCsv").data
    batch = answer["batch"]

    assert answer["duplicate"] is False
    assert batch["status"] == "parsing"
    assert batch["rowCount"] == 0
    digest = hashlib.sha256(data).hexdigest()
    assert batch["contentSha256"] == digest
    assert batch["sizeBytes"] == len(data)
    landing = settings.landing_dir / "sha256" / digest[:2] / digest[2:4] / digest
    assert landing.read_bytes() == data
    assert list((settings.landing_dir / ".spool").iterdir()) == [], "the spooled body was left behind"

    assert _run_parse_jobs(services) == 1

    parsed = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert parsed["status"] == "parsed"
    assert parsed["kind"] == "csv_claims"
    assert parsed["rowCount"] == ROWS
    assert parsed["validCount"] == ROWS
    assert parsed["totals"]["total_billed"] == "420000.00"  # 42,000 rows x 10.00

    # A reprocess of a big file goes through the queue again, never a parse inside the request.
    again = member.rpc.mutation("ingestion.reprocess", {"batchId": batch["id"]}).data
    assert (again["status"], again["rowCount"]) == ("parsing", 0)
    busy = member.rpc.mutation("ingestion.reprocess", {"batchId": batch["id"]})
    assert busy.code == "PRECONDITION_FAILED", busy.body
    assert _run_parse_jobs(services) == 1
    reparsed = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert (reparsed["status"], reparsed["rowCount"]) == ("parsed", ROWS)


def test_a_large_file_broken_at_its_end_never_half_imports(member, services):
    data = _claims_csv(broken_tail=True)

    batch = upload_multipart(member.rpc, data, "broken_claims.csv", "ingestion.uploadCsv").data["batch"]
    assert batch["status"] == "parsing"

    assert _run_parse_jobs(services) == 1

    failed = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert failed["status"] == "failed"
    assert failed["rowCount"] == 0
    assert failed["errorReport"]["line"] == ROWS + 2  # header, the rows, then the broken line
    assert "unterminated quote" in failed["errorReport"]["message"]
    rows = member.rpc.query("ingestion.listImportRows", {"batchId": batch["id"]}).data
    assert rows["items"] == []


def test_a_parsing_batch_cannot_be_confirmed_before_the_job_ran(member, services):
    batch = upload_multipart(member.rpc, _claims_csv() + b"ACCLAST,1.00,2026-01-02,Aetna,x\n", "c.csv").data["batch"]
    assert batch["status"] == "parsing"

    refused = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]})

    assert refused.code == "PRECONDITION_FAILED", refused.body
    _run_parse_jobs(services)


def test_a_large_json_upload_is_decoded_from_disk_and_parsed_by_the_job_queue(member, services):
    data = _claims_csv() + b"ACCJSON,1.00,2026-01-02,Aetna,????????????\n"  # "?"s encode to "/" somewhere
    # The file before the filename, and every '/' escaped as JSON allows: both must be understood.
    encoded = base64.b64encode(data).replace(b"/", b"\\/")
    body = b'{"contentBase64": "' + encoded + b'", "filename": "json_claims.csv"}'
    assert b"\\/" in body

    r = member.rpc.http.post(
        "/api/rpc/ingestion.uploadCsv",
        content=body,
        headers={**member.rpc.headers(), "content-type": "application/json"},
    )

    assert r.status_code == 200, r.text[:500]
    batch = r.json()["result"]["data"]["batch"]
    assert batch["status"] == "parsing"
    assert batch["sourceFilename"] == "json_claims.csv"
    assert batch["contentSha256"] == hashlib.sha256(data).hexdigest()
    assert _run_parse_jobs(services) == 1
    parsed = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert parsed["status"] == "parsed"
    assert parsed["rowCount"] == ROWS + 1
    assert parsed["totals"]["total_billed"] == "420001.00"  # 42,000 x 10.00 + 1.00


def test_a_large_json_upload_with_broken_base64_is_refused(member):
    body = b'{"filename": "bad.csv", "contentBase64": "' + b"QUJD" * (3 * 1024 * 1024) + b'!!!!"}'

    r = member.rpc.http.post(
        "/api/rpc/ingestion.uploadCsv",
        content=body,
        headers={**member.rpc.headers(), "content-type": "application/json"},
    )

    assert r.status_code == 400, r.text[:500]
    assert r.json()["error"]["message"] == "Invalid input: 'contentBase64' is not valid base64"
    assert member.rpc.query("ingestion.listImportBatches", {}).data["items"] == []
