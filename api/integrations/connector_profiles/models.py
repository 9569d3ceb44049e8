"""Custom connector profiles provisioned for one client."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class ConnectorProfileRecord(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A validated column/format mapping of one source system, as `validate_profile` accepted it."""

    __tablename__ = "connector_profiles"
    __table_args__ = (UniqueConstraint("client_id", "name"),)

    name: Mapped[str] = mapped_column(String(80))
    entity: Mapped[str] = mapped_column(String(20))
    definition: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
