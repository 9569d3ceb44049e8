"""Issue 23, finding 5, over the wire on SQLite and PostgreSQL: one admin was both people of every
two-person rule. The admin invited a second address (one they read), accepted the invitation with a
password of their choosing and approved their own work as "another member".

Now the token is never answered (only mailed), and a decider the requester invited within
SOD_INVITED_WINDOW_DAYS (default 90) is refused, saying so, by every two-person rule: a knowledge
version, an onboarding decision, an integration approval, a draft's approval, a claim's submission
preparation. Someone independent (here: invited by the platform) still decides.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from datetime import timedelta

from sqlalchemy import select

from api.infra.db.base import utcnow
from api.platform.auth.models import Invitation
from api.platform.organizations.independence import invited_by_any
from tests.support.approval_team import new_draft, request_approval
from tests.support.denial_case_rows import add_colleague, make_case
from tests.support.outbox import invite_token

PASSWORD = "my second account's password"


def _sock_puppet(services, rpc, admin, role: str = "admin"):
    """The attack's setup: the admin invites an address they read and accepts it themselves."""
    email = f"me-again-{uuid.uuid4().hex[:8]}@example.test"
    answer = admin.rpc.mutation("organizations.inviteMember", {"email": email, "role": role})
    assert answer.status == 200 and "dpi_" not in str(answer.body)  # the inviter sees no token anywhere
    token = invite_token(services.settings.resolved_data_dir, email)  # ...only the mailbox does
    assert rpc.mutation("auth.acceptInvite", {"token": token, "password": PASSWORD}).data == {"ok": True}
    session = rpc.mutation("auth.login", {"email": email, "password": PASSWORD}).data["token"]
    return rpc.as_(session, admin.client_id)


def _refused_as_invited(result, who: str) -> None:
    assert result.code == "FORBIDDEN", result.body
    message = result.error["message"]
    today = utcnow().strftime("%Y-%m-%d")
    assert f"you were invited by {who} on {today}" in message
    assert "a two-person rule needs someone independent" in message


def test_approving_your_own_knowledge_version_through_an_account_you_invited_is_refused(services, rpc, make_member):
    admin = make_member()
    puppet = _sock_puppet(services, rpc, admin, role="manager")
    version = admin.rpc.mutation(
        "knowledgeControl.publish", {"kind": "payer_policy", "key": "NORTHWIND", "content": "Appeal within 90 days."}
    ).data
    approve = {"approveVersionId": version["id"], "reason": "looks right"}
    _refused_as_invited(puppet.mutation("knowledgeControl.publish", approve), "this knowledge version's author")
    listed = admin.rpc.query("knowledgeControl.list", {}).data["items"]
    assert [v["state"] for v in listed if v["id"] == version["id"]] == ["pending_approval"]
    independent = add_colleague(services, rpc, admin, role="manager")  # invited by the platform
    assert independent.rpc.mutation("knowledgeControl.publish", approve).data["state"] == "active"


def test_deciding_your_own_onboarding_request_through_an_account_you_invited_is_refused(services, rpc, make_member):
    admin = make_member()
    puppet = _sock_puppet(services, rpc, admin)
    request = admin.rpc.mutation(
        "hospitalOnboarding.submitRequest",
        {
            "hospitalName": f"Puppet General {uuid.uuid4().hex[:6]}",
            "legal": {"legalName": "Puppet General Inc.", "taxId": "12-3456789", "address": "1 Main Street"},
            "contactEmail": "cfo@puppet.test",
            "expectedVolumes": {"monthlyClaims": 10, "monthlyRemittanceFiles": 1, "monthlyDenials": 1},
            "payers": ["Medicare"],
            "requestedUsers": [],
            "connectorKinds": [],
            "retentionYears": 7,
        },
    ).data
    puppet.mutation("hospitalOnboarding.openReview", {"id": request["id"]}).data
    decide = {"id": request["id"], "decision": "approved", "reason": "contract signed"}
    _refused_as_invited(puppet.mutation("hospitalOnboarding.decide", decide), "this request's submitter")
    independent = add_colleague(services, rpc, admin, role="admin")
    assert independent.rpc.mutation("hospitalOnboarding.decide", decide).data["state"] == "approved"


def _clearinghouse() -> dict:
    fingerprint = "SHA256:" + base64.b64encode(hashlib.sha256(b"host key").digest()).decode().rstrip("=")
    return {
        "kind": "clearinghouse",
        "host": "sftp.clearinghouse.example",
        "port": 22,
        "username": "hospital1",
        "outboundPath": "/outbound/837",
        "inboundPath": "/inbound",
        "hostKeyFingerprint": fingerprint,
        "password": "pw-never-shown-Quartz-77",
    }


def test_approving_your_own_integration_through_an_account_you_invited_is_refused(services, rpc, make_member):
    admin = make_member()
    puppet = _sock_puppet(services, rpc, admin, role="manager")
    created = admin.rpc.mutation("integrationControl.create", {"name": "Feed", "config": _clearinghouse()}).data
    assert admin.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data["passed"]
    refused = puppet.mutation("integrationControl.approve", {"id": created["id"]})
    _refused_as_invited(refused, "the integration's creator or last configurer")
    independent = add_colleague(services, rpc, admin, role="manager")
    approved = independent.rpc.mutation("integrationControl.approve", {"id": created["id"]}).data
    assert approved["state"] == "approved"


def test_approving_your_own_draft_through_an_account_you_invited_is_refused(services, rpc, make_member):
    admin = make_member()
    puppet = _sock_puppet(services, rpc, admin, role="manager")
    case_id = make_case(services, admin.organization_id, admin.client_id)
    draft = new_draft(admin.rpc, case_id)
    approval = request_approval(admin.rpc, draft["id"])
    decide = {"id": approval["id"], "decision": "approve", "reason": "fine"}
    _refused_as_invited(puppet.mutation("approvals.decide", decide), "the requester (or an author of what it approves)")
    independent = add_colleague(services, rpc, admin, role="manager")
    assert independent.rpc.mutation("approvals.decide", decide).data["state"] == "approved"


def test_the_window_and_the_platforms_own_invitations(services, make_member, rpc):
    """The rule's bounds: an invitation older than the window no longer counts, one made by the platform
    (no inviter) never does, and nobody counts as invited by themselves."""
    admin = make_member()
    _sock_puppet(services, rpc, admin)
    independent = add_colleague(services, rpc, admin)
    with services.database.transaction(write=False) as db:
        invitation = db.scalars(
            select(Invitation).where(Invitation.invited_by_user_id == admin.user_id).order_by(Invitation.id.desc())
        ).first()
        assert invitation is not None
        puppet_id, made = invitation.user_id, invitation.created_at
        assert invited_by_any(db, puppet_id, [admin.user_id], window_days=90) == made
        assert invited_by_any(db, puppet_id, [admin.user_id], window_days=90, now=made + timedelta(days=91)) is None
        assert invited_by_any(db, puppet_id, [admin.user_id], window_days=0) is None
        assert invited_by_any(db, puppet_id, [None, puppet_id], window_days=90) is None
        assert invited_by_any(db, independent.user_id, [admin.user_id], window_days=90) is None
