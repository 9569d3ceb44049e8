"""A denied case becomes an approved appeal packet and closes with its money (issue: appeals).

On a uvicorn process of its own, over HTTP: a hand-written 835 opens a medical-necessity case ->
evidence goes up (a PDF with a text layer and a PNG scan) -> `evidenceQuality.gaps` lists what is
missing until it is complete -> the specialist assembles the packet (its letter is a versioned draft)
-> the specialist cannot approve their own submission, a second member does -> the packet renders:
the PDF's text holds the claim facts, the CARC in words and every evidence title -> the approved
action runs once against the sandbox clearinghouse -> the payer's decision through
`appealAssembly.event` closes the case as won with the recovered money.

Refusals on the same server: a file whose content is not what its name says, an encrypted PDF, a
DOCX holding a zip bomb and an oversize body are refused with a clear error and the server keeps
answering. At the end the server's log and the audit trail are scanned for the PHI the evidence held.

Expected figures are written by hand from the fixture (tests/fixtures/x12/hand/cases_denial.835:
CSD-1 billed 200.00, paid 120.00, CO-50 80.00 denied as not medically necessary).
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

from tests.support.live_member import Member, founder_of_new_organization, invited

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HAND = Path(__file__).resolve().parents[1] / "fixtures" / "x12" / "hand"

# PHI the evidence carries: none of it may reach the log, the audit trail or an answer's error.
PATIENT_NAME = "Marguerite Quillfeather"
PATIENT_SSN = "512-44-9087"
PATIENT_DOB = "03/14/1957"
PATIENT_MEMBER = "QX88812345"


def _pdf(title: str, *lines: str) -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    for line in lines:
        pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (120, 80), (200, 220, 240)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def members(private_live_server) -> Any:
    """The specialist (who created the organization) and a second member who approves: invited by the
    platform's founder account as well, not by the specialist (issue 23: someone the requester invited is
    not an independent approver), so the founder and both members are three accounts."""
    server = private_live_server
    with httpx.Client(base_url=server.base_url, timeout=120.0) as http:
        founder = founder_of_new_organization(http, server, f"Appeals {server.backend}", "Appeal Hospital")
        specialist = invited(founder, server, "specialist@example.test", "admin")
        approver = invited(founder, server, "approver@example.test", "manager")
        yield specialist, approver


def _request_submission(specialist: Member, case_id: int, packet_id: int) -> dict[str, Any]:
    return specialist.mutation(
        "approvedActions.request",
        {"caseId": case_id, "kind": "submit_appeal_packet", "payloadRef": str(packet_id)},
    )


def _open_case(specialist: Member) -> dict[str, Any]:
    path = HAND / "cases_denial.835"
    upload = specialist.http.post(
        "/api/rpc/ingestion.uploadEra",
        files={"file": (path.name, path.read_bytes(), "application/octet-stream")},
        headers=specialist.headers,
    )
    assert upload.status_code == 200, upload.text
    batch = upload.json()["result"]["data"]["batch"]
    specialist.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]})
    cases = {c["claimKey"]: c for c in specialist.query("cases.list", {"limit": 50})["items"]}
    return cases["CSD-1"]


def test_a_denied_case_becomes_an_approved_packet_and_closes_with_its_money(members, private_live_server):
    specialist, approver = members
    case = _open_case(specialist)
    assert (case["denialCategory"], case["carc"], case["amountAtStake"]) == ("medical_necessity", "50", "80.00")
    case_id = case["id"]

    # 1. evidence: what medical necessity needs is listed as missing until it is all there
    gaps = specialist.query("evidenceQuality.gaps", {"caseId": case_id})
    assert {g["docType"] for g in gaps["gaps"] if g["kind"] == "missing"} == {
        "clinical_notes",
        "payer_policy",
        "physician_letter",
    }
    notes = _pdf(
        "Progress notes",
        f"Patient: {PATIENT_NAME}  DOB: {PATIENT_DOB}  SSN: {PATIENT_SSN}  Member ID: {PATIENT_MEMBER}",
        "Acute exacerbation documented; inpatient level of care met on day one.",
    )
    attached = specialist.attach(case_id, "notes.pdf", notes, "Progress notes, day one", "clinical_notes")
    assert attached.status_code == 200, attached.text
    document = attached.json()["result"]["data"]["document"]
    assert document["mediaType"] == "application/pdf"
    assert PATIENT_NAME not in json.dumps(document) and PATIENT_SSN not in json.dumps(document)
    scan = specialist.attach(case_id, "scan.png", _png(), "Signed physician letter (scan)", "physician_letter")
    assert scan.status_code == 200, scan.text
    assert scan.json()["result"]["data"]["document"]["mediaType"] == "image/png"
    still = specialist.query("evidenceQuality.gaps", {"caseId": case_id})
    assert {g["docType"] for g in still["gaps"] if g["kind"] == "missing"} == {"payer_policy"}
    policy = _pdf("Payer medical policy L33797", "Coverage criteria for inpatient admission, section 4.2.")
    assert specialist.attach(case_id, "policy.pdf", policy, "Payer policy L33797", "payer_policy").status_code == 200
    score = specialist.query("evidenceQuality.score", {"caseId": case_id})
    assert (score["missing"], score["completeness"]) == ([], 1.0)

    # 2. the letter: the template's letter is the specialist's first draft, edited as a draft
    generated = specialist.mutation("appealAssembly.create", {"caseId": case_id})
    assert generated["letterSource"] == "template"
    draft = specialist.mutation(
        "drafts.create",
        {
            "caseId": case_id,
            "kind": "appeal_letter",
            "content": generated["letterText"] + "\n\nSee the enclosed notes.",
        },
    )
    packet = specialist.mutation("appealAssembly.create", {"caseId": case_id, "letterDraftId": draft["id"]})
    assert packet["letterSource"] == "draft"
    assert specialist.query("appealAssembly.get", {"id": generated["id"]})["state"] == "superseded"

    # 3. approval: the author's own approval is refused, a second member's is accepted; a letter edited
    # after approval voids it, so the submission needs the new packet approved again
    first = _request_submission(specialist, case_id, packet["id"])
    approver.mutation("approvedActions.decide", {"id": first["id"], "decision": "approve", "reason": "complete"})
    specialist.mutation("drafts.update", {"id": draft["id"], "content": generated["letterText"] + "\n\nRevised."})
    message = specialist.refused("approvedActions.executeSandbox", {"id": first["id"]}, "PRECONDITION_FAILED")
    assert "changed after approval" in message
    assert specialist.query("approvedActions.get", {"id": first["id"]})["state"] == "void"
    packet = specialist.mutation("appealAssembly.create", {"caseId": case_id, "letterDraftId": draft["id"]})
    packet_id = packet["id"]
    action = _request_submission(specialist, case_id, packet_id)
    message = specialist.refused(
        "approvedActions.decide", {"id": action["id"], "decision": "approve", "reason": "mine"}, "FORBIDDEN"
    )
    approved = approver.mutation(
        "approvedActions.decide", {"id": action["id"], "decision": "approve", "reason": "evidence complete"}
    )
    assert approved["state"] == "approved"

    # 4. the PDF: claim facts, the CARC in words, every evidence title in the index, the revised letter
    rendered = specialist.query("appealAssembly.render", {"id": packet_id})
    pdf = PdfReader(io.BytesIO(base64.b64decode(rendered["contentBase64"])))
    assert rendered["pageCount"] == len(pdf.pages)
    text = "\n".join(page.extract_text() for page in pdf.pages)
    for fact in ("CSD-1", "HAND CASES PAYER", "200.00", "80.00", "Revised."):
        assert fact in text, fact
    assert "medically necessary" in text.lower() or "medical necessity" in text.lower()
    for title in ("Progress notes, day one", "Signed physician letter (scan)", "Payer policy L33797"):
        assert title in text, title
    assert f"Page 1 of {len(pdf.pages)}" in text
    # the enclosed records go to the payer as they are (the payer needs them); the letter holds no PHI
    letter_text = specialist.query("appealAssembly.get", {"id": packet_id})["letterText"]
    assert PATIENT_SSN not in letter_text and PATIENT_NAME not in letter_text

    # 5. submission through the sandbox, once
    executed = specialist.mutation("approvedActions.executeSandbox", {"id": action["id"]})
    assert executed["state"] == "executed"
    specialist.refused("approvedActions.executeSandbox", {"id": action["id"]}, "PRECONDITION_FAILED")
    submitted = specialist.query("appealAssembly.get", {"id": packet_id})
    assert submitted["state"] == "submitted"
    assert specialist.query("cases.get", {"id": case_id})["case"]["state"] == "awaiting_payer"

    # 6. the payer's decision closes the case with the money recovered (the 80.00 denied)
    result = specialist.mutation(
        "appealAssembly.event",
        {
            "packetId": packet_id,
            "kind": "decided",
            "decision": "won",
            "amountRecovered": "80.00",
            "payerReference": "APL-77",
        },
    )
    assert result["caseState"] == "won"
    closed = specialist.query("cases.get", {"id": case_id})["case"]
    assert closed["state"] == "won"
    assert Decimal(closed["recoveredAmount"]) == Decimal("80.00")

    # 7. the evidence's PHI is nowhere in the server's log or the audit trail
    _assert_no_phi(private_live_server)


def test_refused_uploads_keep_the_server_answering(members):
    specialist, _ = members
    case_id = specialist.query("cases.list", {"limit": 1})["items"][0]["id"]
    refusals = {
        "an executable named .pdf": ("x.pdf", b"MZ\x90\x00" + b"\x00" * 200),
        "an encrypted PDF": ("locked.pdf", _encrypted_pdf()),
        "a DOCX holding a zip bomb": ("bomb.docx", _zip_bomb_docx()),
    }
    for label, (name, content) in refusals.items():
        response = specialist.attach(case_id, name, content, "Refused", "other")
        body = response.json()
        assert "error" in body, label
        assert body["error"]["data"]["code"] == "BAD_REQUEST", (label, body["error"])
        assert specialist.query("auth.session") is not None
    oversize = specialist.attach(case_id, "big.txt", b"a" * (21 * 1024 * 1024), "Too big", "other")
    assert oversize.status_code == 413
    assert specialist.query("evidenceControl.list", {"caseId": case_id, "limit": 50}) is not None


def _encrypted_pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    writer.encrypt("secret")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _zip_bomb_docx() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\x00" * (300 * 1024 * 1024))
    return buffer.getvalue()


def _assert_no_phi(server: Any) -> None:
    phi = (PATIENT_NAME, PATIENT_SSN, PATIENT_DOB, PATIENT_MEMBER, "Quillfeather")
    log = server.log_tail(10_000_000)
    for value in phi:
        assert value not in log, f"PHI in the server log: {value}"
    rows = server.audit_text()
    assert "evidenceControl.attach" in rows, "the scan must see the evidence calls"
    for value in phi:
        assert value not in rows, f"PHI in the audit trail: {value}"
