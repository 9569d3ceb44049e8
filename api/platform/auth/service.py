"""Local identity provider: sessions, API keys, invitations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Select, delete, select, update
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from api.infra.db.base import utcnow
from api.platform.auth.models import ApiKey, AuthSession, Invitation, SmartAccessToken, User
from api.platform.auth.secrets import (
    API_KEY_PREFIX,
    INVITE_PREFIX,
    SESSION_PREFIX,
    SMART_TOKEN_PREFIX,
    hash_password,
    new_token,
    token_digest,
)

INVITE_TTL = timedelta(days=7)


def normalise_email(email: str) -> str:
    return email.strip().lower()


def find_user(db: Session, email: str) -> User | None:
    return db.scalar(select(User).where(User.email == normalise_email(email)))


def issue_session(db: Session, user_id: int, ttl_hours: int) -> tuple[AuthSession, str]:
    """A new session token for a user already authenticated (by password, or by the server's own CLI)."""
    token = new_token(SESSION_PREFIX)
    session = AuthSession(
        user_id=user_id, token_hash=token_digest(token), expires_at=utcnow() + timedelta(hours=ttl_hours)
    )
    db.add(session)
    db.flush()
    return session, token


def create_user(
    db: Session, email: str, password: str | None, *, display_name: str = "", is_platform_admin: bool = False
) -> User:
    email = normalise_email(email)
    if db.scalar(select(User.id).where(User.email == email)) is not None:
        raise Conflict(f"A user with email {email} already exists")
    user = User(
        email=email,
        display_name=display_name,
        is_platform_admin=is_platform_admin,
        password_hash=hash_password(password) if password else None,
    )
    db.add(user)
    db.flush()
    return user


def create_api_key(
    db: Session, user_id: int, organization_id: int, name: str, expires_at: datetime
) -> tuple[ApiKey, str]:
    token = new_token(API_KEY_PREFIX)
    key = ApiKey(
        user_id=user_id,
        organization_id=organization_id,
        name=name,
        prefix=token[:12],
        token_hash=token_digest(token),
        expires_at=expires_at,
    )
    db.add(key)
    db.flush()
    return key, token


def api_keys_statement(user_id: int) -> Select[ApiKey]:
    """One user's API keys, newest first."""
    return select(ApiKey).where(ApiKey.user_id == user_id).order_by(ApiKey.id.desc())


def api_key_expiry(days: int | None, *, default_days: int, max_days: int) -> datetime:
    """When a new key stops working: `days` from now (the default when omitted), never beyond the maximum."""
    days = default_days if days is None else days
    if days > max_days:
        raise InvalidInput(f"Invalid input: 'expiresInDays' may be at most {max_days} on this platform")
    return utcnow() + timedelta(days=days)


def set_password(db: Session, user: User, password: str, *, keep_session_id: int | None = None) -> None:
    """Change a password and revoke every other session of the user: whoever held one may be
    the reason the password is changing."""
    user.password_hash = hash_password(password)
    revoke_sessions(db, user.id, keep_session_id=keep_session_id)


def revoke_sessions(db: Session, user_id: int, *, keep_session_id: int | None = None) -> None:
    stmt = update(AuthSession).where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))
    if keep_session_id is not None:
        stmt = stmt.where(AuthSession.id != keep_session_id)
    db.execute(stmt.values(revoked_at=utcnow()).execution_options(synchronize_session=False))


def never_had_credential(user: User) -> bool:
    """An account created by an invitation and not yet claimed: no password, no identity provider subject."""
    return user.password_hash is None and user.oidc_subject is None


def create_invitation(
    db: Session,
    organization_id: int,
    email: str,
    role: str,
    display_name: str = "",
    *,
    client_ids: Sequence[int] | None = None,
    invited_by: int | None = None,
) -> tuple[Invitation, str]:
    """A pending invitation of `email` (an account is created, without any credential, when none exists),
    reaching `client_ids` (None: every client), made by `invited_by` (None: the platform).

    The answer is the same whether or not the account existed; nothing is granted until it is accepted.
    The token is for the invitee's mail only (the caller sends it through the outbox, never answers it).
    """
    email = normalise_email(email)
    user = find_user(db, email) or create_user(db, email, None, display_name=display_name)
    token = new_token(INVITE_PREFIX)
    invite = Invitation(
        user_id=user.id,
        organization_id=organization_id,
        email=email,
        role=role,
        client_ids=None if client_ids is None else sorted(set(client_ids)),
        invited_by_user_id=invited_by,
        token_hash=token_digest(token),
        expires_at=utcnow() + INVITE_TTL,
    )
    db.add(invite)
    db.flush()
    return invite, token


_INVALID_INVITE = "This invitation is not valid (already used, unknown or not yours)"


def open_invitation(db: Session, token: str) -> Invitation:
    """The pending invitation this token names, locked for the acceptance."""
    invite = db.scalar(select(Invitation).where(Invitation.token_hash == token_digest(token)).with_for_update())
    if invite is None or invite.accepted_at is not None:
        raise NotFound(_INVALID_INVITE)
    if invite.expires_at <= utcnow():
        raise PreconditionFailed("This invitation has expired; ask for a new one")
    return invite


def accept_with_password(
    db: Session, token: str, password: str, display_name: str | None, *, is_member: Callable[[int], bool]
) -> Invitation:
    """Claim a new account through its invitation by choosing its first password.

    Refused for any account that already has a credential (a password or an OIDC subject) or a
    membership: those accept while signed in as themselves (organizations.acceptInvite), so an
    invitation never hands anyone a credential to an existing account. (Accounts invited before
    invitations were fixed got their membership at invitation time without a credential; the
    membership check keeps another organization's invitation from claiming them.)
    """
    invite = open_invitation(db, token)
    # Locked: two invitations of one new account accepted at once must not both set a password.
    user = db.get(User, invite.user_id, with_for_update=True, populate_existing=True)
    if user is None or user.email != invite.email:
        raise NotFound(_INVALID_INVITE)
    if not never_had_credential(user) or is_member(user.id):
        raise PreconditionFailed(
            "This account already has a sign-in method: sign in as it and accept the invitation "
            "with organizations.acceptInvite"
        )
    set_password(db, user, password)
    if display_name:
        user.display_name = display_name
    invite.accepted_at = utcnow()
    return invite


def accept_signed_in(db: Session, token: str, user_id: int) -> Invitation:
    """Accept an invitation as the signed-in account it was made for; no credential changes."""
    invite = open_invitation(db, token)
    user = db.get(User, user_id)
    if invite.user_id != user_id or user is None or user.email != invite.email:
        # The same answer as an unknown token: the caller learns nothing about whom it was for.
        raise NotFound(_INVALID_INVITE)
    invite.accepted_at = utcnow()
    return invite


def issue_smart_token(
    db: Session,
    *,
    organization_id: int,
    client_id: int,
    registration_id: int,
    scopes: list[str],
    now: datetime,
    lifetime_seconds: int,
) -> str:
    """A new SMART backend access token (`dpf_...`) for a registration, stored as its digest only; the
    registration's expired tokens are deleted first. Answers the token (shown once)."""
    db.execute(
        delete(SmartAccessToken)
        .where(SmartAccessToken.registration_id == registration_id, SmartAccessToken.expires_at <= now)
        .execution_options(synchronize_session=False)
    )
    token = new_token(SMART_TOKEN_PREFIX)
    db.add(
        SmartAccessToken(
            organization_id=organization_id,
            client_id=client_id,
            registration_id=registration_id,
            token_hash=token_digest(token),
            scopes=scopes,
            expires_at=now + timedelta(seconds=lifetime_seconds),
        )
    )
    return token
