"""The `integration.run` job: execute a started run of a clearinghouse, bank feed or ehr integration.

`integrationControl.start` queues it in its transaction, so it runs only once the run row committed.
A retried attempt (a worker lost, a database outage) resumes the same run from the ledger.
"""

from __future__ import annotations

import logging
from typing import Any

from api.infra.db.tenant_filter import TenantScope
from api.infra.jobs.handlers import JobContext, register_abandoned, register_handler
from api.infra.jobs.queue import PermanentJobError
from api.integrations.integration_control import ehr_pull, engine, fhir_client, service

log = logging.getLogger("api.integrations.integration_control")


@register_handler(service.RUN_JOB_KIND)
def run_integration_job(ctx: JobContext) -> dict[str, Any]:
    """Move the files of run `payload.runId` of client `payload.clientId`; the run records the outcome."""
    try:
        run_id = int(ctx.payload["runId"])
        client_id = int(ctx.payload["clientId"])
    except (KeyError, TypeError, ValueError):
        raise PermanentJobError(f"{ctx.kind}: payload needs 'runId' and 'clientId'") from None
    if ctx.organization_id is None:
        raise PermanentJobError(f"{ctx.kind}: the job has no organization")
    if ctx.settings is None:
        raise PermanentJobError(f"{ctx.kind}: the worker has no settings (DATA_DIR, the secrets key)")

    def progress(_name: str, outcome: str) -> None:
        # No file names: a partner's name may carry PHI; the run record has them, the log does not.
        log.info("integration run %s: a file %s", run_id, outcome)

    scope = TenantScope(ctx.organization_id, client_id)
    try:
        if service.run_kind(ctx.database, scope, run_id) == "ehr":
            return ehr_pull.execute(
                ctx.database,
                scope,
                run_id,
                data_dir=ctx.settings.resolved_data_dir,
                secrets_key=service.secrets_key(ctx.settings),
                limits=fhir_client.Limits(timeout_seconds=ctx.settings.integration_transfer_timeout_seconds),
                ca_bundle=ctx.settings.fhir_client_ca_bundle_path,
            )
        return engine.execute(
            ctx.database,
            scope,
            run_id,
            data_dir=ctx.settings.resolved_data_dir,
            secrets_key=service.secrets_key(ctx.settings),
            limits=engine.Limits.of(ctx.settings),
            observer=progress,
        )
    except Exception as exc:
        # Retried attempts resume from the ledger; the last one fails the run, so it does not stay
        # `running` (blocking the next start) with nobody executing it. The type only: no message.
        if ctx.attempt >= service.RUN_JOB_ATTEMPTS:
            engine.fail_run(ctx.database, scope, run_id, f"the run stopped on an internal error ({type(exc).__name__})")
        raise


@register_abandoned(service.RUN_JOB_KIND)
def integration_run_abandoned(ctx: JobContext) -> None:
    """The worker running this run was lost on its last attempt: the run fails (what landed keeps its
    ledger rows, so the next run resumes), instead of staying `running` and blocking the next start."""
    if ctx.organization_id is None:
        return
    scope = TenantScope(ctx.organization_id, int(ctx.payload["clientId"]))
    message = "the worker running it was lost (killed or out of memory) on its last attempt; start a run again"
    engine.fail_run(ctx.database, scope, int(ctx.payload["runId"]), message)
