"""Appeal packets, their evidence items and their events.

`letter_text` holds claim facts only (claim numbers, payer, dates, money, codes); it is returned to
members of the client and never logged or audited (the audit gets `content_hash`). An item keeps
what the packet enclosed (document id, title, type, SHA-256 of the bytes) so the packet says what
was sent even after the document is purged. `submitted_via_action_id` is the approved action that
submitted the packet (approvedActions; no foreign key here, the lead wires it at merge).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class AppealPacket(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One assembled appeal for one case and level: the letter, the cover form, the evidence (items),
    the content hash, and where it is with the payer."""

    __tablename__ = "appeal_packets"
    __table_args__ = (
        Index("ix_appeal_packets_client_case", "client_id", "case_id", "id"),
        Index("ix_appeal_packets_client_state", "client_id", "state"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    level: Mapped[str] = mapped_column(String(20))  # first_level | second_level
    state: Mapped[str] = mapped_column(String(20), default="assembled")
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    template_key: Mapped[str] = mapped_column(String(80))
    template_version: Mapped[str] = mapped_column(String(80))
    letter_source: Mapped[str] = mapped_column(String(10))  # template | custom | draft
    letter_text: Mapped[str] = mapped_column(Text)
    # A letter taken from a draft (drafts.*): the draft and the version enclosed. The content hash is
    # recomputed from the draft's current version, so an edit after approval voids the approval.
    letter_draft_id: Mapped[int | None] = mapped_column(BigId, default=None)
    letter_draft_version: Mapped[int | None] = mapped_column(Integer, default=None)
    cover_form_id: Mapped[str | None] = mapped_column(String(60), default=None)
    # what the cover page shows, fixed at assembly: {"facts": [[label, value]], "form": {"title", "fields"} | null}
    cover: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    content_hash: Mapped[str] = mapped_column(String(64))
    evidence_count: Mapped[int] = mapped_column(Integer, default=0)
    created_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    submitted_via_action_id: Mapped[int | None] = mapped_column(BigId, default=None)
    tracking_number: Mapped[str | None] = mapped_column(String(80), default=None)
    submitted_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    decision: Mapped[str | None] = mapped_column(String(16), default=None)
    outcome_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("appeal_outcomes.id", ondelete="SET NULL"), default=None
    )
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class AppealPacketItem(IdMixin, TenantScoped, Base):
    """One enclosed evidence document, at its position (1-based) in the packet."""

    __tablename__ = "appeal_packet_items"
    __table_args__ = (UniqueConstraint("packet_id", "position", name="uq_appeal_packet_items_position"),)

    packet_id: Mapped[int] = mapped_column(BigId, ForeignKey("appeal_packets.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    document_id: Mapped[int] = mapped_column(BigId, ForeignKey("evidence_documents.id", ondelete="RESTRICT"))
    title: Mapped[str] = mapped_column(String(200))
    doc_type: Mapped[str] = mapped_column(String(40))
    media_type: Mapped[str] = mapped_column(String(100))
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(Integer)
    page_count: Mapped[int | None] = mapped_column(Integer, default=None)


class AppealPacketEvent(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Everything that happened to a packet, in order. Never updated or deleted. `note` is free text
    (what the payer asked for...) returned to members, never logged or audited."""

    __tablename__ = "appeal_packet_events"
    __table_args__ = (Index("ix_appeal_packet_events_packet", "packet_id", "id"),)

    packet_id: Mapped[int] = mapped_column(BigId, ForeignKey("appeal_packets.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))  # assembled | submitted | ... | superseded
    from_state: Mapped[str | None] = mapped_column(String(20), default=None)
    to_state: Mapped[str] = mapped_column(String(20))
    occurred_on: Mapped[date | None] = mapped_column(Date, default=None)  # when the payer did it
    actor_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    note: Mapped[str | None] = mapped_column(Text, default=None)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
