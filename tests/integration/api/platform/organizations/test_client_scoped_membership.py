"""Issue 23, finding 1, over the wire on SQLite and PostgreSQL: users invited through
`hospitalOnboarding.provision` became members of the whole organization, so the new hospital's analyst
listed hospital A's claims.

Now a membership reaches either every client (organization-wide) or the clients it lists; onboarding
invites the hospital's users to the new client only; the tenant resolver refuses every other client;
what lists across clients (clients, members, audit events) answers only the reachable ones; what concerns
the whole organization (onboarding, billing, adding clients, the audit chain) needs an organization-wide
membership. (Every tenant procedure named with another client's id is tried in
tests/integration/api/rpc/test_tenancy_enumeration.py.)
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import sign_in
from tests.support.denial_case_rows import add_colleague, make_case
from tests.support.outbox import invite_token
from tests.support.tenancy import join

PASSWORD = "a long enough password"


def _onboard(owner, reviewer, users: list[dict[str, str]]) -> dict[str, Any]:
    """Hospital B through onboarding: submitted by the owner, decided by an independent admin, provisioned."""
    request = owner.rpc.mutation(
        "hospitalOnboarding.submitRequest",
        {
            "hospitalName": f"Hospital B {uuid.uuid4().hex[:6]}",
            "legal": {"legalName": "Hospital B Inc.", "taxId": "12-3456789", "address": "2 Side Street"},
            "contactEmail": "cfo@hospital-b.test",
            "expectedVolumes": {"monthlyClaims": 100, "monthlyRemittanceFiles": 4, "monthlyDenials": 10},
            "payers": ["Medicare"],
            "requestedUsers": users,
            "connectorKinds": ["era_835"],
            "retentionYears": 7,
        },
    ).data
    reviewer.rpc.mutation("hospitalOnboarding.openReview", {"id": request["id"]}).data
    reviewer.rpc.mutation(
        "hospitalOnboarding.decide", {"id": request["id"], "decision": "approved", "reason": "signed"}
    ).data
    return owner.rpc.mutation("hospitalOnboarding.provision", {"id": request["id"]}).data


def _accept(services, rpc, email: str) -> str:
    """The invitee reads the mail, chooses a password, signs in; their session token."""
    token = invite_token(services.settings.resolved_data_dir, email)
    assert rpc.mutation("auth.acceptInvite", {"token": token, "password": PASSWORD}).data == {"ok": True}
    return sign_in(rpc, email, PASSWORD)


@pytest.fixture
def world(services, rpc, make_member):
    """Organization with hospital A (the owner's first client, holding a case) and hospital B onboarded
    with an analyst and a hospital admin; a specialist scoped to A."""
    owner = make_member()
    reviewer = add_colleague(services, rpc, owner, role="admin")
    case_a = make_case(services, owner.organization_id, owner.client_id)
    analyst, boss = (f"{who}-{uuid.uuid4().hex[:8]}@hospital-b.test" for who in ("analyst", "boss"))
    done = _onboard(owner, reviewer, [{"email": analyst, "role": "analyst"}, {"email": boss, "role": "admin"}])
    b = done["clientId"]
    assert [(i["email"], i["clientIds"]) for i in done["invitations"]] == [(analyst, [b]), (boss, [b])]
    assert all("inviteToken" not in i for i in done["invitations"])
    a_staff_id, a_staff_email, _, _ = join(
        services, rpc, owner.organization_id, "specialist", client_ids=[owner.client_id]
    )
    return {
        "owner": owner,
        "reviewer": reviewer,
        "a": owner.client_id,
        "b": b,
        "case_a": case_a,
        "analyst": _accept(services, rpc, analyst),
        "analyst_email": analyst,
        "boss": _accept(services, rpc, boss),
        "a_staff": (a_staff_id, a_staff_email),
    }


def test_the_new_hospitals_analyst_cannot_reach_hospital_a(rpc, world):
    a, b, token = world["a"], world["b"], world["analyst"]
    # Without X-Client-Id the default client is the only one the membership reaches.
    assert rpc.as_(token).query("securityContext.current").data["clientId"] == b
    in_a = rpc.as_(token, a)
    for name, payload in (
        ("cases.list", {}),
        ("cases.get", {"id": world["case_a"]}),
        ("claims.list", {}),
        ("organizations.get", None),
        ("securityContext.current", None),
    ):
        refused = in_a.query(name, payload)
        assert refused.code == "FORBIDDEN" and f"no access to client {a}" in refused.error["message"], name
    in_b = rpc.as_(token, b)
    assert in_b.query("cases.get", {"id": world["case_a"]}).code == "NOT_FOUND"
    assert in_b.query("cases.list", {}).data["items"] == []
    assert [c["id"] for c in in_b.query("organizations.listClients").data] == [b]
    session = rpc.as_(token).query("auth.session").data
    assert [m["organizationId"] for m in session["memberships"]] == [world["owner"].organization_id]


def test_organization_wide_readers_answer_only_reachable_clients(rpc, world):
    owner, boss = world["owner"], rpc.as_(world["boss"], world["b"])
    members = {m["email"]: m["clientIds"] for m in boss.query("organizations.listMembers").data}
    assert members[owner.email] is None  # organization-wide members serve hospital B too
    assert members[world["analyst_email"]] == [world["b"]]
    assert world["a_staff"][1] not in members  # hospital A's own staff are not hospital B's business
    everyone = {m["email"]: m["clientIds"] for m in owner.rpc.query("organizations.listMembers").data}
    assert everyone[world["a_staff"][1]] == [world["a"]]
    # The audit log: hospital B's events only (hospital A's and organization-level ones are not shown).
    boss.mutation(
        "organizations.inviteMember", {"email": "new@hospital-b.test", "role": "analyst", "clientIds": [world["b"]]}
    ).data
    events = boss.query("audit.list", {"limit": 200}).data["items"]
    assert events and {e["clientId"] for e in events} == {world["b"]}
    seen_by_owner = {e["clientId"] for e in owner.rpc.query("audit.list", {"limit": 200}).data["items"]}
    assert {world["a"], world["b"]} <= seen_by_owner
    hidden = next(
        e["id"] for e in owner.rpc.query("audit.list", {"limit": 200}).data["items"] if e["clientId"] == world["a"]
    )
    assert boss.query("audit.get", {"id": hidden}).code == "NOT_FOUND"
    # What concerns the whole organization needs an organization-wide membership.
    for name, payload in (
        ("hospitalOnboarding.listRequests", {}),
        ("billing.subscription", None),
        ("billing.invoices", {}),
        ("audit.verifyChain", None),
    ):
        refused = boss.query(name, payload)
        assert refused.code == "FORBIDDEN" and "whole organization" in refused.error["message"], name
    added = boss.mutation("organizations.addClient", {"name": "Hospital C"})
    assert added.code == "FORBIDDEN" and "whole organization" in added.error["message"]
    queue = boss.query("operationalObservability.queue").data
    assert queue["organizationJobs"] == {}


def test_a_hospital_admin_manages_only_their_hospital(services, rpc, world):
    owner, boss = world["owner"], rpc.as_(world["boss"], world["b"])
    a, b = world["a"], world["b"]
    # Invitations: within hospital B only, never the whole organization.
    whole = boss.mutation("organizations.inviteMember", {"email": "x@hospital-b.test", "role": "analyst"})
    assert whole.code == "FORBIDDEN" and "clientIds" in whole.error["message"]
    other = boss.mutation(
        "organizations.inviteMember", {"email": "x@hospital-b.test", "role": "analyst", "clientIds": [a]}
    )
    assert other.code == "FORBIDDEN" and f"client {a}" in other.error["message"]
    invited = boss.mutation(
        "organizations.inviteMember", {"email": "x@hospital-b.test", "role": "analyst", "clientIds": [b]}
    ).data
    assert invited["clientIds"] == [b] and "inviteToken" not in invited
    # Members: organization-wide ones and hospital A's are out of reach.
    assert boss.mutation("organizations.setRole", {"userId": owner.user_id, "role": "analyst"}).code == "FORBIDDEN"
    a_staff_id = world["a_staff"][0]
    assert boss.mutation("organizations.setRole", {"userId": a_staff_id, "role": "analyst"}).code == "NOT_FOUND"
    assert boss.mutation("organizations.removeMember", {"userId": a_staff_id}).code == "NOT_FOUND"
    widen = boss.mutation("organizations.setMemberClients", {"userId": a_staff_id, "clientIds": [a, b]})
    assert widen.code == "NOT_FOUND"
    # A case of hospital B cannot be given to someone who cannot read it.
    case_b = make_case(services, owner.organization_id, b)
    assign = boss.mutation("cases.assign", {"id": case_b, "ownerUserId": a_staff_id})
    assert assign.code == "BAD_REQUEST" and "reaching this client" in assign.error["message"]


def test_an_organization_admin_widens_and_narrows_a_membership(rpc, world):
    owner, token, a, b = world["owner"], world["analyst"], world["a"], world["b"]
    analyst_id = next(
        m["userId"] for m in owner.rpc.query("organizations.listMembers").data if m["email"] == world["analyst_email"]
    )
    wider = owner.rpc.mutation("organizations.setMemberClients", {"userId": analyst_id, "clientIds": [a, b]}).data
    assert wider["clientIds"] == sorted([a, b])
    assert rpc.as_(token, a).query("cases.list", {}).status == 200
    assert rpc.as_(token).query("securityContext.current").code == "BAD_REQUEST"  # two clients: choose one
    narrowed = owner.rpc.mutation("organizations.setMemberClients", {"userId": analyst_id, "clientIds": [b]}).data
    assert narrowed["clientIds"] == [b]
    assert rpc.as_(token, a).query("cases.list", {}).code == "FORBIDDEN"
    unknown = owner.rpc.mutation("organizations.setMemberClients", {"userId": analyst_id, "clientIds": [2**62]})
    assert unknown.code == "BAD_REQUEST" and "is not a client of this organization" in unknown.error["message"]
    # The organization keeps an organization-wide admin: the second one may be narrowed, the last may not.
    reviewer = world["reviewer"]
    narrowed_admin = owner.rpc.mutation(
        "organizations.setMemberClients", {"userId": reviewer.user_id, "clientIds": [a]}
    )
    assert narrowed_admin.data["clientIds"] == [a]
    last = owner.rpc.mutation("organizations.setMemberClients", {"userId": owner.user_id, "clientIds": [a]})
    assert last.code == "PRECONDITION_FAILED" and "organization-wide admin" in last.error["message"]
    widened = owner.rpc.mutation("organizations.setMemberClients", {"userId": analyst_id, "clientIds": None}).data
    assert widened["clientIds"] is None


def test_a_hospitals_admin_updates_only_the_clients_it_reaches(rpc, world):
    """Hospital B's own admin sets B's time zone; hospital A (same organization, outside B's reach) is
    NOT_FOUND like another organization's client, and stays as it was."""
    boss = rpc.as_(world["boss"], world["b"])
    out = boss.mutation("organizations.updateClient", {"clientId": world["b"], "timeZone": "America/Denver"})
    assert (out.data["id"], out.data["timeZone"]) == (world["b"], "America/Denver")
    refused = boss.mutation("organizations.updateClient", {"clientId": world["a"], "timeZone": "America/Denver"})
    assert refused.code == "NOT_FOUND" and refused.error["message"] == f"Client {world['a']} was not found"
    clients = {c["id"]: c["timeZone"] for c in world["owner"].rpc.query("organizations.listClients").data}
    assert clients == {world["a"]: None, world["b"]: "America/Denver"}
