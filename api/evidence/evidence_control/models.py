"""Evidence documents, their links, redaction versions and each client's retention.

PHI: `original_name` (a file name often holds the patient's name) is stored for the people of the
client and never logged, audited or put in an error message; `redacted_text` holds the extracted
text with PHI replaced by markers. The extracted text in clear is never stored: it is derived from
the original bytes (under DATA_DIR, see `store.py`) when needed. A purged document keeps its row as
the tombstone (id, sha256, sizes, types, `purged_at`, `purge_reason`); its bytes, text and name are
gone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class EvidenceDocument(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One attached file: what it is (detected from its bytes), where it came from, and its redacted text."""

    __tablename__ = "evidence_documents"
    __table_args__ = (
        Index("ix_evidence_documents_client_case", "client_id", "case_id", "id"),
        Index("ix_evidence_documents_client_claim", "client_id", "claim_id", "id"),
        Index("ix_evidence_documents_client_sha256", "client_id", "sha256"),
    )

    case_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="SET NULL"), default=None)
    claim_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("claims.id", ondelete="SET NULL"), default=None)
    title: Mapped[str] = mapped_column(String(200))  # redacted at attach
    doc_type: Mapped[str] = mapped_column(String(40))
    doc_type_source: Mapped[str] = mapped_column(String(10))  # given | inferred
    source: Mapped[str] = mapped_column(String(20))  # upload | portal | fax | email | mail | scan | ehr | other
    media_type: Mapped[str] = mapped_column(String(100))
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(Integer)
    page_count: Mapped[int | None] = mapped_column(Integer, default=None)
    image_width: Mapped[int | None] = mapped_column(Integer, default=None)
    image_height: Mapped[int | None] = mapped_column(Integer, default=None)
    text_chars: Mapped[int] = mapped_column(Integer, default=0)  # of the extracted text (0: none)
    redacted_text: Mapped[str | None] = mapped_column(Text, default=None)
    redaction_version: Mapped[int] = mapped_column(Integer, default=1)
    redaction_counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    original_name: Mapped[str | None] = mapped_column(String(255), default=None)  # PHI: never logged or audited
    uploaded_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    purged_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    purge_reason: Mapped[str | None] = mapped_column(String(200), default=None)
    purged_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )


class EvidenceRedaction(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One redaction version of a document: how many markers of each kind, never the terms."""

    __tablename__ = "evidence_redactions"
    __table_args__ = (UniqueConstraint("document_id", "version", name="uq_evidence_redactions_version"),)

    document_id: Mapped[int] = mapped_column(BigId, ForeignKey("evidence_documents.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    term_count: Mapped[int] = mapped_column(Integer, default=0)  # caller terms used (their number only)
    created_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )


LINK_TARGETS: tuple[str, ...] = ("case", "claim", "appeal_packet")


class EvidenceLink(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A document supports a case, a claim or an appeal packet (the edges of evidenceGraph)."""

    __tablename__ = "evidence_links"
    __table_args__ = (
        UniqueConstraint("client_id", "document_id", "target_kind", "target_id", name="uq_evidence_links_edge"),
        Index("ix_evidence_links_client_target", "client_id", "target_kind", "target_id"),
    )

    document_id: Mapped[int] = mapped_column(BigId, ForeignKey("evidence_documents.id", ondelete="CASCADE"))
    target_kind: Mapped[str] = mapped_column(String(20))  # case | claim | appeal_packet
    target_id: Mapped[int] = mapped_column(BigId)


class EvidenceRetention(TenantScoped, Base):
    """How many years the client keeps its documents (no row: the default)."""

    __tablename__ = "evidence_retention"
    __table_args__ = (UniqueConstraint("client_id", name="uq_evidence_retention_client"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    years: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
    updated_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
