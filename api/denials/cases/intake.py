"""Cases open and update themselves when a batch is confirmed (a `Services.batch_posted` listener).

Runs inside the confirm's transaction, after the batch's entries are posted: it reads them back,
groups them into claim events (claim x payer x remittance), asks ``rules.decide`` what they open or
update, and writes that. Opening is INSERT ... ON CONFLICT DO NOTHING on (client, denial_key), so a
re-upload, a re-run or two concurrent confirms of the same remittance never open a second case.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.core.lifecycle import transition as move
from api.denials.cases import service
from api.denials.cases.lifecycle import CASE
from api.denials.cases.models import DenialCase
from api.denials.cases.payer_classes import payer_class_of
from api.denials.cases.rules import (
    UPDATABLE_STATES,
    CaseOpening,
    CaseUpdate,
    ClaimEvent,
    EntryFact,
    OpenCase,
    decide,
    money,
)
from api.money.ingestion.models import FinancialEntry, ImportBatch, ImportRow

CHUNK = 500
#: Entry types that are about a claim (charges, deposits and PLBs are not).
CLAIM_ENTRY_TYPES = ("payment", "denial", "patient_responsibility", "adjustment", "reversal", "recoupment")
UNKNOWN_PAYER = "UNKNOWN PAYER"


@dataclass(frozen=True)
class _Remittance:
    identity: str
    payment_date: date | None
    payer_id: str | None
    payer_class: str | None = None  # of the claim the row belongs to (CLP06)


def open_cases_for_batch(db: Session, batch_id: int) -> list[int]:
    """Open the cases the batch's denials and recoupments call for and update the working cases
    its payments recover money for (see ``api.denials.cases.rules``); the ids of the cases opened."""
    batch = db.scalar(select(ImportBatch).where(ImportBatch.id == batch_id))
    if batch is None:
        return []
    entries = _claim_entries(db, batch_id)
    if not entries:
        return []
    events = _claim_events(db, batch, entries)
    cases = _working_cases(db, sorted({e.claim_key for e in events}))
    decisions = decide(events, {key: [_open_case(c) for c in found] for key, found in cases.items()})
    opened = [new_id for opening in decisions.opens if (new_id := _open(db, batch, opening)) is not None]
    by_id = {c.id: c for found in cases.values() for c in found}
    for update in decisions.updates:
        apply_ledger_update(db, by_id[update.case_id], update, batch_id=batch.id)
    return opened


def _claim_events(db: Session, batch: ImportBatch, entries: list[EntryRow]) -> list[ClaimEvent]:
    """The batch's entries as claim events: one per claim x payer x remittance, with the payer's
    paid total for the claim in the ledger (this batch included)."""
    remittances = _remittances_by_row(db, batch)
    grouped: dict[tuple[str, str, str], list[tuple[EntryRow, _Remittance]]] = defaultdict(list)
    for entry in entries:
        remittance = remittances.get(entry.row_id or 0) or _tabular_remittance(batch, entry)
        payer = (entry.payer or UNKNOWN_PAYER).strip()
        grouped[(entry.claim_key or "", payer, remittance.identity)].append((entry, remittance))
    totals = _paid_totals(db, sorted({k[0] for k in grouped}))
    return [
        ClaimEvent(
            claim_key=claim_key,
            payer=payer,
            remittance_identity=identity,
            remittance_date=rows[0][1].payment_date,
            entries=tuple(_fact(e) for e, _ in rows),
            paid_total=totals.get((claim_key, payer.upper()), Decimal("0.00")),
            payer_id=rows[0][1].payer_id,
            payer_class=rows[0][1].payer_class,
        )
        for (claim_key, payer, identity), rows in grouped.items()
    ]


def _open(db: Session, batch: ImportBatch, opening: CaseOpening) -> int | None:
    """Insert the case (nothing when its denial was opened before) and its `opened` event; the new id."""
    new_id = service.insert_opening(
        db,
        opening,
        organization_id=batch.organization_id,
        client_id=batch.client_id,
        origin="remittance",
        source_batch_id=batch.id,
    )
    if new_id is not None:
        details = {"origin": "remittance", "batchId": batch.id, "amountAtStake": f"{opening.amount_at_stake:.2f}"}
        service.opened_event(
            db,
            new_id,
            organization_id=batch.organization_id,
            client_id=batch.client_id,
            actor_user_id=None,
            details=details,
        )
    return new_id


def apply_ledger_update(db: Session, case: DenialCase, update: CaseUpdate, *, batch_id: int | None) -> None:
    """Record what the ledger says was recovered, and move a fully recovered working case to won."""
    delta = money(update.recovered_amount - update.recovered_before)
    case.recovered_amount = update.recovered_amount
    case.last_update_reason = update.reason[:500]
    details: dict[str, Any] = {
        "batchId": batch_id,
        "recoveredBefore": f"{update.recovered_before:.2f}",
        "recovered": f"{update.recovered_amount:.2f}",
        "delta": f"{delta:.2f}",
        "paidIncrement": f"{update.paid_increment:.2f}",
    }
    if update.move_to is not None and CASE.can(case.state, update.move_to):
        move(CASE, case.state, update.move_to)
        service.apply_move(
            db, case, update.move_to, reason=update.reason, user_id=None, kind="ledger_update", details=details
        )
        return
    service.add_event(
        db,
        case,
        "ledger_update",
        actor_user_id=None,
        reason=update.reason,
        from_state=case.state,
        to_state=case.state,
        details=details,
    )
    db.flush()


#: A row of _ENTRY_COLUMNS (SQLAlchemy types a 16-column Row more narrowly than is useful here).
EntryRow = Any
#: The entry columns the rules read (plain rows: a big batch has hundreds of thousands of entries).
_ENTRY_COLUMNS = (
    FinancialEntry.row_id,
    FinancialEntry.claim_key,
    FinancialEntry.payer,
    FinancialEntry.entry_type,
    FinancialEntry.component,
    FinancialEntry.amount,
    FinancialEntry.claim_status_code,
    FinancialEntry.group_code,
    FinancialEntry.carc,
    FinancialEntry.rarcs,
    FinancialEntry.denial_category,
    FinancialEntry.is_denial,
    FinancialEntry.billed_amount,
    FinancialEntry.payer_claim_number,
    FinancialEntry.service_date,
    FinancialEntry.payment_date,
)


def _claim_entries(db: Session, batch_id: int) -> list[EntryRow]:
    return list(
        db.execute(
            select(*_ENTRY_COLUMNS)
            .where(
                FinancialEntry.batch_id == batch_id,
                FinancialEntry.claim_key.is_not(None),
                FinancialEntry.entry_type.in_(CLAIM_ENTRY_TYPES),
            )
            .order_by(FinancialEntry.row_id, FinancialEntry.id)
        ).all()
    )


def _remittances_by_row(db: Session, batch: ImportBatch) -> dict[int, _Remittance]:
    """Import row id -> the 835 remittance (transaction) its claim belongs to, for the batch's posted
    remittances. An adjustment row belongs to the claim row it hangs from."""
    if not batch.remittances:
        return {}
    by_index: dict[int, _Remittance] = {}
    for r in batch.remittances:
        if r.get("postedByBatchId") not in (None, batch.id):
            continue  # another batch posted it: none of this batch's entries come from it
        paid_on = date.fromisoformat(r["paymentDate"]) if r.get("paymentDate") else None
        payer_id = str(r["key"]).split("|", 1)[0] or None
        by_index[int(r["transactionIndex"])] = _Remittance(str(r["key"]), paid_on, payer_id)
    claims = db.execute(
        select(
            ImportRow.row_number,
            ImportRow.data["transaction_index"].as_integer(),
            ImportRow.data["filing_indicator"].as_string(),
        ).where(ImportRow.batch_id == batch.id, ImportRow.entity == "remittance_claim")
    ).all()
    txn_of_claim: dict[int, int] = {int(r[0]): int(r[1]) for r in claims if r[1] is not None}
    class_of_claim: dict[int, str | None] = {int(r[0]): payer_class_of(r[2]) for r in claims}
    rows = db.execute(
        select(ImportRow.id, ImportRow.entity, ImportRow.row_number, ImportRow.parent_row_number).where(
            ImportRow.batch_id == batch.id, ImportRow.entity.in_(("remittance_claim", "adjustment"))
        )
    ).all()
    out: dict[int, _Remittance] = {}
    for row in rows:
        claim_row = row.row_number if row.entity == "remittance_claim" else row.parent_row_number
        txn = txn_of_claim.get(claim_row) if claim_row is not None else None
        if txn is not None and txn in by_index and claim_row is not None:
            out[row.id] = replace(by_index[txn], payer_class=class_of_claim.get(claim_row))
    return out


def _tabular_remittance(batch: ImportBatch, entry: EntryRow) -> _Remittance:
    """A tabular export has no remittance identity: the payer's decision is named by its date and
    the payer's claim number, so the same denial exported twice is one event."""
    when = entry.payment_date.isoformat() if entry.payment_date else ""
    return _Remittance(f"tabular|{when}|{entry.payer_claim_number or ''}", entry.payment_date, None)


def _chunks(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def _paid_totals(db: Session, claim_keys: Sequence[str]) -> dict[tuple[str, str], Decimal]:
    """(claim key, upper-cased payer) -> the payer's paid total for the claim in the whole ledger."""
    out: dict[tuple[str, str], Decimal] = {}
    for chunk in _chunks(claim_keys):
        rows = db.execute(
            select(FinancialEntry.claim_key, func.upper(FinancialEntry.payer), func.sum(FinancialEntry.amount))
            .where(FinancialEntry.claim_key.in_(chunk), FinancialEntry.component == "paid")
            .group_by(FinancialEntry.claim_key, func.upper(FinancialEntry.payer))
        ).all()
        for claim_key, payer, total in rows:
            out[(str(claim_key), str(payer or UNKNOWN_PAYER).strip())] = money(Decimal(str(total or 0)))
    return out


def _working_cases(db: Session, claim_keys: Sequence[str]) -> dict[tuple[str, str], list[DenialCase]]:
    """Working cases of these claims by (claim key, upper-cased payer), locked for the update."""
    out: dict[tuple[str, str], list[DenialCase]] = defaultdict(list)
    for chunk in _chunks(claim_keys):
        found = db.scalars(
            select(DenialCase)
            .where(DenialCase.claim_key.in_(chunk), DenialCase.state.in_(sorted(UPDATABLE_STATES)))
            .order_by(DenialCase.id)
            .with_for_update()
        )
        for case in found:
            out[(case.claim_key, case.payer.strip().upper())].append(case)
    return out


def _open_case(case: DenialCase) -> OpenCase:
    return OpenCase(
        id=case.id,
        state=case.state,
        amount_at_stake=Decimal(case.amount_at_stake),
        paid_before=Decimal(case.paid_before),
        recovered_amount=Decimal(case.recovered_amount),
        recorded_by_hand=Decimal(case.recovered_by_hand),
    )


def _fact(e: EntryRow) -> EntryFact:
    return EntryFact(
        entry_type=e.entry_type,
        component=e.component,
        amount=Decimal(e.amount),
        claim_status_code=e.claim_status_code,
        group_code=e.group_code,
        carc=e.carc,
        rarcs=tuple(e.rarcs or ()),
        denial_category=e.denial_category,
        is_denial=e.is_denial,
        billed_amount=e.billed_amount,
        payer_claim_number=e.payer_claim_number,
        service_date=e.service_date,
    )
