"""Local identity provider: sessions, API keys, invitations."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, NotFound, PreconditionFailed, Unauthenticated
from api.infra.db.base import utcnow
from api.platform.auth.models import ApiKey, AuthSession, Invitation, User
from api.platform.auth.secrets import (
    API_KEY_PREFIX,
    SESSION_PREFIX,
    hash_password,
    new_token,
    token_digest,
    verify_password,
)

INVITE_TTL = timedelta(days=7)


def normalise_email(email: str) -> str:
    return email.strip().lower()


def login(db: Session, email: str, password: str, ttl_hours: int) -> tuple[User, AuthSession, str]:
    user = db.scalar(select(User).where(User.email == normalise_email(email)))
    ok = verify_password(user.password_hash if user else None, password)
    if not ok or user is None or user.disabled:
        raise Unauthenticated("Email or password is not correct")
    session, token = issue_session(db, user.id, ttl_hours)
    return user, session, token


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


def create_api_key(db: Session, user_id: int, organization_id: int, name: str) -> tuple[ApiKey, str]:
    token = new_token(API_KEY_PREFIX)
    key = ApiKey(
        user_id=user_id, organization_id=organization_id, name=name, prefix=token[:12], token_hash=token_digest(token)
    )
    db.add(key)
    db.flush()
    return key, token


def create_invitation(db: Session, user_id: int, organization_id: int) -> str:
    token = new_token("dpi_")
    db.add(
        Invitation(
            user_id=user_id,
            organization_id=organization_id,
            token_hash=token_digest(token),
            expires_at=utcnow() + INVITE_TTL,
        )
    )
    db.flush()
    return token


def accept_invitation(db: Session, token: str, password: str, display_name: str | None) -> User:
    invite = db.scalar(select(Invitation).where(Invitation.token_hash == token_digest(token)))
    if invite is None or invite.accepted_at is not None:
        raise NotFound("This invitation is not valid (already used or unknown)")
    if invite.expires_at <= utcnow():
        raise PreconditionFailed("This invitation has expired; ask for a new one")
    user = db.get(User, invite.user_id)
    if user is None:
        raise NotFound("The account this invitation was for no longer exists; ask for a new invitation")
    user.password_hash = hash_password(password)
    if display_name:
        user.display_name = display_name
    invite.accepted_at = utcnow()
    return user
