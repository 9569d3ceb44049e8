"""Every procedure in the contract, enumerated: nothing added later escapes these checks.

- unauthenticated calls to protected procedures get UNAUTHORIZED;
- a member of another organization naming this organization's client gets
  FORBIDDEN (or NOT_FOUND), before any input is looked at;
- a member of this organization whose membership reaches only another client
  (a hospital's own staff) naming this client gets the same answer;
- platform-admin procedures refuse ordinary members;
- wrong HTTP methods get METHOD_NOT_SUPPORTED and wrongly-typed input BAD_REQUEST.
"""

from __future__ import annotations

import pytest

from tests.support.outbox import invite_token
from tests.support.tenancy import join

# Procedures that act on the caller's own account rather than a tenant. Each one
# is reviewed for cross-tenant leaks in test_user_level_procedures_do_not_leak;
# a new user-level procedure must be added here deliberately.
USER_LEVEL_REVIEWED = {
    "auth.logout",
    "auth.session",
    "auth.listApiKeys",
    "auth.revokeApiKey",
    "auth.changePassword",  # the caller's own password; other sessions revoked
    "organizations.list",
    "organizations.acceptInvite",  # only an invitation made for the caller's own account
    "system.contract",  # the same bytes for every caller, no organization's data in them
}


@pytest.fixture
def contract(make_member) -> list[dict]:
    return make_member(role="auditor").rpc.query("system.contract").data["procedures"]


def _call(rpc, proc: dict, input=None):
    return rpc.call(proc["kind"], proc["name"], input)


def test_contract_lists_every_procedure_with_schema(contract):
    assert len(contract) >= 27
    for proc in contract:
        assert proc["kind"] in ("query", "mutation")
        assert proc["auth"] in ("public", "user", "tenant", "platform_admin")
        assert proc["description"].strip(), proc["name"]
        assert proc["outputSchema"], proc["name"]
        if proc["auth"] == "tenant":
            assert proc["permission"], proc["name"]


def test_unauthenticated_calls_are_refused(rpc, contract):
    for proc in contract:
        if proc["auth"] == "public":
            continue
        result = _call(rpc, proc, {})
        assert result.code == "UNAUTHORIZED", (proc["name"], result.body)
        assert result.status == 401


def test_forged_token_is_refused(rpc, contract):
    forged = rpc.as_("dps_" + "A" * 43)
    for proc in contract:
        if proc["auth"] != "public":
            assert _call(forged, proc, {}).code == "UNAUTHORIZED", proc["name"]


def test_other_tenant_is_refused_before_any_work(make_member, contract):
    owner = make_member()
    intruder = make_member()
    crossing = intruder.rpc.as_(intruder.token, owner.client_id)
    for proc in contract:
        if proc["auth"] != "tenant":
            continue
        result = _call(crossing, proc, {})
        assert result.code in ("FORBIDDEN", "NOT_FOUND"), (proc["name"], result.body)


def test_a_member_scoped_to_another_client_is_refused_before_any_work(services, rpc, make_member, contract):
    """Issue 23, finding 1: a hospital's staff (membership reaching hospital B only) naming hospital A of the
    same organization, through every tenant procedure: refused like a foreign organization's client."""
    owner = make_member()
    hospital_b = owner.rpc.mutation("organizations.addClient", {"name": "Hospital B"}).data["id"]
    _, _, _, token = join(services, rpc, owner.organization_id, "admin", client_ids=[hospital_b])
    assert rpc.as_(token).query("securityContext.current").data["clientId"] == hospital_b  # the default
    crossing = rpc.as_(token, owner.client_id)
    tried = 0
    for proc in contract:
        if proc["auth"] != "tenant":
            continue
        result = _call(crossing, proc, {})
        assert result.code in ("FORBIDDEN", "NOT_FOUND"), (proc["name"], result.body)
        tried += 1
    assert tried > 100


def test_platform_admin_procedures_refuse_members(make_member, contract):
    member = make_member()
    for proc in contract:
        if proc["auth"] == "platform_admin":
            assert _call(member.rpc, proc, {}).code == "FORBIDDEN", proc["name"]


def test_user_level_procedures_are_reviewed(contract):
    user_level = {p["name"] for p in contract if p["auth"] == "user"}
    assert user_level == USER_LEVEL_REVIEWED, "review new user-level procedures for tenant leaks"


def test_user_level_procedures_do_not_leak(services, make_member):
    a = make_member()
    b = make_member()
    key = a.rpc.mutation("auth.createApiKey", {"name": "a-key"}).data
    assert b.rpc.mutation("auth.revokeApiKey", {"id": key["id"]}).code == "NOT_FOUND"
    invite = a.rpc.mutation("organizations.inviteMember", {"email": "someone-else@example.test", "role": "admin"})
    assert "inviteToken" not in invite.data
    mailed = invite_token(services.settings.resolved_data_dir, "someone-else@example.test")
    taken = b.rpc.as_(b.token).mutation("organizations.acceptInvite", {"token": mailed})
    assert taken.code == "NOT_FOUND"
    assert all(k["id"] != key["id"] for k in b.rpc.query("auth.listApiKeys").data)
    orgs_b = {o["id"] for o in b.rpc.query("organizations.list").data}
    assert a.organization_id not in orgs_b
    memberships = b.rpc.query("auth.session").data["memberships"]
    assert {m["organizationId"] for m in memberships} == {b.organization_id}


def test_wrong_method_is_method_not_supported(make_member, contract):
    admin = make_member(platform_admin=True)
    for proc in contract:
        wrong = "mutation" if proc["kind"] == "query" else "query"
        result = admin.rpc.call(wrong, proc["name"], {})
        assert result.code == "METHOD_NOT_SUPPORTED", (proc["name"], result.body)
        assert result.status == 405


def test_wrongly_typed_input_is_bad_request(make_member, contract):
    admin = make_member(platform_admin=True)
    for proc in contract:
        if proc["inputSchema"] is None:
            continue
        result = _call(admin.rpc, proc, ["not", "an", "object"])
        assert result.code == "BAD_REQUEST", (proc["name"], result.body)
        assert "Invalid input" in result.error["message"]
