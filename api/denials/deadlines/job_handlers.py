"""The `deadlines.reschedule` job: recompute a client's deadlines after its rules or aliases changed.

`payerRules.upsert` / `upsertAlias` queue it in their transaction (``service.request_reschedule``), so
it exists only once the rule is committed and runs after. It reads the cases in a read session, then
schedules them 500 at a time, each chunk in its own short write transaction: no transaction holds the
write lock for a whole client. Idempotent (``schedule_case`` writes nothing when nothing changed), so a
retried or redundant run is harmless.
"""

from __future__ import annotations

from typing import Any

from api.denials.deadlines import service
from api.infra.db.tenant_filter import set_scope
from api.infra.jobs.handlers import JobContext, client_list_payload, register_handler


@register_handler(service.RESCHEDULE_JOB_KIND)
def reschedule_job(ctx: JobContext) -> dict[str, Any]:
    """Schedule the working cases of `payload.clientId` (those of `payload.payerIds`, or all for null)."""
    scope, payer_ids = client_list_payload(ctx, "payerIds")
    with ctx.database.transaction(write=False) as db:
        set_scope(db, scope)
        ids = service.working_case_ids(db, payer_ids)
    for start in range(0, len(ids), service.RESCHEDULE_CHUNK):
        with ctx.database.transaction() as db:
            set_scope(db, scope)
            service.schedule_cases(db, ids[start : start + service.RESCHEDULE_CHUNK])
    return {"clientId": scope.client_id, "cases": len(ids)}
