"""What the ingestion phases share: the batch by id, its row counts and the status they decide
(parsed, needs_review, held, duplicate_remittance), the remittance identity digest and chunked inserts.

Every function takes a tenant-scoped session (queries on tenant tables only see the caller's client)
and never commits: the router commits the whole call, with its audit record, or nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Select, Table, func, insert, select
from sqlalchemy.orm import Session

from api.core.lifecycle import transition
from api.infra.db.lookup import get_by_id, where_given
from api.money.ingestion.lifecycle import IMPORT_BATCH
from api.money.ingestion.models import ImportBatch, ImportRow

INSERT_CHUNK = 1000


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


def insert_chunked(db: Session, table: Table, values: list[dict[str, Any]]) -> None:
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


def identity_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


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
