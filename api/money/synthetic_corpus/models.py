"""Synthetic corpora generated for a client (files live under DATA_DIR/corpora/<id>)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class SyntheticCorpus(IdMixin, CreatedAtMixin, TenantScoped, Base):
    __tablename__ = "synthetic_corpora"

    status: Mapped[str] = mapped_column(String(12), default="generating")  # generating | ready | failed
    seed: Mapped[int] = mapped_column(Integer)
    claims: Mapped[int] = mapped_column(Integer)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    generator_version: Mapped[str | None] = mapped_column(String(20), default=None)
    directory: Mapped[str | None] = mapped_column(String(500), default=None)
    files: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
