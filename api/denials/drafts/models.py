"""Drafts and their immutable versions.

A draft belongs to a denial case (and optionally a claim). Every save is a new `DraftVersion` row,
never updated: its content, the SHA-256 of that content and its author. The draft row points at the
current version and carries its digest, which is what an approval is bound to.

The content may hold PHI: it is returned to members of the client, and never logged, audited or put
in an error message (the audit gets `content_digest`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class Draft(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A draft letter, corrected claim or note: its kind, state and current version."""

    __tablename__ = "drafts"
    __table_args__ = (
        Index("ix_drafts_client_case", "client_id", "case_id", "id"),
        Index("ix_drafts_client_state", "client_id", "state"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    claim_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("claims.id", ondelete="SET NULL"), default=None)
    kind: Mapped[str] = mapped_column(String(20))  # appeal_letter | corrected_claim | note
    state: Mapped[str] = mapped_column(String(12), default="editing")
    current_version: Mapped[int] = mapped_column(Integer)
    current_digest: Mapped[str] = mapped_column(String(64))
    created_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # The approval holding the draft (pending or granted) and when it expires: past that instant the
    # draft is editable again (see lifecycle.effective_state). Written by the approvals namespace.
    approval_id: Mapped[int | None] = mapped_column(BigId, default=None)
    locked_until: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    discarded_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    discarded_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="RESTRICT"), default=None
    )
    discard_reason: Mapped[str | None] = mapped_column(String(500), default=None)


class DraftVersion(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One saved version of a draft: never updated or deleted."""

    __tablename__ = "draft_versions"
    __table_args__ = (UniqueConstraint("draft_id", "version", name="uq_draft_versions_draft_version"),)

    draft_id: Mapped[int] = mapped_column(BigId, ForeignKey("drafts.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)
    content_digest: Mapped[str] = mapped_column(String(64))
    content_bytes: Mapped[int] = mapped_column(Integer)
    author_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
