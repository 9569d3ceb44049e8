"""PHI never leaves through the audit log, the logs or error messages (the attack: look everywhere)."""

from __future__ import annotations

import json
import logging

from sqlalchemy import select

from api.platform.audit.models import AuditEvent
from tests.integration.api.evidence.conftest import attach_json, attach_multipart, make_case, make_claim, new_key
from tests.support import evidence_files as files
from tests.support.denial_case_rows import add_colleague

NAME = "Philippa Grantchester"
SSN = "219-09-9999"
DOB = "03/14/1957"
MEMBER = "QZX48213377"
PHI = ("Philippa", "Grantchester", SSN, DOB, MEMBER, "1957-03-14")


def test_phi_is_in_no_audit_row_log_line_or_error(services, make_member, caplog):
    caplog.set_level(logging.DEBUG)
    admin = make_member(role="admin")
    specialist = add_colleague(services, admin.rpc, admin, "specialist")
    key = new_key()
    make_claim(services, admin.organization_id, admin.client_id, key)
    case_id = make_case(services, admin.organization_id, admin.client_id, claim_key=key)
    pdf = files.text_pdf(f"Patient: {NAME}", f"DOB {DOB}  SSN {SSN}", f"Member ID: {MEMBER}", "Discharge summary")
    filename = f"{NAME.replace(' ', '_')}_{MEMBER}_{SSN}.pdf"

    doc = attach_multipart(
        specialist.rpc,
        pdf,
        filename,
        caseId=case_id,
        title=f"Discharge summary for {NAME}",
        redactTerms=json.dumps([NAME, MEMBER, "1957-03-14"]),
    ).data["document"]
    answers = [json.dumps(doc)]
    answers.append(
        json.dumps(attach_json(specialist.rpc, pdf, filename, caseId=case_id, title=NAME, redactTerms=[NAME]).body)
    )
    answers.append(
        json.dumps(specialist.rpc.mutation("evidenceControl.redact", {"id": doc["id"], "terms": [NAME, SSN]}).body)
    )
    answers.append(json.dumps(specialist.rpc.query("evidenceControl.get", {"id": doc["id"]}).body))
    answers.append(json.dumps(specialist.rpc.query("evidenceControl.list", {}).body))
    # refusals and bad input: the message never carries the name, terms or content
    answers.append(
        json.dumps(
            attach_multipart(specialist.rpc, files.encrypted_pdf(pdf), filename, caseId=case_id, title=NAME).body
        )
    )
    answers.append(
        json.dumps(attach_json(specialist.rpc, pdf, filename, caseId=10**9, title=NAME, redactTerms=[NAME]).body)
    )
    answers.append(
        json.dumps(attach_json(specialist.rpc, pdf, filename, caseId=case_id, title="x", redactTerms=[NAME * 20]).body)
    )
    answers.append(json.dumps(specialist.rpc.mutation("evidenceControl.redact", {"id": 10**9, "terms": [NAME]}).body))
    answers.append(
        json.dumps(
            attach_json(
                specialist.rpc, f"{NAME} {SSN}".encode() + b"\x00" * 50, filename, caseId=case_id, title="t"
            ).body
        )
    )

    assert doc["title"] == "Discharge summary for [NAME]"
    with services.database.transaction() as db:
        rows = db.scalars(select(AuditEvent).where(AuditEvent.organization_id == admin.organization_id)).all()
        audited = " ".join(
            json.dumps({c.name: str(getattr(r, c.name)) for c in AuditEvent.__table__.columns}) for r in rows
        )
    assert any(r.procedure == "evidenceControl.attach" and r.target_id == str(doc["id"]) for r in rows)
    logged = caplog.text + " ".join(str(r.args) for r in caplog.records)
    for secret in PHI:
        assert secret not in audited, secret
        assert secret not in logged, secret
        assert all(secret not in answer for answer in answers), secret
