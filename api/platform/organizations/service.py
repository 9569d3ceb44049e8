"""Tenants and membership rules.

A membership reaches either every client of its organization (`all_clients`: the organization's
admins, the founder, every membership made before client scoping) or the clients it lists
(`membership_clients`: a hospital's own staff). Invitations carry the reach they grant and who made them.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection, Sequence
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, Forbidden, InvalidInput, NotFound, PreconditionFailed
from api.core.identity import Tenant
from api.infra.db.lookup import OneOf, where_given
from api.infra.outbox.service import Outbox
from api.platform.auth import service as auth_service
from api.platform.auth.models import Invitation, User
from api.platform.organizations import independence
from api.platform.organizations.invitation_mail import invitation_mail
from api.platform.organizations.models import Client, Membership, MembershipClient, Organization

MAX_CLIENTS_PER_MEMBERSHIP = 200


# Published for the two-person rules of other contexts (the rule and its reasons: independence.py).
require_independent = independence.require_independent


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
    """A new organization with its first client; `owner_id` becomes its organization-wide admin."""
    slug = _free_slug(db, slugify(name)) if slug is None else slug
    if db.scalar(select(Organization.id).where(Organization.slug == slug)) is not None:
        # The caller's own choice is refused without echoing it or describing whoever holds it.
        raise Conflict("This organization slug is not available; choose another")
    org = Organization(name=name, slug=slug)
    db.add(org)
    db.flush()
    db.add(Membership(organization_id=org.id, user_id=owner_id, role="admin", all_clients=True))
    client = Client(organization_id=org.id, name=client_name, npi=client_npi)
    db.add(client)
    db.flush()
    return org, client


#: files of the zone database that name no place: the host's own clock (``localtime``) and tzdata's
#: "Factory" zone (its abbreviation reads "-00", local time unknown)
_NOT_PLACES = frozenset({"localtime", "posixrules", "Factory"})


@cache
def _iana_zones() -> frozenset[str]:
    return frozenset(available_timezones()) - _NOT_PLACES


def check_time_zone(name: str | None, field: str = "timeZone") -> str | None:
    """An IANA zone name the system knows (the one its clock converts with), else INVALID_INPUT saying
    what is expected. Only the zone database's names: ``ZoneInfo`` alone would also open any file under
    the zone directory, e.g. ``localtime``, which is whatever the server's clock is set to."""
    if name is None:
        return None
    if name not in _iana_zones():
        raise InvalidInput(
            f"Invalid input: '{field}' must be an IANA time zone name such as America/Chicago or "
            "Pacific/Honolulu (Region/City, case-sensitive); omit it to use the platform default"
        )
    ZoneInfo(name)  # loads, so a name listed without its data fails here, not at the first deadline
    return name


def _check_name_free(db: Session, organization_id: int, name: str, client_id: int | None = None) -> None:
    taken = select(Client.id).where(Client.organization_id == organization_id, Client.name == name)
    if client_id is not None:
        taken = taken.where(Client.id != client_id)
    if db.scalar(taken):
        raise Conflict(f"A client named '{name}' already exists in this organization")


def add_client(db: Session, organization_id: int, name: str, npi: str | None, time_zone: str | None = None) -> Client:
    time_zone = check_time_zone(time_zone)
    _check_name_free(db, organization_id, name)
    client = Client(organization_id=organization_id, name=name, npi=npi, time_zone=time_zone)
    db.add(client)
    db.flush()
    return client


def managed_client(db: Session, tenant: Tenant, client_id: int) -> Client:
    """A client of the caller's organization that the caller's membership reaches; any other id (another
    organization's client, one outside a scoped membership's reach, none) is the same NOT_FOUND."""
    client = db.scalar(select(Client).where(Client.id == client_id, Client.organization_id == tenant.organization_id))
    if client is None or not tenant.reaches(client.id):
        raise NotFound(f"Client {client_id} was not found")
    return client


def update_client(db: Session, client: Client, changes: dict[str, str | None]) -> dict[str, str | None]:
    """Rename a client and/or set its time zone (``changes``: the fields given, ``name`` and/or
    ``time_zone``); returns the values before, for the audit. INVALID_INPUT when nothing is given."""
    if not changes:
        raise InvalidInput("Invalid input: give 'name' and/or 'timeZone' to change")
    if "name" in changes:
        name = changes["name"]
        if name is None:
            raise InvalidInput("Invalid input: 'name' cannot be null (omit it to keep the name)")
        _check_name_free(db, client.organization_id, name, client.id)
    if "time_zone" in changes:
        check_time_zone(changes["time_zone"])
    before = {field: getattr(client, field) for field in changes}
    for field, value in changes.items():
        setattr(client, field, value)
    db.flush()
    return before


# --- reach ----------------------------------------------------------------------------------------------


def client_time_zone(db: Session, client_id: int) -> str | None:
    """The client's IANA zone as stored (None: not set; the caller picks the default)."""
    return db.scalar(select(Client.time_zone).where(Client.id == client_id))


def client_name(db: Session, client_id: int) -> str | None:
    """The client's name (None: not a client the session sees)."""
    return db.scalar(select(Client.name).where(Client.id == client_id))


def client_time_zones(db: Session) -> dict[int, str | None]:
    """Every client the session sees, with its stored zone (a sweep over all tenants)."""
    return dict(db.execute(select(Client.id, Client.time_zone)).tuples().all())


def client_names(db: Session, reach: Collection[int] | None) -> dict[int, str]:
    """The organization's clients by name, limited to `reach` when given (Client is organization-scoped:
    the session filter keeps this to the caller's organization)."""
    stmt = select(Client).order_by(Client.name)
    if reach is not None:
        stmt = stmt.where(Client.id.in_(reach))
    return {c.id: c.name for c in db.scalars(stmt)}


def check_clients(db: Session, organization_id: int, client_ids: Collection[int], field: str = "clientIds") -> None:
    """Every id is a client of the organization (INVALID_INPUT naming the first that is not)."""
    if not client_ids:
        raise InvalidInput(f"Invalid input: '{field}' must name at least one client (omit it for every client)")
    if len(client_ids) > MAX_CLIENTS_PER_MEMBERSHIP:
        raise InvalidInput(f"Invalid input: '{field}' may name at most {MAX_CLIENTS_PER_MEMBERSHIP} clients")
    known = set(
        db.scalars(select(Client.id).where(Client.organization_id == organization_id, Client.id.in_(client_ids)))
    )
    unknown = sorted(set(client_ids) - known)
    if unknown:
        raise InvalidInput(f"Invalid input: '{field}': {unknown[0]} is not a client of this organization")


def check_grantable(tenant: Tenant, client_ids: Collection[int] | None, field: str = "clientIds") -> None:
    """A member reaching only some clients grants only within them (and never the whole organization)."""
    if tenant.reach is None:
        return
    if client_ids is None:
        raise Forbidden(
            f"Your membership reaches only some clients of this organization: name them in '{field}' "
            "(an organization-wide membership is granted by an organization-wide admin)"
        )
    outside = sorted(set(client_ids) - tenant.reach)
    if outside:
        raise Forbidden(f"Your membership does not reach client {outside[0]}, so you cannot grant it")


def reach_of(db: Session, membership: Membership) -> frozenset[int] | None:
    """The clients a membership reaches (None: every client of its organization)."""
    if membership.all_clients:
        return None
    return frozenset(
        db.scalars(select(MembershipClient.client_id).where(MembershipClient.membership_id == membership.id))
    )


def members_reaching(client_id: int) -> Select[int]:
    """The user ids whose membership reaches `client_id` (organization-wide or listing it); the session's
    tenant filter keeps it to the current organization."""
    listed = select(MembershipClient.membership_id).where(MembershipClient.client_id == client_id)
    return select(Membership.user_id).where(or_(Membership.all_clients, Membership.id.in_(listed)))


def member_count(db: Session, client_id: int, roles: Collection[str]) -> int:
    """How many members of the session's organization with one of `roles` reach `client_id`."""
    reaching = Membership.user_id.in_(members_reaching(client_id))
    return int(db.scalar(select(func.count(Membership.id)).where(Membership.role.in_(roles), reaching)) or 0)


def role_reaching(db: Session, user_id: int, client_id: int) -> str | None:
    """`user_id`'s role if their membership reaches `client_id` (this organization only), else None."""
    listed = select(MembershipClient.membership_id).where(MembershipClient.client_id == client_id)
    return db.scalar(
        select(Membership.role).where(
            Membership.user_id == user_id, or_(Membership.all_clients, Membership.id.in_(listed))
        )
    )


def _set_reach(db: Session, membership: Membership, client_ids: Sequence[int] | None) -> None:
    db.execute(
        delete(MembershipClient)
        .where(MembershipClient.membership_id == membership.id)
        .execution_options(synchronize_session=False)
    )
    membership.all_clients = client_ids is None
    for client_id in sorted(set(client_ids or ())):
        db.add(
            MembershipClient(
                organization_id=membership.organization_id, membership_id=membership.id, client_id=client_id
            )
        )
    db.flush()


# --- invitations and members ----------------------------------------------------------------------------


def invite(
    db: Session,
    outbox: Outbox,
    *,
    organization_id: int,
    email: str,
    role: str,
    invited_by: int | None,
    client_ids: Sequence[int] | None,
    public_base_url: str,
    display_name: str = "",
) -> Invitation:
    """A pending invitation reaching `client_ids` (None: every client), its token mailed to the invitee
    through the outbox (delivered once this call commits, never answered). The membership exists only
    once the invitee accepts it."""
    email = auth_service.normalise_email(email)
    member = db.scalar(
        select(Membership.id)
        .join(User, User.id == Membership.user_id)
        .where(User.email == email, Membership.organization_id == organization_id)
    )
    if member is not None:
        raise Conflict(f"{email} is already a member of this organization")
    if client_ids is not None:
        check_clients(db, organization_id, client_ids)
    invitation, token = auth_service.create_invitation(
        db, organization_id, email, role, display_name, client_ids=client_ids, invited_by=invited_by
    )
    organization = db.get(Organization, organization_id)
    assert organization is not None  # the caller acts in it (or has just created it)
    names = None
    if invitation.client_ids is not None:
        names = list(db.scalars(select(Client.name).where(Client.id.in_(invitation.client_ids)).order_by(Client.name)))
    subject, body = invitation_mail(
        organization=organization.name,
        role=role,
        token=token,
        expires_at=invitation.expires_at,
        base_url=public_base_url,
        client_names=names,
    )
    outbox.queue(db, kind="invitation", recipient=email, subject=subject, body=body, organization_id=organization_id)
    return invitation


def add_member(
    db: Session, organization_id: int, user_id: int, role: str, client_ids: Sequence[int] | None = None
) -> None:
    """Make `user_id` a member with `role` reaching `client_ids` (None: every client) — an accepted
    invitation; an existing membership is kept as is."""
    exists = db.scalar(
        select(Membership.id).where(Membership.organization_id == organization_id, Membership.user_id == user_id)
    )
    if exists is None:
        row = Membership(organization_id=organization_id, user_id=user_id, role=role, all_clients=client_ids is None)
        db.add(row)
        db.flush()
        if client_ids is not None:
            _set_reach(db, row, client_ids)


def membership(db: Session, organization_id: int, user_id: int) -> Membership:
    row = db.scalar(
        select(Membership).where(Membership.organization_id == organization_id, Membership.user_id == user_id)
    )
    if row is None:
        raise NotFound(f"User {user_id} is not a member of this organization")
    return row


def managed_membership(db: Session, tenant: Tenant, user_id: int) -> Membership:
    """A member the caller may manage: anyone for an organization-wide manager; for one reaching only some
    clients, members reaching only clients the caller reaches too (NOT_FOUND for members outside the
    caller's clients, as listMembers does not show them; FORBIDDEN for an organization-wide member)."""
    row = membership(db, tenant.organization_id, user_id)
    if tenant.reach is None:
        return row
    theirs = reach_of(db, row)
    if theirs is not None and not theirs & tenant.reach:
        raise NotFound(f"User {user_id} is not a member of this organization")
    if theirs is None or not theirs <= tenant.reach:
        raise Forbidden("This member reaches clients your membership does not; an organization-wide admin manages them")
    return row


def set_member_clients(db: Session, tenant: Tenant, user_id: int, client_ids: Sequence[int] | None) -> Membership:
    """Set the clients a membership reaches (None: every client); the organization keeps an
    organization-wide admin."""
    row = managed_membership(db, tenant, user_id)
    check_grantable(tenant, client_ids)
    if client_ids is not None:
        check_clients(db, tenant.organization_id, client_ids)
        if row.role == "admin" and row.all_clients:
            ensure_another_admin(db, tenant.organization_id, user_id)
    _set_reach(db, row, client_ids)
    return row


def memberships_statement(user_id: int, organization_id: int | None = None) -> Select[Organization]:
    """The organizations a user is a member of (only `organization_id` when given), by name."""
    stmt = (
        select(Organization)
        .join(Membership, Membership.organization_id == Organization.id)
        .where(Membership.user_id == user_id)
        .order_by(Organization.name)
    )
    return where_given(stmt, (Organization.id, organization_id))


def organizations_statement() -> Select[Organization]:
    """Every organization on the platform (platform operators); unordered, for paging."""
    return select(Organization)


def clients_statement(reach: Collection[int] | None) -> Select[Client]:
    """The organization's clients (Client is OrgScoped: the session filter keeps the caller's
    organization), only those in `reach` when the membership reaches only some; by name."""
    return where_given(select(Client).order_by(Client.name), OneOf(Client.id, reach))


def members_statement(tenant: Tenant) -> Select[int, str, str, str, int, bool]:
    """(user id, email, display name, role, membership id, organization-wide) of the members the
    caller sees (`visible_members`), by email."""
    return (
        select(User.id, User.email, User.display_name, Membership.role, Membership.id, Membership.all_clients)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.user_id.in_(visible_members(tenant)))
        .order_by(User.email)
    )


def member_clients_statement(membership_ids: Collection[int]) -> Select[int, int]:
    """(membership id, client id) of the listed memberships' clients, by client id."""
    return (
        select(MembershipClient.membership_id, MembershipClient.client_id)
        .where(MembershipClient.membership_id.in_(membership_ids))
        .order_by(MembershipClient.client_id)
    )


def visible_members(tenant: Tenant) -> Select[int]:
    """The user ids of the members the caller sees: everyone for an organization-wide member; else the
    members reaching at least one client the caller reaches (organization-wide members included)."""
    if tenant.reach is None:
        return select(Membership.user_id)
    listed = select(MembershipClient.membership_id).where(MembershipClient.client_id.in_(tenant.reach))
    return select(Membership.user_id).where(or_(Membership.all_clients, Membership.id.in_(listed)))


def ensure_another_admin(db: Session, organization_id: int, leaving_user_id: int) -> None:
    """An organization must keep at least one organization-wide admin, or nobody could manage it
    (add clients, scope members, onboard hospitals)."""
    admins = db.scalar(
        select(func.count())
        .select_from(Membership)
        .where(
            Membership.organization_id == organization_id,
            Membership.role == "admin",
            Membership.all_clients,
            Membership.user_id != leaving_user_id,
        )
    )
    if not admins:
        raise PreconditionFailed(
            "The organization would be left without an organization-wide admin; promote someone first"
        )


def display_names(db: Session, user_ids: Collection[int]) -> dict[int, str]:
    """The display name of each user among `user_ids` (their email when they never gave one), to name the
    people on a client's records (revenueOperations' specialists); unknown ids are left out."""
    if not user_ids:
        return {}
    rows = db.execute(select(User.id, User.display_name, User.email).where(User.id.in_(sorted(set(user_ids)))))
    return {int(user_id): name or email for user_id, name, email in rows}
