"""One client's voice settings (a row only once someone set them; defaults otherwise). NPI and TIN
are the provider's identifiers, not PHI."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, TenantScoped, UtcDateTime


class HospitalVoiceSettings(IdMixin, TenantScoped, Base):
    """Who the voice agent says it is, the identifiers payers ask for, when it may call, and its scripts."""

    __tablename__ = "hospital_voice_settings"
    __table_args__ = (UniqueConstraint("client_id", name="uq_hospital_voice_settings_client"),)

    caller_name: Mapped[str] = mapped_column(String(100))
    callback_number: Mapped[str | None] = mapped_column(String(10), default=None)
    npi: Mapped[str | None] = mapped_column(String(10), default=None)
    tin: Mapped[str | None] = mapped_column(String(9), default=None)
    timezone: Mapped[str] = mapped_column(String(64))
    windows: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)  # [{day, start, end}]
    scripts: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)  # goal -> template (only overrides)
    updated_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
