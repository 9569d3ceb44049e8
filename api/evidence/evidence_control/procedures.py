"""evidenceControl.*: documents attached to cases and claims, their redaction and retention."""

from __future__ import annotations

from typing import Any

from api.evidence.evidence_control import service
from api.evidence.evidence_control.models import EvidenceDocument
from api.evidence.evidence_control.schemas import (
    AttachIn,
    AttachOut,
    DocumentOut,
    DocumentRef,
    DocumentSummaryOut,
    ListDocumentsIn,
    PurgeIn,
    PurgeOut,
    RedactIn,
    RetentionOut,
    SetRetentionIn,
)
from api.infra.db.base import utcnow
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("evidenceControl")


def _request(ctx: Context, input: AttachIn) -> service.AttachRequest:
    return service.AttachRequest(
        case_id=input.case_id,
        claim_id=input.claim_id,
        title=input.title,
        doc_type=input.doc_type,
        source=input.source,
        terms=[t.get_secret_value() for t in input.redact_terms],
        user_id=ctx.user_id,
    )


def _read_file(ctx: Context, input: AttachIn) -> service.PreparedAttach:
    """The prepare step of attach: the file checked, read and redacted without the write lock."""
    settings = ctx.services.settings
    content = service.resolve_content(
        input.file,
        input.content_base64.get_secret_value() if input.content_base64 else None,
        input.filename.get_secret_value() if input.filename else None,
        settings.evidence_max_bytes,
    )
    return service.prepare_attach(ctx.db, settings, content, _request(ctx, input))


@router.mutation("attach", accepts_files=True, max_body_setting="evidence_max_bytes", prepare=_read_file)
def attach(ctx: Context, input: AttachIn, prepared: service.PreparedAttach) -> AttachOut:
    """Attach a document (PDF, PNG, JPEG, TIFF, DOCX or plain text, at most EVIDENCE_MAX_BYTES per request)
    to a case and/or a claim of the selected client, as multipart/octet-stream or JSON (`contentBase64`).
    The type is detected from the content, never the name. Programs, archives, encrypted or
    active-content PDFs, DOCX with macros or external links, text holding a PDF or a script, zip-bomb
    shapes, and documents over a reading cap (EVIDENCE_MAX_PDF_PAGES, EVIDENCE_MAX_TEXT_CHARS,
    EVIDENCE_MAX_DOCX_ELEMENTS, or the reader's EVIDENCE_MEMORY_LIMIT_BYTES / EVIDENCE_CPU_SECONDS) are
    BAD_REQUEST naming the cap, and nothing is stored. The file is read before the write transaction,
    in a capped child process. The text (PDF text layer, DOCX, plain text) is kept only redacted: PHI
    patterns, `redactTerms` and the linked claim's identifiers become typed markers. The same content
    on the same case/claim answers the existing document (`duplicate`); a case or claim whose
    identifiers changed while the file was read is CONFLICT. The audit log gets the document's id,
    SHA-256, size and types only."""
    doc, duplicate = service.attach(ctx.db, ctx.services.settings, prepared, _request(ctx, input))
    ctx.note("evidence_document", doc.id, after=service.audit_view(doc))
    return AttachOut(document=_detail(ctx, doc), duplicate=duplicate)


def _years(ctx: Context) -> int:
    return service.retention_years(ctx.db, ctx.services.settings)


def _detail(ctx: Context, doc: EvidenceDocument) -> DocumentOut:
    return DocumentOut.model_validate(service.detail(ctx.db, doc, _years(ctx)))


@router.query("list")
def list_documents(ctx: Context, input: ListDocumentsIn) -> Page[DocumentSummaryOut]:
    """Documents of the selected client, newest first, with a preview of their redacted text; purged
    ones are tombstones (`status: purged`). Filter by case, claim, type and status."""
    years = _years(ctx)
    stmt = service.list_statement(input.case_id, input.claim_id, input.doc_type, input.status)

    def item(doc: Any) -> DocumentSummaryOut:
        return DocumentSummaryOut.model_validate(service.summary(doc, years))

    return paginate(ctx.db, stmt, EvidenceDocument.id, input, item)


@router.query("get")
def get(ctx: Context, input: DocumentRef) -> DocumentOut:
    """One document with its redacted text, links and redaction versions (never the original)."""
    return _detail(ctx, service.get(ctx.db, input.id))


def _redact_text(ctx: Context, input: RedactIn) -> service.PreparedRedaction:
    """The prepare step of redact: the text redacted again without the write lock."""
    terms = [t.get_secret_value() for t in input.terms]
    return service.prepare_redaction(ctx.db, ctx.services.settings, input.id, terms)


@router.mutation("redact", prepare=_redact_text)
def redact(ctx: Context, input: RedactIn, prepared: service.PreparedRedaction) -> DocumentOut:
    """Redact a document's text again with more terms: a new redaction version (the terms are never
    stored, logged or audited). The text is redacted before the write transaction, in a capped child
    process. A purged document or one without text is PRECONDITION_FAILED; one redacted again (or
    whose case or claim identifiers changed) meanwhile is CONFLICT."""
    doc = service.apply_redaction(ctx.db, prepared, ctx.user_id)
    ctx.note("evidence_document", doc.id, after=service.audit_view(doc))
    return _detail(ctx, doc)


@router.query("retention")
def retention(ctx: Context) -> RetentionOut:
    """How many years the selected client keeps its documents (the default unless set)."""
    policy = service.retention_policy(ctx.db)
    if policy is None:
        return RetentionOut(
            years=ctx.services.settings.evidence_default_retention_years,
            is_default=True,
            updated_at=None,
            updated_by_user_id=None,
        )
    return RetentionOut(
        years=policy.years, is_default=False, updated_at=policy.updated_at, updated_by_user_id=policy.updated_by_user_id
    )


@router.mutation("setRetention", permission="manage")
def set_retention(ctx: Context, input: SetRetentionIn) -> RetentionOut:
    """Set how many whole years (1-100) the selected client keeps documents after attaching them."""
    policy = service.set_retention(ctx.db, input.years, ctx.user_id)
    ctx.note("evidence_retention", ctx.client_id, after={"years": policy.years})
    return RetentionOut(
        years=policy.years, is_default=False, updated_at=policy.updated_at, updated_by_user_id=policy.updated_by_user_id
    )


@router.mutation("purge", permission="manage")
def purge(ctx: Context, input: PurgeIn) -> PurgeOut:
    """Purge the selected client's documents whose retention ended on or before `asOf` (not a future
    day): their bytes, text and file name are deleted; each keeps a tombstone (id, SHA-256, when, why),
    and the audit event lists them."""
    settings = ctx.services.settings
    purged = service.purge(
        ctx.db, settings, as_of=input.as_of, reason=input.reason, user_id=ctx.user_id, today=utcnow().date()
    )
    tombstones = service.tombstones(purged)
    ctx.note("evidence_purge", ctx.client_id, after={"as_of": input.as_of, "purged": tombstones})
    return PurgeOut.model_validate(
        {"as_of": input.as_of, "retention_years": service.retention_years(ctx.db, settings), "purged": tombstones}
    )
