"""organizations.*: tenants, their clients (facilities), members and roles."""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import NotFound
from api.platform.auth import service as auth_service
from api.platform.auth.models import User
from api.platform.organizations import service
from api.platform.organizations.models import Client, Membership, Organization
from api.platform.organizations.schemas import (
    AcceptedInvitationOut,
    AcceptInvitationIn,
    ClientIn,
    ClientOut,
    CreatedOrganizationOut,
    CreateOrganizationIn,
    InviteIn,
    InviteOut,
    MemberOut,
    MemberRef,
    OrganizationOut,
    SetRoleIn,
    as_role,
)
from api.rpc.context import Context, UserContext
from api.rpc.procedure import rpc
from api.rpc.schema import Ok


@rpc.query("organizations.get")
def get(ctx: Context) -> OrganizationOut:
    """The organization that owns the selected client."""
    return OrganizationOut.model_validate(ctx.db.get(Organization, ctx.org_id))


@rpc.query("organizations.list", auth="user", api_keys=True)
def list_organizations(ctx: UserContext) -> list[OrganizationOut]:
    """Organizations you are a member of (for an API key: its own organization only)."""
    stmt = (
        select(Organization)
        .join(Membership, Membership.organization_id == Organization.id)
        .where(Membership.user_id == ctx.user_id)
        .order_by(Organization.name)
    )
    if ctx.principal.api_key_org_id is not None:
        stmt = stmt.where(Organization.id == ctx.principal.api_key_org_id)
    rows = ctx.db.scalars(stmt)
    return [OrganizationOut.model_validate(o) for o in rows]


@rpc.mutation("organizations.create", auth="user")
def create(ctx: UserContext, input: CreateOrganizationIn) -> CreatedOrganizationOut:
    """Create an organization with its first client; you become its admin."""
    org, client = service.create_organization(
        ctx.db, input.name, input.slug, ctx.user_id, input.first_client_name, input.first_client_npi
    )
    ctx.audit.organization_id = org.id
    ctx.note("organization", org.id, after={"name": org.name, "slug": org.slug})
    return CreatedOrganizationOut.model_validate(
        {**OrganizationOut.model_validate(org).model_dump(), "first_client_id": client.id}
    )


@rpc.mutation("organizations.addClient", permission="manage")
def add_client(ctx: Context, input: ClientIn) -> ClientOut:
    """Add a client (hospital or facility) to the organization."""
    client = service.add_client(ctx.db, ctx.org_id, input.name, input.npi)
    ctx.note("client", client.id, after=input)
    return ClientOut.model_validate(client)


@rpc.query("organizations.listClients")
def list_clients(ctx: Context) -> list[ClientOut]:
    """Clients (facilities) of the organization."""
    return [ClientOut.model_validate(c) for c in ctx.db.scalars(select(Client).order_by(Client.name))]


@rpc.query("organizations.listMembers")
def list_members(ctx: Context) -> list[MemberOut]:
    """Members of the organization and their roles."""
    rows = ctx.db.execute(
        select(User.id, User.email, User.display_name, Membership.role)
        .join(Membership, Membership.user_id == User.id)
        .order_by(User.email)
    )
    return [MemberOut(user_id=i, email=e, display_name=d, role=as_role(r)) for i, e, d, r in rows]


@rpc.mutation("organizations.inviteMember", permission="manage")
def invite_member(ctx: Context, input: InviteIn) -> InviteOut:
    """Invite someone by email with a role. The answer is the same whether or not they have an account:
    a single-use token that grants the membership once the invitee accepts it, never a credential."""
    invite, token = service.invite(ctx.db, ctx.org_id, input.email, input.role, input.display_name)
    ctx.note("invitation", invite.id, after={"role": input.role})
    return InviteOut(
        invitation_id=invite.id, email=invite.email, role=input.role, invite_token=token, expires_at=invite.expires_at
    )


@rpc.mutation("organizations.acceptInvite", auth="user")
def accept_invite(ctx: UserContext, input: AcceptInvitationIn) -> AcceptedInvitationOut:
    """Accept an invitation made for your account while signed in as yourself; you become a member."""
    invite = auth_service.accept_signed_in(ctx.db, input.token.get_secret_value(), ctx.user_id)
    service.add_member(ctx.db, invite.organization_id, ctx.user_id, invite.role)
    ctx.audit.organization_id = invite.organization_id
    ctx.note("membership", ctx.user_id, after={"role": invite.role})
    return AcceptedInvitationOut(organization_id=invite.organization_id, role=as_role(invite.role))


@rpc.mutation("organizations.setRole", permission="manage")
def set_role(ctx: Context, input: SetRoleIn) -> MemberOut:
    """Change a member's role; the organization always keeps at least one admin."""
    member = service.membership(ctx.db, ctx.org_id, input.user_id)
    before = member.role
    if before == "admin" and input.role != "admin":
        service.ensure_another_admin(ctx.db, ctx.org_id, input.user_id)
    member.role = input.role
    user = ctx.db.get(User, input.user_id)
    if user is None:
        raise NotFound(f"User {input.user_id} is not a member of this organization")
    ctx.note("membership", input.user_id, before={"role": before}, after={"role": input.role})
    return MemberOut(user_id=user.id, email=user.email, display_name=user.display_name, role=member.role)


@rpc.mutation("organizations.removeMember", permission="manage")
def remove_member(ctx: Context, input: MemberRef) -> Ok:
    """Remove a member from the organization (their API keys for it stop working)."""
    member = service.membership(ctx.db, ctx.org_id, input.user_id)
    if member.role == "admin":
        service.ensure_another_admin(ctx.db, ctx.org_id, input.user_id)
    ctx.note("membership", input.user_id, before={"role": member.role})
    ctx.db.delete(member)
    return Ok()
