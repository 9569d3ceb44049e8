"""Operational records written next to the marts: they persist, are audited, and stay in their tenant."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.integration.api.conftest import PAYER_NAMES, audited

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def test_acknowledge_an_alert_once(world):
    rpc = world.a.rpc
    alert = rpc.query("payerChangeRadar.alerts", {"limit": 1}).data["items"][0]
    assert alert["acknowledged"] is False
    ack = rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": alert["alertKey"], "note": "called rep"}).data
    assert ack["acknowledgedBy"] == world.a.user_id
    audited(world, "payerChangeRadar.acknowledge", "payer_alert_acknowledgement", ack["id"])
    listed = rpc.query("payerChangeRadar.alerts", {"limit": 500}).data["items"]
    assert next(a for a in listed if a["alertKey"] == alert["alertKey"])["acknowledged"] is True
    hidden = rpc.query("payerChangeRadar.alerts", {"limit": 500, "includeAcknowledged": False}).data["items"]
    assert alert["alertKey"] not in {a["alertKey"] for a in hidden} and len(hidden) == len(listed) - 1
    assert rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": alert["alertKey"]}).code == "CONFLICT"
    assert rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": "nope"}).code == "NOT_FOUND"
    # Another tenant cannot acknowledge (or even see) this alert.
    assert world.b.rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": alert["alertKey"]}).code == "NOT_FOUND"
    # The read-only auditor may look but not act.
    assert (
        world.auditor.rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": alert["alertKey"]}).code == "FORBIDDEN"
    )


def test_flag_a_variance(world):
    rpc = world.a.rpc
    claim = rpc.query("paymentIntegrity.underpayments", {"payer": PAYER_NAMES["bluepeak"], "limit": 1}).data["items"][0]
    flag = rpc.mutation(
        "paymentIntegrity.flagVariance",
        {"claimKey": claim["claimKey"], "direction": "underpayment", "reason": "contract_rate"},
    ).data
    assert Decimal(flag["varianceAmount"]) == Decimal(claim["varianceAmount"]) and flag["status"] == "open"
    audited(world, "paymentIntegrity.flagVariance", "payment_variance_flag", flag["id"])
    again = rpc.query("paymentIntegrity.underpayments", {"payer": PAYER_NAMES["bluepeak"], "limit": 1}).data["items"][0]
    assert again["claimKey"] == claim["claimKey"] and again["flagged"] is True
    assert (
        rpc.mutation("paymentIntegrity.flagVariance", {"claimKey": claim["claimKey"], "direction": "underpayment"}).code
        == "CONFLICT"
    )
    overpaid = {i["claimKey"] for i in rpc.query("paymentIntegrity.overpayments", {"limit": 500}).data["items"]}
    assert claim["claimKey"] not in overpaid
    wrong_way = rpc.mutation(
        "paymentIntegrity.flagVariance", {"claimKey": claim["claimKey"], "direction": "overpayment"}
    )
    assert wrong_way.code == "PRECONDITION_FAILED" and "no overpayment" in wrong_way.error["message"]
    assert (
        rpc.mutation("paymentIntegrity.flagVariance", {"claimKey": "NO-SUCH", "direction": "underpayment"}).code
        == "NOT_FOUND"
    )


def test_resolve_a_payment_variance(world):
    rpc = world.a.rpc
    variances = rpc.query("revenueReconciliation.variances", {"limit": 500}).data
    plb = Decimal(world.truth["x12"]["plb_total"])
    assert Decimal(variances["totalVariance"]) == -plb
    assert {v["status"] for v in variances["items"]} == {"explained_by_plb"}
    target = variances["items"][0]
    resolved = rpc.mutation(
        "revenueReconciliation.resolveVariance", {"matchKey": target["remittanceKey"], "resolution": "plb_posted"}
    ).data
    assert Decimal(resolved["varianceAmount"]) == Decimal(target["varianceAmount"])
    audited(world, "revenueReconciliation.resolveVariance", "revenue_variance_resolution", resolved["id"])
    open_now = rpc.query("revenueReconciliation.variances", {"limit": 500}).data["items"]
    assert target["remittanceKey"] not in {v["remittanceKey"] for v in open_now}
    with_resolved = rpc.query("revenueReconciliation.variances", {"limit": 500, "includeResolved": True}).data["items"]
    assert next(v for v in with_resolved if v["remittanceKey"] == target["remittanceKey"])["resolution"] == "plb_posted"
    assert (
        rpc.mutation(
            "revenueReconciliation.resolveVariance", {"matchKey": target["remittanceKey"], "resolution": "other"}
        ).code
        == "CONFLICT"
    )
    balanced = rpc.query("revenueReconciliation.depositMatches", {"status": "balanced", "limit": 1}).data["items"][0]
    assert (
        rpc.mutation(
            "revenueReconciliation.resolveVariance", {"matchKey": balanced["remittanceKey"], "resolution": "other"}
        ).code
        == "PRECONDITION_FAILED"
    )
    matches = rpc.query("revenueReconciliation.depositMatches", {"limit": 500}).data
    assert len(matches["items"]) == world.truth["counts"]["remittances"]


def test_assign_follow_up(world):
    rpc = world.a.rpc
    item = rpc.query("arOperations.followUpQueue", {"limit": 1}).data["items"][0]
    assert item["assigneeUserId"] is None and item["reason"] in ("denied", "partially_denied")
    first = rpc.mutation(
        "arOperations.assignFollowUp",
        {"claimKey": item["claimKey"], "assigneeUserId": world.analyst.user_id, "dueDate": "2026-12-01"},
    ).data
    assert first["reassigned"] is False
    audited(world, "arOperations.assignFollowUp", "follow_up_assignment", first["id"])
    second = rpc.mutation(
        "arOperations.assignFollowUp", {"claimKey": item["claimKey"], "assigneeUserId": world.a.user_id}
    ).data
    assert second["reassigned"] is True and second["id"] == first["id"]
    queue = rpc.query("arOperations.followUpQueue", {"assigned": True, "limit": 500}).data["items"]
    assert [(q["claimKey"], q["assigneeUserId"]) for q in queue] == [(item["claimKey"], world.a.user_id)]
    unassigned = rpc.query("arOperations.followUpQueue", {"assigned": False, "limit": 500}).data["items"]
    assert item["claimKey"] not in {q["claimKey"] for q in unassigned}
    stranger = rpc.mutation(
        "arOperations.assignFollowUp", {"claimKey": item["claimKey"], "assigneeUserId": world.b.user_id}
    )
    assert stranger.code == "BAD_REQUEST" and "assigneeUserId" in stranger.error["message"]
    paid = next(r["claim_id"] for r in world.truth_rows if r["final_status"] == "paid")
    assert (
        rpc.mutation("arOperations.assignFollowUp", {"claimKey": paid, "assigneeUserId": world.a.user_id}).code
        == "PRECONDITION_FAILED"
    )
