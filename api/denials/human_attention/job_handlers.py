"""The `humanAttention.rescore` job: rescore a client's working cases of the payers whose remittance
history confirmed batches moved (queued by ``service.rescore_after_posting``, coalesced per client).

One fit of the overturn model per run, however many confirms were coalesced into it, in its own
transaction after theirs committed. Idempotent: a run stores the ranks the data gives now.
"""

from __future__ import annotations

from typing import Any

from api.denials.human_attention import service
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs.handlers import JobContext, register_handler
from api.infra.jobs.queue import PermanentJobError


@register_handler(service.RESCORE_JOB_KIND)
def rescore_job(ctx: JobContext) -> dict[str, Any]:
    """Rescore `payload.clientId`'s working cases of `payload.payers` (null: all of them)."""
    try:
        client_id = int(ctx.payload["clientId"])
        payers = ctx.payload.get("payers")
        payers = None if payers is None else [str(p) for p in payers]
    except (KeyError, TypeError, ValueError):
        raise PermanentJobError(
            "humanAttention.rescore: payload needs 'clientId' and 'payers' (a list or null)"
        ) from None
    if ctx.organization_id is None:
        raise PermanentJobError("humanAttention.rescore: the job has no organization")
    with ctx.database.transaction() as db:
        set_scope(db, TenantScope(ctx.organization_id, client_id))
        written = service.rescore_payers(db, payers)
    return {"clientId": client_id, "rescored": written}
