"""Issue 9, finding 1: cross-tenant account takeover by invitation, performed over the wire.

The admin of an unrelated organization invites the victim's email, redeems the token with a
password of their choosing and tries to sign in as the victim. Every variant must fail, the
victim's sessions must survive, and the invitation answer must not tell whether the account existed.

Since issue 23 the token is never answered (it is mailed to the invitee), so these tests hand the
attacker the token read from the outbox: the defence behind it must hold on its own.
"""

from __future__ import annotations

import uuid

from sqlalchemy import update

from api.infra.db.base import utcnow
from api.platform.auth.models import Invitation, User
from api.platform.organizations.models import Membership
from tests.conftest import make_user, sign_in
from tests.support.outbox import invite_token

ATTACKER_PASSWORD = "attacker chosen password"


def _token(services, email: str) -> str:
    """The token of the newest invitation mailed to `email` (what only its mailbox should read)."""
    return invite_token(services.settings.resolved_data_dir, email)


def _steal(services, rpc, attacker, email: str) -> dict:
    """The attack: invite the victim's email into the attacker's org, redeem the token with a password."""
    invite = attacker.rpc.mutation("organizations.inviteMember", {"email": email, "role": "admin"}).data
    assert "inviteToken" not in invite
    redeemed = rpc.mutation("auth.acceptInvite", {"token": _token(services, email), "password": ATTACKER_PASSWORD})
    return {"invite": invite, "redeemed": redeemed}


def test_an_account_with_a_password_cannot_be_taken_over(services, rpc, make_member):
    victim = make_member(platform_admin=True)
    attacker = make_member()
    attempt = _steal(services, rpc, attacker, victim.email)
    assert attempt["redeemed"].code == "PRECONDITION_FAILED"
    assert rpc.mutation("auth.login", {"email": victim.email, "password": ATTACKER_PASSWORD}).code == "UNAUTHORIZED"
    # The victim is untouched: same session, same memberships, and the attacker's org is not among them.
    session = victim.rpc.as_(victim.token).query("auth.session").data
    assert session["isPlatformAdmin"] is True
    assert {m["organizationId"] for m in session["memberships"]} == {victim.organization_id}
    assert victim.rpc.query("organizations.get").data["id"] == victim.organization_id
    assert sign_in(rpc, victim.email, victim.password)


def test_an_oidc_account_without_a_password_cannot_be_taken_over(services, rpc, make_member):
    attacker = make_member()
    email = f"oidc-{uuid.uuid4().hex[:8]}@example.test"
    with services.database.transaction() as db:
        db.add(User(email=email, oidc_subject=f"https://idp.example|{email}"))
    attempt = _steal(services, rpc, attacker, email)
    assert attempt["redeemed"].code == "PRECONDITION_FAILED"
    assert rpc.mutation("auth.login", {"email": email, "password": ATTACKER_PASSWORD}).code == "UNAUTHORIZED"
    with services.database.transaction() as db:
        user = db.query(User).filter(User.email == email).one()
        assert user.password_hash is None


def test_the_token_is_only_accepted_by_the_account_it_was_made_for(services, rpc, make_member):
    victim = make_member()
    attacker = make_member()
    victim.rpc.mutation("organizations.inviteMember", {"email": "nobody-yet@example.test", "role": "admin"}).data
    # Someone else, signed in, tries to join with a token made for another email: same answer as unknown.
    stolen = attacker.rpc.as_(attacker.token).mutation(
        "organizations.acceptInvite", {"token": _token(services, "nobody-yet@example.test")}
    )
    unknown = attacker.rpc.as_(attacker.token).mutation("organizations.acceptInvite", {"token": "dpi_" + "x" * 40})
    assert stolen.code == unknown.code == "NOT_FOUND"
    assert stolen.error["message"] == unknown.error["message"]
    assert attacker.rpc.as_(attacker.token, victim.client_id).query("organizations.get").code == "FORBIDDEN"


def test_an_existing_account_joins_only_by_accepting_while_signed_in(services, rpc, make_member):
    admin = make_member()
    _user_id, email, password = make_user(services)
    admin.rpc.mutation("organizations.inviteMember", {"email": email, "role": "analyst"}).data
    mailed = _token(services, email)
    token = sign_in(rpc, email, password)
    # Nothing is granted before acceptance.
    assert rpc.as_(token, admin.client_id).query("organizations.get").code == "FORBIDDEN"
    # An existing account never accepts by choosing a password, even holding its own mail's token.
    assert rpc.mutation("auth.acceptInvite", {"token": mailed, "password": ATTACKER_PASSWORD}).code == (
        "PRECONDITION_FAILED"
    )
    accepted = rpc.as_(token).mutation("organizations.acceptInvite", {"token": mailed}).data
    assert accepted == {"organizationId": admin.organization_id, "role": "analyst", "clientIds": None}
    assert rpc.as_(token, admin.client_id).query("organizations.get").status == 200
    again = rpc.as_(token).mutation("organizations.acceptInvite", {"token": mailed})
    assert again.code == "NOT_FOUND"  # single use


def test_the_answer_does_not_tell_whether_the_account_exists(services, make_member):
    admin = make_member()
    _, existing, _ = make_user(services)
    fresh = f"fresh-{uuid.uuid4().hex[:8]}@example.test"
    old = admin.rpc.mutation("organizations.inviteMember", {"email": existing, "role": "analyst"})
    new = admin.rpc.mutation("organizations.inviteMember", {"email": fresh, "role": "analyst"})
    assert old.status == new.status == 200
    assert set(old.data) == set(new.data) == {"invitationId", "email", "role", "clientIds", "expiresAt"}
    # Both invitees got their token by mail, and only by mail.
    assert _token(services, existing).startswith("dpi_") and _token(services, fresh).startswith("dpi_")


def test_a_new_account_sets_its_password_once_before_the_invitation_expires(services, rpc, make_member):
    admin = make_member()
    email = f"new-{uuid.uuid4().hex[:8]}@example.test"
    first = admin.rpc.mutation("organizations.inviteMember", {"email": email, "role": "analyst"}).data
    first_token = _token(services, email)
    admin.rpc.mutation("organizations.inviteMember", {"email": email, "role": "manager"}).data
    second_token = _token(services, email)
    with services.database.transaction() as db:
        db.execute(update(Invitation).where(Invitation.id == first["invitationId"]).values(expires_at=utcnow()))
    expired = rpc.mutation("auth.acceptInvite", {"token": first_token, "password": "my own password!"})
    assert expired.code == "PRECONDITION_FAILED" and "expired" in expired.error["message"]
    ok = rpc.mutation("auth.acceptInvite", {"token": second_token, "password": "my own password!"})
    assert ok.data == {"ok": True}
    token = sign_in(rpc, email, "my own password!")
    assert rpc.as_(token, admin.client_id).query("securityContext.current").data["roles"] == ["manager"]
    # The account now has a credential: a further invitation can no longer set its password.
    third = admin.rpc.as_(admin.token, admin.client_id)
    other = make_member()
    other.rpc.mutation("organizations.inviteMember", {"email": email, "role": "admin"}).data
    later = _token(services, email)
    assert rpc.mutation("auth.acceptInvite", {"token": later, "password": ATTACKER_PASSWORD}).code == (
        "PRECONDITION_FAILED"
    )
    assert third.query("organizations.get").status == 200
    assert rpc.as_(token).query("auth.session").status == 200  # the invitee's session survives


def test_a_password_change_signs_out_every_other_session(services, rpc):
    _, email, password = make_user(services)
    kept = sign_in(rpc, email, password)
    other = sign_in(rpc, email, password)
    changed = rpc.as_(kept).mutation(
        "auth.changePassword", {"currentPassword": password, "newPassword": "a brand new password"}
    )
    assert changed.data == {"ok": True}
    assert rpc.as_(other).query("auth.session").code == "UNAUTHORIZED"
    assert rpc.as_(kept).query("auth.session").status == 200
    assert sign_in(rpc, email, "a brand new password")
    wrong = rpc.as_(kept).mutation("auth.changePassword", {"currentPassword": "nope", "newPassword": "x" * 12})
    assert wrong.code == "FORBIDDEN"


def test_a_legacy_invitee_with_a_membership_but_no_credential_cannot_be_claimed(services, rpc, make_member):
    """Before the fix an invitation made the membership at once, without a credential: such an account
    must not be claimable through another organization's invitation."""
    victim_org = make_member()
    attacker = make_member()
    email = f"legacy-{uuid.uuid4().hex[:8]}@example.test"
    with services.database.transaction() as db:
        user = User(email=email)
        db.add(user)
        db.flush()
        db.add(Membership(organization_id=victim_org.organization_id, user_id=user.id, role="admin"))
    attempt = _steal(services, rpc, attacker, email)
    assert attempt["redeemed"].code == "PRECONDITION_FAILED"
    assert rpc.mutation("auth.login", {"email": email, "password": ATTACKER_PASSWORD}).code == "UNAUTHORIZED"
