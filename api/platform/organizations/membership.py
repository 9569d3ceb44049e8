"""Which tenant a call acts in, decided once before any domain work.

The client comes from `X-Client-Id` (or is the caller's only client); the
organization is the client's owner; the role is the caller's membership there.
Unknown clients and clients of other organizations get the same answer, so a
caller cannot probe which ids exist.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, InvalidInput
from api.core.identity import MembershipInfo, Principal, Tenant
from api.core.permissions import explain
from api.platform.organizations.models import Client, Membership, Organization


def memberships_of(db: Session, user_id: int) -> list[MembershipInfo]:
    """The organizations `user_id` belongs to, by name (served to `auth.session` through the services)."""
    rows = db.execute(
        select(Membership.organization_id, Organization.name, Membership.role)
        .join(Organization, Organization.id == Membership.organization_id)
        .where(Membership.user_id == user_id)
        .order_by(Organization.name)
    )
    return [MembershipInfo(organization_id=o, organization_name=n, role=r) for o, n, r in rows]


def resolve_tenant(db: Session, principal: Principal, client_header: str | None, permission: str) -> Tenant:
    memberships = {
        m.organization_id: m.role for m in db.scalars(select(Membership).where(Membership.user_id == principal.user_id))
    }
    if principal.api_key_org_id is not None:
        memberships = {k: v for k, v in memberships.items() if k == principal.api_key_org_id}
    client = _select_client(db, memberships, client_header)
    org = db.get(Organization, client.organization_id)
    if org is None or org.status != "active":
        raise Forbidden("This organization is suspended; contact the platform administrator")
    if client.status != "active":
        raise Forbidden(f"Client {client.id} is not active")
    role = memberships[client.organization_id]
    granted, reason = explain(role, permission)
    if not granted:
        raise Forbidden(f"Not allowed: {reason}")
    return Tenant(organization_id=client.organization_id, client_id=client.id, role=role)


def _select_client(db: Session, memberships: dict[int, str], client_header: str | None) -> Client:
    if client_header is not None and client_header.strip():
        try:
            client_id = int(client_header)
        except ValueError:
            raise InvalidInput("X-Client-Id must be a client id (an integer)") from None
        client = db.get(Client, client_id)
        if client is None or client.organization_id not in memberships:
            raise Forbidden(f"You have no access to client {client_id}")
        return client
    if not memberships:
        raise Forbidden("You are not a member of any organization")
    clients = list(
        db.scalars(select(Client).where(Client.organization_id.in_(memberships), Client.status == "active").limit(2))
    )
    if not clients:
        raise Forbidden("Your organization has no client yet; add one with organizations.addClient")
    if len(clients) > 1:
        raise InvalidInput("You have access to several clients: choose one with the X-Client-Id header")
    return clients[0]
