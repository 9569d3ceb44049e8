"""Integrations (clearinghouse, EHR, bank feed, SFTP drop), their lifecycle events and their runs.

`config` holds the non-secret settings only; the credentials are in `secrets_sealed` (AES-GCM under
the key in DATA_DIR/keys, `sealing.py`) and never leave the service in clear.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class Integration(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One connection of a client to an outside system, under a client-chosen `key` (unique per client)."""

    __tablename__ = "integrations"
    __table_args__ = (UniqueConstraint("client_id", "key"), Index("ix_integrations_client_state", "client_id", "state"))

    key: Mapped[str] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    state: Mapped[str] = mapped_column(String(12), default="draft")
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    config_version: Mapped[int] = mapped_column(Integer, default=1)
    config_digest: Mapped[str] = mapped_column(String(64))
    secret_names: Mapped[list[str]] = mapped_column(JSON, default=list)
    secrets_sealed: Mapped[str | None] = mapped_column(Text, default=None)
    secrets_fingerprint: Mapped[str | None] = mapped_column(String(64), default=None)
    public_key_fingerprint: Mapped[str | None] = mapped_column(String(80), default=None)
    created_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    config_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    validation: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    validated_version: Mapped[int | None] = mapped_column(Integer, default=None)
    validated_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    approved_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"), default=None)
    approved_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    activated_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    updated_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class IntegrationEvent(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One lifecycle move of an integration (who, why, which config version)."""

    __tablename__ = "integration_events"
    __table_args__ = (Index("ix_integration_events_integration", "integration_id", "id"),)

    integration_id: Mapped[int] = mapped_column(BigId, ForeignKey("integrations.id", ondelete="CASCADE"))
    from_state: Mapped[str | None] = mapped_column(String(12))
    to_state: Mapped[str] = mapped_column(String(12))
    config_version: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(500))
    actor_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class IntegrationRun(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One exchange run of an active integration: started, then recorded (files, counts, errors) or cancelled."""

    __tablename__ = "integration_runs"
    __table_args__ = (Index("ix_integration_runs_integration", "integration_id", "id"),)

    integration_id: Mapped[int] = mapped_column(BigId, ForeignKey("integrations.id", ondelete="CASCADE"))
    config_version: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(12), default="running")
    started_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    files: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    counts: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    errors: Mapped[list[str]] = mapped_column(JSON, default=list)
    reason: Mapped[str | None] = mapped_column(String(500), default=None)
    # An ehr run cut short by its cap: per resource type, the next page's URL, where the next run goes on.
    resume: Mapped[dict[str, str] | None] = mapped_column(JSON, default=None)


class IntegrationTransfer(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """The ledger of what a run moved: one row per remote file version (`source_ref` + `source_fingerprint`,
    size and mtime from the listing), written right after the file landed (or was refused for good), so a
    later run skips it and a crashed run is resumed without landing anything twice. An ehr run keeps one
    row per resource version (`<type>/<id>`, the SHA-256 of its canonical JSON; `landed_name` its NDJSON).

    state: `landed` (`landed_name`), `refused` (over the size cap, or a name that cannot land; the same
    version is not fetched again, a changed one is)."""

    __tablename__ = "integration_transfers"
    __table_args__ = (
        UniqueConstraint("integration_id", "source_ref", "source_fingerprint", name="uq_integration_transfers_source"),
        Index("ix_integration_transfers_run", "run_id"),
    )

    integration_id: Mapped[int] = mapped_column(BigId, ForeignKey("integrations.id", ondelete="CASCADE"))
    run_id: Mapped[int] = mapped_column(BigId, ForeignKey("integration_runs.id", ondelete="CASCADE"))
    source_ref: Mapped[str] = mapped_column(String(1024))
    source_fingerprint: Mapped[str] = mapped_column(String(100))
    state: Mapped[str] = mapped_column(String(12))
    landed_name: Mapped[str | None] = mapped_column(String(400), default=None)
    landed_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    reason: Mapped[str | None] = mapped_column(String(300), default=None)
