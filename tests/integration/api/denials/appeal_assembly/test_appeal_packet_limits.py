"""appealAssembly under attack, over the wire on SQLite and PostgreSQL (issue 23): a letter holding one
4,000-character word (14.5 s per render before) renders with every character; a packet holding a PDF
over the page cap (a 12,000-page one did not render in 15 minutes) is refused naming the cap, at
assembly from the evidence store's page count, and at render from the renderer's own count."""

from __future__ import annotations

import base64
import io
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader

from api.evidence.evidence_control.models import EvidenceDocument
from api.evidence.evidence_control.store import store_for
from tests.integration.api.evidence.conftest import attach_json
from tests.support import evidence_files as files
from tests.support.denial_case_rows import make_case

CASE_FACTS = {
    "payer": "NORTHWIND HEALTH PLAN",
    "payer_claim_number": "ICN-4471-0093",
    "service_date": date(2024, 3, 2),
    "billed_amount": Decimal("2400.00"),
    "amount_at_stake": Decimal("1250.00"),
    "carc": "50",
    "denial_category": "medical_necessity",
}
WORD = ("Hydroxychloroquinesulfatetherapy" * 130)[:4_000]


def stored_document(services, member, case_id: int, data: bytes, media_type: str, page_count: int | None) -> int:
    """A document as stored before the evidence caps existed (or with its pages unmeasured): the
    packet must refuse it on its own, whatever attach accepts today."""
    stored = store_for(services.settings, member.client_id).store(data)
    with services.database.transaction() as db:
        doc = EvidenceDocument(
            organization_id=member.organization_id,
            client_id=member.client_id,
            case_id=case_id,
            title="Complete chart",
            doc_type="medical_records",
            doc_type_source="given",
            source="upload",
            media_type=media_type,
            sha256=stored.sha256,
            size_bytes=len(data),
            page_count=page_count,
        )
        db.add(doc)
        db.flush()
        return doc.id


@pytest.fixture
def world(services, make_member):
    member = make_member(role="specialist")
    case_id = make_case(services, member.organization_id, member.client_id, **CASE_FACTS)
    return member, case_id


def _create(member, case_id: int, **fields):
    return member.rpc.mutation("appealAssembly.create", {"caseId": case_id, **fields})


def test_a_letter_with_a_4000_character_word_renders_every_character(world):
    member, case_id = world
    attach_json(
        member.rpc, files.text_pdf("Progress note"), "n.pdf", caseId=case_id, title="Notes", docType="clinical_notes"
    ).data
    letter = f"We enclose the pharmacy record: {WORD}. Please reprocess the claim."
    packet = _create(member, case_id, letterText=letter).data
    rendered = member.rpc.query("appealAssembly.render", {"id": packet["id"]}).data
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(base64.b64decode(rendered["contentBase64"]))).pages]
    assert len(pages) == rendered["pageCount"]
    assert WORD in "".join("".join(pages).split())
    for number, text in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in text


def test_a_pdf_over_the_page_cap_is_refused_at_assembly_naming_the_cap(services, world):
    member, case_id = world
    doc_id = stored_document(services, member, case_id, files.blank_pages_pdf(1_001), "application/pdf", 1_001)
    refused = _create(member, case_id)
    assert refused.code == "BAD_REQUEST"
    message = refused.error["message"]
    assert f"(id {doc_id}) has 1001 pages" in message and "APPEAL_PACKET_MAX_PDF_PAGES allows 1000" in message
    assert "Complete chart" not in message
    assert member.rpc.query("appealAssembly.list", {"caseId": case_id}).data["items"] == []


def test_a_pdf_over_the_page_cap_is_refused_at_render_when_its_pages_were_never_counted(services, world):
    member, case_id = world
    doc_id = stored_document(services, member, case_id, files.blank_pages_pdf(1_001), "application/pdf", None)
    packet = _create(member, case_id).data  # the store does not know its pages: assembly lets it through
    refused = member.rpc.query("appealAssembly.render", {"id": packet["id"]})
    assert refused.code == "BAD_REQUEST"
    assert f"(id {doc_id}) has more than 1000 pages" in refused.error["message"]
    assert "APPEAL_PACKET_MAX_PDF_PAGES" in refused.error["message"]


def test_pdfs_over_the_packets_page_cap_together_are_refused_naming_it(services, world):
    member, case_id = world
    data = files.blank_pages_pdf(800)
    first = stored_document(services, member, case_id, data, "application/pdf", None)
    second = stored_document(services, member, case_id, data + b"\n", "application/pdf", None)
    packet = _create(member, case_id, documentIds=[first, second]).data
    refused = member.rpc.query("appealAssembly.render", {"id": packet["id"]})
    assert refused.code == "BAD_REQUEST"
    assert "at least 1600 pages; APPEAL_PACKET_MAX_PAGES allows 1500" in refused.error["message"]


def test_too_much_text_to_typeset_is_refused_naming_the_cap(services, world):
    member, case_id = world
    stored_document(services, member, case_id, b"a" * 500_001, "text/plain", None)
    refused = _create(member, case_id)
    assert refused.code == "BAD_REQUEST" and "APPEAL_PACKET_MAX_TEXT_CHARS (500000)" in refused.error["message"]


def test_evidence_over_the_byte_cap_is_refused_before_it_is_read(services, world, monkeypatch):
    member, case_id = world
    attach_json(
        member.rpc, files.text_pdf("Progress note"), "n.pdf", caseId=case_id, title="Notes", docType="clinical_notes"
    ).data
    packet = _create(member, case_id).data
    monkeypatch.setattr(services.settings, "appeal_packet_max_evidence_bytes", 100)
    for refused in (_create(member, case_id), member.rpc.query("appealAssembly.render", {"id": packet["id"]})):
        assert refused.code == "BAD_REQUEST"
        assert "more than APPEAL_PACKET_MAX_EVIDENCE_BYTES (100)" in refused.error["message"]
