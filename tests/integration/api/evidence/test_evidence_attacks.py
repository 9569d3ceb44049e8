"""Issue 23, findings 3, 6 and 10, over the wire at the attacks' real sizes (SQLite and PostgreSQL):
the quadratic-redaction text, the 30,000-page PDF, the DOCX bomb, the program carrying a PDF, the
PDF with JavaScript after 1,100 spaces, DOCX with external image / OLE links; the reading runs outside
the write transaction (another connection takes SQLite's write lock while the capped child reads);
a case changed or a document redacted meanwhile is CONFLICT; legitimate files still attach, redacted."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psutil
import pytest
from sqlalchemy import update

from api.denials.claims.models import Claim
from api.evidence.evidence_control.models import EvidenceDocument
from api.rpc.procedure import rpc as registry
from tests.integration.api.evidence.conftest import attach_json, attach_multipart, make_case, make_claim, new_key
from tests.support import evidence_files as files
from tests.support.denial_case_rows import add_colleague
from tests.support.rpc_client import RpcResult
from tests.support.sqlite_lock import write_lock_free


@pytest.fixture
def world(services, make_member):
    admin = make_member(role="admin")
    specialist = add_colleague(services, admin.rpc, admin, "specialist")
    key = new_key()
    claim_id = make_claim(services, admin.organization_id, admin.client_id, key, patient_ref="PAT-30211")
    case_id = make_case(services, admin.organization_id, admin.client_id, claim_key=key)
    return admin, specialist, case_id, claim_id


def _stored(services, client_id) -> list:
    root = services.settings.evidence_dir / f"c{client_id}"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def _refused(services, world, data: bytes, name: str) -> str:
    """Attach `data`; it must be BAD_REQUEST with nothing stored and the server still answering."""
    admin, specialist, case_id, _ = world
    refused = attach_multipart(specialist.rpc, data, name, caseId=case_id, title="Suspicious")
    assert refused.code == "BAD_REQUEST" and refused.status == 400, refused.body
    assert specialist.rpc.query("evidenceControl.list", {}).data["items"] == []
    assert _stored(services, admin.client_id) == []
    assert specialist.rpc.query("system.ping").status == 200
    message = refused.error["message"]
    assert name not in message
    return message


# --- finding 6: evidence bombs -----------------------------------------------------------------------------


def test_the_30000_page_pdf_is_refused_from_its_page_tree(services, world):
    attack = files.blank_pages_pdf(30_000)
    assert 2_500_000 < len(attack) < 3_000_000
    assert _refused(services, world, attack, "records.pdf") == (
        "Invalid input: 'file' is a PDF of 30,000 pages; the limit is 1,000 (EVIDENCE_MAX_PDF_PAGES); "
        "split it and attach the parts"
    )


def test_a_pdf_whose_page_count_lies_is_refused_by_its_leaves(services, world):
    message = _refused(services, world, files.blank_pages_pdf(2_500, declared=3), "records.pdf")
    assert "is a PDF of more than 1,000 pages; the limit is 1,000 (EVIDENCE_MAX_PDF_PAGES)" in message


def test_the_docx_bomb_is_refused_at_the_element_cap(services, world):
    attack = files.docx_bomb()
    assert 1_500_000 < len(attack) < 2_000_000
    message = _refused(services, world, attack, "letter.docx")
    assert (
        "is a DOCX of more than 2,000,000 XML elements; the limit is 2,000,000 (EVIDENCE_MAX_DOCX_ELEMENTS)" in message
    )


def test_a_pdf_at_the_page_cap_attaches(world):
    _, specialist, case_id, _ = world
    doc = attach_json(specialist.rpc, files.blank_pages_pdf(1_000), "scan.pdf", caseId=case_id, title="Scan").data
    assert doc["document"]["pageCount"] == 1_000 and doc["document"]["redactedText"] is None


def _capped_children() -> list[psutil.Process]:
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "api.infra.capped" in child.cmdline():
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def _while_reading(call: Callable[[], RpcResult], meanwhile: Callable[[], Any]) -> tuple[RpcResult, Any]:
    """Run `call` in a thread; once its capped child is reading, run `meanwhile` and check the child was
    still reading when `meanwhile` returned (so it ran during the read, not after it)."""
    answer: list[RpcResult] = []
    thread = threading.Thread(target=lambda: answer.append(call()))
    thread.start()
    children: list[psutil.Process] = []
    for _ in range(6_000):  # waits for the child to start; a guard against hanging, not a timing check
        children = _capped_children()
        if children or not thread.is_alive():
            break
        time.sleep(0.01)
    assert children, "the file was not read in a capped child process"
    seen = meanwhile()
    assert any(child.is_running() and child.status() != psutil.STATUS_ZOMBIE for child in children)
    thread.join()
    return answer[0], seen


def test_reading_the_bomb_holds_no_write_lock_and_another_tenant_writes_meanwhile(services, world, make_member):
    _, specialist, case_id, _ = world
    other = make_member(role="admin")
    bomb = files.docx_bomb()

    def meanwhile() -> tuple[bool | None, RpcResult]:
        lock_free = write_lock_free(services.settings.database_url)
        written = other.rpc.mutation("evidenceControl.setRetention", {"years": 3})
        return lock_free, written

    refused, (lock_free, written) = _while_reading(
        lambda: attach_multipart(specialist.rpc, bomb, "letter.docx", caseId=case_id, title="Letter"), meanwhile
    )
    assert refused.code == "BAD_REQUEST" and "EVIDENCE_MAX_DOCX_ELEMENTS" in refused.error["message"]
    assert lock_free in (True, None)
    assert written.data["years"] == 3


# --- finding 10: type checks --------------------------------------------------------------------------------


def test_a_program_carrying_a_pdf_is_a_program(services, world):
    assert "is a program or script" in _refused(services, world, files.program_with_pdf(), "summary.pdf")


def test_a_pdf_with_javascript_after_1100_spaces_is_not_stored_as_text(services, world):
    message = _refused(services, world, files.spaced_javascript_pdf(1_100), "note.txt")
    assert "holds a PDF that does not start at its first byte" in message


@pytest.mark.parametrize(
    ("kind", "target"),
    [("image", "http://attacker.example/pixel.png"), ("oleObject", "file:///C:/claims/payments.xlsx")],
)
def test_a_docx_with_an_external_image_or_ole_link_is_refused(services, world, kind, target):
    message = _refused(services, world, files.docx_with_relationship(kind, target), "letter.docx")
    assert "loads content from elsewhere when opened" in message


def test_text_holding_a_script_is_refused(services, world):
    page = b"Payer policy\n" + b"Coverage criteria apply.\n" * 5_000 + b"<script>fetch('//x')</script>\n"
    assert "holding a script" in _refused(services, world, page, "policy.txt")


# --- finding 3: redaction in linear time ----------------------------------------------------------------------


def _quadratic_text() -> tuple[bytes, str]:
    """80 KB of the old patterns' worst cases, with the PHI each must still find; and the redacted text."""
    parts = [
        ("dob " * 5_000 + "04/02/1961\n", "dob " * 5_000 + "[DOB]\n"),
        ("mrn-" * 5_000 + " MRN: W7781234\n", "mrn-" * 5_000 + " MRN: [MEMBER-ID]\n"),
        ("SSN" + " " * 10_000 + "219099999\n", "SSN" + " " * 10_000 + "[SSN]\n"),
        ("Member ID" + " " * 10_000 + "QZX4821\n", "Member ID" + " " * 10_000 + "[MEMBER-ID]\n"),
        ("Phone" + " " * 10_000 + "5551234567\n", "Phone" + " " * 10_000 + "[PHONE]\n"),
        ("Address:" + "-" * 5_000 + "\n", "Address:" + "-" * 5_000 + "\n"),
    ]
    return "".join(p for p, _ in parts).encode(), "".join(r for _, r in parts)


def test_the_80_kb_text_attaches_redacted(world):
    _, specialist, case_id, _ = world
    text, redacted = _quadratic_text()
    assert 75_000 < len(text) < 90_000
    doc = attach_json(specialist.rpc, text, "note.txt", caseId=case_id, title="Note").data["document"]
    assert doc["mediaType"] == "text/plain" and doc["redactedText"] == redacted
    assert doc["redactionCounts"] == {"dob": 1, "member_id": 2, "phone": 1, "ssn": 1}


def test_redacting_the_80_kb_text_again_with_fifty_long_terms(world):
    _, specialist, case_id, _ = world
    text, _ = _quadratic_text()
    doc = attach_json(specialist.rpc, text, "note.txt", caseId=case_id, title="Note").data["document"]
    # 50 names of 200 characters (the schema's caps; each word a spelling too) that are not in the
    # text, and one that is in every "mrn-" of the run.
    terms = [" ".join(f"{chr(97 + i % 26)}{chr(97 + j)}zed" for j in range(40))[:200] for i in range(49)]
    again = specialist.rpc.mutation("evidenceControl.redact", {"id": doc["id"], "terms": [*terms, "mrn"]}).data
    assert again["redactionVersion"] == 2
    assert again["redactionCounts"] == {"dob": 1, "member_id": 2, "name": 5_001, "phone": 1, "ssn": 1}
    assert "mrn" not in again["redactedText"].lower() and again["redactedText"].count("[NAME]") == 5_001


def test_both_procedures_read_in_their_prepare_phase():
    assert registry.procedures["evidenceControl.attach"].prepare is not None
    assert registry.procedures["evidenceControl.redact"].prepare is not None


def _big_note() -> bytes:
    line = b"Progress note: patient stable, plan unchanged, follow up in two weeks with labs.\n"
    return line * (2_000_000 // len(line))


def test_a_case_whose_identifiers_change_while_the_file_is_read_is_a_conflict(services, world):
    _, specialist, case_id, claim_id = world

    def change_the_claim() -> None:
        with services.database.transaction() as db:
            db.execute(update(Claim).where(Claim.id == claim_id).values(patient_ref="PAT-99999"))

    answer, _ = _while_reading(
        lambda: attach_json(specialist.rpc, _big_note(), "note.txt", caseId=case_id, title="Note"), change_the_claim
    )
    assert answer.code == "CONFLICT" and "changed while the file was read" in answer.error["message"]
    assert specialist.rpc.query("evidenceControl.list", {}).data["items"] == []


def test_a_document_redacted_meanwhile_is_a_conflict(services, world):
    _, specialist, case_id, _ = world
    doc = attach_json(specialist.rpc, _big_note(), "note.txt", caseId=case_id, title="Note").data["document"]

    def redact_meanwhile() -> None:
        with services.database.transaction() as db:
            db.execute(update(EvidenceDocument).where(EvidenceDocument.id == doc["id"]).values(redaction_version=7))

    answer, _ = _while_reading(
        lambda: specialist.rpc.mutation("evidenceControl.redact", {"id": doc["id"], "terms": ["stable"]}),
        redact_meanwhile,
    )
    assert answer.code == "CONFLICT" and "redact it again" in answer.error["message"]


# --- legitimate evidence still attaches ------------------------------------------------------------------------


def test_legitimate_pdf_docx_and_text_attach_redacted(world):
    _, specialist, case_id, _ = world
    phi = ("Patient: Harriet Vane", "DOB: 04/02/1961", "Member ID: W4455667", "Phone: (555) 123-4567")
    expected = ("Patient: [NAME]", "DOB: [DOB]", "Member ID: [MEMBER-ID]", "Phone: [PHONE]")
    pdf = attach_multipart(
        specialist.rpc, files.text_pdf(*phi, pages=40), "records.pdf", caseId=case_id, title="Records"
    ).data["document"]
    assert pdf["pageCount"] == 40 and all(line in pdf["redactedText"] for line in expected)
    link = files.docx_with_relationship("hyperlink", "https://www.cms.gov/medicare-coverage-database")
    word = attach_json(specialist.rpc, link, "letter.docx", caseId=case_id, title="Letter").data["document"]
    assert word["mediaType"].endswith("wordprocessingml.document") and word["redactedText"] == "See the attached image"
    letter = files.docx(*phi, "Sincerely")
    word = attach_json(specialist.rpc, letter, "letter2.docx", caseId=case_id, title="Letter 2").data["document"]
    assert word["redactedText"] == "\n".join([*expected, "Sincerely"])
    note = "\n".join(phi).encode("cp1252") + "\n\u201cStable\u201d \u2013 discharged\n".encode("cp1252")
    text = attach_json(specialist.rpc, note, "note.txt", caseId=case_id, title="Note").data["document"]
    assert text["redactedText"] == "\n".join(expected) + "\n\u201cStable\u201d \u2013 discharged\n"
    big = attach_json(specialist.rpc, _big_note(), "big.txt", caseId=case_id, title="Big").data["document"]
    assert big["hasText"] and big["redactedText"] == _big_note().decode()
