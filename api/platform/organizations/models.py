"""Tenants: organizations, their clients (facilities) and memberships."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, String, UniqueConstraint, true
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, OrgScoped


class Organization(IdMixin, CreatedAtMixin, Base):
    __tablename__ = "organizations"

    name: Mapped[str] = mapped_column(String(200))
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    status: Mapped[str] = mapped_column(String(20), default="active")  # active | suspended


class Client(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """A hospital or facility served by an organization."""

    __tablename__ = "clients"
    __table_args__ = (UniqueConstraint("organization_id", "name"),)

    name: Mapped[str] = mapped_column(String(200))
    npi: Mapped[str | None] = mapped_column(String(10), default=None)
    status: Mapped[str] = mapped_column(String(20), default="active")
    # IANA time zone of the hospital ("America/Chicago"): "today" for its deadlines; None: the platform
    # default (Settings.default_time_zone)
    time_zone: Mapped[str | None] = mapped_column(String(64), default=None)


class Membership(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """A user's role in an organization and the clients it reaches.

    `all_clients` is the organization-wide case (the organization's admins, memberships made before
    client scoping existed: the migration sets it for every existing row); otherwise the membership
    reaches exactly the clients listed in `membership_clients` (a hospital's own staff, provisioned by
    onboarding), and the tenant resolver refuses every other client of the organization.
    """

    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("organization_id", "user_id"),)

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(20))
    all_clients: Mapped[bool] = mapped_column(Boolean, server_default=true())


class MembershipClient(OrgScoped, Base):
    """One client a client-scoped membership reaches (ignored while the membership is organization-wide)."""

    __tablename__ = "membership_clients"

    membership_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("memberships.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    client_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True, autoincrement=False, index=True
    )
