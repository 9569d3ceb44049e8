"""Organizations, clients, members and role enforcement."""

from __future__ import annotations

from tests.conftest import make_user, sign_in
from tests.support.outbox import invite_token


def test_create_organization_makes_caller_admin_with_first_client(make_member):
    member = make_member()
    ctx = member.rpc.query("securityContext.current").data
    assert ctx["roles"] == ["admin"] and ctx["clientId"] == member.client_id
    clients = member.rpc.query("organizations.listClients").data
    assert [c["name"] for c in clients] == ["General Hospital"]


def test_only_a_platform_admin_creates_organizations(make_member):
    """Issue 23, finding 9: organizations.create made any signed-in account the admin of a new organization
    (and so opened every `manage` procedure to anyone who can sign in)."""
    member = make_member()
    refused = member.rpc.as_(member.token).mutation("organizations.create", {"name": "Mine", "firstClientName": "H"})
    assert refused.code == "FORBIDDEN" and "platform administrators" in refused.error["message"]
    assert {o["id"] for o in member.rpc.as_(member.token).query("organizations.list").data} == {member.organization_id}


def test_duplicate_slug_is_conflict(make_member):
    member = make_member(platform_admin=True)
    body = {"name": "Same", "slug": f"same-{member.user_id}", "firstClientName": "H"}
    assert (
        member.rpc.as_(member.token).mutation("organizations.create", {**body, "firstClientName": "Hosp"}).status == 200
    )
    again = member.rpc.as_(member.token).mutation("organizations.create", {**body, "firstClientName": "Hosp"})
    assert again.code == "CONFLICT"
    assert again.error["message"] == "This organization slug is not available; choose another"


def test_a_name_another_tenant_uses_neither_fails_nor_reveals_that_tenant(make_member):
    """Attack: probe for other hospitals by creating organizations named like them. The derived slug
    is made unique instead of answering CONFLICT with the other tenant's slug."""
    victim, prober = make_member(platform_admin=True), make_member(platform_admin=True)
    name = f"Saint Victim {victim.user_id}"
    first = victim.rpc.as_(victim.token).mutation("organizations.create", {"name": name, "firstClientName": "Hosp"})
    probe = prober.rpc.as_(prober.token).mutation("organizations.create", {"name": name, "firstClientName": "Hosp"})
    assert first.status == 200 and probe.status == 200
    first_slug, probe_slug = first.data["slug"], probe.data["slug"]
    assert first_slug == f"saint-victim-{victim.user_id}"
    assert probe_slug.startswith(first_slug + "-") and probe_slug != first_slug


def test_roles_are_enforced(make_member):
    auditor = make_member(role="auditor")
    refused = auditor.rpc.mutation("auth.createApiKey", {"name": "x"})
    assert refused.code == "FORBIDDEN" and "auditor" in refused.error["message"]
    assert auditor.rpc.query("audit.verifyChain").data["valid"] is True
    specialist = make_member(role="specialist")
    assert specialist.rpc.query("audit.list").code == "FORBIDDEN"
    assert specialist.rpc.mutation("organizations.addClient", {"name": "Nope"}).code == "FORBIDDEN"
    explain = specialist.rpc.query("securityContext.explain", {"permission": "manage"}).data
    assert explain["granted"] is False and explain["rolesGranting"] == ["admin"]


def test_set_role_and_last_admin_protection(services, make_member, rpc):
    admin = make_member()
    user_id, email, password = make_user(services)
    admin.rpc.mutation("organizations.inviteMember", {"email": email, "role": "specialist"}).data
    mailed = invite_token(services.settings.resolved_data_dir, email)
    rpc.as_(sign_in(rpc, email, password)).mutation("organizations.acceptInvite", {"token": mailed}).data
    promoted = admin.rpc.mutation("organizations.setRole", {"userId": user_id, "role": "manager"}).data
    assert promoted["role"] == "manager"
    demote_self = admin.rpc.mutation("organizations.setRole", {"userId": admin.user_id, "role": "analyst"})
    assert demote_self.code == "PRECONDITION_FAILED"
    assert admin.rpc.mutation("organizations.removeMember", {"userId": admin.user_id}).code == "PRECONDITION_FAILED"
    assert admin.rpc.mutation("organizations.removeMember", {"userId": user_id}).data == {"ok": True}
    token = sign_in(rpc, email, password)
    assert rpc.as_(token, admin.client_id).query("organizations.get").code == "FORBIDDEN"
    members = admin.rpc.query("organizations.listMembers").data
    assert [m["userId"] for m in members] == [admin.user_id]


def test_set_role_rejects_unknown_role_and_foreign_user(make_member):
    admin = make_member()
    other = make_member()
    assert admin.rpc.mutation("organizations.setRole", {"userId": admin.user_id, "role": "owner"}).code == "BAD_REQUEST"
    assert admin.rpc.mutation("organizations.setRole", {"userId": other.user_id, "role": "analyst"}).code == "NOT_FOUND"
