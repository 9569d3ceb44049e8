"""The `humanAttention.rescore` job: rescore a client's working cases of the payers whose remittance
history confirmed batches moved (queued by ``service.rescore_after_posting``, coalesced per client).

One fit of the overturn model per run, however many confirms were coalesced into it, in its own
transaction after theirs committed. Idempotent: a run stores the ranks the data gives now.
"""

from __future__ import annotations

from typing import Any

from api.denials.human_attention import service
from api.infra.db.tenant_filter import set_scope
from api.infra.jobs.handlers import JobContext, client_list_payload, register_handler


@register_handler(service.RESCORE_JOB_KIND)
def rescore_job(ctx: JobContext) -> dict[str, Any]:
    """Rescore `payload.clientId`'s working cases of `payload.payers` (null: all of them)."""
    scope, payers = client_list_payload(ctx, "payers")
    with ctx.database.transaction() as db:
        set_scope(db, scope)
        written = service.rescore_payers(db, payers, ask=ctx.success_probability)
    return {"clientId": scope.client_id, "rescored": written}
