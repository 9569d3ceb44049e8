"""How big an appeal packet may be, and the checks that refuse a bigger one (pure, no I/O).

Rendering costs time in the pages it appends and stamps, the text it typesets, and the bytes it
reads: a packet holding a 12,000-page PDF did not render in 15 minutes. Each dimension has a cap
(the APPEAL_PACKET_* settings); over one is INVALID_INPUT naming the cap and the document by its
number and id, never its title or content.

Two moments check: assembling (`check_assembly`, on what the evidence store measured when the
document was attached: its size and page count) and rendering (the renderer counts pages itself, on
a bounded walk of the PDF's page tree, and knows the packet's total before drawing anything).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from api.core.errors import InvalidInput
from api.denials.appeal_assembly.contents import EvidenceItem

PDF_TYPE = "application/pdf"
MIB = 1_048_576


@dataclass(frozen=True)
class PacketLimits:
    """The caps, with the settings' defaults (api.core.settings)."""

    pdf_pages: int = 1_000  # APPEAL_PACKET_MAX_PDF_PAGES: pages of one evidence PDF
    pages: int = 1_500  # APPEAL_PACKET_MAX_PAGES: pages of the whole packet
    text_chars: int = 500_000  # APPEAL_PACKET_MAX_TEXT_CHARS: the letter and text documents typeset
    evidence_bytes: int = 64 * MIB  # APPEAL_PACKET_MAX_EVIDENCE_BYTES: every document's bytes together


def document(n: int, document_id: int) -> str:
    return f"Evidence document {n} (id {document_id})"


def check_bytes(limits: PacketLimits, sizes: Sequence[int]) -> None:
    """The documents' sizes together (as stored, before any byte is read)."""
    total = sum(sizes)
    if total > limits.evidence_bytes:
        raise InvalidInput(
            f"The packet's evidence documents hold {total} bytes together, more than "
            f"APPEAL_PACKET_MAX_EVIDENCE_BYTES ({limits.evidence_bytes}); enclose fewer documents (documentIds)"
        )


def pdf_pages_over(limits: PacketLimits, n: int, document_id: int, pages: int | str) -> InvalidInput:
    return InvalidInput(
        f"{document(n, document_id)} has {pages} pages; APPEAL_PACKET_MAX_PDF_PAGES allows "
        f"{limits.pdf_pages} for one document: attach the pages the appeal needs as a smaller PDF"
    )


def total_pages_over(limits: PacketLimits, pages: int | str) -> InvalidInput:
    return InvalidInput(
        f"The packet would have {pages} pages; APPEAL_PACKET_MAX_PAGES allows {limits.pages}: "
        "enclose fewer or shorter documents (documentIds)"
    )


def check_text(limits: PacketLimits, chars: int) -> None:
    if chars > limits.text_chars:
        raise InvalidInput(
            f"The packet's letter and text documents hold {chars} characters together, more than "
            f"APPEAL_PACKET_MAX_TEXT_CHARS ({limits.text_chars}); shorten the letter or enclose fewer text documents"
        )


def text_chars(letter_text: str, items: Sequence[EvidenceItem]) -> int:
    """The characters the renderer typesets: the letter and every text document."""
    return len(letter_text) + sum(
        len(item.content.decode("utf-8", "replace")) for item in items if item.media_type.startswith("text/")
    )


def check_assembly(limits: PacketLimits, letter_text: str, items: Sequence[EvidenceItem]) -> None:
    """What can be known when the packet is assembled, from the evidence store's own measures: each
    PDF's page count, the evidence pages together, the text to typeset."""
    pages = 0
    for n, item in enumerate(items, start=1):
        count = item.page_count or 0
        if item.media_type == PDF_TYPE and count > limits.pdf_pages:
            raise pdf_pages_over(limits, n, item.document_id, count)
        pages += count if item.media_type == PDF_TYPE else 0
    if pages > limits.pages:
        raise total_pages_over(limits, f"at least {pages}")
    check_text(limits, text_chars(letter_text, items))
