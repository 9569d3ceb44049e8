"""integrationControl.*: integrations from draft to live (validated, approved by another member,
activated) and their runs. Credentials are accepted, encrypted at rest and never answered."""

from __future__ import annotations

from api.integrations.integration_control import service
from api.integrations.integration_control.models import Integration
from api.integrations.integration_control.schemas import (
    CheckOut,
    CreateIn,
    IntegrationOut,
    IntegrationRef,
    ListIn,
    RecordIn,
    RunOut,
    RunRef,
    StartIn,
    TransitionIn,
    UpsertIn,
    UpsertOut,
    ValidateOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("integrationControl")


def _out(ctx: Context, row: Integration) -> IntegrationOut:
    return IntegrationOut.model_validate(service.view(ctx.db, row))


def _key(ctx: Context) -> bytes:
    return service.secrets_key(ctx.services.settings)


@router.mutation("create", permission="manage")
def create(ctx: Context, input: CreateIn) -> IntegrationOut:
    """Create a draft integration from a per-kind configuration (clearinghouse, ehr, bank_feed,
    sftp_drop); a malformed field is BAD_REQUEST naming it, a key already used is CONFLICT.
    Credentials are encrypted at rest and never answered (`hasPassword`, `hasPrivateKey`, ...)."""
    row = service.create(
        ctx.db,
        client_id=ctx.client_id,
        key=input.key,
        name=input.name,
        config=input.config,
        user_id=ctx.user_id,
        secrets_key=_key(ctx),
    )
    ctx.note("integration", row.id, after=service.audit_view(row))
    return _out(ctx, row)


@router.mutation("upsert", permission="manage")
def upsert(ctx: Context, input: UpsertIn) -> UpsertOut:
    """Create or change the integration under a client-chosen key, idempotently: the same configuration
    answers the same row unchanged (`changed: false`); a changed one is a new config version, back to
    draft, its approval void."""
    row, changed = service.upsert(
        ctx.db,
        client_id=ctx.client_id,
        key=input.key,
        name=input.name,
        config=input.config,
        user_id=ctx.user_id,
        secrets_key=_key(ctx),
    )
    ctx.note("integration", row.id, after=service.audit_view(row))
    return UpsertOut(integration=_out(ctx, row), changed=changed)


@router.mutation("validate", permission="manage")
def validate(ctx: Context, input: IntegrationRef) -> ValidateOut:
    """Check the configuration offline (host names, ports, paths, URLs, key types and sizes,
    certificate dates, host key fingerprint): every check passed|failed|not_checked; no failure moves
    a draft to validated, a failure moves a validated one back to draft."""
    found = service.validate(ctx.db, input.id, user_id=ctx.user_id, secrets_key=_key(ctx))
    row = service.get(ctx.db, input.id)
    ctx.note("integration", row.id, after=service.audit_view(row))
    return ValidateOut(
        integration=_out(ctx, row),
        passed=all(c.status != "failed" for c in found),
        checks=[CheckOut(name=c.name, status=c.status, message=c.message) for c in found],
    )


@router.mutation("approve", permission="approve")
def approve(ctx: Context, input: IntegrationRef) -> IntegrationOut:
    """Approve a validated integration. The member who created or last configured it, and anyone either
    of them invited within SOD_INVITED_WINDOW_DAYS, is FORBIDDEN (separation of duties); one not validated
    on its current version is PRECONDITION_FAILED."""
    row = service.approve(
        ctx.db,
        input.id,
        user_id=ctx.user_id,
        reason="approved",
        invited_window_days=ctx.services.settings.sod_invited_window_days,
    )
    ctx.note("integration", row.id, after=service.audit_view(row))
    return _out(ctx, row)


@router.mutation("activate", permission="manage")
def activate(ctx: Context, input: IntegrationRef) -> IntegrationOut:
    """Switch an approved integration on (approved -> active). An sftp_drop integration gets its
    folder DATA_DIR/drop/client_<id>/[subfolder] created, which the pipeline's drop sensor watches."""
    row = service.activate(ctx.db, input.id, user_id=ctx.user_id, data_dir=ctx.services.settings.resolved_data_dir)
    ctx.note("integration", row.id, after=service.audit_view(row))
    return _out(ctx, row)


@router.mutation("transition", permission="manage")
def transition(ctx: Context, input: TransitionIn) -> IntegrationOut:
    """Suspend (active -> suspended), resume (suspended -> active) or retire an integration, with a
    reason; suspending or retiring cancels a running run. Any other move is PRECONDITION_FAILED
    (validated, approved and a first activation have their own procedures)."""
    row = service.transition(
        ctx.db,
        input.id,
        input.to,
        reason=input.reason,
        user_id=ctx.user_id,
        data_dir=ctx.services.settings.resolved_data_dir,
    )
    ctx.note("integration", row.id, after=service.audit_view(row))
    return _out(ctx, row)


@router.mutation("start")
def start(ctx: Context, input: StartIn) -> RunOut:
    """Start a run of an active integration (any other state is PRECONDITION_FAILED; a run still
    running is CONFLICT). PRECONDITION_FAILED while operationalControl pauses the client or
    `integration_run` (no run is started; start it again after resume). A clearinghouse or bank feed
    run is then executed by the job worker: new files fetched (SFTP with the host key checked, or the
    feed's folder), landed in the drop folder (BAI2 as the deposits CSV it holds), recorded in the run;
    a pause mid-run cancels it between files and the next run continues. An ehr run pulls Coverage and
    Claim from the EHR's FHIR R4 server (SMART Backend Services) and lands the resources not seen before
    as NDJSON under the client's feeds folder; one cut short by its cap goes on at the next run. An
    sftp_drop's runs are recorded by their caller (`record`)."""
    run = service.start(ctx.db, input.id, user_id=ctx.user_id)
    ctx.note("integration_run", run.id)
    return RunOut.model_validate(run)


@router.mutation("cancel")
def cancel(ctx: Context, input: RunRef) -> RunOut:
    """Cancel a running run with a reason; a finished one is PRECONDITION_FAILED."""
    run = service.cancel(ctx.db, input.run_id, reason=input.reason)
    ctx.note("integration_run", run.id)
    return RunOut.model_validate(run)


@router.mutation("record")
def record(ctx: Context, input: RecordIn) -> RunOut:
    """Record a running run's results (files, counts, errors) and finish it as succeeded or failed:
    for runs driven from outside (the platform records the clearinghouse, bank feed and ehr runs itself)."""
    run = service.record(
        ctx.db,
        input.run_id,
        outcome=input.outcome,
        files=[f.model_dump(mode="json", exclude_none=True) for f in input.files],
        counts=input.counts.model_dump(),
        errors=input.errors,
    )
    ctx.note("integration_run", run.id)
    return RunOut.model_validate(run)


@router.query("list")
def list_integrations(ctx: Context, input: ListIn) -> Page[IntegrationOut]:
    """The client's integrations, newest first, filtered by kind and state; credentials never shown."""
    stmt = service.list_statement(input.kind, input.state)
    return paginate(ctx.db, stmt, Integration.id, input, lambda row: _out(ctx, row))


@router.query("get")
def get(ctx: Context, input: IntegrationRef) -> IntegrationOut:
    """One integration with its settings, validation checks and last run; credentials never shown."""
    return _out(ctx, service.get(ctx.db, input.id))
