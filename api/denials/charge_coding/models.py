"""Coding validations: what the edit engine found on a claim, kept with the reference data's version so the
answer can be shown again as it was given (the reference tables change every quarter)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class CodingValidation(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One run of the coding edits on one claim: the edits (as answered), the diagnoses the extract could
    not judge, and the version of every reference table used. Never updated."""

    __tablename__ = "coding_validations"
    __table_args__ = (Index("ix_coding_validations_client_claim", "client_id", "claim_id", "id"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    reference_version: Mapped[str] = mapped_column(String(300))
    lines_checked: Mapped[int] = mapped_column(Integer)
    error_count: Mapped[int] = mapped_column(Integer)
    warning_count: Mapped[int] = mapped_column(Integer)
    edits: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    unchecked_diagnoses: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
