"""reconciliation.*: a remittance without its claim matched by hand, audited, once; on a real pipeline run."""

from __future__ import annotations

import pytest

from tests.integration.api.conftest import audited

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def test_match_a_remittance_by_hand(world):
    rpc = world.a.rpc
    summary = rpc.query("reconciliation.summary", {}).data
    buckets = {b["matchStatus"]: b["claims"] for b in summary["buckets"]}
    assert buckets["remittance_without_claim"] == len(world.withheld_claims)
    assert summary["claims"] == world.truth["counts"]["claims"]
    unmatched = rpc.query("reconciliation.unmatchedRemittances", {"limit": 500}).data["items"]
    assert {u["claimKey"] for u in unmatched} == world.withheld_claims
    assert rpc.query("reconciliation.unmatchedClaims", {}).data["items"] == []
    target = unmatched[0]
    queue = rpc.query("arOperations.followUpQueue", {"limit": 100}).data["items"]
    # a claim the hospital submitted (the withheld 837's claims have no submission to match)
    submitted = next(i["claimKey"] for i in queue if i["claimKey"] not in world.withheld_claims)
    match = rpc.mutation(
        "reconciliation.matchManually",
        {"remittanceClaimKey": target["remittanceClaimKey"], "claimKey": submitted, "note": "typo in PCN"},
    ).data
    audited(world, "reconciliation.matchManually", "manual_match", match["id"])
    after = rpc.query("reconciliation.unmatchedRemittances", {"limit": 500}).data["items"]
    assert len(after) == len(unmatched) - 1
    assert rpc.query("reconciliation.summary", {}).data["manuallyMatched"] == 1
    assert (
        rpc.mutation(
            "reconciliation.matchManually", {"remittanceClaimKey": target["remittanceClaimKey"], "claimKey": submitted}
        ).code
        == "CONFLICT"
    )
    assert (
        rpc.mutation(
            "reconciliation.matchManually",
            {"remittanceClaimKey": unmatched[1]["remittanceClaimKey"], "claimKey": unmatched[1]["claimKey"]},
        ).code
        == "NOT_FOUND"
    )
