"""workflowReadiness.*: readiness of the selected client's workflows."""

from __future__ import annotations

from api.integrations.workflow_readiness import rules, service
from api.integrations.workflow_readiness.schemas import AssessmentOut, FactsOut, WorkflowOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("workflowReadiness")


@router.query("assess")
def assess(ctx: Context) -> AssessmentOut:
    """Which work the client can do today (upload and reconcile remittances, work denial cases, assemble
    appeals, automation) and, for the rest, what blocks it (no specialist, no confirmed remittance, no
    payer rules or contract terms, go-live gates not passed), each in a sentence. Read-only."""
    facts = service.facts(ctx.db, ctx.client_id)
    workflows = rules.assess(facts)
    return AssessmentOut.model_validate(
        {
            "client_id": ctx.client_id,
            "ready": [w.workflow for w in workflows if w.ready],
            "workflows": [WorkflowOut.model_validate(w) for w in workflows],
            "facts": FactsOut.model_validate(facts),
        }
    )
