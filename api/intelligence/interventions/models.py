"""Interventions: one row per intervention of the selected client, with the pattern it targets and its scope."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class Intervention(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """An action taken against a denial pattern. The scope (payer, category, CARC, service line, facility;
    None = all) is stored here, not looked up from the patterns, so the measurement stays the same when
    patterns are mined again. `start_date` is the cut-over of the evidence (its month is "after")."""

    __tablename__ = "interventions"
    __table_args__ = (
        Index("ix_interventions_client_state", "client_id", "state", "id"),
        Index("ix_interventions_client_pattern", "client_id", "pattern_key", "id"),
    )

    name: Mapped[str] = mapped_column(String(200))
    pattern_key: Mapped[str] = mapped_column(String(16))
    action_key: Mapped[str] = mapped_column(String(64))
    payer_key: Mapped[str | None] = mapped_column(String(100), default=None)
    category: Mapped[str] = mapped_column(String(40))
    carc: Mapped[str | None] = mapped_column(String(8), default=None)
    service_line: Mapped[str | None] = mapped_column(String(200), default=None)
    facility: Mapped[str | None] = mapped_column(String(200), default=None)
    start_date: Mapped[date] = mapped_column(Date)
    description: Mapped[str | None] = mapped_column(String(2000), default=None)
    state: Mapped[str] = mapped_column(String(16), default="planned")  # planned | active | completed | abandoned
    created_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    outcome: Mapped[str | None] = mapped_column(String(16), default=None)
    result_note: Mapped[str | None] = mapped_column(String(2000), default=None)
