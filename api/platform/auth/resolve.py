"""Who is calling: turns `Authorization: Bearer <token>` into a Principal.

Four kinds of token travel the same way: local sessions (`dps_`), API keys
(`dpk_`), SMART backend access tokens (`dpf_`, issued by `fhirSmartContracts.token`)
and OIDC JWTs from the configured identity provider.
"""

from __future__ import annotations

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from api.core.errors import Unauthenticated
from api.core.identity import Principal, SmartGrant, VerifiedIdentity
from api.core.services import PrincipalResolver
from api.infra.db.base import utcnow
from api.infra.services.container import Services
from api.platform.auth.models import ApiKey, AuthSession, SmartAccessToken, User
from api.platform.auth.secrets import API_KEY_PREFIX, SESSION_PREFIX, SMART_TOKEN_PREFIX, token_digest

_MISSING = "Sign in first: send 'Authorization: Bearer <token>' (get one from auth.login)"


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("The Authorization header must be 'Bearer <token>'")
    return token.strip()


def principal_resolver(services: Services) -> PrincipalResolver:
    """The resolver the RPC executor uses, bound to the services (OIDC verifier, database)."""

    def resolve(db: Session, authorization: str | None) -> Principal:
        return resolve_principal(db, services, authorization)

    return resolve


def resolve_principal(db: Session, services: Services, authorization: str | None) -> Principal:
    token = bearer_token(authorization)
    if token is None:
        raise Unauthenticated(_MISSING)
    if token.startswith(SESSION_PREFIX):
        return _from_session(db, token)
    if token.startswith(API_KEY_PREFIX):
        return _from_api_key(db, token)
    if token.startswith(SMART_TOKEN_PREFIX):
        return _from_smart_token(db, token)
    if token.count(".") == 2:
        return _from_oidc(db, services, token)
    raise Unauthenticated("The bearer token is not a session, API key or identity token")


def _active_user(db: Session, user_id: int) -> User:
    user = db.get(User, user_id)
    if user is None or user.disabled:
        raise Unauthenticated("This account is disabled")
    return user


# Every authenticated call runs this, so it is one statement built once: the session and its
# user in a single round trip, as plain columns (no ORM objects to build and track). The outer
# join keeps "unknown session" and "disabled or missing user" distinct, as two lookups did.
_SESSION_AND_USER = (
    select(
        AuthSession.id,
        AuthSession.revoked_at,
        AuthSession.expires_at,
        User.id,
        User.email,
        User.is_platform_admin,
        User.disabled,
    )
    .outerjoin(User, User.id == AuthSession.user_id)
    .where(AuthSession.token_hash == bindparam("digest"))
)


def _from_session(db: Session, token: str) -> Principal:
    row = db.execute(_SESSION_AND_USER, {"digest": token_digest(token)}).one_or_none()
    if row is None:
        raise Unauthenticated("This session is not valid (signed out or unknown); sign in again")
    session_id, revoked_at, expires_at, user_id, email, is_platform_admin, disabled = row
    if revoked_at is not None:
        raise Unauthenticated("This session is not valid (signed out or unknown); sign in again")
    if expires_at <= utcnow():
        raise Unauthenticated("This session has expired; sign in again")
    if user_id is None or disabled:
        raise Unauthenticated("This account is disabled")
    return Principal(
        user_id=user_id, email=email, method="session", is_platform_admin=bool(is_platform_admin), session_id=session_id
    )


def _from_api_key(db: Session, token: str) -> Principal:
    row = db.scalar(select(ApiKey).where(ApiKey.token_hash == token_digest(token)))
    if row is None or row.revoked_at is not None:
        raise Unauthenticated("This API key is not valid (revoked or unknown)")
    if row.expires_at <= utcnow():
        raise Unauthenticated("This API key has expired; create a new one")
    user = _active_user(db, row.user_id)
    # API keys never carry platform-admin power: that needs an interactive sign-in.
    return Principal(
        user_id=user.id, email=user.email, method="api_key", api_key_id=row.id, api_key_org_id=row.organization_id
    )


def _from_smart_token(db: Session, token: str) -> Principal:
    row = db.scalar(select(SmartAccessToken).where(SmartAccessToken.token_hash == token_digest(token)))
    if row is None:
        raise Unauthenticated("This SMART access token is not valid (unknown)")
    if row.expires_at <= utcnow():
        raise Unauthenticated("This SMART access token has expired; request a new one with fhirSmartContracts.token")
    # No person stands behind it (user_id 0 is no user): the executor lets it call only procedures
    # declaring `smart_scopes`, and the tenant resolver binds it to its registration's client.
    grant = SmartGrant(
        registration_id=row.registration_id,
        organization_id=row.organization_id,
        client_id=row.client_id,
        scopes=frozenset(row.scopes),
    )
    return Principal(user_id=0, email="", method="smart", smart=grant)


def _from_oidc(db: Session, services: Services, token: str) -> Principal:
    verifier = services.oidc_verifier
    if verifier is None:
        raise Unauthenticated("Identity tokens are not accepted here: no OIDC issuer is configured")
    identity = verifier.verify(token)
    subject_key = f"{identity.issuer}|{identity.subject}"
    user = db.scalar(select(User).where(User.oidc_subject == subject_key))
    if user is None and _may_link_by_email(services, identity):
        assert identity.email is not None  # _may_link_by_email checked it
        candidate = db.scalar(select(User).where(User.email == identity.email.lower()))
        # Never re-link: an account already bound to another subject stays bound to it.
        if (
            candidate is not None
            and candidate.oidc_subject is None
            and _link_subject(services, candidate.id, subject_key)
        ):
            user = candidate
    if user is None:
        raise Unauthenticated("This identity has no platform account; ask an administrator to invite it")
    if user.disabled:
        raise Unauthenticated("This account is disabled")
    return Principal(user_id=user.id, email=user.email, method="oidc", is_platform_admin=user.is_platform_admin)


def _may_link_by_email(services: Services, identity: VerifiedIdentity) -> bool:
    """Link by email only when the deployment allows it and the provider vouches for the email."""
    return bool(
        services.settings.oidc_link_by_email and identity.email and identity.claims.get("email_verified") is True
    )


def _link_subject(services: Services, user_id: int, subject_key: str) -> bool:
    """Bind the provider's subject to this account, committed on its own (the call itself may be a
    query whose transaction is rolled back). True when this call bound it.

    A local password on the account is cleared and its sessions revoked: whoever chose that password
    may not own the email the provider has just verified.
    """
    with services.database.transaction() as db:
        user = db.get(User, user_id, with_for_update=True)
        if user is None or user.oidc_subject is not None:
            return False
        user.oidc_subject = subject_key
        user.password_hash = None
        db.execute(
            update(AuthSession)
            .where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))
            .values(revoked_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        return True
