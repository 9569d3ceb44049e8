"""Roles read from the database are narrowed to the API's role names, never passed through unchecked."""

from __future__ import annotations

import pytest

from api.core.permissions import ROLES
from api.platform.organizations.schemas import ROLE_NAMES, as_role, is_role


def test_the_wire_roles_are_the_permission_table_roles():
    assert frozenset(ROLES) == ROLE_NAMES


def test_known_roles_pass_through():
    for role in ROLES:
        assert is_role(role)
        assert as_role(role) == role


def test_an_unknown_stored_role_is_refused():
    assert not is_role("owner")
    with pytest.raises(ValueError, match="owner"):
        as_role("owner")
