"""admin.*: platform operators list and suspend organizations; over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations


def test_platform_admin_suspends_organization(make_member):
    operator = make_member(platform_admin=True)
    victim = make_member()
    listed = operator.rpc.query("admin.listOrganizations", {"limit": 500}).data
    assert any(o["id"] == victim.organization_id for o in listed["items"])
    done = operator.rpc.mutation(
        "admin.suspendOrganization", {"organizationId": victim.organization_id, "reason": "unpaid"}
    ).data
    assert done["status"] == "suspended"
    blocked = victim.rpc.query("organizations.get")
    assert blocked.code == "FORBIDDEN" and "suspended" in blocked.error["message"]
    operator.rpc.mutation(
        "admin.suspendOrganization", {"organizationId": victim.organization_id, "suspended": False, "reason": "paid"}
    ).data
    assert victim.rpc.query("organizations.get").status == 200
    settings = operator.rpc.query("admin.settings").data
    assert settings["procedures"] >= 27 and "secret" not in str(settings).lower()


def test_an_id_beyond_the_database_range_is_bad_request_not_a_server_error(make_member):
    """Attack (found by fuzzing): organizationId 2^63 overflowed the database integer and answered 500."""
    operator = make_member(platform_admin=True)
    for value in (2**63, 2**64 + 5, -(2**63) - 1):
        r = operator.rpc.mutation("admin.suspendOrganization", {"organizationId": value, "reason": "probe"})
        assert (r.status, r.code) == (400, "BAD_REQUEST"), value
        assert r.error["data"]["issues"][0]["path"] == "organizationId"
    fits = operator.rpc.mutation("admin.suspendOrganization", {"organizationId": 2**63 - 1, "reason": "probe"})
    assert fits.code == "NOT_FOUND"
