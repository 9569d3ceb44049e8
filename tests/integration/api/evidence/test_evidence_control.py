"""evidenceControl.* over the wire, on SQLite and PostgreSQL: attach, list, get, redact, retention, purge,
refusals (nothing stored, the server keeps answering) and the functions the appeal assembler calls."""

from __future__ import annotations

import hashlib
import json
import stat
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from api.evidence.evidence_control import service
from api.evidence.evidence_control.models import EvidenceDocument
from api.evidence.evidence_control.store import store_for
from api.infra.db.base import utcnow
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs import queue
from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker
from api.platform.audit.models import AuditEvent
from tests.integration.api.evidence.conftest import attach_json, attach_multipart, make_case, make_claim, new_key
from tests.support import evidence_files as files
from tests.support.denial_case_rows import add_colleague

NOTE_LINES = (
    "Progress note - Patient: Jane Q. Doe",
    "DOB: 04/02/1961   SSN 123-45-6789",
    "Member ID: W987654321",
    "Chief complaint: chest pain. Assessment and plan: admit for observation.",
)


@pytest.fixture
def world(services, make_member):
    admin = make_member(role="admin")
    specialist = add_colleague(services, admin.rpc, admin, "specialist")
    key = new_key()
    claim_id = make_claim(services, admin.organization_id, admin.client_id, key, patient_ref="PAT-77821")
    case_id = make_case(
        services, admin.organization_id, admin.client_id, claim_key=key, denial_category="medical_necessity"
    )
    return admin, specialist, case_id, claim_id


def _stored_files(settings, client_id) -> list:
    root = settings.evidence_dir / f"c{client_id}"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_attach_a_pdf_and_a_png_then_list_and_get_the_redacted_text(services, world):
    admin, specialist, case_id, claim_id = world
    pdf = files.text_pdf(*NOTE_LINES)
    first = attach_multipart(
        specialist.rpc,
        pdf,
        "jane_doe_notes.pdf",
        "application/pdf",
        caseId=case_id,
        title="ED progress note",
        docType="clinical_notes",
        source="fax",
    ).data
    doc = first["document"]
    assert first["duplicate"] is False
    assert (doc["mediaType"], doc["pageCount"], doc["sizeBytes"]) == ("application/pdf", 1, len(pdf))
    assert doc["sha256"] == hashlib.sha256(pdf).hexdigest()
    assert (doc["caseId"], doc["claimId"], doc["docType"], doc["docTypeSource"], doc["source"]) == (
        case_id,
        claim_id,
        "clinical_notes",
        "given",
        "fax",
    )
    assert doc["status"] == "active" and doc["hasText"] and doc["uploadedByUserId"] == specialist.user_id
    text = doc["redactedText"]
    for phi in ("Jane", "Doe", "04/02/1961", "123-45-6789", "W987654321"):
        assert phi not in text
    assert "[NAME]" in text and "[DOB]" in text and "[SSN]" in text and "[MEMBER-ID]" in text
    assert "Chief complaint: chest pain" in text
    assert {(link["targetKind"], link["targetId"]) for link in doc["links"]} == {("case", case_id), ("claim", claim_id)}
    assert [r["version"] for r in doc["redactions"]] == [1]
    assert "originalName" not in doc and "originalText" not in doc

    png = files.png(4, 3)
    image = attach_json(
        specialist.rpc, png, "scan.png", claimId=claim_id, title="Insurance card", docType="insurance_card"
    ).data["document"]
    assert (image["mediaType"], image["pageCount"], image["imageWidth"], image["imageHeight"]) == ("image/png", 1, 4, 3)
    assert image["redactedText"] is None and image["hasText"] is False and image["caseId"] is None

    listed = specialist.rpc.query("evidenceControl.list", {}).data
    assert [d["id"] for d in listed["items"]] == [image["id"], doc["id"]]
    assert listed["items"][1]["preview"] == text[: service.PREVIEW_CHARS]
    assert "redactedText" not in listed["items"][1]
    assert [d["id"] for d in specialist.rpc.query("evidenceControl.list", {"caseId": case_id}).data["items"]] == [
        doc["id"]
    ]
    assert specialist.rpc.query("evidenceControl.get", {"id": doc["id"]}).data == doc

    stored = _stored_files(services.settings, admin.client_id)
    assert len(stored) == 2
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o400 for p in stored)


def test_the_detected_type_wins_over_the_name_and_declared_type(world):
    _, specialist, case_id, _ = world
    doc = attach_multipart(
        specialist.rpc,
        files.text_pdf("Medical policy LCD L1234"),
        "notes.txt",
        "text/plain",
        caseId=case_id,
        title="Policy",
    ).data
    assert doc["document"]["mediaType"] == "application/pdf"
    assert doc["document"]["docType"] == "payer_policy" and doc["document"]["docTypeSource"] == "inferred"
    word = attach_json(
        specialist.rpc,
        files.docx("Letter of medical necessity", "Sincerely"),
        "letter.pdf",
        caseId=case_id,
        title="Letter",
    ).data
    assert word["document"]["mediaType"].endswith("wordprocessingml.document")
    assert word["document"]["pageCount"] == 3 and word["document"]["docType"] == "physician_letter"


def test_the_same_content_on_the_same_case_is_the_same_document(services, world):
    admin, specialist, case_id, _ = world
    pdf = files.text_pdf("Authorization number 55")
    first = attach_json(specialist.rpc, pdf, "a.pdf", caseId=case_id, title="Auth").data
    again = attach_multipart(specialist.rpc, pdf, "b.pdf", caseId=case_id, title="Auth again").data
    assert again["duplicate"] is True and again["document"]["id"] == first["document"]["id"]
    assert len(_stored_files(services.settings, admin.client_id)) == 1


HOSTILE = [
    ("encrypted.pdf", files.encrypted_pdf, "encrypted PDF"),
    ("script.pdf", files.javascript_pdf, "active content"),
    ("attached.pdf", files.embedded_file_pdf, "active content"),
    ("launch.pdf", files.launch_open_action_pdf, "active content"),
    ("bomb.docx", lambda: files.zip_bomb(60 * 1_048_576), "decompression bomb"),
    ("macro.docx", files.macro_docx, "macros"),
    ("bundle.zip", lambda: files.zip_of({"a.txt": b"hello"}), "archive"),
    ("bundle.gz", lambda: __import__("gzip").compress(b"hello"), "archive"),
    ("setup.exe", lambda: b"MZ\x90\x00" + b"\x00" * 100, "program"),
    ("blob.bin", lambda: bytes(range(256)) * 8, "not a supported document type"),
]


@pytest.mark.parametrize(("name", "make", "words"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_refused_files_store_nothing_and_the_server_keeps_answering(services, world, name, make, words):
    admin, specialist, case_id, _ = world
    refused = attach_multipart(specialist.rpc, make(), name, caseId=case_id, title="Suspicious")
    assert refused.code == "BAD_REQUEST" and refused.status == 400, refused.body
    assert words in refused.error["message"]
    assert name not in refused.error["message"]
    assert specialist.rpc.query("evidenceControl.list", {}).data["items"] == []
    assert _stored_files(services.settings, admin.client_id) == []
    assert specialist.rpc.query("system.ping").status == 200
    ok = attach_json(specialist.rpc, b"plain note after a refusal", "after.txt", caseId=case_id, title="After")
    assert ok.data["document"]["mediaType"] == "text/plain"


def test_an_oversize_file_is_payload_too_large(services, world):
    admin, specialist, case_id, _ = world
    big = b"a" * (services.settings.evidence_max_bytes + 1)
    refused = attach_multipart(specialist.rpc, big, "big.txt", caseId=case_id, title="Big")
    assert refused.code == "PAYLOAD_TOO_LARGE" and refused.status == 413
    assert _stored_files(services.settings, admin.client_id) == []
    assert specialist.rpc.query("evidenceControl.list", {}).data["items"] == []


def test_bad_targets(world, services, make_member):
    admin, specialist, case_id, claim_id = world
    pdf = files.text_pdf("x")
    assert attach_json(specialist.rpc, pdf, "x.pdf", title="No target").code == "BAD_REQUEST"
    assert attach_json(specialist.rpc, pdf, "x.pdf", caseId=10**9, title="t").code == "NOT_FOUND"
    other_claim = make_claim(services, admin.organization_id, admin.client_id, new_key())
    mismatch = attach_json(specialist.rpc, pdf, "x.pdf", caseId=case_id, claimId=other_claim, title="t")
    assert mismatch.code == "BAD_REQUEST" and "not the claim of case" in mismatch.error["message"]
    both = attach_json(specialist.rpc, pdf, "x.pdf", caseId=case_id, claimId=claim_id, title="t").data["document"]
    assert (both["caseId"], both["claimId"]) == (case_id, claim_id)
    auditor = add_colleague(services, admin.rpc, admin, "auditor")
    assert attach_json(auditor.rpc, pdf, "x.pdf", caseId=case_id, title="t").code == "FORBIDDEN"
    assert auditor.rpc.query("evidenceControl.get", {"id": both["id"]}).status == 200


def test_another_organization_cannot_see_attach_or_link_this_tenant_s_evidence(services, world, make_member):
    _admin, specialist, case_id, claim_id = world
    doc = attach_json(specialist.rpc, files.text_pdf(*NOTE_LINES), "n.pdf", caseId=case_id, title="Notes").data[
        "document"
    ]
    intruder = make_member(role="admin")
    their_case = make_case(services, intruder.organization_id, intruder.client_id)
    their_doc = attach_json(intruder.rpc, b"their own note", "t.txt", caseId=their_case, title="Theirs").data[
        "document"
    ]
    pdf = files.text_pdf("x")
    calls = [
        intruder.rpc.query("evidenceControl.get", {"id": doc["id"]}),
        attach_json(intruder.rpc, pdf, "x.pdf", caseId=case_id, title="t"),
        attach_json(intruder.rpc, pdf, "x.pdf", claimId=claim_id, title="t"),
        intruder.rpc.mutation("evidenceControl.redact", {"id": doc["id"], "terms": ["x1"]}),
        intruder.rpc.mutation(
            "evidenceGraph.link", {"documentId": doc["id"], "targetKind": "case", "targetId": their_case}
        ),
        intruder.rpc.mutation(
            "evidenceGraph.link", {"documentId": their_doc["id"], "targetKind": "case", "targetId": case_id}
        ),
        intruder.rpc.mutation(
            "evidenceGraph.link", {"documentId": their_doc["id"], "targetKind": "claim", "targetId": claim_id}
        ),
        intruder.rpc.query("evidenceGraph.neighbours", {"kind": "document", "id": doc["id"]}),
        intruder.rpc.query("evidenceGraph.neighbours", {"kind": "case", "id": case_id}),
        intruder.rpc.query(
            "evidenceGraph.path",
            {"from": {"kind": "document", "id": their_doc["id"]}, "to": {"kind": "document", "id": doc["id"]}},
        ),
        intruder.rpc.query("evidenceQuality.score", {"caseId": case_id}),
        intruder.rpc.query("evidenceQuality.gaps", {"caseId": case_id}),
    ]
    assert [c.code for c in calls] == ["NOT_FOUND"] * len(calls)
    assert [i["id"] for i in intruder.rpc.query("evidenceControl.list", {}).data["items"]] == [their_doc["id"]]
    # the owner's document is untouched: one version, its own links only
    again = specialist.rpc.query("evidenceControl.get", {"id": doc["id"]}).data
    assert again["redactionVersion"] == 1 and {link["targetKind"] for link in again["links"]} == {"case", "claim"}
    # an appeal-packet link from the other tenant does not show up here either
    intruder.rpc.mutation(
        "evidenceGraph.link", {"documentId": their_doc["id"], "targetKind": "appeal_packet", "targetId": 4242}
    )
    assert (
        specialist.rpc.query("evidenceGraph.neighbours", {"kind": "appeal_packet", "id": 4242}).data["neighbours"] == []
    )


def test_redact_again_with_more_terms_makes_a_new_version(services, world):
    _admin, specialist, case_id, _ = world
    doc = attach_json(
        specialist.rpc,
        b"Seen with her husband Robert Quill; call back at extension 4471.",
        "n.txt",
        caseId=case_id,
        title="Note",
    ).data["document"]
    assert "Robert Quill" in doc["redactedText"]
    again = specialist.rpc.mutation("evidenceControl.redact", {"id": doc["id"], "terms": ["Robert Quill"]}).data
    assert "Robert" not in again["redactedText"] and "Quill" not in again["redactedText"]
    assert again["redactionVersion"] == 2 and [r["version"] for r in again["redactions"]] == [1, 2]
    assert again["redactions"][1]["termCount"] == 1 and again["redactions"][1]["counts"] == {"name": 1}
    assert again["redactionCounts"]["name"] >= 1
    image = attach_json(specialist.rpc, files.png(), "p.png", caseId=case_id, title="Scan").data["document"]
    assert (
        specialist.rpc.mutation("evidenceControl.redact", {"id": image["id"], "terms": []}).code
        == "PRECONDITION_FAILED"
    )


def test_terms_sent_as_a_multipart_field(world):
    _, specialist, case_id, _ = world
    doc = attach_multipart(
        specialist.rpc,
        b"Visit by Harriet Vane, account AC-99812.",
        "n.txt",
        caseId=case_id,
        title="Visit",
        redactTerms=json.dumps(["Harriet Vane", "AC-99812"]),
    ).data["document"]
    assert doc["redactedText"] == "Visit by [NAME], account [MEMBER-ID]."
    lines = attach_multipart(
        specialist.rpc, b"Peter Wimsey called.", "m.txt", caseId=case_id, title="Call", redactTerms="Peter Wimsey\nX-1"
    ).data["document"]
    assert lines["redactedText"] == "[NAME] called."


def test_retention_is_managed_by_admins_and_purge_leaves_tombstones(services, world):
    admin, specialist, case_id, _ = world
    assert specialist.rpc.query("evidenceControl.retention").data == {
        "years": 7,
        "isDefault": True,
        "updatedAt": None,
        "updatedByUserId": None,
    }
    assert specialist.rpc.mutation("evidenceControl.setRetention", {"years": 1}).code == "FORBIDDEN"
    assert admin.rpc.mutation("evidenceControl.setRetention", {"years": 0}).code == "BAD_REQUEST"
    policy = admin.rpc.mutation("evidenceControl.setRetention", {"years": 1}).data
    assert policy["years"] == 1 and not policy["isDefault"] and policy["updatedByUserId"] == admin.user_id

    old = attach_json(specialist.rpc, files.text_pdf(*NOTE_LINES), "old.pdf", caseId=case_id, title="Old").data[
        "document"
    ]
    shared = files.text_pdf("shared bytes")
    old_shared = attach_json(specialist.rpc, shared, "s.pdf", caseId=case_id, title="Old shared").data["document"]
    young = attach_json(specialist.rpc, b"recent note", "new.txt", caseId=case_id, title="New").data["document"]
    claim_copy = make_claim(services, admin.organization_id, admin.client_id, new_key())
    young_shared = attach_json(specialist.rpc, shared, "s2.pdf", claimId=claim_copy, title="Young shared").data[
        "document"
    ]
    with services.database.transaction() as db:
        db.execute(
            update(EvidenceDocument)
            .where(EvidenceDocument.id.in_([old["id"], old_shared["id"]]))
            .values(created_at=utcnow() - timedelta(days=800))
        )
    store = store_for(services.settings, admin.client_id)
    assert store.exists(old["sha256"]) and store.exists(old_shared["sha256"])

    today = utcnow().date()
    future = admin.rpc.mutation("evidenceControl.purge", {"asOf": (today + timedelta(days=1)).isoformat()})
    assert future.code == "BAD_REQUEST"
    assert specialist.rpc.mutation("evidenceControl.purge", {"asOf": today.isoformat()}).code == "FORBIDDEN"
    purged = admin.rpc.mutation("evidenceControl.purge", {"asOf": today.isoformat()}).data
    assert purged["retentionYears"] == 1
    assert [(t["id"], t["sha256"], t["purgeReason"]) for t in purged["purged"]] == [
        (old["id"], old["sha256"], "retention period elapsed"),
        (old_shared["id"], old_shared["sha256"], "retention period elapsed"),
    ]
    assert not store.exists(old["sha256"])
    assert store.exists(shared_sha := young_shared["sha256"]) and shared_sha == old_shared["sha256"]
    assert store.exists(young["sha256"])

    tomb = specialist.rpc.query("evidenceControl.get", {"id": old["id"]}).data
    assert (tomb["status"], tomb["redactedText"], tomb["preview"], tomb["hasText"]) == ("purged", None, None, False)
    assert tomb["purgedAt"] and tomb["sha256"] == old["sha256"] and tomb["expiresOn"] is None
    statuses = {d["id"]: d["status"] for d in specialist.rpc.query("evidenceControl.list", {}).data["items"]}
    assert statuses[old["id"]] == "purged" and statuses[young["id"]] == "active"
    purged_only = specialist.rpc.query("evidenceControl.list", {"status": "purged"}).data["items"]
    assert {d["id"] for d in purged_only} == {old["id"], old_shared["id"]}
    relink = specialist.rpc.mutation(
        "evidenceGraph.link", {"documentId": old["id"], "targetKind": "appeal_packet", "targetId": 1}
    )
    assert relink.code == "PRECONDITION_FAILED"
    assert admin.rpc.mutation("evidenceControl.purge", {"asOf": today.isoformat()}).data["purged"] == []
    with services.database.transaction() as db:
        row = db.scalar(select(EvidenceDocument).where(EvidenceDocument.id == old["id"]))
        assert row.original_name is None and row.redacted_text is None
        events = db.scalars(
            select(AuditEvent).where(
                AuditEvent.procedure == "evidenceControl.purge", AuditEvent.client_id == admin.client_id
            )
        ).all()
        assert [(e.target_type, e.target_id) for e in events] == [("evidence_purge", str(admin.client_id))] * 2
        assert events[0].after_digest is not None


def test_functions_the_appeal_assembler_calls(services, world):
    admin, specialist, case_id, claim_id = world
    pdf = files.text_pdf("Clinical notes")
    first = attach_json(specialist.rpc, pdf, "a.pdf", caseId=case_id, title="A").data["document"]
    on_claim = attach_json(specialist.rpc, b"claim-only note", "b.txt", claimId=claim_id, title="B").data["document"]
    with services.database.transaction() as db:
        set_scope(db, TenantScope(admin.organization_id, admin.client_id))
        assert [d.id for d in service.documents_for_case(db, case_id)] == [first["id"]]
        service.link_document(db, on_claim["id"], "case", case_id)
        service.link_document(db, on_claim["id"], "case", case_id)  # idempotent
        service.link_document(db, on_claim["id"], "appeal_packet", 77)
        docs = service.documents_for_case(db, case_id)
        assert [d.id for d in docs] == [first["id"], on_claim["id"]]
        assert service.read_original(services.settings, docs[0]) == pdf
        assert service.read_original(services.settings, docs[1]) == b"claim-only note"
        for name in (
            "id",
            "case_id",
            "claim_id",
            "title",
            "doc_type",
            "media_type",
            "sha256",
            "size_bytes",
            "page_count",
            "redacted_text",
            "original_name",
            "uploaded_by_user_id",
            "created_at",
            "purged_at",
        ):
            assert hasattr(docs[0], name)
        assert docs[0].original_name == "a.pdf"
    links = specialist.rpc.query("evidenceControl.get", {"id": on_claim["id"]}).data["links"]
    assert [(link["targetKind"], link["targetId"]) for link in links] == [
        ("claim", claim_id),
        ("case", case_id),
        ("appeal_packet", 77),
    ]


def test_the_daily_sweep_purges_expired_documents_of_every_tenant_with_an_audited_tombstone(
    services, world, make_member
):
    admin, specialist, case_id, _ = world
    other = make_member(role="admin")
    other_case = make_case(services, other.organization_id, other.client_id, claim_key=new_key())
    old = attach_json(specialist.rpc, files.text_pdf(*NOTE_LINES), "old.pdf", caseId=case_id, title="Old").data
    young = attach_json(specialist.rpc, b"recent note", "new.txt", caseId=case_id, title="New").data
    other_old = attach_json(other.rpc, b"another hospital's note", "o.txt", caseId=other_case, title="Old").data
    expired = [old["document"]["id"], other_old["document"]["id"]]
    with services.database.transaction() as db:
        # past the default 7 years: 7 * 366 days covers any leap years on the way
        db.execute(
            update(EvidenceDocument)
            .where(EvidenceDocument.id.in_(expired))
            .values(created_at=utcnow() - timedelta(days=7 * 366 + 1))
        )
        job_id = queue.enqueue(db, service.PURGE_JOB_KIND, {"today": utcnow().date().isoformat()}).id
    # Without the audit sink the sweep refuses to run: a purge nobody can audit does not happen.
    bare = Worker(services.database, kinds=[service.PURGE_JOB_KIND], worker_id="purge-test-bare")
    assert bare.run_once()
    with services.database.transaction() as db:
        assert db.get(Job, job_id).status == "dead"
        job_id = queue.enqueue(db, service.PURGE_JOB_KIND, {"today": utcnow().date().isoformat()}).id
    worker = Worker(
        services.database,
        kinds=[service.PURGE_JOB_KIND],
        worker_id="purge-test",
        audit=services.audit,
        settings=services.settings,
    )
    assert worker.run_once()
    with services.database.transaction() as db:
        job = db.get(Job, job_id)
        # the database is shared with other tests: their tenants may be swept too, never fewer than ours
        assert job.status == "succeeded" and job.result["purged"] >= 2 and job.result["tenants"] >= 2
        states = {d.id: d.purged_at is not None for d in db.scalars(select(EvidenceDocument))}
        assert states[expired[0]] and states[expired[1]] and not states[young["document"]["id"]]
        ours = (admin.client_id, other.client_id)
        events = db.scalars(
            select(AuditEvent).where(AuditEvent.procedure == service.PURGE_JOB_KIND, AuditEvent.client_id.in_(ours))
        ).all()
        assert sorted((e.organization_id, e.client_id, e.actor_kind) for e in events) == sorted(
            [(admin.organization_id, admin.client_id, "system"), (other.organization_id, other.client_id, "system")]
        )
        assert not any("Jane" in repr(e.__dict__) or "old.pdf" in repr(e.__dict__) for e in events)
    assert not store_for(services.settings, admin.client_id).exists(old["document"]["sha256"])
    tomb = specialist.rpc.query("evidenceControl.get", {"id": expired[0]}).data
    assert tomb["status"] == "purged"
