"""The role table: auditors read only, approvals need a manager or admin."""

from __future__ import annotations

from api.core.permissions import PERMISSIONS, ROLES, explain, permissions_for


def test_every_role_reads_and_only_auditor_is_read_only():
    for role in ROLES:
        assert "read" in permissions_for(role)
    assert permissions_for("auditor") == {"read", "audit"}


def test_explain_names_the_roles_that_grant():
    granted, reason = explain("specialist", "approve")
    assert not granted and "admin, manager" in reason
    assert explain("admin", "manage")[0]
    assert not explain(None, "read")[0]
    assert not explain("admin", "fly")[0]


def test_every_permission_has_at_least_one_holder_and_admin_holds_all():
    for permission, roles in PERMISSIONS.items():
        assert roles, permission
        assert "admin" in roles
