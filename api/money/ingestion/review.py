"""Reviewing a batch before it posts: repair an invalid row, include or exclude a row, or discard the
batch. Rows change only while the batch is parsed, needs_review or held. Never commits (see `batches`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.infra.db.lookup import get_by_id
from api.money.ingestion.batches import get_batch, refresh_counts
from api.money.ingestion.lifecycle import IMPORT_BATCH
from api.money.ingestion.models import ImportBatch, ImportRow
from api.money.ingestion.rules import RepairError, repair_tabular, repair_x12


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


def discard(db: Session, batch_id: int) -> ImportBatch:
    batch = get_batch(db, batch_id, for_update=True)
    batch.status = transition(IMPORT_BATCH, batch.status, "discarded")
    db.flush()
    return batch
