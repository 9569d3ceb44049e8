"""Ingestion use cases on the operational database, as other namespaces and tests call them.

A thin published facade: the use cases live in one module per phase of a batch, and this module only
names them, so a caller outside the package depends on one stable surface, not on how it is split.

- `upload`: store the file in the landing zone, detect its format, parse it (or queue the parse);
- `parse`: (re)fill a batch's rows from its stored file (the job queue's half of a big upload, reprocess);
- `review`: repair a row, include or exclude it, discard the batch;
- `confirm`: post the included valid rows as financial entries, all or nothing;
- `batches`: what they share (the batch by id, its counts and status, the remittance identity);
- `reads`: what other contexts read of the posted ledger (a confirmed batch, its rows and entries).

Every function takes a tenant-scoped session (queries on tenant tables only see the caller's client)
and never commits: the router commits the whole call, with its audit record, or nothing.
"""

from __future__ import annotations

from api.money.ingestion.batches import LandingSettings, blocking_rows, get_batch, refresh_counts
from api.money.ingestion.confirm import confirm
from api.money.ingestion.parse import PARSE_JOB_KIND, landing_zone, parse_stored_batch, reprocess, spreadsheet_limits
from api.money.ingestion.reads import (
    LedgerEntry,
    PostedBatch,
    PostedEntry,
    PostedRow,
    RowPlace,
    batch_claim_keys,
    batch_entries,
    batch_kinds_and_remittances,
    batch_payers,
    claim_entries,
    claim_event_entries,
    claim_keys_of_type,
    claim_ledger,
    confirmed_remittance_count,
    decisions_cte,
    paid_total,
    payer_spellings,
    posted_batch,
    posted_rows,
    remittance_claim_rows,
    remitted_claims,
    row_places,
)
from api.money.ingestion.review import discard, get_row, repair_row, set_decision
from api.money.ingestion.upload import SpooledFile, upload

__all__ = [
    "PARSE_JOB_KIND",
    "LandingSettings",
    "LedgerEntry",
    "PostedBatch",
    "PostedEntry",
    "PostedRow",
    "RowPlace",
    "SpooledFile",
    "batch_claim_keys",
    "batch_entries",
    "batch_kinds_and_remittances",
    "batch_payers",
    "blocking_rows",
    "claim_entries",
    "claim_event_entries",
    "claim_keys_of_type",
    "claim_ledger",
    "confirm",
    "confirmed_remittance_count",
    "decisions_cte",
    "discard",
    "get_batch",
    "get_row",
    "landing_zone",
    "paid_total",
    "parse_stored_batch",
    "payer_spellings",
    "posted_batch",
    "posted_rows",
    "refresh_counts",
    "remittance_claim_rows",
    "remitted_claims",
    "repair_row",
    "reprocess",
    "row_places",
    "set_decision",
    "spreadsheet_limits",
    "upload",
]
