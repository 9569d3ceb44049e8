"""policyImpact.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from api.intelligence.policy_impact.models import PolicyImpactItem
from tests.support.rpc_client import collect_pages


def _item(services, member, **values) -> int:
    with services.database.transaction() as db:
        item = PolicyImpactItem(organization_id=member.organization_id, client_id=member.client_id, **{"label": "x", **values})
        db.add(item)
        db.flush()
        return item.id


def test_list_newest_first_filtered_and_paged(services, make_member):
    member = make_member()
    ids = [_item(services, member, label=f"item {n}", state="closed" if n % 2 else "open") for n in range(5)]
    listed = collect_pages(member.rpc, "policyImpact.list", {}, limit=2)
    assert [i["id"] for i in listed] == ids[::-1]
    closed = member.rpc.query("policyImpact.list", {"state": "closed"}).data["items"]
    assert [i["id"] for i in closed] == [ids[3], ids[1]]
    today = datetime.now(UTC).date()
    assert len(member.rpc.query("policyImpact.list", {"createdFrom": today.isoformat()}).data["items"]) == 5
    yesterday = (today - timedelta(days=1)).isoformat()
    assert member.rpc.query("policyImpact.list", {"createdTo": yesterday}).data["items"] == []


def test_get_and_another_clients_item_is_not_found(services, make_member):
    a, b = make_member(), make_member()
    item = _item(services, a, label="mine")
    assert a.rpc.query("policyImpact.get", {"id": item}).data["label"] == "mine"
    assert b.rpc.query("policyImpact.get", {"id": item}).code == "NOT_FOUND"
