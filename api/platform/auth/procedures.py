"""auth.*: sessions with the local identity provider, API keys, invitations.

OIDC tokens need no procedure: they are verified on every call.
"""

from __future__ import annotations

from api.core.errors import Forbidden, InvalidInput, NotFound
from api.infra.db.base import utcnow
from api.platform.auth import service, signin
from api.platform.auth.models import ApiKey, AuthSession, User
from api.platform.auth.schemas import (
    AcceptInviteIn,
    ApiKeyOut,
    ApiKeyRef,
    ChangePasswordIn,
    CreateApiKeyIn,
    CreatedApiKeyOut,
    LoginIn,
    LoginOut,
    MembershipOut,
    SessionOut,
)
from api.platform.auth.secrets import verify_password
from api.rpc.context import Context, PublicContext, UserContext
from api.rpc.procedure import rpc
from api.rpc.schema import Ok

router = rpc.namespace("auth")


@router.mutation("login", auth="public", batch=False)
def login(ctx: PublicContext, input: LoginIn) -> LoginOut:
    """Sign in with email and password; returns a bearer token for `Authorization: Bearer`.

    Throttled per account and per client address (TOO_MANY_REQUESTS with Retry-After); never in a batch.
    """
    done = signin.sign_in(ctx.db, ctx.services, input.email, input.password.get_secret_value(), ctx.client_ip)
    ctx.audit.actor_user_id = done.user.id
    ctx.note("auth_session", done.session.id)
    return LoginOut(token=done.token, expires_at=done.session.expires_at, user_id=done.user.id)


@router.mutation("logout", auth="user")
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


@router.query("session", auth="user", api_keys=True)
def current_session(ctx: UserContext) -> SessionOut:
    """Who the bearer token belongs to, how it was verified, and the caller's organizations
    (for an API key: its own organization only)."""
    user = ctx.db.get(User, ctx.user_id)
    # The signed-in caller: the principal was resolved from this user's row on this call.
    assert user is not None
    key_org = ctx.principal.api_key_org_id
    memberships = [
        m for m in ctx.services.memberships_of(ctx.db, user.id) if key_org is None or m.organization_id == key_org
    ]
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


@router.mutation("createApiKey", auth="tenant", permission="manage", api_keys=False)
def create_api_key(ctx: Context, input: CreateApiKeyIn) -> CreatedApiKeyOut:
    """Create an API key acting as you inside the current organization, expiring after `expiresInDays`
    (default 90, bounded); the secret is shown once. Needs the manage permission and a signed-in person."""
    settings = ctx.services.settings
    expires_at = service.api_key_expiry(
        input.expires_in_days, default_days=settings.api_key_default_days, max_days=settings.api_key_max_days
    )
    key, token = service.create_api_key(ctx.db, ctx.user_id, ctx.org_id, input.name, expires_at)
    ctx.note("api_key", key.id)
    return CreatedApiKeyOut.model_validate({**ApiKeyOut.model_validate(key).model_dump(), "key": token})


@router.mutation("revokeApiKey", auth="user")
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


@router.query("listApiKeys", auth="user")
def list_api_keys(ctx: UserContext) -> list[ApiKeyOut]:
    """Your API keys (prefixes only, never the secrets)."""
    keys = ctx.db.scalars(service.api_keys_statement(ctx.user_id))
    return [ApiKeyOut.model_validate(k) for k in keys]


@router.mutation("acceptInvite", auth="public", batch=False)
def accept_invite(ctx: PublicContext, input: AcceptInviteIn) -> Ok:
    """Accept an invitation to a new account by choosing its first password (the token, mailed to the
    invitee, is single-use, expires, and is bound to the invitation's email). Refused (PRECONDITION_FAILED)
    when the email already has an account (a sign-in method or a membership): that account signs in and
    accepts with organizations.acceptInvite instead."""
    invite = service.accept_with_password(
        ctx.db,
        input.token.get_secret_value(),
        input.password.get_secret_value(),
        input.display_name,
        is_member=lambda user_id: bool(ctx.services.memberships_of(ctx.db, user_id)),
    )
    ctx.services.add_member(ctx.db, invite.organization_id, invite.user_id, invite.role, invite.client_ids)
    ctx.audit.actor_user_id = invite.user_id
    ctx.audit.organization_id = invite.organization_id
    ctx.note("membership", invite.user_id, after={"role": invite.role, "clientIds": invite.client_ids})
    return Ok()


@router.mutation("changePassword", auth="user", batch=False)
def change_password(ctx: UserContext, input: ChangePasswordIn) -> Ok:
    """Change your password (the current one is required); every other session of yours is signed out."""
    user = ctx.db.get(User, ctx.user_id)
    assert user is not None  # the principal was resolved from this row on this call
    if not verify_password(user.password_hash, input.current_password.get_secret_value()):
        raise Forbidden("The current password is not correct")
    service.set_password(ctx.db, user, input.new_password.get_secret_value(), keep_session_id=ctx.principal.session_id)
    ctx.note("user", user.id)
    return Ok()
