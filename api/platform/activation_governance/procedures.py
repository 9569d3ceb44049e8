"""activationGovernance.*: the go-live gates of the selected client."""

from __future__ import annotations

from api.platform.activation_governance import gates, service
from api.platform.activation_governance.schemas import (
    ChecklistOut,
    GateOut,
    RecordedGateOut,
    RecordGateIn,
    StatusOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("activationGovernance")


@router.query("checklist")
def checklist(ctx: Context) -> ChecklistOut:
    """Every go-live gate of the client (data_validated, payer_rules_reviewed, users_trained,
    integrations_tested, pipeline_dry_run_clean) with its latest recording: passed, failed or not
    recorded, the evidence, who recorded it and when."""
    views = service.checklist(ctx.db)
    return ChecklistOut(client_id=ctx.client_id, gates=[GateOut.model_validate(v) for v in views])


@router.mutation("recordGate", permission="manage")
def record_gate(ctx: Context, input: RecordGateIn) -> RecordedGateOut:
    """Record a gate as passed or not, with the evidence; every recording is kept and the latest wins."""
    row = service.record_gate(ctx.db, input.gate, input.passed, input.evidence, input.reference, ctx.user_id)
    ctx.note("activation_gate", row.id, after={"gate": row.gate, "passed": row.passed})
    return RecordedGateOut.model_validate(row)


@router.query("status")
def status(ctx: Context) -> StatusOut:
    """Whether every gate passed (then automation may be switched on) and which gates block it."""
    blockers = service.activation_blockers(ctx.db)
    total = len(gates.GATE_NAMES)
    return StatusOut.model_validate(
        {
            "client_id": ctx.client_id,
            "ready": not blockers,
            "passed": total - len(blockers),
            "total": total,
            "blockers": blockers,
        }
    )
