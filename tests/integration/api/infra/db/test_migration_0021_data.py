"""Migration 0021's data step, on SQLite and PostgreSQL: what issue 23's flaws left in a database is fixed
by the upgrade. A hospital analyst who joined through onboarding before client scoping reaches only that
hospital afterwards; invitations get their inviter (from the audit trail, or the provisioner); every
pending invitation (its token was answered to the inviter) is expired; other memberships stay
organization-wide."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from api.infra.db import migrate
from api.infra.db.session import normalise_url
from tests.conftest import create_pg_database, drop_pg_database

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def at_0020(request, tmp_path) -> Iterator[str]:
    """An empty database migrated to revision 0020 (before client scoping)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
        migrate.upgrade(url, "0020")
        yield url
        return
    admin = request.getfixturevalue("pg_server")
    url = create_pg_database(admin)
    try:
        migrate.upgrade(url, "0020")
        yield url
    finally:
        drop_pg_database(admin, url)


def _seed(conn: sa.Connection, t: dict[str, sa.Table]) -> dict[str, int]:
    def add(table: str, **values) -> int:
        return conn.execute(sa.insert(t[table]).values(**values).returning(t[table].c.id)).scalar_one()

    def user(email: str) -> int:
        return add("users", email=email, display_name="", is_platform_admin=False, disabled=False, created_at=T0)

    org = add("organizations", name="Health", slug="health", status="active", created_at=T0)
    a = add("clients", organization_id=org, name="Hospital A", status="active", created_at=T0)
    b = add("clients", organization_id=org, name="Hospital B", status="active", created_at=T0)
    owner, reviewer, analyst, colleague, pending = (
        user(f"{who}@example.test") for who in ("owner", "reviewer", "analyst", "colleague", "pending")
    )
    for who in (owner, reviewer):
        add("memberships", organization_id=org, user_id=who, role="admin", created_at=T0)
    add(
        "onboarding_requests",
        organization_id=org,
        hospital_name="Hospital B",
        legal={},
        contact_email="cfo@b.test",
        expected_volumes={},
        payers=[],
        requested_users=[{"email": "analyst@example.test", "role": "analyst"}],
        connector_kinds=[],
        retention_years=7,
        state="provisioned",
        state_changed_at=T0 + timedelta(hours=2),
        submitted_by_user_id=owner,
        decided_by_user_id=reviewer,
        decided_at=T0 + timedelta(hours=1),
        provisioned_client_id=b,
        provisioned_by_user_id=owner,
        provisioned_at=T0 + timedelta(hours=2),
        created_at=T0,
    )

    def invitation(user_id: int, email: str, made: datetime, accepted: datetime | None, token: str) -> int:
        return add(
            "invitations",
            organization_id=org,
            user_id=user_id,
            email=email,
            role="analyst",
            token_hash=token * 64,
            expires_at=made + timedelta(days=7) if accepted else datetime.now(UTC) + timedelta(days=6),
            accepted_at=accepted,
            created_at=made,
        )

    provisioned = invitation(analyst, "analyst@example.test", T0 + timedelta(hours=2), T0 + timedelta(hours=3), "a")
    add("memberships", organization_id=org, user_id=analyst, role="analyst", created_at=T0 + timedelta(hours=3))
    by_hand = invitation(colleague, "colleague@example.test", T0, T0 + timedelta(hours=1), "b")
    add("memberships", organization_id=org, user_id=colleague, role="analyst", created_at=T0 + timedelta(hours=1))
    waiting = invitation(pending, "pending@example.test", datetime.now(UTC), None, "c")
    add(
        "audit_events",
        scope=f"org:{org}",
        seq=1,
        organization_id=org,
        client_id=a,
        actor_user_id=reviewer,
        actor_kind="session",
        procedure="organizations.inviteMember",
        target_type="invitation",
        target_id=str(by_hand),
        input_digest="0" * 64,
        created_at=T0,
        prev_hash="0" * 64,
        hash="1" * 64,
    )
    return {
        "org": org,
        "b": b,
        "owner": owner,
        "reviewer": reviewer,
        "analyst": analyst,
        "colleague": colleague,
        "provisioned": provisioned,
        "by_hand": by_hand,
        "waiting": waiting,
    }


def test_the_upgrade_scopes_onboarded_staff_and_names_inviters(at_0020):
    engine = sa.create_engine(normalise_url(at_0020))
    try:
        meta = sa.MetaData()
        meta.reflect(engine)
        with engine.begin() as conn:
            ids = _seed(conn, dict(meta.tables))
        migrate.upgrade(at_0020)
        meta = sa.MetaData()
        meta.reflect(engine)
        memberships, reach, invitations = (meta.tables[n] for n in ("memberships", "membership_clients", "invitations"))
        with engine.connect() as conn:
            scope = dict(conn.execute(sa.select(memberships.c.user_id, memberships.c.all_clients)).all())
            listed = conn.execute(sa.select(reach.c.client_id, reach.c.organization_id)).all()
            rows = {r.id: r for r in conn.execute(sa.select(invitations)).all()}
    finally:
        engine.dispose()
    # The onboarded analyst reaches hospital B only; everyone else stays organization-wide.
    assert not scope[ids["analyst"]]
    assert all(scope[who] for who in (ids["owner"], ids["reviewer"], ids["colleague"]))
    assert [tuple(r) for r in listed] == [(ids["b"], ids["org"])]
    # Inviters: the provisioner for provisioning's invitation, the audit event's actor for inviteMember's.
    assert rows[ids["provisioned"]].client_ids == [ids["b"]]
    assert rows[ids["provisioned"]].invited_by_user_id == ids["owner"]
    assert rows[ids["by_hand"]].invited_by_user_id == ids["reviewer"]
    assert rows[ids["by_hand"]].client_ids is None
    # The pending invitation's token was answered to its inviter: it no longer works.
    expires = rows[ids["waiting"]].expires_at
    expires = expires if expires.tzinfo else expires.replace(tzinfo=UTC)
    assert expires <= datetime.now(UTC)
