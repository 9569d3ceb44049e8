"""Reading a document: the work that runs in the capped child process (pure, no I/O, JSON in and out).

`read_document` is everything an attached file costs before it is stored - type detection and its
safety checks, extraction, redaction of the text and the title, the guess at the document type - as
one top-level function of the bytes, so that `api.infra.capped.run_capped` can run it in a child
whose memory and CPU time are capped (``EVIDENCE_MEMORY_LIMIT_BYTES``, ``EVIDENCE_CPU_SECONDS``),
outside the write transaction. `redact_text` is the same for a stored text redacted again.

Both take and return JSON-able values only (the parent never unpickles what a process fed hostile
bytes produced), and refuse with `InvalidInput` (its message travels back to the caller). This module
imports only the pure evidence modules: it is what the child loads.
"""

from __future__ import annotations

from typing import Any

from api.evidence.evidence_control import doc_types, redaction
from api.evidence.evidence_control.detection import ArchiveLimits, Limits, detect
from api.evidence.evidence_control.extraction import extract

TITLE_CHARS = 200


def limits_from(params: dict[str, int]) -> Limits:
    return Limits(
        archive=ArchiveLimits(params["max_uncompressed_bytes"], params["max_archive_entries"]),
        max_pdf_pages=params["max_pdf_pages"],
        max_text_chars=params["max_text_chars"],
        max_docx_elements=params["max_docx_elements"],
    )


def read_document(payload: bytes, *, limits: dict[str, int], terms: list[str], title: str) -> dict[str, Any]:
    """Detect, check, extract and redact a file: what the document row needs, never the raw text.

    `terms` are the caller's redaction terms followed by the linked records' identifiers; the title is
    redacted with all of them. `doc_type_guess` is inferred from the raw text and title (used when the
    caller gave no type)."""
    read_limits = limits_from(limits)
    detected = detect(payload, read_limits)
    extracted = extract(payload, detected, read_limits)
    redacted = redaction.redact(extracted.text, terms) if extracted.text else None
    return {
        "media_type": detected.media_type,
        "page_count": extracted.page_count,
        "width": extracted.width,
        "height": extracted.height,
        "text_chars": len(extracted.text or ""),
        "redacted_text": redacted.text if redacted else None,
        "redaction_counts": redacted.counts if redacted else {},
        "title": redaction.redact(title, terms).text[:TITLE_CHARS],
        "doc_type_guess": doc_types.infer(extracted.text, title),
    }


def redact_text(payload: bytes, *, terms: list[str], title_terms: list[str], title: str) -> dict[str, Any]:
    """A stored redacted text (UTF-8 `payload`) redacted again with more terms, and its title."""
    result = redaction.redact(payload.decode("utf-8"), terms)
    return {
        "text": result.text,
        "counts": result.counts,
        "title": redaction.redact(title, title_terms).text[:TITLE_CHARS],
    }
