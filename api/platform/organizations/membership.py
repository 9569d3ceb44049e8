"""Which tenant a call acts in, decided once before any domain work.

The client comes from `X-Client-Id` (or is the caller's only client); the
organization is the client's owner; the role is the caller's membership there,
and the membership must reach the client: an organization-wide membership
reaches every client, a client-scoped one only the clients it lists
(`membership_clients`). Unknown clients, clients of other organizations and
clients of the organization the membership does not reach get the same answer,
so a caller cannot probe which ids exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, exists, or_, select
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, InvalidInput
from api.core.identity import MembershipInfo, Principal, SmartGrant, Tenant
from api.core.permissions import explain
from api.platform.organizations.models import Client, Membership, MembershipClient, Organization


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
# once: the client, its organization's status, the caller's role there and whether the membership
# reaches the client, as plain columns. The membership is outer-joined so "no such client", "not your
# organization's client" and "not a client your membership reaches" give the same answer from the same
# row shape; the organization is outer-joined as the two separate lookups allowed.
_COLUMNS = (
    Client.id,
    Client.organization_id,
    Client.status,
    Organization.status,
    Membership.role,
    Membership.id,
    Membership.all_clients,
)
_LISTED = exists().where(MembershipClient.membership_id == Membership.id, MembershipClient.client_id == Client.id)
_BY_CLIENT = (
    select(*_COLUMNS, _LISTED.label("listed"))
    .outerjoin(Organization, Organization.id == Client.organization_id)
    .outerjoin(
        Membership,
        (Membership.organization_id == Client.organization_id) & (Membership.user_id == bindparam("user_id")),
    )
    .where(Client.id == bindparam("client_id"))
)
# Without X-Client-Id: the active clients the caller's memberships reach; two are enough to know
# whether the choice is unambiguous.
_ONLY_CLIENT = (
    select(*_COLUMNS)
    .join(Membership, Membership.organization_id == Client.organization_id)
    .outerjoin(Organization, Organization.id == Client.organization_id)
    .where(Membership.user_id == bindparam("user_id"), Client.status == "active", or_(Membership.all_clients, _LISTED))
    .order_by(Client.id)
    .limit(2)
)
_ONLY_CLIENT_OF_KEY_ORG = _ONLY_CLIENT.where(Membership.organization_id == bindparam("key_org_id"))
_REACH = select(MembershipClient.client_id).where(MembershipClient.membership_id == bindparam("membership_id"))


def resolve_tenant(db: Session, principal: Principal, client_header: str | None, permission: str) -> Tenant:
    if principal.smart is not None:
        return _smart_tenant(db, principal.smart, client_header, permission)
    chosen = _select_client(db, principal, client_header)
    if chosen.org_status != "active":
        raise Forbidden("This organization is suspended; contact the platform administrator")
    if chosen.client_status != "active":
        raise Forbidden(f"Client {chosen.client_id} is not active")
    granted, reason = explain(chosen.role, permission)
    if not granted:
        raise Forbidden(f"Not allowed: {reason}")
    reach = None if chosen.all_clients else frozenset(db.scalars(_REACH, {"membership_id": chosen.membership_id}))
    return Tenant(organization_id=chosen.organization_id, client_id=chosen.client_id, role=chosen.role, reach=reach)


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
    return Tenant(
        organization_id=grant.organization_id,
        client_id=grant.client_id,
        role=SMART_ROLE,
        reach=frozenset({grant.client_id}),
    )


@dataclass(frozen=True)
class _Chosen:
    client_id: int
    organization_id: int
    client_status: str
    org_status: str | None
    role: str
    membership_id: int
    all_clients: bool


def _select_client(db: Session, principal: Principal, client_header: str | None) -> _Chosen:
    """The call's client, its organization's status and the caller's membership there."""
    key_org = principal.api_key_org_id  # an API key acts only inside its own organization
    if client_header is not None and client_header.strip():
        try:
            client_id = int(client_header)
        except ValueError:
            raise InvalidInput("X-Client-Id must be a client id (an integer)") from None
        row = db.execute(_BY_CLIENT, {"client_id": client_id, "user_id": principal.user_id}).one_or_none()
        if row is None or not _reached(row) or (key_org is not None and row.organization_id != key_org):
            raise Forbidden(f"You have no access to client {client_id}")
        return _chosen(row)
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
        raise Forbidden(
            "Your membership reaches no active client yet; an organization admin adds one (organizations.addClient) "
            "or extends your membership (organizations.setMemberClients)"
        )
    if len(rows) > 1:
        raise InvalidInput("You have access to several clients: choose one with the X-Client-Id header")
    return _chosen(rows[0])


def _reached(row: Any) -> bool:
    """A membership in the client's organization that reaches it (organization-wide, or listing it)."""
    return row.role is not None and bool(row.all_clients or row.listed)


def _chosen(row: Any) -> _Chosen:
    return _Chosen(
        client_id=row[0],
        organization_id=row[1],
        client_status=row[2],
        org_status=row[3],
        role=row[4],
        membership_id=row[5],
        all_clients=bool(row[6]),
    )
