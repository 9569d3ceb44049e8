"""Attaching, reading, redacting and purging evidence documents. Never commits; never logs, and never
puts a document's text, file name or redaction terms in a message.

Attaching and redacting again are two steps (issue 23): `prepare_attach` / `prepare_redaction` run in
the procedure's prepare phase (a read session, no write lock) and do the heavy work - detection,
extraction, redaction - in a child process capped in memory and CPU time (`reading.py` through
`api.infra.capped.run_capped`); `attach` / `apply_redaction` then run in the write transaction, re-read
what the prepared work depended on and answer CONFLICT when it changed meanwhile.

Functions other namespaces call (the appeal packet assembler):

- `documents_for_case(db, case_id)`: the case's active documents, in attach order;
- `read_original(settings, doc)`: the stored bytes of a document (verified against its SHA-256);
- `link_document(db, document_id, target_kind, target_id)`: link a document to a case, a claim or
  an appeal packet (idempotent).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, TypeAlias

from sqlalchemy import Select, event, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput, PreconditionFailed
from api.core.settings import Settings
from api.denials.cases import service as cases
from api.denials.claims import service as claims
from api.evidence.evidence_control import retention
from api.evidence.evidence_control.models import (
    LINK_TARGETS,
    EvidenceDocument,
    EvidenceLink,
    EvidenceRedaction,
    EvidenceRetention,
)
from api.evidence.evidence_control.store import store_for
from api.infra.capped import CappedWorkFailed, run_capped
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.infra.jobs.models import Job
from api.infra.jobs.queue import enqueue
from api.rpc.uploads import UploadedFile

PREVIEW_CHARS = 280


READ_DOCUMENT = "api.evidence.evidence_control.reading:read_document"
REDACT_TEXT = "api.evidence.evidence_control.reading:redact_text"


def reading_limits(settings: Settings) -> dict[str, int]:
    """The caps on reading one document, as the child takes them (`reading.limits_from`)."""
    return {
        "max_uncompressed_bytes": settings.evidence_max_uncompressed_bytes,
        "max_archive_entries": settings.evidence_max_archive_entries,
        "max_pdf_pages": settings.evidence_max_pdf_pages,
        "max_text_chars": settings.evidence_max_text_chars,
        "max_docx_elements": settings.evidence_max_docx_elements,
    }


def _capped(settings: Settings, target: str, payload: bytes, params: dict[str, Any], what: str) -> dict[str, Any]:
    """`target` run in the capped child; a child that ran out of memory or time, or failed, is a
    refusal of `what` naming the cap to change or what to do."""
    try:
        result: dict[str, Any] = run_capped(
            target,
            payload,
            params,
            memory_bytes=settings.evidence_memory_limit_bytes,
            cpu_seconds=settings.evidence_cpu_seconds,
        )
    except CappedWorkFailed as failed:
        raise InvalidInput(_failure_message(settings, failed.reason, what)) from None
    return result


def _failure_message(settings: Settings, reason: str, what: str) -> str:
    if reason == "memory":
        mib = settings.evidence_memory_limit_bytes // 1_048_576
        return (
            f"Invalid input: {what} needs more than {mib:,} MiB of memory to read "
            "(EVIDENCE_MEMORY_LIMIT_BYTES); save or print it again as PDF, or split it and attach the parts"
        )
    if reason == "time":
        return (
            f"Invalid input: {what} takes more than {settings.evidence_cpu_seconds:,} s of processing to read "
            "(EVIDENCE_CPU_SECONDS); save or print it again as PDF, or split it and attach the parts"
        )
    return f"Invalid input: {what} could not be read; save or print it again as PDF and attach that"


@dataclass(frozen=True)
class Content:
    """An attached file as received: its bytes, the spool file they came in (if any) and the name."""

    data: bytes
    spooled: UploadedFile | None
    original_name: str | None


def resolve_content(
    file: UploadedFile | None, content_base64: str | None, filename: str | None, max_bytes: int
) -> Content:
    """The file from whichever transport the caller used; exactly one must be given."""
    if (file is None) == (content_base64 is None):
        raise InvalidInput("Send exactly one of: a file part or 'contentBase64'")
    if file is not None:
        if file.size > max_bytes:
            raise InvalidInput(f"Invalid input: 'file' is larger than {max_bytes} bytes")
        return Content(file.read_bytes(), file, filename or file.filename)
    try:
        data = base64.b64decode(content_base64 or "", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("Invalid input: 'contentBase64' is not valid base64") from None
    if len(data) > max_bytes:
        raise InvalidInput(f"Invalid input: 'contentBase64' holds more than {max_bytes} bytes")
    return Content(data, None, filename)


# --- targets ---------------------------------------------------------------------------------------------


def _targets(
    db: Session, case_id: int | None, claim_id: int | None
) -> tuple[cases.Case | None, claims.ClaimRow | None]:
    """The case and claim a document is for: the claim of a case is found by its claim key."""
    if case_id is None and claim_id is None:
        raise InvalidInput("Invalid input: give 'caseId' or 'claimId' (or both)")
    case = cases.get_case(db, case_id) if case_id is not None else None
    claim = claims.get_claim(db, claim_id) if claim_id is not None else None
    if case is not None and claim is not None and case.claim_key != claim.claim_key:
        raise InvalidInput(f"Invalid input: claim {claim.id} is not the claim of case {case.id}")
    if case is not None and claim is None:
        claim = claims.claim_with_key(db, case.claim_key)
    return case, claim


def known_identifiers(case: cases.Case | None, claim: claims.ClaimRow | None) -> list[str]:
    """The account identifiers of the linked records, redacted from the text like caller terms."""
    values = [
        case.claim_key if case else None,
        case.payer_claim_number if case else None,
        claim.claim_key if claim else None,
        claim.patient_ref if claim else None,
    ]
    return sorted({v for v in values if v})


def _identifiers_of(db: Session, doc: EvidenceDocument) -> list[str]:
    case = cases.find_case(db, doc.case_id) if doc.case_id else None
    claim = claims.find_claim(db, doc.claim_id) if doc.claim_id else None
    return known_identifiers(case, claim)


# --- attach ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttachRequest:
    case_id: int | None
    claim_id: int | None
    title: str
    doc_type: str | None
    source: str
    terms: Sequence[str]
    user_id: int


@dataclass(frozen=True)
class PreparedAttach:
    """A file read in the prepare phase: its content, what the child made of it, and the linked
    records' identifiers its text and title were redacted with (re-checked in the write step)."""

    content: Content
    sha256: str
    identifiers: tuple[str, ...]
    read: dict[str, Any]


def prepare_attach(db: Session, settings: Settings, content: Content, request: AttachRequest) -> PreparedAttach:
    """Check, read and redact a file outside the write transaction (a read session; the heavy work in
    the capped child). A refused file is refused here, before anything is stored or locked."""
    case, claim = _targets(db, request.case_id, request.claim_id)
    identifiers = tuple(known_identifiers(case, claim))
    params = {
        "limits": reading_limits(settings),
        "terms": [*request.terms, *identifiers],
        "title": request.title,
    }
    read = _capped(settings, READ_DOCUMENT, content.data, params, "'file'")
    sha256 = content.spooled.sha256 if content.spooled else hashlib.sha256(content.data).hexdigest()
    return PreparedAttach(content, sha256, identifiers, read)


def attach(
    db: Session, settings: Settings, prepared: PreparedAttach, request: AttachRequest
) -> tuple[EvidenceDocument, bool]:
    """Store a document read by `prepare_attach` for a case and/or claim; (document, duplicate).

    The targets are resolved again in the write transaction: when their identifiers changed since the
    file was read (its redaction used the old ones) the answer is CONFLICT. The same content attached
    again to the same case and claim answers the existing document."""
    case, claim = _targets(db, request.case_id, request.claim_id)
    if tuple(known_identifiers(case, claim)) != prepared.identifiers:
        raise Conflict("The case or claim changed while the file was read; attach it again")
    existing = db.scalar(
        select(EvidenceDocument).where(
            EvidenceDocument.sha256 == prepared.sha256,
            EvidenceDocument.purged_at.is_(None),
            _same(EvidenceDocument.case_id, case.id if case else None),
            _same(EvidenceDocument.claim_id, claim.id if claim else None),
        )
    )
    if existing is not None:
        return existing, True
    content = prepared.content
    doc = _new_document(prepared, request, len(content.data))
    doc.case_id = case.id if case else None
    doc.claim_id = claim.id if claim else None
    doc.original_name = content.original_name[:255] if content.original_name else None
    store = store_for(settings, db_client_id(db, case, claim))
    if content.spooled is not None:
        store.store_file(content.spooled.path, prepared.sha256, content.spooled.size)
    else:
        store.store(content.data)
    db.add(doc)
    db.flush()
    _record_redaction(db, doc, len(request.terms), request.user_id)
    for kind, target in (("case", case), ("claim", claim)):
        if target is not None:
            link_document(db, doc.id, kind, target.id)
    return doc, False


def _same(column: Any, value: int | None) -> Any:
    return column.is_(None) if value is None else column == value


def db_client_id(db: Session, case: cases.Case | None, claim: claims.ClaimRow | None) -> int:
    """The client a new document belongs to: the one of the record it is attached to (the tenant's)."""
    owner = case if case is not None else claim
    assert owner is not None  # _targets requires one
    return owner.client_id


def _new_document(prepared: PreparedAttach, request: AttachRequest, size: int) -> EvidenceDocument:
    read = prepared.read
    given = request.doc_type is not None
    return EvidenceDocument(
        title=read["title"],
        doc_type=request.doc_type if given else read["doc_type_guess"],
        doc_type_source="given" if given else "inferred",
        source=request.source,
        media_type=read["media_type"],
        sha256=prepared.sha256,
        size_bytes=size,
        page_count=read["page_count"],
        image_width=read["width"],
        image_height=read["height"],
        text_chars=read["text_chars"],
        redacted_text=read["redacted_text"],
        redaction_version=1,
        redaction_counts=read["redaction_counts"],
        uploaded_by_user_id=request.user_id,
    )


def _record_redaction(db: Session, doc: EvidenceDocument, term_count: int, user_id: int | None) -> None:
    db.add(
        EvidenceRedaction(
            document_id=doc.id,
            version=doc.redaction_version,
            counts=dict(doc.redaction_counts),
            term_count=term_count,
            created_by_user_id=user_id,
        )
    )
    db.flush()


def audit_view(doc: EvidenceDocument) -> dict[str, Any]:
    """What the audit log may digest about a document: identity, sizes and types; never its text,
    title or file name."""
    return {
        "id": doc.id,
        "case_id": doc.case_id,
        "claim_id": doc.claim_id,
        "sha256": doc.sha256,
        "size_bytes": doc.size_bytes,
        "media_type": doc.media_type,
        "doc_type": doc.doc_type,
        "page_count": doc.page_count,
        "redaction_version": doc.redaction_version,
        "purged_at": doc.purged_at.isoformat() if doc.purged_at else None,
    }


# --- reading ---------------------------------------------------------------------------------------------


def get(db: Session, document_id: int) -> EvidenceDocument:
    return get_by_id(db, EvidenceDocument, document_id, "Document")


def list_statement(case_id: int | None, claim_id: int | None, doc_type: str | None, status: str | None) -> Select[Any]:
    stmt = where_given(
        select(EvidenceDocument),
        (EvidenceDocument.case_id, case_id),
        (EvidenceDocument.claim_id, claim_id),
        (EvidenceDocument.doc_type, doc_type),
    )
    if status == "active":
        stmt = stmt.where(EvidenceDocument.purged_at.is_(None))
    elif status == "purged":
        stmt = stmt.where(EvidenceDocument.purged_at.is_not(None))
    return stmt


def links_of(db: Session, document_id: int) -> list[EvidenceLink]:
    return list(
        db.scalars(select(EvidenceLink).where(EvidenceLink.document_id == document_id).order_by(EvidenceLink.id))
    )


def redactions_of(db: Session, document_id: int) -> list[EvidenceRedaction]:
    return list(
        db.scalars(
            select(EvidenceRedaction)
            .where(EvidenceRedaction.document_id == document_id)
            .order_by(EvidenceRedaction.version)
        )
    )


def summary(doc: EvidenceDocument, years: int) -> dict[str, Any]:
    """The list view of a document (the redacted text's first characters only)."""
    text = doc.redacted_text
    return {
        "id": doc.id,
        "case_id": doc.case_id,
        "claim_id": doc.claim_id,
        "title": doc.title,
        "doc_type": doc.doc_type,
        "doc_type_source": doc.doc_type_source,
        "source": doc.source,
        "media_type": doc.media_type,
        "sha256": doc.sha256,
        "size_bytes": doc.size_bytes,
        "page_count": doc.page_count,
        "image_width": doc.image_width,
        "image_height": doc.image_height,
        "has_text": doc.text_chars > 0 and doc.purged_at is None,
        "redaction_version": doc.redaction_version,
        "status": "purged" if doc.purged_at else "active",
        "uploaded_by_user_id": doc.uploaded_by_user_id,
        "created_at": doc.created_at,
        "expires_on": None if doc.purged_at else retention.expires_on(doc.created_at.date(), years),
        "purged_at": doc.purged_at,
        "purge_reason": doc.purge_reason,
        "preview": text[:PREVIEW_CHARS] if text else None,
    }


def detail(db: Session, doc: EvidenceDocument, years: int) -> dict[str, Any]:
    return {
        **summary(doc, years),
        "redacted_text": doc.redacted_text,
        "redaction_counts": doc.redaction_counts,
        "links": links_of(db, doc.id),
        "redactions": redactions_of(db, doc.id),
    }


#: The document row the published functions answer: other contexts name it here, never through models.
Document: TypeAlias = EvidenceDocument


def cases_with_documents(db: Session, case_ids: Sequence[int], chunk: int = 500) -> set[int]:
    """Which of `case_ids` have an active (not purged) document attached to them (links not counted)."""
    ids = list(case_ids)
    found: set[int] = set()
    stmt = select(EvidenceDocument.case_id).where(EvidenceDocument.purged_at.is_(None))
    for start in range(0, len(ids), chunk):
        found.update(
            i for i in db.scalars(stmt.where(EvidenceDocument.case_id.in_(ids[start : start + chunk]))) if i is not None
        )
    return found


def documents_for_case(db: Session, case_id: int) -> list[EvidenceDocument]:
    """The active (not purged) documents attached or linked to the case, in attach order (id)."""
    linked = select(EvidenceLink.document_id).where(
        EvidenceLink.target_kind == "case", EvidenceLink.target_id == case_id
    )
    return list(
        db.scalars(
            select(EvidenceDocument)
            .where(
                EvidenceDocument.purged_at.is_(None),
                or_(EvidenceDocument.case_id == case_id, EvidenceDocument.id.in_(linked)),
            )
            .order_by(EvidenceDocument.id)
        )
    )


def read_original(settings: Settings, doc: EvidenceDocument) -> bytes:
    """The document's stored bytes, verified against its SHA-256. `doc` must have been read through the
    caller's tenant-scoped session (its client names the storage area). A purged document is
    PRECONDITION_FAILED."""
    if doc.purged_at is not None:
        raise PreconditionFailed(f"Document {doc.id} was purged; its content no longer exists")
    return store_for(settings, doc.client_id).read(doc.sha256)


# --- links -----------------------------------------------------------------------------------------------


def check_target(db: Session, target_kind: str, target_id: int) -> None:
    """A case or claim must exist in the caller's client; an appeal packet is the assembler's to check."""
    if target_kind not in LINK_TARGETS:
        raise InvalidInput(f"Invalid input: 'targetKind' must be one of {', '.join(LINK_TARGETS)}")
    if target_kind == "case":
        cases.get_case(db, target_id)
    elif target_kind == "claim":
        claims.get_claim(db, target_id)


def link_document(db: Session, document_id: int, target_kind: str, target_id: int) -> None:
    """Link a document of the caller's client to a case, a claim or an appeal packet. Idempotent: an
    existing link is left as it is. A missing document, case or claim is NOT_FOUND; a purged
    document is PRECONDITION_FAILED."""
    doc = get(db, document_id)
    if doc.purged_at is not None:
        raise PreconditionFailed(f"Document {doc.id} was purged; it cannot be linked")
    check_target(db, target_kind, target_id)
    exists = db.scalar(
        select(EvidenceLink.id).where(
            EvidenceLink.document_id == doc.id,
            EvidenceLink.target_kind == target_kind,
            EvidenceLink.target_id == target_id,
        )
    )
    if exists is not None:
        return
    try:
        with db.begin_nested():
            db.add(EvidenceLink(document_id=doc.id, target_kind=target_kind, target_id=target_id))
            db.flush()
    except IntegrityError:
        pass  # linked concurrently: the link exists, which is all this promises


# --- redaction -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreparedRedaction:
    """A document's text redacted again in the prepare phase, and the version and identifiers it was
    redacted from (re-checked in the write step)."""

    document_id: int
    version: int
    identifiers: tuple[str, ...]
    term_count: int
    result: dict[str, Any]


def _redactable(db: Session, document_id: int) -> EvidenceDocument:
    doc = get(db, document_id)
    if doc.purged_at is not None:
        raise PreconditionFailed(f"Document {doc.id} was purged; there is nothing to redact")
    if doc.redacted_text is None:
        raise PreconditionFailed(f"Document {doc.id} has no text to redact (an image or a PDF without a text layer)")
    return doc


def prepare_redaction(db: Session, settings: Settings, document_id: int, terms: Sequence[str]) -> PreparedRedaction:
    """Redact the document's text again with more terms (and the linked records' identifiers), in the
    capped child, outside the write transaction."""
    doc = _redactable(db, document_id)
    identifiers = tuple(_identifiers_of(db, doc))
    params = {"terms": [*terms, *identifiers], "title_terms": list(terms), "title": doc.title}
    assert doc.redacted_text is not None  # _redactable
    result = _capped(settings, REDACT_TEXT, doc.redacted_text.encode(), params, "the document's text")
    return PreparedRedaction(doc.id, doc.redaction_version, identifiers, len(terms), result)


def apply_redaction(db: Session, prepared: PreparedRedaction, user_id: int) -> EvidenceDocument:
    """Store a redaction made by `prepare_redaction` as a new version. Markers already placed stay; the
    original is untouched. Redacted again (or its records' identifiers changed) meanwhile: CONFLICT."""
    doc = _redactable(db, prepared.document_id)
    if doc.redaction_version != prepared.version or tuple(_identifiers_of(db, doc)) != prepared.identifiers:
        raise Conflict(f"Document {doc.id} changed while its text was redacted; redact it again")
    counts = dict(doc.redaction_counts)
    for kind, placed in prepared.result["counts"].items():
        counts[kind] = int(counts.get(kind, 0)) + placed
    doc.redacted_text = prepared.result["text"]
    doc.title = prepared.result["title"]
    doc.redaction_counts = counts
    doc.redaction_version += 1
    _record_redaction(db, doc, prepared.term_count, user_id)
    return doc


# --- retention -------------------------------------------------------------------------------------------


def retention_policy(db: Session) -> EvidenceRetention | None:
    return db.scalar(select(EvidenceRetention))


def retention_years(db: Session, settings: Settings) -> int:
    policy = retention_policy(db)
    return policy.years if policy is not None else settings.evidence_default_retention_years


def set_retention(db: Session, years: int, user_id: int) -> EvidenceRetention:
    if not retention.MIN_YEARS <= years <= retention.MAX_YEARS:
        raise InvalidInput(f"Invalid input: 'years' must be {retention.MIN_YEARS}-{retention.MAX_YEARS}")
    policy = retention_policy(db)
    if policy is None:
        policy = EvidenceRetention(years=years, updated_at=utcnow(), updated_by_user_id=user_id)
        db.add(policy)
    else:
        policy.years, policy.updated_at, policy.updated_by_user_id = years, utcnow(), user_id
    db.flush()
    return policy


def set_retention_years(db: Session, years: int, user_id: int) -> None:
    """`set_retention` without its answer (the services' `set_evidence_retention`, with which
    hospitalOnboarding sets a new client's retention)."""
    set_retention(db, years, user_id)


def purge(
    db: Session, settings: Settings, *, as_of: date, reason: str, user_id: int | None, today: date
) -> list[EvidenceDocument]:
    """Purge the client's documents whose retention ended on or before `as_of` (never a future day):
    their text and file name are cleared at once, and their bytes deleted once the transaction has
    committed (a rolled-back purge deletes nothing). Each row stays as the tombstone."""
    if as_of > today:
        raise InvalidInput("Invalid input: 'asOf' may not be in the future")
    years = retention_years(db, settings)
    active = list(
        db.scalars(select(EvidenceDocument).where(EvidenceDocument.purged_at.is_(None)).order_by(EvidenceDocument.id))
    )
    expired = [d for d in active if retention.is_expired(d.created_at.date(), years, as_of)]
    if not expired:
        return []
    now = utcnow()
    for doc in expired:
        doc.purged_at, doc.purge_reason, doc.purged_by_user_id = now, reason, user_id
        doc.redacted_text, doc.original_name, doc.text_chars = None, None, 0
    kept = {d.sha256 for d in active if d.purged_at is None}
    _delete_after_commit(db, settings, [(d.client_id, d.sha256) for d in expired if d.sha256 not in kept])
    db.flush()
    return expired


def _delete_after_commit(db: Session, settings: Settings, files: Iterable[tuple[int, str]]) -> None:
    pending = sorted(set(files))
    if not pending:
        return

    def delete(_session: Session) -> None:
        for client_id, sha256 in pending:
            store_for(settings, client_id).delete(sha256)

    event.listen(db, "after_commit", delete, once=True)


# --- the daily retention sweep ------------------------------------------------------------------------

PURGE_JOB_KIND = "evidence.purge"
PURGE_RUN_HOUR_UTC = 3  # after the deadline sweep, before a working day starts


def tombstones(purged: Sequence[EvidenceDocument]) -> list[dict[str, Any]]:
    """What a purge tells the audit and the caller of each purged document (never its text or name)."""
    return [{"id": d.id, "sha256": d.sha256, "purged_at": d.purged_at, "purge_reason": d.purge_reason} for d in purged]


def tenants_with_documents(db: Session) -> list[tuple[int, int]]:
    """(organization, client) of every tenant holding an active document; read without a tenant scope
    (the sweep runs for the platform), each tenant is then purged inside its own scope."""
    rows = db.execute(
        select(EvidenceDocument.organization_id, EvidenceDocument.client_id)
        .where(EvidenceDocument.purged_at.is_(None))
        .distinct()
        .order_by(EvidenceDocument.organization_id, EvidenceDocument.client_id)
    ).all()
    return [(int(org), int(client)) for org, client in rows]


def next_purge_run(now: datetime) -> datetime:
    """The next PURGE_RUN_HOUR_UTC strictly after `now`."""
    run = now.replace(hour=PURGE_RUN_HOUR_UTC, minute=0, second=0, microsecond=0)
    return run if run > now else run + timedelta(days=1)


def schedule_purge_run(db: Session, now: datetime) -> Job | None:
    """Queue the next daily retention sweep unless one is queued already; the job queues its successor."""
    if db.scalar(select(Job.id).where(Job.kind == PURGE_JOB_KIND, Job.status == "queued")) is not None:
        return None
    return enqueue(db, PURGE_JOB_KIND, {}, run_after=next_purge_run(now))
