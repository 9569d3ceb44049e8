"""Confirming a batch: post its included valid rows as financial entries, all or nothing, each 835
remittance once (claimed in the posted-remittance table). Never commits (see `batches`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.core.errors import PreconditionFailed
from api.core.lifecycle import transition
from api.infra.db.base import table_of, utcnow
from api.money.ingestion.batches import blocking_rows, get_batch, identity_digest, insert_chunked
from api.money.ingestion.lifecycle import IMPORT_BATCH
from api.money.ingestion.models import FinancialEntry, ImportBatch, ImportRow, PostedRemittance
from api.money.ingestion.posting import EntryPlan, KnownClaims, PostedEntry, RowView, link_reversals, plan_entries
from api.money.payment_integrity.service import store_uploaded_terms
from pipelines.ingest.plb import reference_candidates


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
        digest = identity_digest(r["key"])
        stmt = (
            insert_into(table_of(PostedRemittance))
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
            .returning(table_of(PostedRemittance).c.id)
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
    insert_chunked(db, table_of(FinancialEntry), [{**base, **asdict(p)} for p in plans])


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
