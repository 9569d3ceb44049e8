"""Migration use cases on the operational database: plan (read the export), dry run, commit, read.

Functions take the tenant-scoped session and never commit (the executor commits the call with its audit
event). The commit creates what the dry run said inside the caller's transaction: claims through the
claims service, cases through cases.open's service (then the `case_opened` listeners, so deadlines and
priorities follow), so any failure rolls every row back. Messages name the migration, the row number
and the field, never a claim key or a patient.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput, PreconditionFailed
from api.core.hooks import Hook
from api.core.lifecycle import transition
from api.core.services import CaseOpenedListener
from api.core.settings import Settings
from api.denials.cases import service as cases
from api.denials.claims import service as claims
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.platform.migration_factory import plan as planning
from api.platform.migration_factory.lifecycle import INITIAL_STATE, MIGRATION
from api.platform.migration_factory.models import Migration, MigrationRow
from api.platform.migration_factory.rows import ExportLimits, ParsedExport, ParsedRow, Refusal, parse_export
from api.rpc.uploads import UploadedFile
from pipelines.ingest.reference import load_reference

CHUNK = 500


@dataclass(frozen=True)
class Export:
    """The export as received: its name and bytes."""

    filename: str
    content: bytes


def read_upload(
    file: UploadedFile | None, filename: str | None, content: str | None, content_base64: str | None
) -> Export:
    """The export from whichever transport the caller used (a file part, CSV text or base64)."""
    if sum(x is not None for x in (file, content, content_base64)) != 1:
        raise InvalidInput("Send exactly one of: a file part, 'content', or 'contentBase64'")
    if file is not None:
        return Export(filename or file.filename, file.read_bytes())
    if not filename:
        raise InvalidInput("Invalid input: 'filename' is required with 'content' or 'contentBase64'")
    if content is not None:
        return Export(filename, content.encode("utf-8"))
    try:
        return Export(filename, base64.b64decode(content_base64 or "", validate=True))
    except (binascii.Error, ValueError):
        raise InvalidInput("Invalid input: 'contentBase64' is not valid base64") from None


def get_migration(db: Session, migration_id: int, *, for_update: bool = False) -> Migration:
    """The migration if it belongs to the caller's client, else NOT_FOUND."""
    return get_by_id(db, Migration, migration_id, "Migration", for_update=for_update)


# --- plan ---------------------------------------------------------------------------------------


def export_limits(settings: Settings) -> ExportLimits:
    """The MIGRATION_* caps an export is read under."""
    return ExportLimits(
        header_chars=settings.migration_max_header_chars,
        line_chars=settings.migration_max_line_chars,
        rows=settings.migration_max_rows,
    )


def read_export(kind: str, export: Export, limits: ExportLimits) -> ParsedExport:
    """The export's lines with their values and refusals: linear, capped, no database (the plan's
    prepare step, run before the write transaction). INVALID_INPUT for a file unreadable as a whole."""
    return parse_export(kind, export.content, known_carcs=load_reference().carcs, limits=limits)


def plan(
    db: Session, *, kind: str, source_system: str, export: Export, parsed: ParsedExport, user_id: int
) -> Migration:
    """Store a `planned` migration with every line of the export already read (`read_export`): its
    values and refusals."""
    now = utcnow()
    refused = sum(1 for row in parsed.rows if not row.valid)
    migration = Migration(
        kind=kind,
        source_system=source_system,
        filename=export.filename[:255],
        content_sha256=hashlib.sha256(export.content).hexdigest(),
        columns=parsed.columns,
        ignored_columns=list(parsed.ignored_columns),
        row_count=len(parsed.rows),
        state=INITIAL_STATE,
        state_changed_at=now,
        counts={"rows": len(parsed.rows), "refused": refused},
        planned_by_user_id=user_id,
    )
    db.add(migration)
    db.flush()
    db.add_all(
        MigrationRow(
            migration_id=migration.id,
            row_number=row.row_number,
            values=row.values,
            refusals=[r.as_dict() for r in row.refusals],
        )
        for row in parsed.rows
    )
    db.flush()
    return migration


# --- dry run ------------------------------------------------------------------------------------


def _rows(db: Session, migration_id: int) -> list[MigrationRow]:
    return list(
        db.scalars(
            select(MigrationRow).where(MigrationRow.migration_id == migration_id).order_by(MigrationRow.row_number)
        )
    )


def _parsed(row: MigrationRow) -> ParsedRow:
    return ParsedRow(row.row_number, dict(row.values), tuple(Refusal(r["field"], r["reason"]) for r in row.refusals))


def _chunks(values: Sequence[str]) -> Iterable[list[str]]:
    for start in range(0, len(values), CHUNK):
        yield list(values[start : start + CHUNK])


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _case_fact(case: cases.Case) -> planning.CaseFact:
    return planning.CaseFact(
        id=case.id,
        state=case.state,
        payer_claim_number=case.payer_claim_number,
        billed_amount=_text(case.billed_amount),
        service_date=_text(case.service_date),
    )


def _opening(row: ParsedRow) -> cases.ManualOpening:
    """What cases.open is given for a denials line (the same identity the commit opens it with)."""
    v = row.values
    return cases.ManualOpening(
        claim_key=v["claimKey"],
        payer=v["payer"],
        amount_at_stake=Decimal(v["deniedAmount"]),
        group_code=v.get("groupCode"),
        carc=v.get("carc"),
        denied_on=date.fromisoformat(v["deniedOn"]) if "deniedOn" in v else None,
        reference=v.get("payerClaimNumber"),
    )


def facts(db: Session, kind: str, rows: Sequence[ParsedRow]) -> planning.Facts:
    """What the client has now for the claim keys of the valid lines."""
    valid = [row for row in rows if row.valid]
    keys = sorted({row.values["claimKey"] for row in valid})
    claims_by_key: dict[str, planning.ClaimFact] = {}
    working: dict[tuple[str, str], planning.CaseFact] = {}
    for chunk in _chunks(keys):
        for claim in claims.claims_with_keys(db, chunk):
            claims_by_key[claim.claim_key] = planning.ClaimFact(
                claim.id, claim.state, claim.payer, _text(claim.statement_from), _text(claim.statement_to)
            )
        if kind == "denials":
            for case in cases.working_cases_of_claims(db, chunk):  # the oldest working case of a claim x payer wins
                working[(case.claim_key, planning.payer_key(case.payer))] = _case_fact(case)
    same: dict[int, planning.CaseFact] = {}
    if kind == "denials":
        by_key = {cases.manual_denial_key(_opening(row)): row.row_number for row in valid}
        for chunk in _chunks(sorted(by_key)):
            for case in cases.cases_with_denial_keys(db, chunk):
                same[by_key[case.denial_key]] = _case_fact(case)
    return planning.Facts(claims_by_key, working, same)


def _fresh_plan(db: Session, migration: Migration, stored: Sequence[MigrationRow]) -> list[dict[str, Any]]:
    rows = [_parsed(row) for row in stored]
    return planning.plan_rows(migration.kind, rows, facts(db, migration.kind, rows))


def dry_run(db: Session, migration_id: int, user_id: int) -> Migration:
    """Compute every line's outcome on the data as it is now, writing nothing but the migration: its plan,
    counts and digest. Running it again gives the new truth after the data changed."""
    migration = get_migration(db, migration_id, for_update=True)
    migration.state = transition(MIGRATION, migration.state, "dry_run")
    stored = _rows(db, migration.id)
    planned = _fresh_plan(db, migration, stored)
    for row, outcome in zip(stored, planned, strict=True):
        row.outcome = outcome["outcome"]
        row.plan = outcome
    now = utcnow()
    migration.counts = planning.counts(planned)
    migration.plan_digest = planning.digest(migration.kind, planned)
    migration.state_changed_at = now
    migration.dry_run_by_user_id = user_id
    migration.dry_run_at = now
    db.flush()
    return migration


# --- commit -------------------------------------------------------------------------------------


def _require_committable(migration: Migration) -> None:
    if migration.state == "planned":
        raise PreconditionFailed(
            f"Migration {migration.id} has no dry run yet; run migrationFactory.runDryRun and review it first",
            details={"currentState": migration.state},
        )
    if migration.state == "committed":
        raise PreconditionFailed(
            f"Migration {migration.id} is committed already; a migration is committed once",
            details={"currentState": migration.state},
        )
    transition(MIGRATION, migration.state, "committed")


def commit(
    db: Session, migration_id: int, user_id: int, *, case_opened: Hook[CaseOpenedListener] | None = None
) -> Migration:
    """Create and update exactly what the dry run said, all or nothing; PRECONDITION_FAILED when the data
    changed since (the plan computed now has another digest) or the migration is not `dry_run`."""
    migration = get_migration(db, migration_id, for_update=True)
    _require_committable(migration)
    stored = _rows(db, migration.id)
    planned = _fresh_plan(db, migration, stored)
    if planning.digest(migration.kind, planned) != migration.plan_digest:
        raise PreconditionFailed(
            f"The data changed since the dry run of migration {migration.id}: run the dry run again "
            "(migrationFactory.runDryRun), review what it says, then commit",
            details={"currentState": migration.state},
        )
    reason = f"migrated from {migration.source_system} (migration {migration.id})"
    opened: list[int] = []
    for row, outcome in zip(stored, planned, strict=True):
        if outcome["outcome"] == "refuse":
            continue
        applied = _Applier(db, migration, row, user_id, reason)
        row.claim_id = applied.claim(outcome["claim"])
        if "case" in outcome:
            row.case_id, created = applied.case(outcome["case"])
            if created:
                opened.append(row.case_id)
                claims.link_denial_cases(db, row.claim_id, user_id, row.case_id)
    if case_opened is not None:
        case_opened.emit(db, opened)  # deadlines and priorities of the opened cases, in this transaction
    now = utcnow()
    migration.state = "committed"
    migration.state_changed_at = now
    migration.committed_by_user_id = user_id
    migration.committed_at = now
    db.flush()
    return migration


Converter = Callable[[str], Any]
CASE_FIELDS: dict[str, tuple[str, Converter]] = {
    "payerClaimNumber": ("payer_claim_number", str),
    "billedAmount": ("billed_amount", Decimal),
    "serviceDate": ("service_date", date.fromisoformat),
}
CLAIM_FIELDS: dict[str, tuple[str, Converter]] = {
    "payer": ("payer", str),
    "statementFrom": ("statement_from", date.fromisoformat),
    "statementTo": ("statement_to", date.fromisoformat),
}


@dataclass
class _Applier:
    """Carries out one line's plan."""

    db: Session
    migration: Migration
    row: MigrationRow
    user_id: int
    reason: str

    def claim(self, part: dict[str, Any]) -> int:
        v = self.row.values
        if part["action"] == "create":
            service_date = date.fromisoformat(v["serviceDate"]) if "serviceDate" in v else None
            given = claims.MigratedClaim(
                claim_key=v["claimKey"],
                payer=v["payer"],
                total_charge=Decimal(v["billedAmount"]),
                state=part["state"],
                statement_from=service_date,
                statement_to=service_date,
                open_balance=Decimal(v["balance"]) if "balance" in v else None,
            )
            return claims.create_migrated(self.db, given, self.user_id, reason=self.reason).id
        updates = {CLAIM_FIELDS[name][0]: CLAIM_FIELDS[name][1](value) for name, value in part["updates"].items()}
        return claims.fill_migrated(self.db, part["id"], updates).id

    def case(self, part: dict[str, Any]) -> tuple[int, bool]:
        """(the case id, whether it was opened now)."""
        if part["action"] == "create":
            return self._open(part), True
        case = cases.get_case(self.db, part["id"], for_update=True)
        if part["updates"]:
            for name, value in part["updates"].items():
                column, convert = CASE_FIELDS[name]
                setattr(case, column, convert(value))
            details = {
                "migrationId": self.migration.id,
                "rowNumber": self.row.row_number,
                "fields": sorted(part["updates"]),
            }
            cases.add_event(self.db, case, "migration_filled", actor_user_id=self.user_id, details=details)
        return case.id, False

    def _open(self, part: dict[str, Any]) -> int:
        v = self.row.values
        parsed = _parsed(self.row)
        provenance = {"migrationId": self.migration.id, "rowNumber": self.row.row_number}
        case, created = cases.open_manual(
            self.db,
            _opening(parsed),
            organization_id=self.migration.organization_id,
            client_id=self.migration.client_id,
            user_id=self.user_id,
            origin="migration",
            provenance=provenance,
        )
        if not created:  # the plan saw no such denial; something opened it within this very call
            raise Conflict(f"Row {self.row.row_number}: the denial was opened meanwhile; run the dry run again")
        case.billed_amount = Decimal(v["billedAmount"])
        case.service_date = date.fromisoformat(v["serviceDate"]) if "serviceDate" in v else None
        for target in part["moves"]:
            cases.apply_move(self.db, case, target, reason=self.reason, user_id=self.user_id, kind="transition")
        self.db.flush()
        return case.id


# --- reads --------------------------------------------------------------------------------------


def list_statement(state: str | None, kind: str | None) -> Select[Any]:
    return where_given(select(Migration), (Migration.state, state), (Migration.kind, kind))


def rows_page(
    db: Session, migration_id: int, *, after: int, limit: int, outcome: str | None
) -> tuple[list[MigrationRow], int | None]:
    """A page of the migration's lines in row order, and the rowsAfter of the next page (None: the end)."""
    stmt = select(MigrationRow).where(MigrationRow.migration_id == migration_id, MigrationRow.row_number > after)
    if outcome is not None:
        stmt = stmt.where(MigrationRow.outcome == outcome)
    found = list(db.scalars(stmt.order_by(MigrationRow.row_number).limit(limit + 1)))
    if len(found) > limit:
        return found[:limit], found[limit - 1].row_number
    return found, None
