"""Knowledge versions: numbered, immutable content per (client, kind, key), with who published,
approved and retired each and when. Only the state and its who/when/why columns ever change.

Content is client knowledge (payer policy notes, letter templates, CARC guidance), never patient data;
the audit gets ids, versions and the content's SHA-256."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class KnowledgeVersion(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One version of one knowledge item (kind, key)."""

    __tablename__ = "knowledge_versions"
    __table_args__ = (
        UniqueConstraint("client_id", "kind", "key", "version", name="uq_knowledge_versions_version"),
        Index("ix_knowledge_versions_client_item", "client_id", "kind", "key", "state"),
    )

    kind: Mapped[str] = mapped_column(String(20))  # payer_policy | appeal_template | carc_guidance
    key: Mapped[str] = mapped_column(String(120))
    version: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)
    content_sha256: Mapped[str] = mapped_column(String(64))
    note: Mapped[str | None] = mapped_column(String(500), default=None)
    state: Mapped[str] = mapped_column(String(20), default="pending_approval")  # pending_approval|approved|retired
    author_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"))
    approved_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    approved_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    approval_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    retired_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    retired_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    retire_reason: Mapped[str | None] = mapped_column(String(500), default=None)
