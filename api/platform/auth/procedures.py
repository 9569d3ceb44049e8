"""auth.*: sessions with the local identity provider, API keys, invitations.

OIDC tokens need no procedure: they are verified on every call.
"""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import InvalidInput, NotFound
from api.infra.db.base import utcnow
from api.platform.auth import service
from api.platform.auth.models import ApiKey, AuthSession, User
from api.platform.auth.schemas import (
    AcceptInviteIn,
    ApiKeyOut,
    ApiKeyRef,
    CreateApiKeyIn,
    CreatedApiKeyOut,
    LoginIn,
    LoginOut,
    MembershipOut,
    SessionOut,
)
from api.rpc.context import Context, PublicContext, UserContext
from api.rpc.procedure import rpc
from api.rpc.schema import Ok


@rpc.mutation("auth.login", auth="public")
def login(ctx: PublicContext, input: LoginIn) -> LoginOut:
    """Sign in with email and password; returns a bearer token for `Authorization: Bearer`."""
    user, session, token = service.login(ctx.db, input.email, input.password, ctx.services.settings.session_ttl_hours)
    ctx.audit.actor_user_id = user.id
    ctx.note("auth_session", session.id)
    return LoginOut(token=token, expires_at=session.expires_at, user_id=user.id)


@rpc.mutation("auth.logout", auth="user")
def logout(ctx: UserContext) -> Ok:
    """End the current session (API keys are revoked with auth.revokeApiKey instead)."""
    if ctx.principal.session_id is None:
        raise InvalidInput("Only a session token can be signed out; revoke API keys instead")
    session = ctx.db.get(AuthSession, ctx.principal.session_id)
    # The principal was resolved from this very session row on this call, and sessions are never deleted.
    assert session is not None
    session.revoked_at = utcnow()
    ctx.note("auth_session", session.id)
    return Ok()


@rpc.query("auth.session", auth="user")
def current_session(ctx: UserContext) -> SessionOut:
    """Who the bearer token belongs to, how it was verified, and the caller's organizations."""
    user = ctx.db.get(User, ctx.user_id)
    # The signed-in caller: the principal was resolved from this user's row on this call.
    assert user is not None
    memberships = ctx.services.memberships_of(ctx.db, user.id)
    return SessionOut(
        user_id=user.id,
        email=user.email,
        display_name=user.display_name,
        method=ctx.principal.method,
        is_platform_admin=ctx.principal.is_platform_admin,
        memberships=[
            MembershipOut(organization_id=m.organization_id, organization_name=m.organization_name, role=m.role)
            for m in memberships
        ],
    )


@rpc.mutation("auth.createApiKey", auth="tenant", permission="write")
def create_api_key(ctx: Context, input: CreateApiKeyIn) -> CreatedApiKeyOut:
    """Create an API key acting as you inside the current organization; the secret is shown once."""
    key, token = service.create_api_key(ctx.db, ctx.user_id, ctx.org_id, input.name)
    ctx.note("api_key", key.id)
    return CreatedApiKeyOut.model_validate({**ApiKeyOut.model_validate(key).model_dump(), "key": token})


@rpc.mutation("auth.revokeApiKey", auth="user")
def revoke_api_key(ctx: UserContext, input: ApiKeyRef) -> ApiKeyOut:
    """Revoke one of your API keys; calls with it fail from now on."""
    key = ctx.db.get(ApiKey, input.id)
    if key is None or key.user_id != ctx.user_id:
        raise NotFound(f"API key {input.id} was not found among your keys")
    if key.revoked_at is None:
        key.revoked_at = utcnow()
    ctx.audit.organization_id = key.organization_id
    ctx.note("api_key", key.id)
    return ApiKeyOut.model_validate(key)


@rpc.query("auth.listApiKeys", auth="user")
def list_api_keys(ctx: UserContext) -> list[ApiKeyOut]:
    """Your API keys (prefixes only, never the secrets)."""
    keys = ctx.db.scalars(select(ApiKey).where(ApiKey.user_id == ctx.user_id).order_by(ApiKey.id.desc()))
    return [ApiKeyOut.model_validate(k) for k in keys]


@rpc.mutation("auth.acceptInvite", auth="public")
def accept_invite(ctx: PublicContext, input: AcceptInviteIn) -> Ok:
    """Accept an invitation from organizations.inviteMember by choosing a password."""
    user = service.accept_invitation(ctx.db, input.token, input.password, input.display_name)
    ctx.audit.actor_user_id = user.id
    ctx.note("user", user.id)
    return Ok()
