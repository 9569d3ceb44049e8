"""Shared by the automation namespaces' integration tests: an AI-ready case, an autonomy policy, one
execution, a client whose activation gates passed (`admin`)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from api.denials.cases.models import DenialCase
from api.platform.activation_governance.gates import GATE_NAMES
from tests.support.denial_case_rows import make_case

AUTO = {
    "mode": "auto_below_threshold",
    "minConfidence": 0.5,
    "maxAmountAtStake": "5000.00",
    "minEvaluationAccuracy": 0.0,
    "minEvaluatedSamples": 0,
    "reason": "pilot of automatic application",
}


def ai_case(services, member, **values):
    fields = {"carc": "197", "group_code": "CO", **values}
    return make_case(services, member.organization_id, member.client_id, **fields)


def record_policy(member, task, **changes):
    return member.rpc.mutation("aiPlatform.recordAutonomyPolicy", {"task": task, **AUTO, **changes})


def execute_task(member, task, case_id):
    return member.rpc.mutation("aiPlatform.execute", {"task": task, "caseId": case_id})


def case_category(services, case_id):
    with services.database.transaction() as db:
        return db.scalar(select(DenialCase.denial_category).where(DenialCase.id == case_id))


def pass_gates(member, gates=GATE_NAMES):
    for gate in gates:
        member.rpc.mutation(
            "activationGovernance.recordGate", {"gate": gate, "passed": True, "evidence": "checked with the client"}
        ).data


@pytest.fixture
def admin(make_member):
    member = make_member(role="admin")
    pass_gates(member)  # a live client: automation may be switched on
    return member
