"""Manual matches of a remittance claim payment to a submitted claim."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class ManualMatch(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A person decided that remittance claim `remittance_claim_key` pays claim `claim_key`."""

    __tablename__ = "manual_claim_matches"
    __table_args__ = (UniqueConstraint("client_id", "remittance_claim_key"),)

    remittance_claim_key: Mapped[str] = mapped_column(String(200))
    claim_key: Mapped[str] = mapped_column(String(80))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    matched_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
