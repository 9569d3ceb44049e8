"""What a packet is made of, and its content hash (pure, no I/O).

The content hash names a packet's substance: the letter text, the version of the template it was
generated from, and the SHA-256 of each evidence document's bytes in packet order. It is printed on
the PDF's cover, stored with the packet, and recomputed (`api.denials.appeal_assembly.service.packet_digest`)
so that a change after approval (a document purged or replaced) is detected. The rendered PDF is
not part of it: rendering is deterministic but its bytes are a presentation of the same content.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

HASH_SCHEME = "appeal-packet/1"


@dataclass(frozen=True)
class EvidenceItem:
    """One evidence document as the packet encloses it. `content` is the original bytes (may hold PHI:
    never logged); `sha256` is the stored digest of those bytes; `page_count` is what the evidence
    store measured (None when unknown: the renderer counts PDF pages itself)."""

    document_id: int
    title: str
    doc_type: str
    media_type: str
    sha256: str
    content: bytes
    page_count: int | None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(letter_text: str, template_version: str, evidence_digests: Sequence[str]) -> str:
    """SHA-256 (hex) of the canonical JSON of the scheme, the template version, the letter's SHA-256 and
    the evidence digests in order. Any change to the letter, the version, a document's bytes, or
    the documents' order gives another hash."""
    canonical = json.dumps(
        {
            "scheme": HASH_SCHEME,
            "templateVersion": template_version,
            "letterSha256": sha256_hex(letter_text.encode("utf-8")),
            "evidence": list(evidence_digests),
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return sha256_hex(canonical.encode("utf-8"))


def items_hash(letter_text: str, template_version: str, items: Sequence[EvidenceItem]) -> str:
    """The content hash with each item's digest computed from its bytes (not trusted from `sha256`)."""
    return content_hash(letter_text, template_version, [sha256_hex(item.content) for item in items])
