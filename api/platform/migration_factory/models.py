"""Migrations of a client's historical denials and open A/R, and their lines.

A migration keeps what it read of the old system's export (only the columns it knows, normalized: never
a patient's name, member id or birth date, which the reader drops), the dry run's plan and its digest,
and, once committed, which claim and case each line created or matched: the provenance a reader follows
from a claim or case back to the migration (the case's `opened` event names the migration too).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime

USER_FK = "users.id"


class Migration(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One export of the old system being moved: its kind, source, state, plan digest and counts."""

    __tablename__ = "migrations"
    __table_args__ = (Index("ix_migrations_client_state", "client_id", "state"),)

    kind: Mapped[str] = mapped_column(String(12))  # denials | open_ar
    source_system: Mapped[str] = mapped_column(String(120))
    filename: Mapped[str] = mapped_column(String(255))
    content_sha256: Mapped[str] = mapped_column(String(64))
    columns: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)  # field -> header read
    ignored_columns: Mapped[list[str]] = mapped_column(JSON, default=list)
    row_count: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(12))
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    plan_digest: Mapped[str | None] = mapped_column(String(64), default=None)
    planned_by_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"))
    dry_run_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None
    )
    dry_run_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    committed_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None
    )
    committed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class MigrationRow(IdMixin, TenantScoped, Base):
    """One line of the export: its values as read, its refusals, its planned outcome, and after the
    commit the claim and case it created or matched."""

    __tablename__ = "migration_rows"
    __table_args__ = (UniqueConstraint("migration_id", "row_number", name="uq_migration_rows_number"),)

    migration_id: Mapped[int] = mapped_column(BigId, ForeignKey("migrations.id", ondelete="CASCADE"))
    row_number: Mapped[int] = mapped_column(Integer)
    values: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    refusals: Mapped[list[dict[str, str]]] = mapped_column(JSON, default=list)
    outcome: Mapped[str | None] = mapped_column(String(8), default=None)  # create | match | refuse
    plan: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    claim_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("claims.id", ondelete="SET NULL"), default=None)
    case_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="SET NULL"), default=None)
