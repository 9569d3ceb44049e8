"""Where a packet's evidence comes from: the one seam between appealAssembly and evidenceControl.

`case_documents` answers the documents of a case (all active ones in attach order, or the ones named,
in the order named), `read_items` their original bytes (`case_evidence` both; a caller checks the
stored sizes in between, before reading); `evidence_digests` answers the stored SHA-256 of
named documents without reading any bytes (for `packet_digest`, which has no settings). Both go
through `api.evidence.evidence_control.service` (`documents_for_case`, `read_original`), so the
tenant filter and the store's digest check apply. Document bytes may hold PHI: never logged.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from api.core.errors import NotFound
from api.core.settings import Settings
from api.denials.appeal_assembly.contents import EvidenceItem
from api.evidence.evidence_control.service import Document, documents_for_case, read_original

__all__ = ["EvidenceItem", "case_documents", "case_evidence", "evidence_digests", "read_items"]


def case_documents(db: Session, case_id: int, document_ids: list[int] | None) -> list[Document]:
    """The case's active evidence documents (no bytes read): all of them in attach order when
    `document_ids` is None, else exactly those, in that order. A named document that is not an active
    document of this case (in this client) is NOT_FOUND."""
    docs = documents_for_case(db, case_id)
    if document_ids is not None:
        by_id = {doc.id: doc for doc in docs}
        missing = [i for i in document_ids if i not in by_id]
        if missing:
            raise NotFound(f"Evidence document {missing[0]} is not an active document of case {case_id}")
        docs = [by_id[i] for i in document_ids]
    return docs


def read_items(settings: Settings, docs: list[Document]) -> list[EvidenceItem]:
    """The documents with their original bytes (verified against their SHA-256)."""
    return [
        EvidenceItem(
            document_id=doc.id,
            title=doc.title,
            doc_type=doc.doc_type,
            media_type=doc.media_type,
            sha256=doc.sha256,
            content=read_original(settings, doc),
            page_count=doc.page_count,
        )
        for doc in docs
    ]


def case_evidence(db: Session, settings: Settings, case_id: int, document_ids: list[int] | None) -> list[EvidenceItem]:
    """`case_documents` with their bytes."""
    return read_items(settings, case_documents(db, case_id, document_ids))


def evidence_digests(db: Session, case_id: int, document_ids: list[int]) -> dict[int, str]:
    """document id -> stored SHA-256 of those of `document_ids` that are still active documents of the
    case (a purged or unlinked one is absent)."""
    wanted = set(document_ids)
    return {doc.id: doc.sha256 for doc in documents_for_case(db, case_id) if doc.id in wanted}
