"""Signing in with a password: throttled, audited on failure, never holding a lock while hashing.

The call's own transaction is rolled back on failure, so the attempt count and the failure's audit
event are written in their own short transactions. The password is verified outside any transaction:
argon2id is slow by design, and a SQLite write lock held meanwhile would serialise every sign-in.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from api.core.errors import Unauthenticated
from api.core.services import AuditRecord
from api.infra.db.base import utcnow
from api.infra.services.container import Services
from api.platform.auth import throttle
from api.platform.auth.models import AuthSession, User
from api.platform.auth.secrets import verify_password
from api.platform.auth.service import find_user, issue_session, normalise_email

_WRONG = "Email or password is not correct"


@dataclass(frozen=True)
class SignIn:
    user: User
    session: AuthSession
    token: str


def _keys(services: Services, email: str, client_ip: str | None) -> tuple[str, str]:
    secret = services.digest_key
    return throttle.key_for(secret, "acct", email), throttle.key_for(secret, "addr", client_ip or "unknown")


def sign_in(db: Session, services: Services, email: str, password: str, client_ip: str | None) -> SignIn:
    """Check the password of `email`; raises RateLimited while a key is blocked, Unauthenticated on failure."""
    settings = services.settings
    email = normalise_email(email)
    account_key, address_key = _keys(services, email, client_ip)
    account_policy, address_policy = throttle.policies(settings)
    with services.database.transaction() as tx:
        now = utcnow()
        throttle.count_attempt(tx, address_key, address_policy, now)
        throttle.count_attempt(tx, account_key, account_policy, now)
        user = find_user(tx, email)
        user_id = user.id if user else None
        password_hash = user.password_hash if user else None
        disabled = bool(user and user.disabled)
    if not verify_password(password_hash, password) or user_id is None or disabled:
        _audit_failure(services, email, user_id)
        raise Unauthenticated(_WRONG)
    throttle.forget(db, account_key)
    throttle.take_back(db, address_key, address_policy)
    signed_in = db.get(User, user_id)
    assert signed_in is not None  # users are never deleted while they sign in
    session, token = issue_session(db, user_id, settings.session_ttl_hours)
    return SignIn(signed_in, session, token)


def _audit_failure(services: Services, email: str, user_id: int | None) -> None:
    """A failed sign-in, in the platform chain: the email digested with the installation key, never the password."""
    with services.database.transaction() as tx:
        services.audit(
            tx,
            AuditRecord(
                organization_id=None,
                client_id=None,
                actor_user_id=None,
                actor_kind="anonymous",
                procedure="auth.login",
                input_value={"email": email},
                target_type="failed_sign_in",
                target_id=str(user_id) if user_id is not None else None,
                before=None,
                after=None,
            ),
        )
