"""Ingestion use cases on the operational database: upload, review, confirm, reprocess.

Every function takes a tenant-scoped session (queries on tenant tables only see
the caller's client) and never commits: the router commits the whole call,
with its audit record, or nothing.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Select, Table, delete, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.infra.db.base import Base, utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.infra.jobs.queue import enqueue
from api.integrations.connector_profiles.service import resolve_profile
from api.money.ingestion import file_reader as parsing
from api.money.ingestion.landing import LandingZone, StoredFile, content_sha256
from api.money.ingestion.lifecycle import IMPORT_BATCH
from api.money.ingestion.models import FinancialEntry, ImportBatch, ImportRow, LandingFile, PostedRemittance
from api.money.ingestion.posting import EntryPlan, KnownClaims, PostedEntry, RowView, link_reversals, plan_entries
from api.money.ingestion.rules import RepairError, repair_tabular, repair_x12
from api.money.payment_integrity.service import store_uploaded_terms
from pipelines.ingest.plb import reference_candidates
from pipelines.ingest.tabular import ConnectorProfile, SpreadsheetLimits

INSERT_CHUNK = 1000
PARSE_JOB_KIND = "ingestion.parse_batch"


class LandingSettings(Protocol):
    """The part of the settings ingestion needs: where the landing zone keeps uploaded bytes, and
    how big a workbook may be (see `api.core.settings`)."""

    @property
    def landing_dir(self) -> Path: ...
    @property
    def resolved_data_dir(self) -> Path: ...
    @property
    def upload_parse_in_request_max_bytes(self) -> int: ...
    @property
    def spreadsheet_max_rows(self) -> int: ...
    @property
    def spreadsheet_max_columns(self) -> int: ...
    @property
    def spreadsheet_max_cells(self) -> int: ...
    @property
    def spreadsheet_max_uncompressed_bytes(self) -> int: ...
    @property
    def spreadsheet_memory_limit_bytes(self) -> int: ...
    @property
    def spreadsheet_timeout_seconds(self) -> float: ...


class SpooledFile(Protocol):
    """An upload the router streamed to disk (`api.rpc.uploads.SpooledFile`), hashed on the way in."""

    @property
    def path(self) -> Path: ...
    @property
    def size(self) -> int: ...
    @property
    def sha256(self) -> str: ...
    def read_bytes(self) -> bytes: ...


def landing_zone(settings: LandingSettings) -> LandingZone:
    return LandingZone(Path(settings.landing_dir))


def spreadsheet_limits(settings: LandingSettings) -> SpreadsheetLimits:
    """The configured limits for uploaded workbooks."""
    return SpreadsheetLimits(
        max_rows=settings.spreadsheet_max_rows,
        max_columns=settings.spreadsheet_max_columns,
        max_cells=settings.spreadsheet_max_cells,
        max_uncompressed_bytes=settings.spreadsheet_max_uncompressed_bytes,
        memory_limit_bytes=settings.spreadsheet_memory_limit_bytes,
        timeout_seconds=settings.spreadsheet_timeout_seconds,
    )


def _table(model: type[Base]) -> Table:
    """The model's Core table, for bulk inserts that skip the ORM unit of work."""
    table = model.__table__
    # Declarative types `__table__` as any FromClause; every model here maps one plain Table.
    assert isinstance(table, Table)
    return table


def get_batch(db: Session, batch_id: int, *, for_update: bool = False) -> ImportBatch:
    """The batch if it belongs to the caller's client, else NOT_FOUND (never FORBIDDEN: ids do not leak)."""
    return get_by_id(db, ImportBatch, batch_id, "Import batch", for_update=for_update)


def batches_statement(status: str | None, kind: str | None) -> Select[Any]:
    """Import batches by status and kind (each when given); unordered, for paging."""
    return where_given(select(ImportBatch), (ImportBatch.status, status), (ImportBatch.kind, kind))


def rows_statement(batch_id: int, status: str | None, decision: str | None) -> Select[Any]:
    """The rows of one batch, by status and decision (each when given); unordered, for paging."""
    return where_given(
        select(ImportRow).where(ImportRow.batch_id == batch_id),
        (ImportRow.status, status),
        (ImportRow.decision, decision),
    )


def upload(
    db: Session,
    *,
    settings: LandingSettings,
    organization_id: int,
    client_id: int,
    user_id: int,
    filename: str,
    content_type: str | None,
    data: bytes | SpooledFile,
    profile_name: str | None,
    accepts: frozenset[str] | None,
    procedure: str,
) -> tuple[ImportBatch, bool]:
    """Store the file, parse it into a batch (or a failed batch with its report); (batch, duplicate).

    `data` is the bytes (JSON callers) or the spooled file the router streamed to disk. A file above
    `upload_parse_in_request_max_bytes` is only stored here: its batch is `parsing` and the job queue
    parses it (`job_handlers.parse_import_batch`), so a big upload never sits whole in the API's memory.
    """
    filename = (filename or "upload.bin").strip()[:255] or "upload.bin"
    spooled, size, content = _content(data, settings)
    source_format = _accepted_format(content, spooled, filename, accepts, procedure)
    profile = resolve_profile(db, profile_name) if profile_name else None
    if profile is not None and source_format not in parsing.TABULAR_FORMATS:
        raise InvalidInput(f"A connector profile applies to tabular files; '{filename}' is {source_format}")

    digest = spooled.sha256 if spooled else content_sha256(content or b"")
    existing = db.scalar(select(ImportBatch).where(ImportBatch.content_sha256 == digest).order_by(ImportBatch.id))
    if existing is not None:
        return existing, True

    stored = _store(landing_zone(settings), spooled, content)
    landing = LandingFile(
        content_sha256=stored.sha256,
        size_bytes=stored.size,
        original_filename=filename,
        content_type=content_type,
        detected_format=source_format,
        uploaded_by=user_id,
    )
    db.add(landing)
    db.flush()
    batch = ImportBatch(
        landing_file_id=landing.id,
        kind="tabular_unknown",
        source_filename=filename,
        content_sha256=digest,
        size_bytes=size,
        source_format=source_format,
        profile_name=profile.name if profile else None,
        status="parsed" if content is not None else "parsing",
        parser_version=parsing.PARSER_VERSION,
        created_by=user_id,
        totals={},
        quality={},
    )
    if content is None:
        db.add(batch)
        db.flush()
        _enqueue_parse(db, batch, settings)
        return batch, False
    _apply_parse(
        db,
        batch,
        content,
        filename=filename,
        source_format=source_format,
        profile=profile,
        organization_id=organization_id,
        client_id=client_id,
        limits=spreadsheet_limits(settings),
    )
    return batch, False


def _enqueue_parse(db: Session, batch: ImportBatch, settings: LandingSettings) -> None:
    # The data directory travels with the job: the worker may serve another configuration's defaults.
    payload = {"batch_id": batch.id, "data_dir": str(settings.resolved_data_dir)}
    enqueue(db, PARSE_JOB_KIND, payload, organization_id=batch.organization_id, max_attempts=1)


def _content(data: bytes | SpooledFile, settings: LandingSettings) -> tuple[SpooledFile | None, int, bytes | None]:
    """(the spooled file if any, size, the bytes when the file is parsed in the request else None)."""
    if isinstance(data, bytes):
        return None, len(data), data
    in_request = data.size <= settings.upload_parse_in_request_max_bytes
    return data, data.size, data.read_bytes() if in_request else None


def _store(zone: LandingZone, spooled: SpooledFile | None, content: bytes | None) -> StoredFile:
    if spooled is not None:
        return zone.store_file(spooled.path, spooled.sha256, spooled.size)
    return zone.store(content or b"")


def _parse_from_landing(db: Session, batch: ImportBatch, settings: LandingSettings) -> None:
    """Parse `batch` again from its stored landing file (the job queue's half of a big upload, and
    reprocess): the file the batch was accepted with, its detected format and connector profile."""
    landing = db.get(LandingFile, batch.landing_file_id)
    if landing is None:  # the RESTRICT foreign key keeps it while the batch exists
        raise _stored_file_missing(batch)
    try:
        data = landing_zone(settings).read(batch.content_sha256)
    except OSError:
        raise _stored_file_missing(batch) from None
    # "auto:<entity>" records that headers were matched by synonyms: not a profile to resolve.
    named = batch.profile_name if batch.profile_name and not batch.profile_name.startswith("auto:") else None
    _apply_parse(
        db,
        batch,
        data,
        filename=landing.original_filename,
        source_format=batch.source_format or parsing.detect(data, landing.original_filename),
        profile=resolve_profile(db, named) if named else None,
        organization_id=batch.organization_id,
        client_id=batch.client_id,
        limits=spreadsheet_limits(settings),
    )


def parse_stored_batch(db: Session, batch: ImportBatch, settings: LandingSettings) -> None:
    """Parse a `parsing` batch from its landing file (the job queue's half of a big upload)."""
    try:
        _parse_from_landing(db, batch, settings)
    except InvalidInput as refused:
        # Refused for its size or shape after it was accepted: the batch says why, with no rows.
        kind = batch.kind
        _mark_failed(db, batch, parsing.ParseFailure(kind, batch.source_format or "", {"message": refused.message}))


def _accepted_format(
    data: bytes | None, spooled: SpooledFile | None, filename: str, accepts: frozenset[str] | None, procedure: str
) -> str:
    """The detected source format, if it is one `procedure` takes; InvalidInput naming what was seen otherwise."""
    try:
        if data is not None:
            source_format = parsing.detect(data, filename)
        else:
            assert spooled is not None  # one of the two is always given
            source_format = parsing.detect_file(spooled.path, filename)
    except parsing.UnsupportedFormat as exc:
        raise InvalidInput(f"Cannot import {exc}") from None
    if accepts is not None and source_format not in accepts:
        raise InvalidInput(
            f"{procedure} takes {', '.join(sorted(accepts))} files; '{filename}' is "
            f"{source_format}. Use ingestion.uploadUniversal for any supported format",
        )
    return source_format


def _apply_parse(
    db: Session,
    batch: ImportBatch,
    data: bytes,
    *,
    filename: str,
    source_format: str,
    profile: ConnectorProfile | None,
    organization_id: int,
    client_id: int,
    limits: SpreadsheetLimits,
) -> None:
    """Parse and (re)fill the batch's rows; a broken file gives a failed batch with no rows, a file
    refused for its size or shape (a workbook beyond the limits) is InvalidInput: nothing is kept."""
    try:
        parsed = parsing.parse_file(data, filename, source_format, profile, limits)
    except parsing.FileRefused as refused:
        raise InvalidInput(str(refused)) from None
    except parsing.ParseFailure as failure:
        _mark_failed(db, batch, failure)
        return
    batch.kind = parsed.kind
    batch.error_report = None
    batch.imbalance = parsed.extra.get("imbalance")
    batch.remittances = _with_posted_by(db, parsed.extra.get("remittances") or [])
    batch.totals = parsed.totals
    batch.quality = parsed.quality
    batch.parser_version = parsed.parser_version
    batch.profile_name = parsed.profile_name
    if batch.id is None:
        db.add(batch)
    db.flush()
    rows = [
        {
            "organization_id": organization_id,
            "client_id": client_id,
            "batch_id": batch.id,
            "row_number": r.row_number,
            "entity": r.entity,
            "parent_row_number": r.parent_row_number,
            "data": r.data,
            "status": r.status,
            "errors": r.errors,
            "decision": "include",
        }
        for r in parsed.rows
    ]
    _insert_chunked(db, _table(ImportRow), rows)
    refresh_counts(db, batch)


def _mark_failed(db: Session, batch: ImportBatch, failure: parsing.ParseFailure) -> None:
    """The batch becomes failed with the parser's report and no rows (a new batch is added as failed)."""
    batch.kind = failure.kind
    batch.error_report = failure.report
    batch.status = transition(IMPORT_BATCH, batch.status, "failed") if batch.id else "failed"
    batch.totals, batch.quality = {}, {}
    batch.imbalance, batch.remittances, batch.redelivery_of_batch_id = None, [], None
    batch.row_count = batch.valid_count = batch.invalid_count = batch.excluded_count = 0
    batch.parser_version = parsing.PARSER_VERSION
    if batch.id is None:
        db.add(batch)
    db.flush()


def _insert_chunked(db: Session, table: Table, values: list[dict[str, Any]]) -> None:
    """Core executemany inserts, a chunk per statement so a big file never becomes one huge statement."""
    for start in range(0, len(values), INSERT_CHUNK):
        db.execute(insert(table), values[start : start + INSERT_CHUNK])


def refresh_counts(db: Session, batch: ImportBatch) -> None:
    """Recount rows and move the batch between parsed and needs_review accordingly."""
    counts = dict(
        db.execute(
            select(ImportRow.status, func.count()).where(ImportRow.batch_id == batch.id).group_by(ImportRow.status)
        ).all()
    )
    batch.row_count = sum(counts.values())
    batch.invalid_count = counts.get("invalid", 0)
    batch.valid_count = counts.get("valid", 0) + counts.get("repaired", 0)
    batch.excluded_count = (
        db.scalar(
            select(func.count())
            .select_from(ImportRow)
            .where(ImportRow.batch_id == batch.id, ImportRow.decision == "exclude")
        )
        or 0
    )
    batch.status = transition(IMPORT_BATCH, batch.status, _parsed_status(db, batch))
    db.flush()


def _parsed_status(db: Session, batch: ImportBatch) -> str:
    """Where a parsed batch stands: a re-delivery of posted remittances, held for an imbalance
    nobody acknowledged yet, waiting for invalid rows to be repaired or excluded, or ready."""
    already = {r.get("postedByBatchId") for r in batch.remittances}
    if batch.remittances and None not in already:
        batch.redelivery_of_batch_id = min(b for b in already if b is not None)
        return "duplicate_remittance"
    batch.redelivery_of_batch_id = None
    if _unacknowledged_imbalance(db, batch):
        return "held"
    return "needs_review" if blocking_rows(db, batch.id) else "parsed"


def _unacknowledged_imbalance(db: Session, batch: ImportBatch) -> bool:
    """A transaction that does not balance, or an unbalanced claim still included, with no acknowledgement.
    Excluding every unbalanced claim releases a hold that only they caused: nothing unbalanced would post."""
    if not batch.imbalance or batch.imbalance_ack_at is not None:
        return False
    if batch.imbalance.get("transactions"):
        return True
    unbalanced = {c["claimIndex"] for c in batch.imbalance.get("claims", [])}
    included: Iterable[dict[str, Any]] = db.scalars(
        select(ImportRow.data).where(
            ImportRow.batch_id == batch.id, ImportRow.entity == "remittance_claim", ImportRow.decision == "include"
        )
    )
    return any(data.get("claim_index") in unbalanced for data in included)


def _identity_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _with_posted_by(db: Session, remittances: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The file's remittances, each with the batch that already posted it for this client (or None)."""
    digests = [_identity_digest(r["key"]) for r in remittances]
    found = db.execute(
        select(PostedRemittance.identity_sha256, PostedRemittance.batch_id).where(
            PostedRemittance.identity_sha256.in_(digests)
        )
    ).all()
    posted = {row.identity_sha256: row.batch_id for row in found}
    return [{**r, "postedByBatchId": posted.get(d)} for r, d in zip(remittances, digests, strict=True)]


def blocking_rows(db: Session, batch_id: int) -> int:
    """Invalid rows still included: they must be repaired or excluded before confirming."""
    return (
        db.scalar(
            select(func.count())
            .select_from(ImportRow)
            .where(ImportRow.batch_id == batch_id, ImportRow.status == "invalid", ImportRow.decision == "include")
        )
        or 0
    )


def _editable_batch(db: Session, batch_id: int) -> ImportBatch:
    batch = get_batch(db, batch_id, for_update=True)
    if batch.status not in ("parsed", "needs_review", "held"):
        raise PreconditionFailed(
            f"Import batch {batch.id} is '{batch.status}'; rows can only change while it is parsed, "
            "needs_review or held",
        )
    return batch


def get_row(db: Session, row_id: int) -> ImportRow:
    return get_by_id(db, ImportRow, row_id, "Import row")


def repair_row(db: Session, row_id: int, patch: dict[str, Any]) -> tuple[ImportRow, ImportBatch]:
    """Patch fields of a row and re-validate it; it becomes 'repaired' or stays 'invalid' with reasons."""
    row = get_row(db, row_id)
    batch = _editable_batch(db, row.batch_id)
    if row.status == "valid":
        raise PreconditionFailed(
            f"Row {row.row_number} of batch {batch.id} is valid; only invalid or repaired rows are repaired",
        )
    try:
        if row.entity.startswith("csv_"):
            data, errors = repair_tabular(row.entity.removeprefix("csv_"), row.data, patch)
        else:
            data, errors = repair_x12(row.entity, row.data, patch)
    except RepairError as exc:
        raise InvalidInput(f"Row {row.row_number}: {exc}") from None
    row.data = data
    row.errors = errors
    row.status = "invalid" if errors else "repaired"
    db.flush()
    refresh_counts(db, batch)
    return row, batch


def set_decision(db: Session, row_id: int, decision: str) -> tuple[ImportRow, ImportBatch]:
    """Include or exclude a row; excluding a claim row excludes its lines and adjustments too."""
    row = get_row(db, row_id)
    batch = _editable_batch(db, row.batch_id)
    row.decision = decision
    if row.entity in ("remittance_claim", "claim"):
        db.execute(
            update(ImportRow)
            .where(ImportRow.batch_id == batch.id, ImportRow.parent_row_number == row.row_number)
            .values(decision=decision)
        )
    db.flush()
    refresh_counts(db, batch)
    return row, batch


def confirm(
    db: Session, batch_id: int, user_id: int, acknowledgement: str | None = None
) -> tuple[ImportBatch, dict[str, str]]:
    """Post the included valid rows as financial entries, all or nothing (the caller's transaction).

    A held batch posts only with an acknowledgement (recorded on the batch). The remittances of an 835
    are claimed first in the posted-remittance table; one another batch posted already (even one
    committed while this confirm ran) is skipped with its claims and PLBs, so it never posts twice."""
    batch = get_batch(db, batch_id, for_update=True)
    _check_confirmable(db, batch, acknowledgement)
    transition(IMPORT_BATCH, batch.status, "confirmed")  # failed or discarded: refused before anything is written
    if batch.status == "held":
        batch.imbalance_ack_reason, batch.imbalance_ack_by, batch.imbalance_ack_at = acknowledgement, user_id, utcnow()
    skipped = _claim_remittances(db, batch)
    if batch.remittances and len(skipped) == len(batch.remittances):
        batch.status = transition(IMPORT_BATCH, batch.status, "duplicate_remittance")
        batch.redelivery_of_batch_id = min(skipped.values())
        db.flush()
        return batch, {}
    batch.status = transition(IMPORT_BATCH, batch.status, "confirmed")
    rows = [r for r in _postable_rows(db, batch.id) if r.data.get("transaction_index") not in skipped]
    if batch.kind == "csv_contract_terms":
        # Contract terms post no money: they become the client's stored terms.
        store_uploaded_terms(db, batch.id, [(r.row_number, r.data) for r in rows])
    plans = plan_entries(rows, known=_claims_plbs_name(db, rows))
    _post_entries(db, batch, plans)
    batch.entries_posted = len(plans)
    batch.confirmed_by = user_id
    batch.confirmed_at = utcnow()
    db.flush()
    return batch, _totals_by_entry_type(plans)


def _claim_remittances(db: Session, batch: ImportBatch) -> dict[int, int]:
    """Insert the batch's remittance identities; answer {transaction index: batch that posted it first}
    for those already there. ON CONFLICT DO NOTHING waits for a concurrent insert of the same identity
    to commit, then skips it: of two concurrent confirms exactly one posts the remittance."""
    dialect = db.get_bind().dialect.name
    insert_into = postgresql.insert if dialect == "postgresql" else sqlite.insert
    skipped: dict[int, int] = {}
    marked = []
    for r in batch.remittances:
        digest = _identity_digest(r["key"])
        stmt = (
            insert_into(_table(PostedRemittance))
            .values(
                organization_id=batch.organization_id,
                client_id=batch.client_id,
                created_at=utcnow(),
                identity_sha256=digest,
                batch_id=batch.id,
                transaction_index=r["transactionIndex"],
                trace_number=(r.get("traceNumber") or "")[:80],
                amount=Decimal(r["amount"]),
                payment_date=date.fromisoformat(r["paymentDate"]) if r.get("paymentDate") else None,
            )
            .on_conflict_do_nothing(index_elements=["client_id", "identity_sha256"])
            .returning(_table(PostedRemittance).c.id)
        )
        if db.execute(stmt).first() is None:
            first = db.scalar(select(PostedRemittance.batch_id).where(PostedRemittance.identity_sha256 == digest))
            skipped[r["transactionIndex"]] = first or 0
        marked.append({**r, "postedByBatchId": skipped.get(r["transactionIndex"])})
    batch.remittances = marked
    return skipped


def _check_confirmable(db: Session, batch: ImportBatch, acknowledgement: str | None) -> None:
    """PreconditionFailed when confirming would post twice, post rows still invalid, or post money
    that does not balance without an acknowledgement."""
    if batch.status == "confirmed":
        raise PreconditionFailed(
            f"Import batch {batch.id} is already confirmed "
            f"({batch.entries_posted} entries posted); confirming again would post twice",
        )
    if batch.status == "duplicate_remittance":
        raise PreconditionFailed(
            f"Import batch {batch.id} re-delivers remittances already posted by import batch "
            f"{batch.redelivery_of_batch_id}; there is nothing to post (discard it)",
        )
    if batch.status == "held" and acknowledgement is None:
        raise PreconditionFailed(_held_message(batch), details={"imbalance": batch.imbalance})
    blocking = blocking_rows(db, batch.id) if batch.status in ("parsed", "needs_review", "held") else 0
    if blocking:
        raise PreconditionFailed(
            f"Import batch {batch.id} has {blocking} invalid row(s) still included; "
            "repair them (ingestion.repairImportRow) or exclude them "
            "(ingestion.setImportRowDecision) first",
        )


def _held_message(batch: ImportBatch) -> str:
    """What does not balance and the two ways forward, for the PRECONDITION_FAILED answer."""
    imbalance = batch.imbalance or {}
    parts = [
        f"transaction {t['transactionIndex'] + 1} (trace {t.get('traceNumber') or 'none'}): BPR02 {t['expected']} "
        f"but claims minus PLB {t['actual']}, difference {t['difference']}"
        for t in imbalance.get("transactions", [])
    ]
    claims = imbalance.get("claims", [])
    if claims:
        parts.append(f"{len(claims)} claim(s) where CLP03 - CLP04 differs from the CAS adjustments")
    return (
        f"Import batch {batch.id} is held because the money does not balance: {'; '.join(parts)}. "
        "Confirm with acknowledgeImbalance: {reason} to post it as it is, or discard it "
        "(ingestion.discardImportBatch) and ask the payer for a corrected file"
    )


def _claims_plbs_name(db: Session, rows: list[RowView]) -> KnownClaims:
    """The ledger's claims the batch's PLB03-2 references may name (by claim key or payer claim number)."""
    refs = {
        c
        for r in rows
        if r.entity == "provider_adjustment"
        for c in reference_candidates(r.data.get("reason_code"), r.data.get("reference_id"))
    }
    known = KnownClaims()
    ordered = sorted(refs)
    for chunk in (ordered[i : i + 500] for i in range(0, len(ordered), 500)):
        found = db.execute(
            select(FinancialEntry.claim_key, FinancialEntry.payer_claim_number)
            .where(
                FinancialEntry.claim_key.is_not(None),
                or_(FinancialEntry.claim_key.in_(chunk), FinancialEntry.payer_claim_number.in_(chunk)),
            )
            .distinct()
        ).all()
        for claim_key, number in found:
            if claim_key in chunk:
                known.claim_keys.add(str(claim_key))
            if number is not None and number in chunk:
                known.payer_claim_numbers[str(number)] = str(claim_key)
    return known


def _postable_rows(db: Session, batch_id: int) -> list[RowView]:
    """The batch's included rows that are valid or repaired, in file order."""
    rows = db.execute(
        select(ImportRow.id, ImportRow.row_number, ImportRow.entity, ImportRow.data, ImportRow.parent_row_number)
        .where(ImportRow.batch_id == batch_id, ImportRow.decision == "include", ImportRow.status != "invalid")
        .order_by(ImportRow.row_number)
    ).all()
    return [RowView(r.id, r.row_number, r.entity, r.data, r.parent_row_number) for r in rows]


def _post_entries(db: Session, batch: ImportBatch, plans: list[EntryPlan]) -> None:
    """Insert the plans as the batch's entries. Reversals go last, once linked to what they reverse:
    the originals they may cancel include the regular entries of this very batch."""
    regular = [p for p in plans if p.entry_type != "reversal"]
    reversals = [p for p in plans if p.entry_type == "reversal"]
    base = {
        "batch_id": batch.id,
        "organization_id": batch.organization_id,
        "client_id": batch.client_id,
        "review_status": "unreviewed",
    }
    _insert_entries(db, regular, base)
    if reversals:
        link_reversals(reversals, _reversible_entries(db, {p.claim_key for p in reversals if p.claim_key}), batch.id)
        _insert_entries(db, reversals, base)


def _totals_by_entry_type(plans: list[EntryPlan]) -> dict[str, str]:
    """Posted amount per entry type, as exact decimal strings."""
    totals: dict[str, Decimal] = defaultdict(lambda: Decimal("0.00"))
    for p in plans:
        totals[p.entry_type] += p.amount
    return {k: f"{v:.2f}" for k, v in sorted(totals.items())}


def _insert_entries(db: Session, plans: list[EntryPlan], base: dict[str, Any]) -> None:
    _insert_chunked(db, _table(FinancialEntry), [{**base, **asdict(p)} for p in plans])


def _reversible_entries(db: Session, claim_keys: set[str]) -> list[PostedEntry]:
    """Posted non-reversal entries of these claims that no reversal points at yet."""
    if not claim_keys:
        return []
    already = select(FinancialEntry.reverses_entry_id).where(FinancialEntry.reverses_entry_id.is_not(None))
    rows = db.execute(
        select(
            FinancialEntry.id,
            FinancialEntry.entry_type,
            FinancialEntry.component,
            FinancialEntry.amount,
            FinancialEntry.claim_key,
            FinancialEntry.group_code,
            FinancialEntry.carc,
            FinancialEntry.batch_id,
            FinancialEntry.row_id,
        ).where(
            FinancialEntry.claim_key.in_(sorted(claim_keys)),
            FinancialEntry.entry_type != "reversal",
            FinancialEntry.id.not_in(already),
        )
    ).all()
    return [
        PostedEntry(
            r.id, r.entry_type, r.component, Decimal(r.amount), r.claim_key, r.group_code, r.carc, r.batch_id, r.row_id
        )
        for r in rows
    ]


def reprocess(db: Session, batch_id: int, settings: LandingSettings) -> ImportBatch:
    """Re-parse the stored landing file with the current parser; replaces the batch's rows. A file
    above the in-request threshold goes back to `parsing` and the job queue parses it again."""
    batch = get_batch(db, batch_id, for_update=True)
    if batch.status in ("confirmed", "discarded", "parsing"):
        raise PreconditionFailed(
            f"Import batch {batch.id} is '{batch.status}'; only batches not yet "
            "confirmed or discarded, and not being parsed, can be reprocessed",
        )
    if batch.size_bytes > settings.upload_parse_in_request_max_bytes:
        db.execute(delete(ImportRow).where(ImportRow.batch_id == batch.id))
        batch.status = transition(IMPORT_BATCH, batch.status, "parsing")
        batch.row_count = batch.valid_count = batch.invalid_count = batch.excluded_count = 0
        _enqueue_parse(db, batch, settings)
        return batch
    db.execute(delete(ImportRow).where(ImportRow.batch_id == batch.id))
    _parse_from_landing(db, batch, settings)
    return batch


def _stored_file_missing(batch: ImportBatch) -> PreconditionFailed:
    return PreconditionFailed(
        f"The stored file of import batch {batch.id} is missing from the landing zone; upload it again",
    )


def discard(db: Session, batch_id: int) -> ImportBatch:
    batch = get_batch(db, batch_id, for_update=True)
    batch.status = transition(IMPORT_BATCH, batch.status, "discarded")
    db.flush()
    return batch
