"""The `ingestion.parse_batch` job: parse a big upload that the request only stored.

The batch is `parsing` until this runs; it then moves to parsed / needs_review /
held / duplicate_remittance, or to failed with the parser's report. Everything
happens in one transaction, so a batch never has half its rows: a parse that
stops midway leaves no rows and the batch failed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from api.core.lifecycle import transition
from api.core.settings import get_settings
from api.infra.jobs.handlers import JobContext, register_handler
from api.infra.jobs.queue import PermanentJobError
from api.money.ingestion.lifecycle import IMPORT_BATCH
from api.money.ingestion.models import ImportBatch
from api.money.ingestion.parse import PARSE_JOB_KIND, parse_stored_batch

log = logging.getLogger("api.money.ingestion")


@register_handler(PARSE_JOB_KIND)
def parse_import_batch(ctx: JobContext) -> dict[str, Any]:
    """Parse the landing file of `payload.batch_id` into its rows; returns the batch's status."""
    batch_id = int(ctx.payload["batch_id"])
    settings = get_settings().model_copy(update={"data_dir": Path(ctx.payload["data_dir"])})
    try:
        with ctx.database.transaction() as db:
            batch = db.get(ImportBatch, batch_id)
            if batch is None or batch.status != "parsing":
                raise PermanentJobError(f"import batch {batch_id} is not waiting to be parsed")
            parse_stored_batch(db, batch, settings)
            status = batch.status
    except PermanentJobError:
        raise
    except Exception as exc:
        # Rolled back: no rows. The batch records that the parse stopped (type only: messages can quote data).
        log.exception("parsing import batch %s failed", batch_id)
        _fail(ctx, batch_id, type(exc).__name__)
        raise PermanentJobError(f"parsing import batch {batch_id} stopped ({type(exc).__name__})") from None
    return {"batchId": batch_id, "status": status}


def _fail(ctx: JobContext, batch_id: int, reason: str) -> None:
    with ctx.database.transaction() as db:
        batch = db.get(ImportBatch, batch_id)
        if batch is None or batch.status != "parsing":
            return
        batch.status = transition(IMPORT_BATCH, batch.status, "failed")
        batch.error_report = {"message": f"{batch.source_filename}: the parse stopped ({reason})"}
        batch.row_count = batch.valid_count = batch.invalid_count = batch.excluded_count = 0
