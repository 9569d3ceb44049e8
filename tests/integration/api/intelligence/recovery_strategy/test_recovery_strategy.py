"""recoveryStrategy.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

CELL = {"payerKey": "hand manual payer", "category": "medical_necessity"}


def test_a_manager_sets_and_anyone_reads(make_member):
    manager = make_member(role="manager").rpc
    assert manager.query("recoveryStrategy.get", CELL).data["strategy"] is None
    made = manager.mutation("recoveryStrategy.set", {**CELL, "actionKey": "peer-to-peer", "note": "P2P first"}).data
    assert made["payerKey"] == "HAND MANUAL PAYER" and made["previousActionKey"] is None
    got = manager.query("recoveryStrategy.get", {**CELL, "payerKey": "Hand Manual Payer"}).data
    assert got["strategy"]["actionKey"] == "peer-to-peer" and got["strategy"]["note"] == "P2P first"
    again = manager.mutation("recoveryStrategy.set", {**CELL, "actionKey": "appeal-level-1"}).data
    assert again["previousActionKey"] == "peer-to-peer" and again["strategy"]["note"] is None


def test_without_a_snapshot_the_suggestion_is_null_and_says_why(make_member):
    got = make_member().rpc.query("recoveryStrategy.get", CELL).data
    assert got["suggestion"] is None
    assert got["suggestionNote"].startswith("No suggestion")


def test_a_specialist_is_forbidden(make_member):
    specialist = make_member(role="specialist").rpc
    refused = specialist.mutation("recoveryStrategy.set", {**CELL, "actionKey": "appeal-level-1"})
    assert refused.code == "FORBIDDEN"
    assert specialist.query("recoveryStrategy.get", CELL).data["strategy"] is None


def test_bad_actions_are_refused(make_member):
    rpc = make_member().rpc
    assert rpc.mutation("recoveryStrategy.set", {**CELL, "actionKey": "no-such-action"}).code == "BAD_REQUEST"
    # patient billing does not apply to a medical-necessity denial
    assert rpc.mutation("recoveryStrategy.set", {**CELL, "actionKey": "patient-billing"}).code == "BAD_REQUEST"
    assert (
        rpc.mutation("recoveryStrategy.set", {**CELL, "category": "x", "actionKey": "write-off"}).code == "BAD_REQUEST"
    )
    own = {"key": "retired", "label": "Retired", "kind": "appeal", "effortHours": "1", "appliesTo": ["other"]}
    rpc.mutation("actionTaxonomy.upsert", {**own, "active": False})
    inactive = rpc.mutation("recoveryStrategy.set", {**CELL, "category": "other", "actionKey": "retired"})
    assert inactive.code == "PRECONDITION_FAILED"


def test_another_clients_strategy_is_not_seen(make_member):
    a, b = make_member(), make_member()
    a.rpc.mutation("recoveryStrategy.set", {**CELL, "actionKey": "write-off"})
    assert b.rpc.query("recoveryStrategy.get", CELL).data["strategy"] is None
