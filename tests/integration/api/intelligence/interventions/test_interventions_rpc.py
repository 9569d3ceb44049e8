"""interventions.* over the wire, on SQLite and PostgreSQL: create, list with its filters, get, bad input,
another client's intervention."""

from __future__ import annotations

from tests.support.rpc_client import collect_pages

PATTERN = "0123456789abcdef"


def plan(member, **changes) -> dict:
    body = {
        "name": "Recheck eligibility before cardiology visits",
        "patternKey": PATTERN,
        "actionKey": "eligibility-recheck",
        "scope": {"payerKey": "aetna", "category": "eligibility", "carc": "27", "serviceLine": "Cardiology"},
        "startDate": "2026-03-15",
        **changes,
    }
    return member.rpc.mutation("interventions.create", body)


def test_create_stores_the_scope_and_starts_planned(make_member):
    member = make_member()
    made = plan(member, description="Call the payer portal 48h before")
    assert made.code is None, made
    got = member.rpc.query("interventions.get", {"id": made.data["id"]}).data
    assert got["state"] == "planned" and got["startDate"] == "2026-03-15" and got["startedAt"] is None
    assert got["scope"] == {
        "payerKey": "AETNA",  # payer keys are upper case, as the marts show them
        "category": "eligibility",
        "carc": "27",
        "serviceLine": "Cardiology",
        "facility": None,
    }
    assert (got["patternKey"], got["actionKey"], got["createdBy"]) == (PATTERN, "eligibility-recheck", member.user_id)


def test_list_filters_by_state_pattern_and_action_newest_first(make_member):
    member = make_member()
    a = plan(member).data["id"]
    b = plan(member, actionKey="prior-auth-check").data["id"]
    c = plan(member, patternKey="fedcba9876543210").data["id"]
    assert member.rpc.mutation("interventionExecution.start", {"id": b}).code is None
    assert [i["id"] for i in collect_pages(member.rpc, "interventions.list", {}, limit=2)] == [c, b, a]
    assert [i["id"] for i in member.rpc.query("interventions.list", {"state": "active"}).data["items"]] == [b]
    by_pattern = member.rpc.query("interventions.list", {"patternKey": PATTERN}).data["items"]
    assert [i["id"] for i in by_pattern] == [b, a]
    by_action = member.rpc.query("interventions.list", {"actionKey": "eligibility-recheck"}).data["items"]
    assert [i["id"] for i in by_action] == [c, a]


def test_bad_input_is_refused(make_member):
    member = make_member()
    assert plan(member, patternKey="0123456789ABCDEF").code == "BAD_REQUEST"  # upper-case hex
    assert plan(member, patternKey="0123").code == "BAD_REQUEST"
    assert plan(member, actionKey="Eligibility Recheck").code == "BAD_REQUEST"  # not a slug
    assert plan(member, actionKey="-recheck").code == "BAD_REQUEST"
    assert plan(member, scope={"payerKey": "AETNA"}).code == "BAD_REQUEST"  # category is required
    assert plan(member, scope={"category": "eligibility", "carc": "27;drop"}).code == "BAD_REQUEST"
    assert plan(member, startDate="2026-02-30").code == "BAD_REQUEST"
    assert plan(member, name="x" * 201).code == "BAD_REQUEST"
    assert member.rpc.query("interventions.list", {}).data["items"] == []


def test_another_clients_intervention_is_not_found(make_member):
    a, b = make_member(), make_member()
    mine = plan(a).data["id"]
    assert b.rpc.query("interventions.get", {"id": mine}).code == "NOT_FOUND"
    assert b.rpc.query("interventions.list", {}).data["items"] == []
