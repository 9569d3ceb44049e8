"""Tenants and membership rules."""

from __future__ import annotations

import re
import secrets

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.platform.auth import service as auth_service
from api.platform.auth.models import Invitation, User
from api.platform.organizations.models import Client, Membership, Organization


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80] or "org"


def _free_slug(db: Session, base: str) -> str:
    """`base`, or `base-<random>` when taken: a slug derived from a name never fails and never tells the
    caller that another organization has that name."""
    slug = base
    while db.scalar(select(Organization.id).where(Organization.slug == slug)) is not None:
        slug = f"{base[:71]}-{secrets.token_hex(4)}"
    return slug


# Positional on purpose for now: launcher.bootstrap calls it with six positional arguments.
def create_organization(
    db: Session, name: str, slug: str | None, owner_id: int, client_name: str, client_npi: str | None
) -> tuple[Organization, Client]:
    slug = _free_slug(db, slugify(name)) if slug is None else slug
    if db.scalar(select(Organization.id).where(Organization.slug == slug)) is not None:
        # The caller's own choice is refused without echoing it or describing whoever holds it.
        raise Conflict("This organization slug is not available; choose another")
    org = Organization(name=name, slug=slug)
    db.add(org)
    db.flush()
    db.add(Membership(organization_id=org.id, user_id=owner_id, role="admin"))
    client = Client(organization_id=org.id, name=client_name, npi=client_npi)
    db.add(client)
    db.flush()
    return org, client


def add_client(db: Session, organization_id: int, name: str, npi: str | None) -> Client:
    if db.scalar(select(Client.id).where(Client.organization_id == organization_id, Client.name == name)):
        raise Conflict(f"A client named '{name}' already exists in this organization")
    client = Client(organization_id=organization_id, name=name, npi=npi)
    db.add(client)
    db.flush()
    return client


def invite(db: Session, organization_id: int, email: str, role: str, display_name: str = "") -> tuple[Invitation, str]:
    """A pending invitation; the membership exists only once the invitee accepts it."""
    email = auth_service.normalise_email(email)
    member = db.scalar(
        select(Membership.id)
        .join(User, User.id == Membership.user_id)
        .where(User.email == email, Membership.organization_id == organization_id)
    )
    if member is not None:
        raise Conflict(f"{email} is already a member of this organization")
    return auth_service.create_invitation(db, organization_id, email, role, display_name)


def add_member(db: Session, organization_id: int, user_id: int, role: str) -> None:
    """Make `user_id` a member with `role` (an accepted invitation); an existing membership is kept as is."""
    exists = db.scalar(
        select(Membership.id).where(Membership.organization_id == organization_id, Membership.user_id == user_id)
    )
    if exists is None:
        db.add(Membership(organization_id=organization_id, user_id=user_id, role=role))
        db.flush()


def membership(db: Session, organization_id: int, user_id: int) -> Membership:
    row = db.scalar(
        select(Membership).where(Membership.organization_id == organization_id, Membership.user_id == user_id)
    )
    if row is None:
        raise NotFound(f"User {user_id} is not a member of this organization")
    return row


def ensure_another_admin(db: Session, organization_id: int, leaving_user_id: int) -> None:
    """An organization must keep at least one admin, or nobody could manage it."""
    admins = db.scalar(
        select(func.count())
        .select_from(Membership)
        .where(
            Membership.organization_id == organization_id,
            Membership.role == "admin",
            Membership.user_id != leaving_user_id,
        )
    )
    if not admins:
        raise PreconditionFailed("The organization would be left without an admin; promote someone first")
