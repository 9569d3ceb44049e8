"""Inputs and outputs of evidenceControl.*.

No output carries a document's original bytes, its text in clear or its original file name: the
text is the redacted one (a preview in lists). The file name, `redactTerms` and `contentBase64` are
secret-typed inputs, so the audit log's input digest never covers them (`api/platform/audit/digest.py`
digests secret fields as a constant).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

import orjson
from pydantic import BeforeValidator, Field, PlainSerializer, PlainValidator, SecretStr, WithJsonSchema

from api.evidence.evidence_control.doc_types import DocType
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE
from api.rpc.uploads import UploadedFile, require_file_part

Source = Literal["upload", "portal", "fax", "email", "mail", "scan", "ehr", "other"]
Status = Literal["active", "purged"]
LinkTarget = Literal["case", "claim", "appeal_packet"]
MAX_TERMS = 50


EvidenceFileField = Annotated[
    UploadedFile,
    PlainValidator(require_file_part),
    # What the audit digest sees of the file: its hash and size, never its name.
    PlainSerializer(lambda f: {"sha256": f.sha256, "size": f.size}),
    WithJsonSchema({"type": "string", "format": "binary", "description": "The file (multipart part named 'file')"}),
]


def _terms_from_form(value: Any) -> Any:
    """A multipart form sends the list as one field: a JSON array, or one term per line."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                raise ValueError("must be a JSON array of strings or one term per line") from None
        return [line for line in text.splitlines() if line.strip()]
    return value


Term = Annotated[SecretStr, Field(min_length=1, max_length=200)]
Terms = Annotated[list[Term], BeforeValidator(_terms_from_form), Field(max_length=MAX_TERMS)]


class AttachIn(Schema):
    """A file for a case or a claim (at least one), as a multipart/octet-stream part or as JSON."""

    case_id: DbId | None = None
    claim_id: DbId | None = None
    file: EvidenceFileField | None = None
    filename: Annotated[SecretStr, Field(max_length=255)] | None = Field(
        default=None, description="The original file name (stored as PHI, never logged or audited)"
    )
    content_base64: SecretStr | None = Field(default=None, description="The file's bytes, base64 (JSON callers)")
    title: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE] = Field(
        description="What the document is, e.g. 'Discharge summary' (redacted like the text)"
    )
    doc_type: DocType | None = Field(default=None, description="Inferred from the text when not given")
    source: Source = "upload"
    redact_terms: Terms = Field(
        default_factory=list,
        description="PHI the caller knows (patient name, member id, date of birth), used to redact the "
        "derived text; never stored, logged or audited",
    )


class LinkOut(Output):
    target_kind: str
    target_id: int


class RedactionOut(Output):
    version: int
    counts: dict[str, int] = Field(description="Markers placed, by kind ([NAME], [SSN], ...)")
    term_count: int
    created_by_user_id: int | None
    created_at: datetime


class DocumentSummaryOut(Output):
    id: int
    case_id: int | None
    claim_id: int | None
    title: str
    doc_type: str
    doc_type_source: str = Field(description="given | inferred")
    source: str
    media_type: str = Field(description="Detected from the content, never from the name")
    sha256: str
    size_bytes: int
    page_count: int | None
    image_width: int | None
    image_height: int | None
    has_text: bool
    redaction_version: int
    status: Status
    uploaded_by_user_id: int | None
    created_at: datetime
    expires_on: date | None = Field(description="When the client's retention lets it be purged (active only)")
    purged_at: datetime | None
    purge_reason: str | None
    preview: str | None = Field(description="The start of the redacted text")


class DocumentOut(DocumentSummaryOut):
    redacted_text: str | None = Field(description="The extracted text with PHI replaced by typed markers")
    redaction_counts: dict[str, int]
    links: list[LinkOut]
    redactions: list[RedactionOut]


class AttachOut(Output):
    document: DocumentOut
    duplicate: bool = Field(description="True when the same content was already attached to this case/claim")


class DocumentRef(Schema):
    id: DbId


class ListDocumentsIn(PageInput):
    case_id: DbId | None = None
    claim_id: DbId | None = None
    doc_type: DocType | None = None
    status: Status | None = None


class RedactIn(Schema):
    id: DbId
    terms: Terms = Field(default_factory=list, description="More PHI to redact; never stored, logged or audited")


class SetRetentionIn(Schema):
    years: int = Field(ge=1, le=100, description="Whole years a document is kept after it was attached")


class RetentionOut(Output):
    years: int
    is_default: bool
    updated_at: datetime | None
    updated_by_user_id: int | None


class PurgeIn(Schema):
    as_of: date = Field(description="Purge documents whose retention ended on or before this day (not in the future)")
    reason: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE] = "retention period elapsed"


class TombstoneOut(Output):
    id: int
    sha256: str
    purged_at: datetime
    purge_reason: str


class PurgeOut(Output):
    as_of: date
    retention_years: int
    purged: list[TombstoneOut]
