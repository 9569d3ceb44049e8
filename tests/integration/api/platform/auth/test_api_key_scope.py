"""Issue 9, finding 8: organization-bound API keys used as user-wide credentials, performed over the wire."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import update

from api.infra.db.base import utcnow
from api.platform.auth.models import ApiKey
from tests.support.tenancy import new_organization


def _member_of_two(services, make_member):
    """A user admin of organization A who also owns organization B; an API key made in A."""
    a = make_member()
    b_org = new_organization(services, a.user_id, f"Second Org {uuid.uuid4().hex[:8]}", "Clinic B")
    key = a.rpc.mutation("auth.createApiKey", {"name": "feed"}).data
    return a, b_org, key


def test_a_key_of_one_organization_sees_only_that_organization(services, make_member, rpc):
    a, b_org, key = _member_of_two(services, make_member)
    as_key = rpc.as_(key["key"])
    memberships = as_key.query("auth.session").data["memberships"]
    assert {m["organizationId"] for m in memberships} == {a.organization_id}
    assert [o["id"] for o in as_key.query("organizations.list").data] == [a.organization_id]
    assert rpc.as_(key["key"], b_org["firstClientId"]).query("organizations.listMembers").code == "FORBIDDEN"
    # The person, signed in, still sees both.
    assert len(rpc.as_(a.token).query("auth.session").data["memberships"]) == 2


def test_a_key_cannot_create_organizations_or_manage_keys(services, make_member, rpc):
    a, _b_org, key = _member_of_two(services, make_member)
    as_key = rpc.as_(key["key"])
    assert as_key.mutation("organizations.create", {"name": "Via Key", "firstClientName": "X"}).code == "FORBIDDEN"
    assert as_key.query("auth.listApiKeys").code == "FORBIDDEN"
    assert as_key.mutation("auth.revokeApiKey", {"id": key["id"]}).code == "FORBIDDEN"
    assert rpc.as_(key["key"], a.client_id).mutation("auth.createApiKey", {"name": "child"}).code == "FORBIDDEN"
    assert as_key.mutation(
        "auth.changePassword", {"currentPassword": a.password, "newPassword": "changed by a key!"}
    ).code == ("FORBIDDEN")
    assert rpc.as_(key["key"], a.client_id).query("organizations.get").status == 200  # its own work still runs


def test_keys_expire(services, make_member, rpc):
    a = make_member()
    key = a.rpc.mutation("auth.createApiKey", {"name": "default expiry"}).data
    lifetime = datetime.fromisoformat(key["expiresAt"]) - datetime.fromisoformat(key["createdAt"])
    assert timedelta(days=89) < lifetime <= timedelta(days=90, minutes=1)
    too_long = a.rpc.mutation("auth.createApiKey", {"name": "forever", "expiresInDays": 3650})
    assert too_long.code == "BAD_REQUEST" and "365" in too_long.error["message"]
    with services.database.transaction() as db:
        db.execute(update(ApiKey).where(ApiKey.id == key["id"]).values(expires_at=utcnow()))
    result = rpc.as_(key["key"], a.client_id).query("organizations.get")
    assert result.code == "UNAUTHORIZED" and "expired" in result.error["message"]


def test_a_specialist_cannot_create_keys(make_member):
    specialist = make_member(role="specialist")
    assert specialist.rpc.mutation("auth.createApiKey", {"name": "mine"}).code == "FORBIDDEN"
