"""Declarative base and the mixins every operational table uses.

`OrgScoped` and `TenantScoped` mark the tables that belong to a tenant; the
session scoping in `api.infra.db.tenant_filter` filters every ORM query on them, so a
procedure cannot read another tenant's rows even if it forgets a `where`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Integer, MetaData, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only autoincrements INTEGER PRIMARY KEY; PostgreSQL gets BIGINT.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on both SQLite (which drops tzinfo) and PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def table_of(model: type[Base]) -> Table:
    """The model's Core table, for bulk statements (executemany inserts, ON CONFLICT) that skip the
    ORM unit of work."""
    table = model.__table__
    # Declarative types `__table__` as any FromClause; every model here maps one plain Table.
    assert isinstance(table, Table)
    return table


class IdMixin:
    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)


class CreatedAtMixin:
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, nullable=False)


class OrgScoped:
    """Rows owned by one organization (visible from any of its clients)."""

    @declared_attr
    def organization_id(cls) -> Mapped[int]:
        return mapped_column(BigId, ForeignKey("organizations.id", ondelete="CASCADE"), index=True, nullable=False)


class TenantScoped(OrgScoped):
    """Rows owned by one client (facility) of one organization."""

    @declared_attr
    def client_id(cls) -> Mapped[int]:
        return mapped_column(BigId, ForeignKey("clients.id", ondelete="CASCADE"), index=True, nullable=False)
