"""preventionFactory.* over the wire, on SQLite and PostgreSQL.

The confirmed pattern a work item needs is written through the patterns service (the marts are not
needed here): `mining.mine` finds it in one hand-made cell, then `patterns.service.confirm` stores it.
"""

from __future__ import annotations

from datetime import date

from api.infra.db.base import utcnow
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.intelligence.patterns import service as patterns
from api.intelligence.patterns.cells import Window
from api.intelligence.patterns.mining import Cell, mine
from api.intelligence.prevention_factory.models import PreventionWorkItemEvent
from tests.support.rpc_client import collect_pages
from tests.support.tenancy import join


def confirm_pattern(services, member, payer: str = "ACME") -> str:
    # 9 of 10 claims denied against a baseline of 10 in 100: P(X >= 9 | Bin(10, 0.1)) ~ 9.1e-9, a pattern
    cell = Cell(payer, "authorization", None, None, None, claims=10, denied=9)
    (pattern,) = mine([cell], 100, 10, min_claims=1)
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        patterns.confirm(
            db,
            pattern,
            Window(date(2026, 3, 1), date(2026, 5, 1)),
            snapshot_built_at=utcnow(),
            user_id=member.user_id,
            note=None,
        )
    return pattern.pattern_key


def create(member, key: str, **extra) -> dict:
    body = {"patternKey": key, "title": "Front-end auth check", "ownerUserId": member.user_id, **extra}
    return member.rpc.mutation("preventionFactory.create", body)


def test_create_list_and_the_lifecycle_with_every_move_recorded(services, rpc, make_member):
    m = make_member()
    key = confirm_pattern(services, m)
    specialist_id, *_ = join(services, rpc, m.organization_id, "specialist")
    made = create(m, key, description="Check auth before scheduling", dueDate="2026-12-31").data
    assert (made["state"], made["patternKey"], made["dueDate"]) == ("open", key, "2026-12-31")
    other = create(m, key, title="Payer rule", ownerUserId=specialist_id).data

    assert [i["id"] for i in collect_pages(m.rpc, "preventionFactory.list", {}, limit=1)] == [other["id"], made["id"]]
    mine_only = m.rpc.query("preventionFactory.list", {"ownerUserId": specialist_id}).data["items"]
    assert [i["id"] for i in mine_only] == [other["id"]]
    assert m.rpc.query("preventionFactory.list", {"patternKey": "0" * 16}).data["items"] == []

    moves = [("in_progress", None), ("open", "owner away"), ("in_progress", None), ("done", "edit live")]
    for to, note in moves:
        moved = m.rpc.mutation("preventionFactory.transition", {"id": made["id"], "to": to, "note": note})
        assert moved.data["state"] == to
    refused = m.rpc.mutation("preventionFactory.transition", {"id": made["id"], "to": "open"})
    assert refused.code == "PRECONDITION_FAILED" and "'done'" in refused.error["message"]
    assert m.rpc.mutation("preventionFactory.transition", {"id": other["id"], "to": "done"}).code == (
        "PRECONDITION_FAILED"  # open -> done skips in_progress
    )
    assert m.rpc.mutation("preventionFactory.transition", {"id": other["id"], "to": "cancelled"}).data["state"] == (
        "cancelled"
    )
    assert [i["id"] for i in m.rpc.query("preventionFactory.list", {"state": "done"}).data["items"]] == [made["id"]]

    with services.database.transaction() as db:
        events = db.query(PreventionWorkItemEvent).filter_by(work_item_id=made["id"]).order_by("id").all()
        got = [(e.from_state, e.to_state, e.note, e.actor_user_id) for e in events]
    assert got == [
        (None, "open", None, m.user_id),
        ("open", "in_progress", None, m.user_id),
        ("in_progress", "open", "owner away", m.user_id),
        ("open", "in_progress", None, m.user_id),
        ("in_progress", "done", "edit live", m.user_id),
    ]


def test_only_a_confirmed_pattern_of_this_client_takes_a_work_item(services, make_member):
    a, b = make_member(), make_member()
    key = confirm_pattern(services, a)
    unconfirmed = create(a, "0123456789abcdef")
    assert unconfirmed.code == "NOT_FOUND" and "patterns.confirm" in unconfirmed.error["message"]
    # b has not confirmed a's pattern: it is not b's to work on
    assert create(b, key).code == "NOT_FOUND"
    assert create(a, "not-a-key").code == "BAD_REQUEST"


def test_the_owner_must_reach_this_client_and_may_write(services, rpc, make_member):
    a, b = make_member(), make_member()
    key = confirm_pattern(services, a)
    outsider = create(a, key, ownerUserId=b.user_id)  # a member of another organization's client
    assert outsider.code == "BAD_REQUEST" and "ownerUserId" in outsider.error["message"]
    auditor_id, *_ = join(services, rpc, a.organization_id, "auditor")
    auditor = create(a, key, ownerUserId=auditor_id)
    assert auditor.code == "BAD_REQUEST" and "auditor" in auditor.error["message"]


def test_another_clients_work_item_is_not_found(services, make_member):
    a, b = make_member(), make_member()
    item = create(a, confirm_pattern(services, a)).data
    assert b.rpc.mutation("preventionFactory.transition", {"id": item["id"], "to": "in_progress"}).code == ("NOT_FOUND")
    assert b.rpc.query("preventionFactory.list", {}).data["items"] == []
