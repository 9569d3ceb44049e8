"""organizations.*: tenants, their clients (facilities), members, the clients each member reaches, and roles.

A member reaching only some clients (a hospital's own staff) sees and manages only those: the clients
listed, the members reaching them, invitations within them. What concerns the whole organization
(adding a client) needs an organization-wide membership.
"""

from __future__ import annotations

from api.core.errors import NotFound
from api.infra.outbox.service import outbox_of
from api.platform.auth import service as auth_service
from api.platform.auth.models import User
from api.platform.organizations import service
from api.platform.organizations.models import Membership, Organization
from api.platform.organizations.schemas import (
    AcceptedInvitationOut,
    AcceptInvitationIn,
    ClientIn,
    ClientOut,
    CreatedOrganizationOut,
    CreateOrganizationIn,
    InviteIn,
    InviteOut,
    MemberClientsIn,
    MemberOut,
    MemberRef,
    OrganizationOut,
    SetRoleIn,
    UpdateClientIn,
    as_role,
)
from api.rpc.context import Context, UserContext
from api.rpc.procedure import rpc
from api.rpc.schema import Ok

router = rpc.namespace("organizations")


@router.query("get")
def get(ctx: Context) -> OrganizationOut:
    """The organization that owns the selected client."""
    return OrganizationOut.model_validate(ctx.db.get(Organization, ctx.org_id))


@router.query("list", auth="user", api_keys=True)
def list_organizations(ctx: UserContext) -> list[OrganizationOut]:
    """Organizations you are a member of (for an API key: its own organization only)."""
    rows = ctx.db.scalars(service.memberships_statement(ctx.user_id, ctx.principal.api_key_org_id))
    return [OrganizationOut.model_validate(o) for o in rows]


@router.mutation("create", auth="platform_admin")
def create(ctx: UserContext, input: CreateOrganizationIn) -> CreatedOrganizationOut:
    """Platform administrators only: create an organization with its first client; you become its
    organization-wide admin. A hospital joining an existing organization arrives through hospitalOnboarding."""
    org, client = service.create_organization(
        ctx.db, input.name, input.slug, ctx.user_id, input.first_client_name, input.first_client_npi
    )
    ctx.audit.organization_id = org.id
    ctx.note("organization", org.id, after={"name": org.name, "slug": org.slug})
    return CreatedOrganizationOut.model_validate(
        {**OrganizationOut.model_validate(org).model_dump(), "first_client_id": client.id}
    )


@router.mutation("addClient", permission="manage")
def add_client(ctx: Context, input: ClientIn) -> ClientOut:
    """Add a client (hospital or facility) to the organization; organization-wide admins only (FORBIDDEN
    for a membership reaching only some clients)."""
    ctx.require_organization_wide("Adding a client")
    client = service.add_client(ctx.db, ctx.org_id, input.name, input.npi, input.time_zone)
    ctx.note("client", client.id, after=input)
    return ClientOut.model_validate(client)


@router.mutation("updateClient", permission="manage")
def update_client(ctx: Context, input: UpdateClientIn) -> ClientOut:
    """Rename a client and/or set its IANA time zone (`timeZone`: null goes back to the platform default;
    an omitted field stays as it is); admins only, for a client their membership reaches. The time zone
    moves the client's "today": its deadlines' statuses and the worklist's days left. An unknown zone is
    BAD_REQUEST; a client of another organization (or outside your reach) is NOT_FOUND."""
    client = service.managed_client(ctx.db, ctx.tenant, input.client_id)
    changes = {field: getattr(input, field) for field in ("name", "time_zone") if field in input.model_fields_set}
    before = service.update_client(ctx.db, client, changes)
    ctx.note("client", client.id, before=before, after=changes)
    return ClientOut.model_validate(client)


@router.query("listClients")
def list_clients(ctx: Context) -> list[ClientOut]:
    """Clients (facilities) of the organization your membership reaches (all of them when it is
    organization-wide)."""
    return [ClientOut.model_validate(c) for c in ctx.db.scalars(service.clients_statement(ctx.tenant.reach))]


@router.query("listMembers")
def list_members(ctx: Context) -> list[MemberOut]:
    """Members of the organization, their roles and the clients they reach. A member reaching only some
    clients sees the members reaching at least one of them, and of each member's clients only those."""
    rows = ctx.db.execute(service.members_statement(ctx.tenant)).all()
    scoped = [r[4] for r in rows if not r[5]]
    reach: dict[int, list[int]] = {m: [] for m in scoped}
    if scoped:
        listed = ctx.db.execute(service.member_clients_statement(scoped))
        for membership_id, client_id in listed:
            if ctx.tenant.reaches(client_id):
                reach[membership_id].append(client_id)
    return [
        MemberOut(user_id=i, email=e, display_name=d, role=as_role(r), client_ids=None if all_clients else reach[m])
        for i, e, d, r, m, all_clients in rows
    ]


@router.mutation("inviteMember", permission="manage")
def invite_member(ctx: Context, input: InviteIn) -> InviteOut:
    """Invite someone by email with a role, reaching the clients named in `clientIds` (omitted: every
    client, which only an organization-wide admin may grant; a member reaching only some clients invites
    within them). The single-use token is mailed to the invitee (never answered); the answer is the same
    whether or not they have an account, and nothing is granted until they accept."""
    service.check_grantable(ctx.tenant, input.client_ids)
    invite = service.invite(
        ctx.db,
        outbox_of(ctx.services),
        organization_id=ctx.org_id,
        email=input.email,
        role=input.role,
        invited_by=ctx.user_id,
        client_ids=input.client_ids,
        public_base_url=ctx.services.settings.public_base_url,
        display_name=input.display_name,
    )
    ctx.note("invitation", invite.id, after={"role": input.role, "clientIds": invite.client_ids})
    return InviteOut(
        invitation_id=invite.id,
        email=invite.email,
        role=input.role,
        client_ids=invite.client_ids,
        expires_at=invite.expires_at,
    )


@router.mutation("acceptInvite", auth="user")
def accept_invite(ctx: UserContext, input: AcceptInvitationIn) -> AcceptedInvitationOut:
    """Accept an invitation made for your account while signed in as yourself (the invitation's email
    must be your account's); you become a member reaching the clients it names."""
    invite = auth_service.accept_signed_in(ctx.db, input.token.get_secret_value(), ctx.user_id)
    service.add_member(ctx.db, invite.organization_id, ctx.user_id, invite.role, invite.client_ids)
    ctx.audit.organization_id = invite.organization_id
    ctx.note("membership", ctx.user_id, after={"role": invite.role, "clientIds": invite.client_ids})
    return AcceptedInvitationOut(
        organization_id=invite.organization_id, role=as_role(invite.role), client_ids=invite.client_ids
    )


def _member_out(ctx: Context, member: Membership) -> MemberOut:
    user = ctx.db.get(User, member.user_id)
    if user is None:
        raise NotFound(f"User {member.user_id} is not a member of this organization")
    reach = service.reach_of(ctx.db, member)
    shown = None if reach is None else sorted(c for c in reach if ctx.tenant.reaches(c))
    return MemberOut(
        user_id=user.id, email=user.email, display_name=user.display_name, role=as_role(member.role), client_ids=shown
    )


@router.mutation("setRole", permission="manage")
def set_role(ctx: Context, input: SetRoleIn) -> MemberOut:
    """Change a member's role; the organization always keeps at least one organization-wide admin. A
    member reaching only some clients manages only members reaching none but those clients."""
    member = service.managed_membership(ctx.db, ctx.tenant, input.user_id)
    before = member.role
    if before == "admin" and input.role != "admin":
        service.ensure_another_admin(ctx.db, ctx.org_id, input.user_id)
    member.role = input.role
    ctx.note("membership", input.user_id, before={"role": before}, after={"role": input.role})
    return _member_out(ctx, member)


@router.mutation("setMemberClients", permission="manage")
def set_member_clients(ctx: Context, input: MemberClientsIn) -> MemberOut:
    """Set the clients a member reaches (`clientIds`: null for every client, which only an
    organization-wide admin grants). The organization keeps at least one organization-wide admin."""
    before = service.reach_of(ctx.db, service.managed_membership(ctx.db, ctx.tenant, input.user_id))
    member = service.set_member_clients(ctx.db, ctx.tenant, input.user_id, input.client_ids)
    ctx.note(
        "membership",
        input.user_id,
        before={"clientIds": None if before is None else sorted(before)},
        after={"clientIds": input.client_ids},
    )
    return _member_out(ctx, member)


@router.mutation("removeMember", permission="manage")
def remove_member(ctx: Context, input: MemberRef) -> Ok:
    """Remove a member from the organization (their API keys for it stop working)."""
    member = service.managed_membership(ctx.db, ctx.tenant, input.user_id)
    if member.role == "admin":
        service.ensure_another_admin(ctx.db, ctx.org_id, input.user_id)
    ctx.note("membership", input.user_id, before={"role": member.role})
    ctx.db.delete(member)
    return Ok()
