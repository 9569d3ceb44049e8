"""A tenant's reach (pure): an organization-wide membership reaches every client, a scoped one its list."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.core.identity import Tenant

ids = st.integers(min_value=1, max_value=2**63 - 1)


@given(ids, ids)
def test_an_organization_wide_membership_reaches_every_client(current, other):
    tenant = Tenant(organization_id=1, client_id=current, role="admin", reach=None)
    assert tenant.organization_wide and tenant.reaches(other)


@given(st.frozensets(ids, min_size=1, max_size=20), ids)
def test_a_scoped_membership_reaches_exactly_its_clients(reach, other):
    current = min(reach)
    tenant = Tenant(organization_id=1, client_id=current, role="analyst", reach=reach)
    assert not tenant.organization_wide
    assert tenant.reaches(current)
    assert tenant.reaches(other) == (other in reach)
