"""The session-level tenant scope: rows of other tenants cannot be read or written."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, update

from api.infra.db.tenant_filter import TenantScope, TenantViolation, set_scope
from api.platform.organizations.models import Client, Membership


def test_scope_filters_reads_updates_and_stamps_inserts(services, make_member):
    a = make_member()
    b = make_member()
    db = services.database.session(write=True)
    try:
        set_scope(db, TenantScope(a.organization_id, a.client_id))
        names = db.scalars(select(Client.name)).all()
        assert names == ["General Hospital"]
        assert db.get(Client, b.client_id) is None
        assert db.scalar(select(func.count()).select_from(Membership)) == 1
        # A bulk update cannot touch the other tenant's rows.
        db.execute(update(Client).values(status="active").execution_options(synchronize_session=False))
        new = Client(name="Stamped Clinic")
        db.add(new)
        db.flush()
        assert new.organization_id == a.organization_id
        with pytest.raises(TenantViolation):
            db.add(Client(name="Smuggled", organization_id=b.organization_id))
            db.flush()
    finally:
        db.rollback()
        db.close()
