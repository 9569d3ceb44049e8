"""Every table that holds a tenant's rows is filtered by the session's tenant scope, enumerated from the
models: a namespace added later is covered without anyone listing its tables here.

- a table with `client_id` or `organization_id` derives from `TenantScoped` / `OrgScoped` (the two
  platform tables written outside any tenant are reviewed below, one by one);
- for each tenant-owned table, a read through a session scoped to one tenant carries that tenant's ids
  into the SQL sent to the database (seen on the wire, not in our own code), and what comes back is
  that tenant's own (tables with rows of other tenants are attacked namespace by namespace in their
  own tests).
"""

from __future__ import annotations

import pytest
from sqlalchemy import event, select

from api.infra.db.base import OrgScoped, TenantScoped
from api.infra.db.registry import load_all_models
from api.infra.db.tenant_filter import TenantScope, set_scope

# Written outside any tenant scope by the platform itself and read only through their own procedures:
# the audit log (tenant ids are facts of each event; audit reads filter explicitly and are tested in
# tests/integration/api/platform/audit) and the job queue (workers serve every tenant); the mail outbox
# (organization_id only says which organization a mail is about: the platform delivers it, no procedure
# reads the table; tests/integration/api/infra/outbox).
REVIEWED_UNSCOPED = {"audit_events", "jobs", "outbox_messages"}

MODELS = load_all_models().registry.mappers
TENANT_MODELS = sorted((m.class_ for m in MODELS if issubclass(m.class_, TenantScoped)), key=lambda c: c.__tablename__)
ORG_MODELS = sorted(
    (m.class_ for m in MODELS if issubclass(m.class_, OrgScoped) and not issubclass(m.class_, TenantScoped)),
    key=lambda c: c.__tablename__,
)


def test_every_table_with_tenant_columns_is_scoped_or_reviewed():
    unscoped = {
        m.class_.__tablename__
        for m in MODELS
        if not issubclass(m.class_, OrgScoped) and {"client_id", "organization_id"} & set(m.local_table.c.keys())
    }
    assert unscoped == REVIEWED_UNSCOPED, "a new table with tenant columns must derive from TenantScoped/OrgScoped"
    # the denial-work tables are among the enumerated ones (a guard against an empty enumeration)
    names = {c.__tablename__ for c in TENANT_MODELS}
    assert {
        "denial_cases",
        "denial_case_events",
        "case_deadlines",
        "appeal_outcomes",
        "claims",
        "notifications",
    } <= names


@pytest.mark.parametrize("model", TENANT_MODELS + ORG_MODELS, ids=lambda c: c.__tablename__)
def test_a_scoped_read_of_every_tenant_table_sends_the_tenant_ids(model, services, make_member):
    member = make_member()
    sent: list[tuple[str, object]] = []
    engine = services.database.engine

    def capture(conn, cursor, statement, parameters, context, executemany):
        sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    db = services.database.session()
    try:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        rows = db.scalars(select(model).limit(50)).all()
        # whatever comes back is the tenant's own (a fresh tenant owns its client and membership)
        assert {r.organization_id for r in rows} <= {member.organization_id}
        if issubclass(model, TenantScoped):
            assert {r.client_id for r in rows} <= {member.client_id}
    finally:
        db.close()
        event.remove(engine, "before_cursor_execute", capture)
    reads = [(s, p) for s, p in sent if model.__tablename__ in s and s.lstrip().lower().startswith("select")]
    assert reads, f"no SELECT on {model.__tablename__} was sent"
    statement, parameters = reads[-1]
    values = list(parameters.values()) if isinstance(parameters, dict) else list(parameters or ())
    column = "client_id" if issubclass(model, TenantScoped) else "organization_id"
    expected = member.client_id if column == "client_id" else member.organization_id
    assert f"{column}" in statement and expected in values, (model.__tablename__, statement, values)
