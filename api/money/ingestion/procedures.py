"""ingestion.*: file uploads, import batches, financial entries and reconciliation runs.

A file that is in a supported format but cannot be parsed is still a successful
upload: the answer is a batch with status `failed` and its `errorReport`
(file, segment or line, what was expected), with no rows or entries. An empty
file or an unsupported format is BAD_REQUEST naming what was seen. An X12 envelope whose counts or
control numbers are wrong fails the batch the same way (`errorReport.category` = "envelope"). An 835
that does not balance is `held` with its `imbalance` until a confirm acknowledges it with a reason; one
whose remittances were all posted already (in another envelope) is `duplicate_remittance`.
"""

from __future__ import annotations

from api.money.ingestion import batches, confirm, ledger, parse, review, upload
from api.money.ingestion.file_reader import TABULAR_FORMATS
from api.money.ingestion.models import FinancialEntry, ImportBatch, ImportRow, ReconciliationRun
from api.money.ingestion.schemas import (
    BatchRef,
    ConfirmIn,
    ConfirmOut,
    FinancialEntryOut,
    ImportBatchOut,
    ImportRowOut,
    ListBatchesIn,
    ListEntriesIn,
    ListRowsIn,
    ReconciliationExceptionOut,
    ReconciliationRunDetailOut,
    ReconciliationRunOut,
    RepairRowIn,
    ResolveExceptionIn,
    ReviewEntryIn,
    RowDecisionIn,
    RunRef,
    UploadOut,
)
from api.money.ingestion.upload_input import CsvUploadIn, UploadIn, resolve_upload
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, PageInput, paginate

router = rpc.namespace("ingestion")


def _upload(ctx: Context, input: UploadIn, accepts: frozenset[str] | None) -> UploadOut:
    filename, content_type, data = resolve_upload(input)
    batch, duplicate = upload.upload(
        ctx.db,
        settings=ctx.services.settings,
        organization_id=ctx.org_id,
        client_id=ctx.client_id,
        user_id=ctx.user_id,
        filename=filename,
        content_type=content_type,
        data=data,
        profile_name=input.profile,
        accepts=accepts,
        procedure=ctx.procedure,
    )
    ctx.note(
        "import_batch", batch.id, after={"sha256": batch.content_sha256, "status": batch.status, "duplicate": duplicate}
    )
    return UploadOut(batch=ImportBatchOut.model_validate(batch), duplicate=duplicate)


@router.mutation("uploadCsv", accepts_files=True)
def upload_csv(ctx: Context, input: CsvUploadIn) -> UploadOut:
    """Upload a claims, payments, denials, bank deposits or contract terms export (CSV/TSV/pipe, also
    XLSX/JSON) with an optional connector `profile`; answers the import batch (duplicate=true when the same
    content was already uploaded). Confirmed contract terms replace the client's terms of each payer and
    plan the file names; the marts price with them after the next pipeline run."""
    return _upload(ctx, input, TABULAR_FORMATS)


@router.mutation("uploadEra", accepts_files=True)
def upload_era(ctx: Context, input: UploadIn) -> UploadOut:
    """Upload an X12 835 remittance (ERA) file; answers the import batch, `failed` with an error report
    when the file is broken (segment number and what was expected)."""
    return _upload(ctx, input, frozenset({"x12_835"}))


@router.mutation("uploadUniversal", accepts_files=True)
def upload_universal(ctx: Context, input: UploadIn) -> UploadOut:
    """Upload any supported file (X12 835/837, CSV/TSV/pipe, XLSX, JSON): the format is detected from the content."""
    return _upload(ctx, input, None)


@router.query("getImportBatch")
def get_import_batch(ctx: Context, input: BatchRef) -> ImportBatchOut:
    """One import batch of the selected client: status, counts, totals, quality and error report."""
    return ImportBatchOut.model_validate(batches.get_batch(ctx.db, input.batch_id))


@router.query("listImportBatches")
def list_import_batches(ctx: Context, input: ListBatchesIn) -> Page[ImportBatchOut]:
    """Import batches of the selected client, newest first; filter by status and kind."""
    stmt = batches.batches_statement(input.status, input.kind)
    return paginate(ctx.db, stmt, ImportBatch.id, input, ImportBatchOut.model_validate)


@router.query("listImportRows")
def list_import_rows(ctx: Context, input: ListRowsIn) -> Page[ImportRowOut]:
    """Rows of a batch (canonical fields, status, reasons, decision), filtered by status/decision, for review and repair."""
    batches.get_batch(ctx.db, input.batch_id)
    stmt = batches.rows_statement(input.batch_id, input.status, input.decision)
    return paginate(ctx.db, stmt, ImportRow.id, input, ImportRowOut.model_validate)


@router.mutation("repairImportRow")
def repair_import_row(ctx: Context, input: RepairRowIn) -> ImportRowOut:
    """Patch canonical fields of an invalid row; it is re-validated with the upload's rules and becomes
    `repaired`, or stays `invalid` with the remaining reasons."""
    row, batch = review.repair_row(ctx.db, input.row_id, input.fields)
    ctx.note("import_row", row.id, after={"batch": batch.id, "fields": sorted(input.fields), "status": row.status})
    return ImportRowOut.model_validate(row)


@router.mutation("setImportRowDecision")
def set_import_row_decision(ctx: Context, input: RowDecisionIn) -> ImportRowOut:
    """Include or exclude a row from posting (excluding a claim excludes its lines and adjustments)."""
    row, batch = review.set_decision(ctx.db, input.row_id, input.decision)
    ctx.note("import_row", row.id, after={"batch": batch.id, "decision": input.decision})
    return ImportRowOut.model_validate(row)


@router.mutation("confirmImportBatch")
def confirm_import_batch(ctx: Context, input: ConfirmIn) -> ConfirmOut:
    """Post the included valid rows as financial entries, all or nothing. Refused while invalid rows are
    still included, when the batch is already confirmed or re-delivers posted remittances, and for a held
    batch (money that does not balance) unless `acknowledgeImbalance` gives the reason to post it anyway.
    Remittances another batch already posted are skipped (status duplicate_remittance when all are)."""
    before = batches.get_batch(ctx.db, input.batch_id).status
    reason = input.acknowledge_imbalance.reason if input.acknowledge_imbalance else None
    batch, totals = confirm.confirm(ctx.db, input.batch_id, ctx.user_id, reason)
    if batch.status == "confirmed":
        ctx.services.batch_posted.emit(ctx.db, batch.id)  # e.g. denial cases open from the remittance
    ctx.note(
        "import_batch",
        batch.id,
        before={"status": before},
        after={
            "status": batch.status,
            "entries": batch.entries_posted,
            "totals": totals,
            "imbalanceAcknowledged": batch.imbalance_ack_reason,
            "redeliveryOf": batch.redelivery_of_batch_id,
        },
    )
    return ConfirmOut(
        batch=ImportBatchOut.model_validate(batch), entries_posted=batch.entries_posted, posted_totals=totals
    )


@router.mutation("reprocess")
def reprocess(ctx: Context, input: BatchRef) -> ImportBatchOut:
    """Re-parse the batch's stored original file with the current parser (not for confirmed or
    discarded batches); its rows, repairs and decisions are replaced."""
    batch = parse.reprocess(ctx.db, input.batch_id, ctx.services.settings)
    ctx.note("import_batch", batch.id, after={"status": batch.status, "parser": batch.parser_version})
    return ImportBatchOut.model_validate(batch)


@router.mutation("discardImportBatch")
def discard_import_batch(ctx: Context, input: BatchRef) -> ImportBatchOut:
    """Discard a batch that will not be posted (final; the same content uploaded again answers this batch)."""
    batch = review.discard(ctx.db, input.batch_id)
    ctx.note("import_batch", batch.id, after={"status": batch.status})
    return ImportBatchOut.model_validate(batch)


@router.query("listFinancialEntries")
def list_financial_entries(ctx: Context, input: ListEntriesIn) -> Page[FinancialEntryOut]:
    """Posted financial entries, newest first; filter by type, payer, claim key, batch, date range, review status."""
    stmt = ledger.entries_statement(
        entry_type=input.entry_type,
        payer=input.payer or None,  # an empty text, or batch 0, filters nothing
        claim_key=input.claim_key or None,
        batch_id=input.batch_id or None,
        review_status=input.review_status,
        date_from=input.date_from,
        date_to=input.date_to,
    )
    return paginate(ctx.db, stmt, FinancialEntry.id, input, FinancialEntryOut.model_validate)


@router.mutation("reviewFinancialEntry")
def review_financial_entry(ctx: Context, input: ReviewEntryIn) -> FinancialEntryOut:
    """Accept or flag a posted entry, with a note."""
    entry, before = ledger.review_entry(ctx.db, input.entry_id, input.review_status, input.note, ctx.user_id)
    ctx.note("financial_entry", entry.id, before={"review": before}, after={"review": entry.review_status})
    return FinancialEntryOut.model_validate(entry)


@router.mutation("runReconciliation")
def run_reconciliation(ctx: Context) -> ReconciliationRunOut:
    """Match the client's posted remittances to its posted claims (837/claims exports) and record the exceptions:
    unmatched remittance, unmatched claim, amount mismatch, duplicate payment."""
    run = ledger.run_reconciliation(ctx.db, ctx.user_id, ctx.org_id, ctx.client_id)
    ctx.note("reconciliation_run", run.id, after=run.exception_counts)
    return ReconciliationRunOut.model_validate(run)


@router.query("getReconciliationRun")
def get_reconciliation_run(ctx: Context, input: RunRef) -> ReconciliationRunDetailOut:
    """A reconciliation run with its exceptions."""
    run = ledger.get_run(ctx.db, input.run_id)
    out = ReconciliationRunOut.model_validate(run).model_dump()
    out["exceptions"] = [ReconciliationExceptionOut.model_validate(e) for e in ledger.run_exceptions(ctx.db, run.id)]
    return ReconciliationRunDetailOut.model_validate(out)


@router.query("listReconciliationRuns")
def list_reconciliation_runs(ctx: Context, input: PageInput) -> Page[ReconciliationRunOut]:
    """Reconciliation runs of the selected client, newest first."""
    return paginate(ctx.db, ledger.runs_statement(), ReconciliationRun.id, input, ReconciliationRunOut.model_validate)


@router.mutation("resolveReconciliationException")
def resolve_reconciliation_exception(ctx: Context, input: ResolveExceptionIn) -> ReconciliationExceptionOut:
    """Resolve an open exception with a resolution and a note (resolved is final)."""
    exc = ledger.resolve_exception(ctx.db, input.exception_id, input.resolution, input.note, ctx.user_id)
    ctx.note(
        "reconciliation_exception",
        exc.id,
        before={"status": "open"},
        after={"status": exc.status, "resolution": exc.resolution},
    )
    return ReconciliationExceptionOut.model_validate(exc)
