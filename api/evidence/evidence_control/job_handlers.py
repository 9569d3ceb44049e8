"""The `evidence.purge` job: the daily retention sweep over every tenant.

Each tenant holding documents is purged in its own scope and its own transaction (one tenant's
failure does not hold back the others' purge, and a rolled-back tenant deletes no bytes), with the
same tombstones and the same audit event as `evidenceControl.purge`, recorded as done by the system.
The payload may pin `today` (ISO date) for a backfill; otherwise it is the UTC date when the job runs,
and the recurring run queues the next day's.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from api.core.services import AuditRecord
from api.evidence.evidence_control import service
from api.infra.db.base import utcnow
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs.handlers import JobContext, register_handler
from api.infra.jobs.queue import PermanentJobError

REASON = "retention period ended (daily sweep)"


@register_handler(service.PURGE_JOB_KIND)
def purge_expired_job(ctx: JobContext) -> dict[str, Any]:
    """Purge every tenant's documents whose retention ended by `payload.today` (default: today, UTC)."""
    if ctx.audit is None or ctx.settings is None:
        raise PermanentJobError("evidence.purge needs the API's audit sink and settings: run it under the API worker")
    try:
        today = date.fromisoformat(ctx.payload["today"]) if ctx.payload.get("today") else utcnow().date()
    except (TypeError, ValueError):
        raise PermanentJobError("evidence.purge: payload 'today' must be an ISO date") from None
    with ctx.database.transaction() as db:
        tenants = service.tenants_with_documents(db)
    purged = 0
    for organization_id, client_id in tenants:
        with ctx.database.transaction() as db:
            set_scope(db, TenantScope(organization_id, client_id))
            done = service.purge(db, ctx.settings, as_of=today, reason=REASON, user_id=None, today=today)
            if done:
                ctx.audit(
                    db,
                    AuditRecord(
                        organization_id=organization_id,
                        client_id=client_id,
                        actor_user_id=None,
                        actor_kind="system",
                        procedure=service.PURGE_JOB_KIND,
                        input_value={"asOf": today.isoformat()},
                        target_type="evidence_purge",
                        target_id=str(client_id),
                        before=None,
                        after={"as_of": today, "purged": service.tombstones(done)},
                    ),
                )
            purged += len(done)
    if not ctx.payload.get("today"):
        with ctx.database.transaction() as db:
            service.schedule_purge_run(db, utcnow())
    return {"today": today.isoformat(), "tenants": len(tenants), "purged": purged}
