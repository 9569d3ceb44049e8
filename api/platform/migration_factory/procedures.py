"""migrationFactory.*: a hospital's historical denials and open A/R moved from its old system.

An administrator uploads the old system's export (planMigration), runs the dry run that says for every
line what would be created, matched or refused (runDryRun), and commits it (commitMigration): exactly
what the dry run said, all or nothing, once, and only while the data still gives the same plan. The
audit log names the migration and its counts, never a claim key or a line's values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.platform.migration_factory import service
from api.platform.migration_factory.lifecycle import MIGRATION
from api.platform.migration_factory.models import Migration
from api.platform.migration_factory.rows import ParsedExport
from api.platform.migration_factory.schemas import (
    GetMigrationIn,
    ListMigrationsIn,
    MigrationDetailOut,
    MigrationOut,
    MigrationRef,
    PlanIn,
    RowOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("migrationFactory")


def _fields(row: Migration) -> dict[str, Any]:
    return {
        **{c: getattr(row, c) for c in MigrationOut.model_fields if c != "allowed_moves"},
        "allowed_moves": sorted(MIGRATION.allowed(row.state)),
    }


def _out(row: Migration) -> MigrationOut:
    return MigrationOut.model_validate(_fields(row))


def _audit_view(row: Migration) -> dict[str, Any]:
    return {"state": row.state, "kind": row.kind, "counts": row.counts, "planDigest": row.plan_digest}


@dataclass(frozen=True)
class _ReadExport:
    export: service.Export
    parsed: ParsedExport


def _read_export(ctx: Context, input: PlanIn) -> _ReadExport:
    """The plan's heavy step, before the write transaction: the export read and every line checked."""
    export = service.read_upload(input.file, input.filename, input.content, input.content_base64)
    return _ReadExport(export, service.read_export(input.kind, export, service.export_limits(ctx.services.settings)))


@router.mutation(
    "planMigration",
    permission="manage",
    accepts_files=True,
    max_body_setting="migration_max_export_bytes",
    prepare=_read_export,
)
def plan_migration(ctx: Context, input: PlanIn, prepared: _ReadExport) -> MigrationOut:
    """Read an old system's export (CSV with a header line; `denials` or `open_ar`) into a `planned`
    migration: each line's values (unknown columns are dropped, never stored) and, per line, why it is
    refused (row number, field, reason). A file that cannot be read as a whole (not UTF-8, a missing
    required column, no data line) is BAD_REQUEST naming the problem, and nothing is stored. So is a
    file over a cap, named in the message: MIGRATION_MAX_HEADER_CHARS (the header line, default 8,192
    characters), MIGRATION_MAX_LINE_CHARS (any other line, 16,384), MIGRATION_MAX_ROWS (10,000 data
    lines); a body over MIGRATION_MAX_EXPORT_BYTES (16 MiB) is PAYLOAD_TOO_LARGE. The file is read
    before the write transaction, so reading it never holds up another tenant's writes."""
    row = service.plan(
        ctx.db,
        kind=input.kind,
        source_system=input.source_system,
        export=prepared.export,
        parsed=prepared.parsed,
        user_id=ctx.user_id,
    )
    ctx.note("migration", row.id, after={**_audit_view(row), "sha256": row.content_sha256})
    return _out(row)


@router.mutation("runDryRun", permission="manage")
def run_dry_run(ctx: Context, input: MigrationRef) -> MigrationOut:
    """Compute, writing no claim or case, what committing would do to each line now: create (a new claim
    and/or denial case), match (an existing claim / case of the same claim key; the blank fields it
    would fill, or nothing) or refuse (why); store the counts, the per-line plan and its digest. Run it
    again after the data changed to see the new truth."""
    row = service.dry_run(ctx.db, input.id, ctx.user_id)
    ctx.note("migration", row.id, after=_audit_view(row))
    return _out(row)


@router.mutation("commitMigration", permission="manage")
def commit_migration(ctx: Context, input: MigrationRef) -> MigrationOut:
    """Create exactly what the dry run said, all or nothing, recording the migration on each claim and
    case it made. PRECONDITION_FAILED without a dry run, when the data changed since it (run it again),
    or when the migration is committed already."""
    row = service.commit(ctx.db, input.id, ctx.user_id, case_opened=ctx.services.case_opened)
    ctx.note("migration", row.id, after=_audit_view(row))
    return _out(row)


@router.query("getMigration")
def get_migration(ctx: Context, input: GetMigrationIn) -> MigrationDetailOut:
    """One migration: state, counts, who planned, ran and committed it and when, and a page of its lines
    (values read, refusals, the dry run's outcome, the claim and case each line created or matched)."""
    row = service.get_migration(ctx.db, input.id)
    lines, next_after = service.rows_page(
        ctx.db, row.id, after=input.rows_after, limit=input.rows_limit, outcome=input.outcome
    )
    return MigrationDetailOut.model_validate(
        {**_fields(row), "rows": [RowOut.model_validate(line) for line in lines], "next_rows_after": next_after}
    )


@router.query("listMigrations")
def list_migrations(ctx: Context, input: ListMigrationsIn) -> Page[MigrationOut]:
    """The client's migrations, newest first; filter by state or kind."""
    return paginate(ctx.db, service.list_statement(input.state, input.kind), Migration.id, input, _out)
