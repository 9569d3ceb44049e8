"""Parsing a stored file into a batch's rows: in the request (`upload`), in the job queue for a big
upload (`parse_stored_batch`), and again on `reprocess`.

A broken file gives a failed batch with its report and no rows; a file refused for its size or shape is
InvalidInput and nothing is kept. Never commits (see `batches`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.infra.db.base import table_of
from api.infra.jobs.queue import enqueue
from api.infra.landing.zone import LandingZone
from api.integrations.connector_profiles.service import resolve_profile
from api.money.ingestion import file_reader as parsing
from api.money.ingestion.batches import (
    LandingSettings,
    get_batch,
    identity_digest,
    insert_chunked,
    refresh_counts,
)
from api.money.ingestion.lifecycle import IMPORT_BATCH
from api.money.ingestion.models import ImportBatch, ImportRow, LandingFile, PostedRemittance
from pipelines.ingest.tabular import ConnectorProfile, SpreadsheetLimits

PARSE_JOB_KIND = "ingestion.parse_batch"


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


def enqueue_parse(db: Session, batch: ImportBatch, settings: LandingSettings) -> None:
    # The data directory travels with the job: the worker may serve another configuration's defaults.
    payload = {"batch_id": batch.id, "data_dir": str(settings.resolved_data_dir)}
    enqueue(db, PARSE_JOB_KIND, payload, organization_id=batch.organization_id, max_attempts=1)


def apply_parse(
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
        mark_failed(db, batch, failure)
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
    insert_chunked(db, table_of(ImportRow), rows)
    refresh_counts(db, batch)


def mark_failed(db: Session, batch: ImportBatch, failure: parsing.ParseFailure) -> None:
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


def _with_posted_by(db: Session, remittances: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The file's remittances, each with the batch that already posted it for this client (or None)."""
    digests = [identity_digest(r["key"]) for r in remittances]
    found = db.execute(
        select(PostedRemittance.identity_sha256, PostedRemittance.batch_id).where(
            PostedRemittance.identity_sha256.in_(digests)
        )
    ).all()
    posted = {row.identity_sha256: row.batch_id for row in found}
    return [{**r, "postedByBatchId": posted.get(d)} for r, d in zip(remittances, digests, strict=True)]


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
    apply_parse(
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
        mark_failed(db, batch, parsing.ParseFailure(kind, batch.source_format or "", {"message": refused.message}))


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
        enqueue_parse(db, batch, settings)
        return batch
    db.execute(delete(ImportRow).where(ImportRow.batch_id == batch.id))
    _parse_from_landing(db, batch, settings)
    return batch


def _stored_file_missing(batch: ImportBatch) -> PreconditionFailed:
    return PreconditionFailed(
        f"The stored file of import batch {batch.id} is missing from the landing zone; upload it again",
    )
