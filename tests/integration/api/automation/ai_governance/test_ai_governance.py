"""aiGovernance.*: a disabled task is refused, evaluations gate the automatic mode; over the wire."""

from __future__ import annotations

import pytest

from api.integrations.operational_control.scopes import TASKS
from tests.integration.api.automation.conftest import (
    ai_case,
    execute_task,
    record_policy,
)


def test_governance_disables_a_task_and_evaluations_gate_auto_mode(services, admin):
    listed = admin.rpc.query("aiGovernance.list", {}).data["items"]
    assert [(i["task"], i["enabled"], i["source"]) for i in listed] == [(t, True, "default") for t in TASKS]
    admin.rpc.mutation(
        "aiGovernance.update", {"task": "draft_appeal_letter", "enabled": False, "reason": "legal review"}
    ).data
    case_id = ai_case(services, admin)
    ran = execute_task(admin, "draft_appeal_letter", case_id).data
    assert (ran["decision"], ran["reasons"]) == ("refused", ["task_disabled", "no_policy"])
    assert [i["task"] for i in admin.rpc.query("aiGovernance.list", {"enabled": False}).data["items"]] == [
        "draft_appeal_letter"
    ]
    # auto mode that needs 2 evaluated samples at 75 % accuracy
    record_policy(admin, "classify_denial", minEvaluatedSamples=2, minEvaluationAccuracy=0.75).data
    first = execute_task(admin, "classify_denial", case_id).data
    assert first["reasons"] == ["too_few_evaluated_samples", "accuracy_below_minimum"]
    admin.rpc.mutation("aiPlatform.recordEvaluation", {"executionId": first["id"], "actual": "authorization"}).data
    assert admin.rpc.mutation("aiPlatform.recordEvaluation", {"executionId": first["id"], "actual": "coding"}).code == (
        "CONFLICT"
    )
    admin.rpc.mutation(
        "aiPlatform.recordEvaluation",
        {"task": "classify_denial", "predicted": "coding", "actual": "coding", "confidence": 0.6},
    ).data
    decided = admin.rpc.query(
        "aiPlatform.decideAutonomy", {"task": "classify_denial", "confidence": 0.95, "amountAtStake": "100.00"}
    ).data
    assert (decided["outcome"], decided["evaluation"]) == ("applied", {"accuracy": 1.0, "n": 2})
    m = admin.rpc.query("aiPlatform.evaluationMetrics", {"task": "classify_denial"}).data["items"][0]
    assert (m["n"], m["accuracy"], m["macroPrecision"], m["macroRecall"]) == (2, 1.0, 1.0, 1.0)
    # Brier: (0.95-1)^2 and (0.6-1)^2 -> (0.0025 + 0.16) / 2
    assert m["brierScore"] == pytest.approx(0.08125)
    assert m["expectedCalibrationError"] == pytest.approx(0.5 * 0.05 + 0.5 * 0.4)
