"""appealAssembly.* over the wire, on SQLite and PostgreSQL: assemble with real evidence, render, the
payer's events, a decision through outcomes.record, the approved-action submission seam, tenancy."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader
from sqlalchemy import select, update

from api.core.errors import PreconditionFailed
from api.denials.appeal_assembly import service
from api.denials.cases.models import CaseEvent, DenialCase
from api.evidence.evidence_control.models import EvidenceDocument, EvidenceLink
from api.infra.db.base import utcnow
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.platform.audit.models import AuditEvent
from tests.integration.api.evidence.conftest import attach_json
from tests.support import evidence_files as files
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import collect_pages

CASE_FACTS = {
    "payer": "NORTHWIND HEALTH PLAN",
    "payer_claim_number": "ICN-4471-0093",
    "service_date": date(2024, 3, 2),
    "remittance_date": date(2024, 4, 1),
    "billed_amount": Decimal("2400.00"),
    "amount_at_stake": Decimal("1250.00"),
    "carc": "50",
    "rarcs": ["N115"],
    "group_code": "CO",
    "denial_category": "medical_necessity",
}


@pytest.fixture
def world(services, make_member):
    member = make_member(role="specialist")
    case_id = make_case(services, member.organization_id, member.client_id, **CASE_FACTS)
    docs = [
        attach_json(
            member.rpc,
            files.text_pdf("Progress note, chest pain", pages=2),
            "n.pdf",
            caseId=case_id,
            title="ED progress notes",
            docType="clinical_notes",
        ).data["document"],
        attach_json(
            member.rpc, files.png(40, 30), "w.png", caseId=case_id, title="Wound photograph", docType="medical_records"
        ).data["document"],
        attach_json(
            member.rpc,
            b"Letter of medical necessity from the attending physician.",
            "l.txt",
            caseId=case_id,
            title="Physician letter",
            docType="physician_letter",
        ).data["document"],
    ]
    return member, case_id, docs


def _case(services, case_id):
    with services.database.transaction() as db:
        case = db.get(DenialCase, case_id)
        return case.state, case.recovered_amount


def _mark_submitted(services, member, packet_id, action_id=4242):
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return service.mark_submitted(db, packet_id, action_id, "TRK-1").state


def _digest(services, member, packet_id):
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return service.packet_digest(db, packet_id)


def _event(member, packet_id, kind, **fields):
    return member.rpc.mutation("appealAssembly.event", {"packetId": packet_id, "kind": kind, **fields})


def test_create_get_list_and_render_a_packet_with_its_evidence(services, world):
    member, case_id, docs = world
    out = member.rpc.mutation("appealAssembly.create", {"caseId": case_id}).data
    assert (out["state"], out["level"], out["letterSource"]) == ("assembled", "first_level", "template")
    assert out["templateKey"] == "medical_necessity.first_level" and out["evidenceCount"] == 3
    assert [i["documentId"] for i in out["items"]] == [d["id"] for d in docs]
    assert [i["sha256"] for i in out["items"]] == [d["sha256"] for d in docs]
    assert out["coverFormId"] == "northwind_provider_appeal"
    assert ["Claim number", "ICN-4471-0093"] in out["coverForm"]["fields"]
    letter = out["letterText"]
    for fact in ("ICN-4471-0093", "$2,400.00", "$1,250.00", "2024-03-02", "(CARC) 50: Not deemed a medical necessity"):
        assert fact in letter
    assert "1. ED progress notes (clinical notes)" in letter and "RARC) N115" in letter
    assert [e["kind"] for e in out["events"]] == ["assembled"]
    assert _case(services, case_id)[0] == "in_appeal"  # the case went from open to in_appeal
    assert member.rpc.query("appealAssembly.get", {"id": out["id"]}).data == out
    listed = collect_pages(member.rpc, "appealAssembly.list", {"caseId": case_id})
    assert [p["id"] for p in listed] == [out["id"]] and "letterText" not in listed[0]
    assert _digest(services, member, out["id"]) == out["contentHash"]
    with services.database.transaction() as db:  # each document is linked to the packet
        links = db.scalars(
            select(EvidenceLink.document_id).where(
                EvidenceLink.target_kind == "appeal_packet", EvidenceLink.target_id == out["id"]
            )
        ).all()
        assert sorted(links) == sorted(d["id"] for d in docs)
        audit = db.scalars(select(AuditEvent).where(AuditEvent.procedure == "appealAssembly.create")).all()
        assert audit and all("ICN-4471-0093" not in str(a.__dict__) for a in audit)

    pdf = member.rpc.query("appealAssembly.render", {"id": out["id"]}).data
    data = base64.b64decode(pdf["contentBase64"])
    assert pdf["sha256"] == hashlib.sha256(data).hexdigest() and pdf["byteCount"] == len(data)
    assert pdf["mediaType"] == "application/pdf" and pdf["contentHash"] == out["contentHash"]
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]
    assert len(pages) == pdf["pageCount"]
    for number, text in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in text
    assert out["contentHash"] in pages[0]
    toc = pages[1]
    printed = re.search(r"Evidence 1: ED progress notes\s*(\d+)", toc)
    assert printed is not None
    start = int(printed.group(1))
    assert "Progress note, chest pain" in pages[start - 1] and "Progress note, chest pain" in pages[start]
    assert "Evidence 2 of 3: Wound photograph" in pages[start + 1]
    assert "Letter of medical necessity" in pages[start + 2]
    assert member.rpc.query("appealAssembly.render", {"id": out["id"]}).data["sha256"] == pdf["sha256"]


def test_submission_only_through_an_approved_action_then_the_payer_decides(services, world):
    member, case_id, _ = world
    packet = member.rpc.mutation("appealAssembly.create", {"caseId": case_id}).data
    refused = _event(member, packet["id"], "submitted")
    assert refused.code == "PRECONDITION_FAILED" and "approvedActions.executeSandbox" in refused.error["message"]
    early = _event(member, packet["id"], "decided", decision="won", amountRecovered="1250.00")
    assert early.code == "PRECONDITION_FAILED" and "'assembled'" in early.error["message"]

    assert _mark_submitted(services, member, packet["id"]) == "submitted"
    assert _mark_submitted(services, member, packet["id"]) == "submitted"  # the same action again: no-op
    assert _case(services, case_id)[0] == "awaiting_payer"
    again = _event(member, packet["id"], "submitted").data  # already submitted by the action: unchanged
    assert again["submittedViaActionId"] == 4242 and [e["kind"] for e in again["events"]] == ["assembled", "submitted"]

    assert _event(member, packet["id"], "acknowledged", occurredOn="2024-05-02").data["state"] == "acknowledged"
    asked = _event(member, packet["id"], "info_requested", note="Send the operative report").data
    assert (asked["state"], asked["caseState"]) == ("info_requested", "in_appeal")
    assert _event(member, packet["id"], "info_supplied").data["caseState"] == "awaiting_payer"
    misplaced = _event(member, packet["id"], "acknowledged", decision="won")
    assert misplaced.code == "BAD_REQUEST" and "'decision'" in misplaced.error["message"]
    assert _event(member, packet["id"], "decided").code == "BAD_REQUEST"
    too_much = _event(member, packet["id"], "decided", decision="won", amountRecovered="1250.01")
    assert too_much.code == "BAD_REQUEST" and "amountRecovered" in str(too_much.body)

    decided = _event(
        member,
        packet["id"],
        "decided",
        decision="partially_won",
        amountRecovered="400.00",
        payerReference="APL-9",
        occurredOn=date.today().isoformat(),
    ).data
    assert (decided["state"], decided["decision"], decided["caseState"]) == (
        "decided",
        "partially_won",
        "partially_won",
    )
    assert decided["caseRecoveredAmount"] == "400.00"
    assert _case(services, case_id) == ("partially_won", Decimal("400.00"))
    outcome = member.rpc.query("outcomes.get", {"id": decided["outcomeId"]}).data
    assert (outcome["decision"], outcome["amountRecovered"], outcome["level"]) == ("partially_won", "400.00", 1)
    assert _event(member, packet["id"], "acknowledged").code == "PRECONDITION_FAILED"

    # the next level: defaults to second_level, reopens the case to in_appeal
    second = member.rpc.mutation("appealAssembly.create", {"caseId": case_id}).data
    assert (second["level"], second["templateKey"]) == ("second_level", "medical_necessity.second_level")
    assert _case(services, case_id)[0] == "in_appeal"
    _mark_submitted(services, member, second["id"], action_id=4243)
    won = _event(member, second["id"], "decided", decision="won", amountRecovered="850.00").data
    assert (won["caseState"], won["caseRecoveredAmount"]) == ("won", "1250.00")
    with services.database.transaction() as db:
        kinds = db.scalars(select(CaseEvent.kind).where(CaseEvent.case_id == case_id)).all()
        assert kinds.count("appeal_outcome") == 2 and "appeal_packet" in kinds


def test_a_packet_with_the_payer_blocks_another_and_an_assembled_one_is_superseded(services, world):
    member, case_id, docs = world
    first = member.rpc.mutation("appealAssembly.create", {"caseId": case_id}).data
    custom = member.rpc.mutation(
        "appealAssembly.create",
        {"caseId": case_id, "letterText": "Our own letter.", "documentIds": [docs[2]["id"], docs[0]["id"]]},
    ).data
    assert custom["letterSource"] == "custom" and custom["letterText"] == "Our own letter."
    assert [i["documentId"] for i in custom["items"]] == [docs[2]["id"], docs[0]["id"]]
    assert custom["contentHash"] != first["contentHash"]
    assert member.rpc.query("appealAssembly.get", {"id": first["id"]}).data["state"] == "superseded"
    assert _digest(services, member, first["id"]) is None
    _mark_submitted(services, member, custom["id"])
    blocked = member.rpc.mutation("appealAssembly.create", {"caseId": case_id})
    assert blocked.code == "PRECONDITION_FAILED" and f"packet {custom['id']}" in blocked.error["message"]
    withdrawn = _event(member, custom["id"], "withdrawn").data
    assert (withdrawn["state"], withdrawn["caseState"]) == ("withdrawn", "in_appeal")


def test_a_purged_document_changes_the_digest_and_refuses_render_and_submission(services, world):
    member, case_id, docs = world
    packet = member.rpc.mutation("appealAssembly.create", {"caseId": case_id}).data
    with services.database.transaction() as db:
        db.execute(update(EvidenceDocument).where(EvidenceDocument.id == docs[1]["id"]).values(purged_at=utcnow()))
    assert _digest(services, member, packet["id"]) not in (None, packet["contentHash"])
    refused = member.rpc.query("appealAssembly.render", {"id": packet["id"]})
    assert refused.code == "PRECONDITION_FAILED" and "changed since it was assembled" in refused.error["message"]
    with pytest.raises(PreconditionFailed):
        _mark_submitted(services, member, packet["id"])


def test_a_letter_from_a_draft_follows_the_draft_and_an_edit_changes_the_digest(services, world):
    member, case_id, _ = world
    letter = "Dear reviewer,\nClaim CLM-1 was medically necessary; see the enclosed notes.\n"
    draft = member.rpc.mutation("drafts.create", {"caseId": case_id, "kind": "appeal_letter", "content": letter}).data
    packet = member.rpc.mutation("appealAssembly.create", {"caseId": case_id, "letterDraftId": draft["id"]}).data
    assert (packet["letterSource"], packet["letterDraftId"], packet["letterDraftVersion"]) == ("draft", draft["id"], 1)
    assert packet["letterText"] == letter
    assert _digest(services, member, packet["id"]) == packet["contentHash"]
    member.rpc.mutation("drafts.update", {"id": draft["id"], "content": letter + "Revised.\n"}).data
    assert _digest(services, member, packet["id"]) not in (None, packet["contentHash"])
    refused = member.rpc.query("appealAssembly.render", {"id": packet["id"]})
    assert refused.code == "PRECONDITION_FAILED" and "letter draft was edited" in refused.error["message"]


def test_a_letter_draft_must_be_an_appeal_letter_of_the_same_case(services, world):
    member, case_id, _ = world
    other_case = make_case(services, member.organization_id, member.client_id, **CASE_FACTS)
    elsewhere = member.rpc.mutation(
        "drafts.create", {"caseId": other_case, "kind": "appeal_letter", "content": "Another case's letter"}
    ).data
    note = member.rpc.mutation("drafts.create", {"caseId": case_id, "kind": "note", "content": "A note"}).data
    for draft_id, words in ((elsewhere["id"], "another case"), (note["id"], "not an appeal_letter")):
        refused = member.rpc.mutation("appealAssembly.create", {"caseId": case_id, "letterDraftId": draft_id})
        assert refused.code == "BAD_REQUEST" and words in refused.error["message"]
    both = member.rpc.mutation(
        "appealAssembly.create", {"caseId": case_id, "letterDraftId": note["id"], "letterText": "x"}
    )
    assert both.code == "BAD_REQUEST"
    unknown = member.rpc.mutation("appealAssembly.create", {"caseId": case_id, "letterDraftId": 987654321})
    assert unknown.code == "NOT_FOUND"
    assert _case(services, case_id)[0] == "open"  # nothing moved


@pytest.mark.parametrize("state", ["won", "closed", "written_off", "awaiting_payer"])
def test_a_case_that_cannot_take_a_packet_is_precondition_failed(services, make_member, state):
    member = make_member()
    case_id = make_case(services, member.organization_id, member.client_id, state=state)
    refused = member.rpc.mutation("appealAssembly.create", {"caseId": case_id})
    assert refused.code == "PRECONDITION_FAILED" and f"'{state}'" in refused.error["message"]


def test_bad_input_and_unknown_ids(services, world):
    member, case_id, docs = world
    assert member.rpc.mutation("appealAssembly.create", {"caseId": 987654321}).code == "NOT_FOUND"
    dup = member.rpc.mutation("appealAssembly.create", {"caseId": case_id, "documentIds": [docs[0]["id"]] * 2})
    assert dup.code == "BAD_REQUEST"
    assert member.rpc.mutation("appealAssembly.create", {"caseId": case_id, "level": "third"}).code == "BAD_REQUEST"
    unknown_doc = member.rpc.mutation("appealAssembly.create", {"caseId": case_id, "documentIds": [987654321]})
    assert unknown_doc.code == "NOT_FOUND"
    assert _case(services, case_id)[0] == "open"  # nothing moved
    assert member.rpc.query("appealAssembly.get", {"id": 987654321}).code == "NOT_FOUND"
    assert _event(member, 987654321, "acknowledged").code == "NOT_FOUND"
    assert _event(member, 1, "reopened").code == "BAD_REQUEST"


def test_another_tenant_sees_nothing_and_cannot_act(services, world, make_member):
    member, case_id, docs = world
    packet = member.rpc.mutation("appealAssembly.create", {"caseId": case_id}).data
    other = make_member()
    other_case = make_case(services, other.organization_id, other.client_id)
    for name, kind, payload in [
        ("appealAssembly.get", "query", {"id": packet["id"]}),
        ("appealAssembly.render", "query", {"id": packet["id"]}),
        ("appealAssembly.event", "mutation", {"packetId": packet["id"], "kind": "acknowledged"}),
        ("appealAssembly.create", "mutation", {"caseId": case_id}),
        ("appealAssembly.create", "mutation", {"caseId": other_case, "documentIds": [docs[0]["id"]]}),
    ]:
        result = getattr(other.rpc, kind)(name, payload)
        assert result.code == "NOT_FOUND", (name, result.body)
    assert collect_pages(other.rpc, "appealAssembly.list", {}) == []
    assert _digest(services, other, packet["id"]) is None
    assert member.rpc.query("appealAssembly.get", {"id": packet["id"]}).data["state"] == "assembled"
