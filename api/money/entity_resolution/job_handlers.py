"""The `entityResolution.register` job: register a confirmed batch's claim rows for matching.

``registration.request_registration`` queues it in the confirm's transaction, so it exists only once the
batch is committed and runs after it. The rows are reduced to their codes in a read transaction, then
stored and compared in one write transaction (all of a batch or none of it). The linkage key derives from
the installation's digest key, read through the API worker's settings (``secret.digest_key``, the file
the composition root reads). Idempotent per batch: a retried or repeated run registers nothing twice.
"""

from __future__ import annotations

from typing import Any

from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs.handlers import JobContext, register_handler
from api.infra.jobs.queue import PermanentJobError
from api.infra.signing.secret import digest_key
from api.money.entity_resolution import registration


def _batch_of(ctx: JobContext) -> tuple[TenantScope, int]:
    """The job's client scope and batch id; a malformed payload cannot be fixed by retrying."""
    try:
        client_id, batch_id = int(ctx.payload["clientId"]), int(ctx.payload["batchId"])
    except (KeyError, TypeError, ValueError):
        raise PermanentJobError(f"{ctx.kind}: payload needs 'clientId' and 'batchId'") from None
    if ctx.organization_id is None:
        raise PermanentJobError(f"{ctx.kind}: the job has no organization")
    return TenantScope(ctx.organization_id, client_id), batch_id


@register_handler(registration.REGISTER_JOB_KIND)
def register_job(ctx: JobContext) -> dict[str, Any]:
    """Register the claim rows of `payload.batchId` (a batch of `payload.clientId`); answers how many claim
    records were added (0 when the batch was registered already)."""
    if ctx.settings is None:
        raise PermanentJobError(f"{ctx.kind} needs the API's settings (the digest key): run it under the API worker")
    scope, batch_id = _batch_of(ctx)
    keys = registration.Keys.of(digest_key(ctx.settings))
    with ctx.database.transaction(write=False) as db:
        set_scope(db, scope)
        prepared = registration.prepare(db, batch_id, keys.key)
    added = 0
    if prepared is not None:
        with ctx.database.transaction() as db:
            set_scope(db, scope)
            added = registration.store(db, prepared, keys)
    return {"clientId": scope.client_id, "batchId": batch_id, "claimRecords": added}
