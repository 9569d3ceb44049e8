"""Local identity provider: login, sessions, API keys, invitations."""

from __future__ import annotations

from argon2 import extract_parameters
from sqlalchemy import update

from api.infra.db.base import utcnow
from api.platform.auth.models import AuthSession, User
from tests.conftest import make_user, sign_in
from tests.support.outbox import invite_token
from tests.support.tenancy import new_organization


def test_login_returns_token_and_session_describes_caller(services, rpc):
    _, email, password = make_user(services)
    login = rpc.mutation("auth.login", {"email": email.upper(), "password": password})
    assert login.status == 200
    token = login.data["token"]
    assert token.startswith("dps_") and login.data["expiresAt"]
    session = rpc.as_(token).query("auth.session").data
    assert session["email"] == email and session["method"] == "session"


def test_wrong_password_and_unknown_user_look_the_same(services, rpc):
    _, email, _ = make_user(services)
    wrong = rpc.mutation("auth.login", {"email": email, "password": "nope"})
    unknown = rpc.mutation("auth.login", {"email": "ghost@example.test", "password": "nope"})
    assert wrong.code == unknown.code == "UNAUTHORIZED"
    assert wrong.error["message"] == unknown.error["message"]


def test_login_validates_input(rpc):
    result = rpc.mutation("auth.login", {"email": "not-an-email", "password": "x"})
    assert result.code == "BAD_REQUEST"
    assert any(i["path"] == "email" for i in result.error["data"]["issues"])
    missing = rpc.mutation("auth.login", {"email": "a@b.c"})
    assert missing.code == "BAD_REQUEST" and "password" in missing.error["message"]


def test_password_never_echoed_in_errors(rpc):
    secret = "hunter2-very-secret"
    result = rpc.mutation("auth.login", {"email": "x@y.z", "password": secret, "extra": secret})
    assert secret not in str(result.body)


def test_logout_revokes_the_session(services, rpc):
    _, email, password = make_user(services)
    token = sign_in(rpc, email, password)
    assert rpc.as_(token).mutation("auth.logout").data == {"ok": True}
    assert rpc.as_(token).query("auth.session").code == "UNAUTHORIZED"


def test_expired_session_is_refused(services, rpc):
    user_id, email, password = make_user(services)
    token = sign_in(rpc, email, password)
    with services.database.transaction() as db:
        db.execute(update(AuthSession).where(AuthSession.user_id == user_id).values(expires_at=utcnow()))
    result = rpc.as_(token).query("auth.session")
    assert result.code == "UNAUTHORIZED" and "expired" in result.error["message"]


def test_malformed_authorization_header(http):
    r = http.get("/api/rpc/auth.session", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401 and r.json()["error"]["data"]["code"] == "UNAUTHORIZED"


def test_api_key_acts_as_user_in_its_organization_only(services, make_member, rpc):
    member = make_member()
    created = member.rpc.mutation("auth.createApiKey", {"name": "claims feed"}).data
    key = created["key"]
    assert key.startswith("dpk_") and created["prefix"] == key[:12]
    listed = member.rpc.query("auth.listApiKeys").data
    assert listed[0]["id"] == created["id"] and "key" not in listed[0]
    as_key = rpc.as_(key)
    ctx = as_key.query("securityContext.current").data
    assert ctx["authMethod"] == "api_key" and ctx["organizationId"] == member.organization_id
    # A second organization of the same user is out of the key's reach.
    other = new_organization(services, member.user_id, "Second Org", "Clinic")
    assert rpc.as_(key, other["firstClientId"]).query("organizations.get").code == "FORBIDDEN"
    member.rpc.mutation("auth.revokeApiKey", {"id": created["id"]}).data
    assert as_key.query("securityContext.current").code == "UNAUTHORIZED"


def test_invitation_flow(services, make_member, rpc):
    admin = make_member()
    email = f"new-{admin.user_id}@example.test"
    invite = admin.rpc.mutation("organizations.inviteMember", {"email": email, "role": "analyst"}).data
    assert set(invite) == {"invitationId", "email", "role", "clientIds", "expiresAt"}  # no token
    token_in_mail = invite_token(services.settings.resolved_data_dir, email)
    short = rpc.mutation("auth.acceptInvite", {"token": token_in_mail, "password": "short"})
    assert short.code == "BAD_REQUEST"
    ok = rpc.mutation("auth.acceptInvite", {"token": token_in_mail, "password": "a long enough password"})
    assert ok.data == {"ok": True}
    again = rpc.mutation("auth.acceptInvite", {"token": token_in_mail, "password": "a long enough password"})
    assert again.code == "NOT_FOUND"
    token = sign_in(rpc, f"new-{admin.user_id}@example.test", "a long enough password")
    ctx = rpc.as_(token).query("securityContext.current").data
    assert ctx["roles"] == ["analyst"] and "write" not in ctx["permissions"]


def test_a_new_password_is_hashed_at_the_cost_the_settings_give(services, settings, rpc):
    # The composition root configures the hasher from the settings (the suite's own: ENVIRONMENT=test).
    user_id, email, password = make_user(services)
    token = sign_in(rpc, email, password)
    rpc.as_(token).mutation(
        "auth.changePassword", {"currentPassword": password, "newPassword": "a new passphrase here"}
    )
    with services.database.transaction() as db:
        stored = db.get(User, user_id).password_hash
    params = extract_parameters(stored)
    assert (params.time_cost, params.memory_cost, params.parallelism) == (
        settings.password_hash_time_cost,
        settings.password_hash_memory_kib,
        settings.password_hash_parallelism,
    )
    assert sign_in(rpc, email, "a new passphrase here")
