"""Which tenant a call acts in, decided once before any domain work.

The client comes from `X-Client-Id` (or is the caller's only client); the
organization is the client's owner; the role is the caller's membership there.
Unknown clients and clients of other organizations get the same answer, so a
caller cannot probe which ids exist.
"""

from __future__ import annotations

from sqlalchemy import Row, bindparam, select
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, InvalidInput
from api.core.identity import MembershipInfo, Principal, SmartGrant, Tenant
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


# Tenant resolution runs before every tenant procedure, so each case is one statement built
# once: the client, its organization's status and the caller's role there, as plain columns.
# The membership is outer-joined so "no such client" and "not your client" give the same answer
# from the same row shape; the organization is outer-joined as the two separate lookups allowed.
_COLUMNS = (Client.id, Client.organization_id, Client.status, Organization.status, Membership.role)
_BY_CLIENT = (
    select(*_COLUMNS)
    .outerjoin(Organization, Organization.id == Client.organization_id)
    .outerjoin(
        Membership,
        (Membership.organization_id == Client.organization_id) & (Membership.user_id == bindparam("user_id")),
    )
    .where(Client.id == bindparam("client_id"))
)
# Without X-Client-Id: the active clients of the caller's organizations; two are enough to know
# whether the choice is unambiguous.
_ONLY_CLIENT = (
    select(*_COLUMNS)
    .join(Membership, Membership.organization_id == Client.organization_id)
    .outerjoin(Organization, Organization.id == Client.organization_id)
    .where(Membership.user_id == bindparam("user_id"), Client.status == "active")
    .limit(2)
)
_ONLY_CLIENT_OF_KEY_ORG = _ONLY_CLIENT.where(Membership.organization_id == bindparam("key_org_id"))


def resolve_tenant(db: Session, principal: Principal, client_header: str | None, permission: str) -> Tenant:
    if principal.smart is not None:
        return _smart_tenant(db, principal.smart, client_header, permission)
    client_id, organization_id, client_status, org_status, role = _select_client(db, principal, client_header)
    if org_status != "active":
        raise Forbidden("This organization is suspended; contact the platform administrator")
    if client_status != "active":
        raise Forbidden(f"Client {client_id} is not active")
    granted, reason = explain(role, permission)
    if not granted:
        raise Forbidden(f"Not allowed: {reason}")
    return Tenant(organization_id=organization_id, client_id=client_id, role=role)


# A SMART access token has no membership: its tenant is its registration's client, named by the token.
SMART_ROLE = "smart_backend"


def _smart_tenant(db: Session, grant: SmartGrant, client_header: str | None, permission: str) -> Tenant:
    """The client a SMART backend token is bound to; it reads only (its scopes are checked by the procedure)."""
    if client_header is not None and client_header.strip() and client_header.strip() != str(grant.client_id):
        raise Forbidden("This SMART access token acts only in the client it was issued for; omit X-Client-Id")
    if permission != "read":
        raise Forbidden(f"SMART access tokens only read; this procedure needs '{permission}'")
    row = db.execute(
        select(Client.status, Organization.status)
        .join(Organization, Organization.id == Client.organization_id)
        .where(Client.id == grant.client_id, Client.organization_id == grant.organization_id)
    ).one_or_none()
    if row is None or row[1] != "active":
        raise Forbidden("This organization is suspended; contact the platform administrator")
    if row[0] != "active":
        raise Forbidden(f"Client {grant.client_id} is not active")
    return Tenant(organization_id=grant.organization_id, client_id=grant.client_id, role=SMART_ROLE)


def _select_client(
    db: Session, principal: Principal, client_header: str | None
) -> tuple[int, int, str, str | None, str]:
    """(client id, organization id, client status, organization status, role) of the call's client."""
    key_org = principal.api_key_org_id  # an API key acts only inside its own organization
    if client_header is not None and client_header.strip():
        try:
            client_id = int(client_header)
        except ValueError:
            raise InvalidInput("X-Client-Id must be a client id (an integer)") from None
        row = db.execute(_BY_CLIENT, {"client_id": client_id, "user_id": principal.user_id}).one_or_none()
        if row is None or row.role is None or (key_org is not None and row.organization_id != key_org):
            raise Forbidden(f"You have no access to client {client_id}")
        return _columns(row)
    if key_org is None:
        rows = db.execute(_ONLY_CLIENT, {"user_id": principal.user_id}).all()
    else:
        rows = db.execute(_ONLY_CLIENT_OF_KEY_ORG, {"user_id": principal.user_id, "key_org_id": key_org}).all()
    if not rows:
        # Only on this error path: tell "no membership" from "no client yet" apart.
        member = select(Membership.id).where(Membership.user_id == principal.user_id)
        if key_org is not None:
            member = member.where(Membership.organization_id == key_org)
        if db.scalar(member.limit(1)) is None:
            raise Forbidden("You are not a member of any organization")
        raise Forbidden("Your organization has no client yet; add one with organizations.addClient")
    if len(rows) > 1:
        raise InvalidInput("You have access to several clients: choose one with the X-Client-Id header")
    return _columns(rows[0])


def _columns(row: Row[int, int, str, str, str]) -> tuple[int, int, str, str | None, str]:
    client_id, organization_id, client_status, org_status, role = row
    return client_id, organization_id, client_status, org_status, role
