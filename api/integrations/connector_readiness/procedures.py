"""connectorReadiness.*: whether each integration of the client works end to end."""

from __future__ import annotations

from api.integrations.connector_readiness.schemas import ReadinessIn, ReadinessItem, ReadinessOut
from api.integrations.integration_control import service
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("connectorReadiness")


@router.query("check")
def check(ctx: Context, input: ReadinessIn) -> ReadinessOut:
    """Per integration of the client (or the one given): configuration valid on its current version,
    approved, active, the last finished run succeeded (and when), for sftp_drop and folder bank feeds
    whether the folder exists and is writable; reachability of remote systems is `not_checked`
    offline. `ready` is true when every non-retired integration passes (and there is one)."""
    found = service.readiness(ctx.db, input.id, data_dir=ctx.services.settings.resolved_data_dir)
    items = [
        ReadinessItem(
            integration_id=row.id,
            key=row.key,
            kind=row.kind,  # type: ignore[arg-type]
            state=row.state,  # type: ignore[arg-type]
            ready=all(c.status != "failed" for c in result),
            checks=[{"name": c.name, "status": c.status, "message": c.message} for c in result],  # type: ignore[misc]
            **runs,
        )
        for row, result, runs in found
    ]
    return ReadinessOut(ready=service.overall_ready(found), items=items)
