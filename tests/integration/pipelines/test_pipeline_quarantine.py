"""Quarantine, not a stop: one tenant's file that breaks a mart contract holds back only that tenant.

Two tenants (two organizations) in one installation, on a PostgreSQL operational database (PostgreSQL
only: quarantine is decided in the warehouse from the build's dbt results, and `operationalObservability.
quarantines` and the marts' snapshot fields read the published snapshot, not the operational database; the two
pipeline runs are this module's cost).
Run 1 publishes both with `balanced_230.835` (paid 150.00 + 80.00). Then tenant A posts
`missing_clp02.835` (a claim without CLP02 status, paid 40.00: `claim_status_code` is null in
`fct_remittance_claims`, whose `not_null` test is part of the mart contract) and tenant B posts
`invalid_bpr16_dtm405.835` (a balanced remittance paying 150.00). Run 2 must publish B's new numbers,
keep A's numbers of run 1, and tell A why. Every figure below is written by hand from the segments.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.parametrize("hand_world", ["postgres"], indirect=True)]

PAID = "select sum(paid_amount), count(*) from fct_remittance_claims where client_id = ?"


@pytest.fixture(scope="module")
def world(hand_world):
    a = hand_world
    b = hand_world.as_tenant(hand_world.add_tenant("Other Hospital"))
    assert [x["status"] for x in a.post("balanced_230.835") + b.post("balanced_230.835")] == ["confirmed"] * 2
    first = a.run_pipeline()
    assert first["status"] == "succeeded", first
    before = a.rpc.query("operationalObservability.freshness").data
    assert a.post("missing_clp02.835")[0]["status"] == "confirmed"
    assert b.post("invalid_bpr16_dtm405.835")[0]["status"] == "confirmed"
    second = a.run_pipeline()
    return {"a": a, "b": b, "first": first, "second": second, "first_built_at": before["builtAt"]}


def test_the_run_succeeds_and_publishes_a_new_snapshot(world):
    assert world["second"]["status"] == "succeeded", world["second"]
    assert world["second"]["snapshotBuiltAt"] != world["first_built_at"]


def test_the_other_tenant_gets_its_new_data(world):
    b = world["b"]
    # run 1: 150.00 + 80.00 (2 claims); run 2 adds the 150.00 claim of invalid_bpr16_dtm405.835
    assert b.marts(PAID, [b.tenant.client_id]) == [(Decimal("380.00"), 3)]
    answer = b.rpc.query("operationalObservability.quarantines").data
    assert answer["quarantined"] is False
    assert answer["items"] == []
    assert answer["dataBuiltAt"] == answer["snapshot"]["builtAt"] == world["second"]["snapshotBuiltAt"]


def test_the_quarantined_tenant_keeps_its_previous_numbers(world):
    a = world["a"]
    # still run 1's 230.00 over 2 claims; the 40.00 claim without a status is not in the marts
    assert a.marts(PAID, [a.tenant.client_id]) == [(Decimal("230.00"), 2)]
    assert a.marts("select count(*) from fct_remittance_claims where claim_key = 'HAND-Q01'") == [(0,)]


def test_the_quarantined_tenant_sees_what_and_why(world):
    a = world["a"]
    answer = a.rpc.query("operationalObservability.quarantines").data
    assert answer["quarantined"] is True
    assert answer["dataBuiltAt"] == world["first_built_at"]
    assert answer["snapshot"]["builtAt"] == world["second"]["snapshotBuiltAt"]
    assert answer["dataAgeSeconds"] >= answer["snapshot"]["ageSeconds"]
    by_test = {q["test"]: q for q in answer["items"]}
    q = by_test["not_null_fct_remittance_claims_claim_status_code"]
    assert (q["kind"], q["model"], q["column"], q["failingRows"]) == (
        "not_null",
        "fct_remittance_claims",
        "claim_status_code",
        1,
    )
    assert "fct_remittance_claims.claim_status_code" in q["reason"]
    assert q["detectedAt"] == q["since"] == world["second"]["snapshotBuiltAt"]


def test_the_answers_of_mart_procedures_name_the_age_of_the_tenants_data(world):
    a, b = world["a"], world["b"]
    held = a.rpc.query("analytics.kpis", {}).data["snapshot"]
    assert held["quarantined"] is True
    assert held["dataBuiltAt"] == world["first_built_at"]
    fresh = b.rpc.query("analytics.kpis", {}).data["snapshot"]
    assert fresh["quarantined"] is False
    assert fresh["dataBuiltAt"] == fresh["builtAt"]
