"""A client's time zone (clients.time_zone) set through organizations.addClient and
organizations.updateClient, on SQLite and PostgreSQL; it moves the client's "today" (deadlines.facts)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import select

from api.denials.deadlines.facts import client_today
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.platform.audit.models import AuditEvent
from api.platform.organizations.models import Client

# 08:00 UTC on 2026-03-02 is 22:00 on 2026-03-01 in Honolulu (UTC-10)
AT = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _today(services, member, client_id: int) -> date:
    with services.database.transaction(write=False) as db:
        set_scope(db, TenantScope(member.organization_id, client_id))
        return client_today(db, AT)


def _stored_zone(services, client_id: int) -> str | None:
    with services.database.transaction(write=False) as db:
        return db.scalar(select(Client.time_zone).where(Client.id == client_id))


def test_add_client_with_a_time_zone_sets_its_today(services, make_member):
    admin = make_member()
    added = admin.rpc.mutation("organizations.addClient", {"name": "Kona Campus", "timeZone": "Pacific/Honolulu"}).data
    assert added["timeZone"] == "Pacific/Honolulu"
    listed = {c["name"]: c["timeZone"] for c in admin.rpc.query("organizations.listClients").data}
    assert listed == {"General Hospital": None, "Kona Campus": "Pacific/Honolulu"}
    assert _today(services, admin, added["id"]) == date(2026, 3, 1)
    assert _today(services, admin, admin.client_id) == date(2026, 3, 2)  # no zone: the default (UTC)


def test_an_unknown_time_zone_is_bad_request_and_adds_nothing(make_member):
    admin = make_member()
    for zone in ("Mars/Olympus_Mons", "pacific/honolulu", "localtime", "../etc/passwd", "UTC+10"):
        refused = admin.rpc.mutation("organizations.addClient", {"name": "Nowhere", "timeZone": zone})
        assert refused.code == "BAD_REQUEST", zone
        assert "'timeZone' must be an IANA time zone name such as America/Chicago" in refused.error["message"]
    assert [c["name"] for c in admin.rpc.query("organizations.listClients").data] == ["General Hospital"]


def test_update_client_renames_and_sets_the_time_zone_audited(services, make_member):
    admin = make_member()
    both = {"clientId": admin.client_id, "name": "General Hospital Hilo", "timeZone": "Pacific/Honolulu"}
    out = admin.rpc.mutation("organizations.updateClient", both).data
    assert (out["name"], out["timeZone"]) == ("General Hospital Hilo", "Pacific/Honolulu")
    assert _today(services, admin, admin.client_id) == date(2026, 3, 1)
    # only the zone: the name stays; null: back to the platform default
    out = admin.rpc.mutation("organizations.updateClient", {"clientId": admin.client_id, "timeZone": "America/Chicago"})
    assert (out.data["name"], out.data["timeZone"]) == ("General Hospital Hilo", "America/Chicago")
    out = admin.rpc.mutation("organizations.updateClient", {"clientId": admin.client_id, "timeZone": None})
    assert out.data["timeZone"] is None and _stored_zone(services, admin.client_id) is None
    assert _today(services, admin, admin.client_id) == date(2026, 3, 2)
    events = [e for e in admin.rpc.query("audit.list").data["items"] if e["procedure"] == "organizations.updateClient"]
    assert len(events) == 3
    with services.database.transaction(write=False) as db:
        rows = db.scalars(
            select(AuditEvent).where(
                AuditEvent.organization_id == admin.organization_id,
                AuditEvent.procedure == "organizations.updateClient",
            )
        ).all()
    assert {(r.target_type, r.target_id) for r in rows} == {("client", str(admin.client_id))}
    assert all(r.before_digest and r.after_digest for r in rows)


def test_update_client_refusals(services, make_member):
    admin = make_member()
    second = admin.rpc.mutation("organizations.addClient", {"name": "North Campus"}).data["id"]
    bad = admin.rpc.mutation("organizations.updateClient", {"clientId": second, "timeZone": "Atlantis/Lost_City"})
    assert bad.code == "BAD_REQUEST" and "IANA time zone" in bad.error["message"]
    nothing = admin.rpc.mutation("organizations.updateClient", {"clientId": second})
    assert nothing.code == "BAD_REQUEST" and "'name' and/or 'timeZone'" in nothing.error["message"]
    null_name = admin.rpc.mutation("organizations.updateClient", {"clientId": second, "name": None})
    assert null_name.code == "BAD_REQUEST"
    taken = admin.rpc.mutation("organizations.updateClient", {"clientId": second, "name": "General Hospital"})
    assert taken.code == "CONFLICT"
    # renaming to its own name is no conflict
    same = admin.rpc.mutation("organizations.updateClient", {"clientId": second, "name": "North Campus"})
    assert same.status == 200
    assert admin.rpc.mutation("organizations.updateClient", {"clientId": 10**12, "name": "Gone"}).code == "NOT_FOUND"
    manager = make_member(role="manager")
    refused = manager.rpc.mutation("organizations.updateClient", {"clientId": manager.client_id, "name": "Mine"})
    assert refused.code == "FORBIDDEN"
    assert _stored_zone(services, second) is None


def test_attack_another_organizations_client_is_not_found_and_untouched(services, make_member):
    """Attack: an admin of organization B names organization A's client id (ids are sequential, so easy
    to guess). The answer is NOT_FOUND, worded as for an id that does not exist, and A's client keeps its
    name and zone."""
    victim, attacker = make_member(), make_member()
    victim.rpc.mutation("organizations.updateClient", {"clientId": victim.client_id, "timeZone": "America/Chicago"})
    attack = {"clientId": victim.client_id, "name": "Pwned", "timeZone": "Pacific/Honolulu"}
    refused = attacker.rpc.mutation("organizations.updateClient", attack)
    assert refused.code == "NOT_FOUND"
    assert refused.error["message"] == f"Client {victim.client_id} was not found"
    clients = victim.rpc.query("organizations.listClients").data
    assert [(c["name"], c["timeZone"]) for c in clients] == [("General Hospital", "America/Chicago")]
