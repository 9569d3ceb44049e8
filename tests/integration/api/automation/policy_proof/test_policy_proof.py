"""policyProof.*: the proof of an automatic decision matches its execution, and stops matching when a field changes."""

from __future__ import annotations

from sqlalchemy import update

from api.automation.ai_platform.models import AiExecution, AutonomyPolicy
from tests.integration.api.automation.conftest import (
    ai_case,
    execute_task,
    record_policy,
)


def test_policy_proof_matches_and_a_changed_field_does_not(services, admin):
    case_id = ai_case(services, admin)
    record_policy(admin, "classify_denial").data
    ran = execute_task(admin, "classify_denial", case_id).data
    p = admin.rpc.query("policyProof.forAction", {"executionId": ran["id"]}).data
    assert (p["policyVersion"], p["decision"], p["reasons"], p["digest"]) == (
        1,
        "applied",
        ["within_policy"],
        ran["proofDigest"],
    )
    assert p["inputDigests"] == ran["inputDigests"] and p["policy"]["mode"] == "auto_below_threshold"
    assert p["algorithm"] == "HMAC-SHA256"
    assert admin.rpc.query("policyProof.verify", {"executionId": ran["id"]}).data["matches"] is True
    with services.database.transaction() as db:
        db.execute(update(AiExecution).where(AiExecution.id == ran["id"]).values(decision="queued"))
    assert admin.rpc.query("policyProof.verify", {"executionId": ran["id"]}).data["matches"] is False
    other = execute_task(admin, "predict_overturn", case_id).data
    with services.database.transaction() as db:
        db.execute(update(AutonomyPolicy).where(AutonomyPolicy.client_id == admin.client_id).values(min_confidence=0.1))
    assert admin.rpc.query("policyProof.verify", {"executionId": other["id"]}).data["matches"] is True  # no policy
    assert admin.rpc.query("policyProof.verify", {"executionId": ran["id"]}).data["matches"] is False
