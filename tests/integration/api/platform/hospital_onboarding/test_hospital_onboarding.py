"""hospitalOnboarding.* over the wire, on SQLite and PostgreSQL: submit -> review -> decide (never by the
submitter) -> provision (client, invitations, connector profiles, retention, automation off) -> live."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import func, select

from api.platform.organizations.models import Client
from tests.conftest import sign_in
from tests.support.denial_case_rows import add_colleague
from tests.support.outbox import invite_token, mails_to

PASSWORD = "a long enough password"


def _payload(**over: Any) -> dict[str, Any]:
    return {
        "hospitalName": f"St Example {uuid.uuid4().hex[:6]}",
        "legal": {
            "legalName": "St Example Hospital Inc.",
            "taxId": "12-3456789",
            "npi": "1234567893",
            "address": "1 Main Street\nSpringfield, IL 62701",
        },
        "contactEmail": "cfo@st-example.test",
        "expectedVolumes": {"monthlyClaims": 12000, "monthlyRemittanceFiles": 40, "monthlyDenials": 1100},
        "payers": ["Medicare", "Northwind Health Plan"],
        "requestedUsers": [],
        "connectorKinds": ["era_835", "claims_export", "payments_export"],
        "retentionYears": 10,
        **over,
    }


@pytest.fixture
def team(services, rpc, make_member):
    owner = make_member()  # admin, the submitter
    reviewer = add_colleague(services, rpc, owner, role="admin")
    return owner, reviewer


def _submit(member_rpc, **over):
    return member_rpc.mutation("hospitalOnboarding.submitRequest", _payload(**over))


def _approved(owner, reviewer, **over) -> dict:
    req = _submit(owner.rpc, **over).data
    reviewer.rpc.mutation("hospitalOnboarding.openReview", {"id": req["id"]}).data
    decision = {"id": req["id"], "decision": "approved", "reason": "Contract signed"}
    return reviewer.rpc.mutation("hospitalOnboarding.decide", decision).data


def test_the_full_path_from_submission_to_a_signed_in_provisioned_user(services, rpc, team):
    owner, reviewer = team
    newcomer = f"biller-{uuid.uuid4().hex[:8]}@example.test"
    users = [
        {"email": newcomer, "role": "specialist", "displayName": "New Biller"},
        {"email": owner.email, "role": "admin"},
    ]
    req = _submit(owner.rpc, requestedUsers=users).data
    assert (req["state"], req["allowedMoves"], req["submittedByUserId"]) == (
        "submitted",
        ["in_review", "withdrawn"],
        owner.user_id,
    )
    assert req["legal"]["taxId"] == "12-3456789" and req["expectedVolumes"]["monthlyClaims"] == 12000

    review = reviewer.rpc.mutation("hospitalOnboarding.openReview", {"id": req["id"], "reason": "Docs received"})
    assert review.data["state"] == "in_review"

    # Separation of duties: the submitter, an admin, may not decide their own request.
    own = owner.rpc.mutation("hospitalOnboarding.decide", {"id": req["id"], "decision": "approved", "reason": "mine"})
    assert own.code == "FORBIDDEN" and "submitted" in own.error["message"]
    assert owner.rpc.query("hospitalOnboarding.getRequest", {"id": req["id"]}).data["state"] == "in_review"

    decided = reviewer.rpc.mutation(
        "hospitalOnboarding.decide", {"id": req["id"], "decision": "approved", "reason": "Contract signed"}
    ).data
    assert (decided["state"], decided["decidedByUserId"], decided["decisionReason"]) == (
        "approved",
        reviewer.user_id,
        "Contract signed",
    )

    done = owner.rpc.mutation("hospitalOnboarding.provision", {"id": req["id"]}).data
    client_id = done["clientId"]
    assert done["request"]["state"] == "provisioned" and done["request"]["provisionedClientId"] == client_id
    assert done["automationEnabled"] is False and done["retentionYears"] == 10
    assert done["alreadyMembers"] == [owner.email]
    assert [(i["email"], i["role"], i["clientIds"]) for i in done["invitations"]] == [
        (newcomer, "specialist", [client_id])
    ]
    assert "inviteToken" not in done["invitations"][0]
    assert sorted(done["connectorProfiles"]) == ["onboarding_claims_export", "onboarding_payments_export"]

    clients = {c["id"]: c for c in owner.rpc.query("organizations.listClients").data}
    assert clients[client_id]["name"] == req["hospitalName"] and clients[client_id]["npi"] == "1234567893"
    in_new = owner.rpc.as_(owner.token, client_id)
    assert in_new.query("evidenceControl.retention").data["years"] == 10
    assert in_new.query("evidenceControl.retention").data["isDefault"] is False
    own_profiles = {p["name"] for p in in_new.query("connectorProfiles.list").data if p["source"] == "client"}
    assert own_profiles == {"onboarding_claims_export", "onboarding_payments_export"}
    # the first client got neither the profiles nor the retention
    assert not [p for p in owner.rpc.query("connectorProfiles.list").data if p["source"] == "client"]
    assert owner.rpc.query("evidenceControl.retention").data["isDefault"] is True
    # automation off: the new client's go-live gates are all open
    status = in_new.query("activationGovernance.status").data
    assert status["ready"] is False and len(status["blockers"]) == 5

    # Provisioning is once only, and the second attempt creates nothing.
    again = owner.rpc.mutation("hospitalOnboarding.provision", {"id": req["id"]})
    assert again.code == "PRECONDITION_FAILED" and "'provisioned'" in again.error["message"]
    with services.database.transaction() as db:
        named = db.scalar(select(func.count(Client.id)).where(Client.name == req["hospitalName"]))
    assert named == 1

    # The invited user reads the token in their mail, chooses a password, signs in and works in the new
    # client with the requested role.
    token = invite_token(services.settings.resolved_data_dir, newcomer)
    assert rpc.mutation("auth.acceptInvite", {"token": token, "password": PASSWORD}).data == {"ok": True}
    session = sign_in(rpc, newcomer, PASSWORD)
    as_newcomer = rpc.as_(session, client_id)
    assert as_newcomer.query("organizations.get").data["id"] == owner.organization_id
    members = {m["email"]: m["role"] for m in as_newcomer.query("organizations.listMembers").data}
    assert members[newcomer] == "specialist"
    assert as_newcomer.query("evidenceControl.retention").data["years"] == 10

    # Go live, suspend, bring back: each move with its reason.
    for to, reason in (("live", "Go-live call held"), ("suspended", "Contract paused"), ("live", "Resumed")):
        moved = reviewer.rpc.mutation(
            "hospitalOnboarding.transitionLifecycle", {"id": req["id"], "to": to, "reason": reason}
        )
        assert moved.data["state"] == to

    events = owner.rpc.query("hospitalOnboarding.lifecycleEvents", {"id": req["id"]}).data
    assert events["nextCursor"] is None
    steps = [(e["fromState"], e["toState"], e["actorUserId"]) for e in reversed(events["items"])]
    assert steps == [
        (None, "submitted", owner.user_id),
        ("submitted", "in_review", reviewer.user_id),
        ("in_review", "approved", reviewer.user_id),
        ("approved", "provisioned", owner.user_id),
        ("provisioned", "live", reviewer.user_id),
        ("live", "suspended", reviewer.user_id),
        ("suspended", "live", reviewer.user_id),
    ]
    reasons = [e["reason"] for e in reversed(events["items"])]
    assert reasons[1:3] == ["Docs received", "Contract signed"] and reasons[-2] == "Contract paused"
    assert all(e["createdAt"] for e in events["items"])


def test_rejection_hold_and_withdrawal(team):
    owner, reviewer = team
    req = _submit(owner.rpc).data
    move = {"id": req["id"], "reason": "Waiting for the signed contract"}
    early = reviewer.rpc.mutation("hospitalOnboarding.transitionLifecycle", {**move, "to": "on_hold"})
    assert early.code == "PRECONDITION_FAILED" and "'submitted'" in early.error["message"]
    reviewer.rpc.mutation("hospitalOnboarding.openReview", {"id": req["id"]}).data
    held = reviewer.rpc.mutation("hospitalOnboarding.transitionLifecycle", {**move, "to": "on_hold"}).data
    assert held["state"] == "on_hold"
    not_now = reviewer.rpc.mutation(
        "hospitalOnboarding.decide", {"id": req["id"], "decision": "approved", "reason": "not yet"}
    )
    assert not_now.code == "PRECONDITION_FAILED" and "'on_hold'" in not_now.error["message"]
    assert reviewer.rpc.mutation("hospitalOnboarding.openReview", {"id": req["id"]}).data["state"] == "in_review"
    rejected = reviewer.rpc.mutation(
        "hospitalOnboarding.decide", {"id": req["id"], "decision": "rejected", "reason": "Out of our region"}
    ).data
    assert rejected["state"] == "rejected" and rejected["allowedMoves"] == []
    assert owner.rpc.mutation("hospitalOnboarding.provision", {"id": req["id"]}).code == "PRECONDITION_FAILED"
    # approved/rejected/provisioned are not generic moves
    generic = reviewer.rpc.mutation("hospitalOnboarding.transitionLifecycle", {**move, "to": "provisioned"})
    assert generic.code == "BAD_REQUEST"
    other = _submit(owner.rpc).data
    gone = reviewer.rpc.mutation(
        "hospitalOnboarding.transitionLifecycle", {**move, "id": other["id"], "to": "withdrawn"}
    )
    assert gone.data["state"] == "withdrawn"
    listed = owner.rpc.query("hospitalOnboarding.listRequests", {"state": "withdrawn"}).data["items"]
    assert [r["id"] for r in listed] == [other["id"]]


def test_only_admins_review_and_members_with_write_submit(services, rpc, team):
    owner, reviewer = team
    specialist = add_colleague(services, rpc, owner, role="specialist")
    analyst = add_colleague(services, rpc, owner, role="analyst")
    assert _submit(analyst.rpc).code == "FORBIDDEN"
    req = _submit(specialist.rpc).data
    assert specialist.rpc.mutation("hospitalOnboarding.openReview", {"id": req["id"]}).code == "FORBIDDEN"
    reviewer.rpc.mutation("hospitalOnboarding.openReview", {"id": req["id"]}).data
    decide = {"id": req["id"], "decision": "approved", "reason": "fine"}
    assert specialist.rpc.mutation("hospitalOnboarding.decide", decide).code == "FORBIDDEN"
    # the specialist submitted it, so both admins may decide it
    assert owner.rpc.mutation("hospitalOnboarding.decide", decide).data["state"] == "approved"
    assert analyst.rpc.query("hospitalOnboarding.getRequest", {"id": req["id"]}).data["state"] == "approved"


def test_another_organization_sees_and_moves_nothing(make_member, team):
    owner, reviewer = team
    req = _approved(owner, reviewer)
    intruder = make_member()
    ref = {"id": req["id"]}
    assert intruder.rpc.query("hospitalOnboarding.getRequest", ref).code == "NOT_FOUND"
    assert intruder.rpc.query("hospitalOnboarding.lifecycleEvents", ref).code == "NOT_FOUND"
    assert intruder.rpc.mutation("hospitalOnboarding.provision", ref).code == "NOT_FOUND"
    assert intruder.rpc.mutation("hospitalOnboarding.openReview", ref).code == "NOT_FOUND"
    decide = {**ref, "decision": "rejected", "reason": "hostile"}
    assert intruder.rpc.mutation("hospitalOnboarding.decide", decide).code == "NOT_FOUND"
    moved = intruder.rpc.mutation(
        "hospitalOnboarding.transitionLifecycle", {**ref, "to": "withdrawn", "reason": "not yet"}
    )
    assert moved.code == "NOT_FOUND"
    assert intruder.rpc.query("hospitalOnboarding.listRequests", {}).data["items"] == []
    # naming the other organization's client is refused before any work
    crossing = intruder.rpc.as_(intruder.token, owner.client_id)
    assert crossing.query("hospitalOnboarding.getRequest", ref).code in ("FORBIDDEN", "NOT_FOUND")
    assert owner.rpc.query("hospitalOnboarding.getRequest", ref).data["state"] == "approved"


@pytest.mark.parametrize(
    ("over", "path"),
    [
        ({"hospitalName": ""}, "hospitalName"),
        ({"contactEmail": "not-an-email"}, "contactEmail"),
        ({"retentionYears": 0}, "retentionYears"),
        ({"retentionYears": 101}, "retentionYears"),
        ({"connectorKinds": ["fax_machine"]}, "connectorKinds.0"),
        ({"connectorKinds": ["era_835", "era_835"]}, "connectorKinds"),
        ({"payers": ["Medicare", "MEDICARE"]}, "payers"),
        ({"requestedUsers": [{"email": "a@x.test", "role": "owner"}]}, "requestedUsers.0.role"),
        (
            {"requestedUsers": [{"email": "a@x.test", "role": "admin"}, {"email": "A@x.test", "role": "analyst"}]},
            "requestedUsers",
        ),
        (
            {"expectedVolumes": {"monthlyClaims": -1, "monthlyRemittanceFiles": 1, "monthlyDenials": 1}},
            "expectedVolumes.monthlyClaims",
        ),
        ({"legal": {"legalName": "X Inc", "taxId": "nope", "address": "1 Main Street"}}, "legal.taxId"),
    ],
)
def test_bad_input_names_the_field(make_member, over, path):
    member = make_member()
    result = _submit(member.rpc, **over)
    assert result.code == "BAD_REQUEST", result.body
    assert path in [i["path"] for i in result.error["data"]["issues"]], result.error


def test_bad_moves_name_the_field_and_a_taken_hospital_name_conflicts(team):
    owner, reviewer = team
    req = _submit(owner.rpc).data
    bad = reviewer.rpc.mutation(
        "hospitalOnboarding.decide", {"id": req["id"], "decision": "maybe", "reason": "not yet"}
    )
    assert bad.code == "BAD_REQUEST" and "decision" in [i["path"] for i in bad.error["data"]["issues"]]
    short = reviewer.rpc.mutation("hospitalOnboarding.transitionLifecycle", {"id": req["id"], "to": "withdrawn"})
    assert short.code == "BAD_REQUEST" and "reason" in [i["path"] for i in short.error["data"]["issues"]]
    taken = _submit(owner.rpc, hospitalName="General Hospital")  # make_member's first client
    assert taken.code == "CONFLICT" and "hospitalName" in taken.error["message"]
    assert owner.rpc.query("hospitalOnboarding.getRequest", {"id": 2**62}).code == "NOT_FOUND"


def test_a_client_created_meanwhile_with_the_same_name_fails_provisioning_whole(services, team):
    owner, reviewer = team
    invitee = f"x-{uuid.uuid4().hex[:8]}@example.test"
    req = _approved(owner, reviewer, requestedUsers=[{"email": invitee, "role": "analyst"}])
    owner.rpc.mutation("organizations.addClient", {"name": req["hospitalName"]}).data
    clash = owner.rpc.mutation("hospitalOnboarding.provision", {"id": req["id"]})
    assert clash.code == "CONFLICT"
    got = owner.rpc.query("hospitalOnboarding.getRequest", {"id": req["id"]}).data
    assert got["state"] == "approved" and got["provisionedClientId"] is None
    # The rolled-back call mailed nothing: no invitation for a provisioning that did not happen.
    assert mails_to(services.settings.resolved_data_dir, invitee) == []
