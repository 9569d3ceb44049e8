"""What other contexts read of the posted ledger: a confirmed batch, its import rows, its financial
entries and the client's posted remittances (published through `api.money.ingestion.service`).

Claims, cases, deadlines, human attention and workflow readiness are built from what a confirm posted;
they read it here, as plain values or rows, so ingestion's tables stay ingestion's. Where a caller
composes the ledger into a larger statement (a CTE joined to its own tables) the read is published as
that selectable, so the database still plans one statement.

Every function takes a tenant-scoped session (queries on tenant tables only see the caller's client)
and never writes. Callers chunk long id lists themselves (each function reads what it is given).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import CTE, and_, case, func, literal, or_, select, tuple_
from sqlalchemy.orm import Session

from api.money.ingestion.models import FinancialEntry, ImportBatch, ImportRow, PostedRemittance

# --- batches --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PostedBatch:
    """What a confirmed batch's listeners need of it: its identity, kind, status and confirmer."""

    id: int
    organization_id: int
    client_id: int
    kind: str
    status: str
    confirmed_by: int | None


def posted_batch(db: Session, batch_id: int) -> PostedBatch | None:
    """The batch `batch_id`, None if the session does not see it."""
    found = db.execute(
        select(
            ImportBatch.id,
            ImportBatch.organization_id,
            ImportBatch.client_id,
            ImportBatch.kind,
            ImportBatch.status,
            ImportBatch.confirmed_by,
        ).where(ImportBatch.id == batch_id)
    ).first()
    return None if found is None else PostedBatch(*found)


def batch_kinds_and_remittances(db: Session, batch_ids: Sequence[int]) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """(batch id, kind, its 835 remittance metadata) of each of the batches."""
    query = select(ImportBatch.id, ImportBatch.kind, ImportBatch.remittances).where(ImportBatch.id.in_(batch_ids))
    return [(int(b.id), str(b.kind), list(b.remittances or [])) for b in db.execute(query)]


def confirmed_remittance_count(db: Session) -> int:
    """How many 835 remittances the client has posted."""
    return int(db.scalar(select(func.count(PostedRemittance.id))) or 0)


# --- import rows ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PostedRow:
    """An included, valid import row of a confirmed batch: what it says and where it hangs."""

    id: int
    row_number: int
    entity: str
    data: dict[str, Any]
    parent_row_number: int | None


def posted_rows(db: Session, batch_id: int) -> list[PostedRow]:
    """The batch's included rows that are not invalid, in file order."""
    found = db.execute(
        select(ImportRow.id, ImportRow.row_number, ImportRow.entity, ImportRow.data, ImportRow.parent_row_number)
        .where(ImportRow.batch_id == batch_id, ImportRow.decision == "include", ImportRow.status != "invalid")
        .order_by(ImportRow.row_number)
    )
    return [PostedRow(r.id, r.row_number, r.entity, r.data, r.parent_row_number) for r in found]


_TXN = ImportRow.data["transaction_index"].as_integer()
_FILING = ImportRow.data["filing_indicator"].as_string()
_STATED = ImportRow.data["appeal_deadline"].as_string()
_PCN = ImportRow.data["patient_control_number"].as_string()

#: (row id, batch, entity, row number, parent row number, transaction index, CLP06, the export's appeal deadline)
RowPlace = tuple[int, int, str, int, int | None, int | None, str | None, str | None]


def row_places(db: Session, row_ids: Sequence[int]) -> list[RowPlace]:
    """Where each of the rows sits: its batch, entity, number and parent, its 835 transaction index,
    CLP06 and the export's own appeal deadline."""
    columns = (ImportRow.id, ImportRow.batch_id, ImportRow.entity, ImportRow.row_number, ImportRow.parent_row_number)
    query = select(*columns, _TXN, _FILING, _STATED).where(ImportRow.id.in_(row_ids))
    return [(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in db.execute(query)]


def remittance_claim_rows(
    db: Session, keys: Sequence[tuple[int, int]]
) -> list[tuple[int, int, int | None, str | None]]:
    """(batch, row number, transaction index, CLP06) of the 835 claim rows at the (batch, row number) keys."""
    query = select(ImportRow.batch_id, ImportRow.row_number, _TXN, _FILING).where(
        tuple_(ImportRow.batch_id, ImportRow.row_number).in_(list(keys)), ImportRow.entity == "remittance_claim"
    )
    return [(r[0], r[1], r[2], r[3]) for r in db.execute(query)]


def remitted_claims(
    db: Session, batch_ids: Sequence[int], claim_keys: Sequence[str] | None
) -> list[tuple[int, str | None, str | None, str | None]]:
    """(batch, CLP01, CLP06, DTM*233) of the 835 claim rows of the batches; only those of `claim_keys`
    when given (the caller filters otherwise)."""
    stmt = select(
        ImportRow.batch_id,
        _PCN,
        ImportRow.data["filing_indicator"].as_string(),
        ImportRow.data["statement_to"].as_string(),
    ).where(ImportRow.batch_id.in_(batch_ids), ImportRow.entity == "remittance_claim")
    if claim_keys is not None:
        stmt = stmt.where(_PCN.in_(claim_keys))
    return [(r[0], r[1], r[2], r[3]) for r in db.execute(stmt).tuples()]


def claim_keys_of_type(
    db: Session, batch_ids: Sequence[int], claim_type: str, claim_keys: Sequence[str] | None
) -> set[str]:
    """The CLM01s of the 837 claim rows of the batches whose claim type is `claim_type`; only among
    `claim_keys` when given (the caller filters otherwise)."""
    stmt = select(_PCN).where(
        ImportRow.batch_id.in_(batch_ids),
        ImportRow.entity == "claim",
        ImportRow.data["claim_type"].as_string() == claim_type,
    )
    if claim_keys is not None:
        stmt = stmt.where(_PCN.in_(claim_keys))
    return {str(k) for (k,) in db.execute(stmt).tuples()}


# --- financial entries ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PostedEntry:
    """A posted financial entry, as the claims' adjudications and remittance links total it."""

    id: int
    batch_id: int
    row_id: int | None
    claim_key: str | None
    payer: str | None
    entry_type: str
    component: str
    amount: Decimal
    is_denial: bool
    payment_date: date | None


_POSTED_ENTRY = (
    FinancialEntry.id,
    FinancialEntry.batch_id,
    FinancialEntry.row_id,
    FinancialEntry.claim_key,
    FinancialEntry.payer,
    FinancialEntry.entry_type,
    FinancialEntry.component,
    FinancialEntry.amount,
    FinancialEntry.is_denial,
    FinancialEntry.payment_date,
)


def _posted_entry(r: Any) -> PostedEntry:
    """A row of `_POSTED_ENTRY` as a PostedEntry (mypy types a ten-column Row too narrowly to unpack)."""
    return PostedEntry(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9])


def batch_entries(db: Session, batch_id: int) -> list[PostedEntry]:
    """Every entry the batch posted."""
    query = select(*_POSTED_ENTRY).where(FinancialEntry.batch_id == batch_id)
    return [_posted_entry(r) for r in db.execute(query)]


def claim_entries(db: Session, claim_key: str, entry_types: Iterable[str]) -> list[PostedEntry]:
    """The claim's entries of the types, in posting order."""
    query = (
        select(*_POSTED_ENTRY)
        .where(FinancialEntry.claim_key == claim_key, FinancialEntry.entry_type.in_(list(entry_types)))
        .order_by(FinancialEntry.id)
    )
    return [_posted_entry(r) for r in db.execute(query)]


def batch_claim_keys(db: Session, batch_id: int, entry_types: Iterable[str]) -> list[str]:
    """The claim keys the batch posted entries of the types for, sorted."""
    rows = db.scalars(
        select(FinancialEntry.claim_key)
        .where(
            FinancialEntry.batch_id == batch_id,
            FinancialEntry.claim_key.is_not(None),
            FinancialEntry.entry_type.in_(list(entry_types)),
        )
        .distinct()
    )
    return sorted({str(k) for k in rows if k})


def batch_payers(db: Session, batch_id: int) -> list[str]:
    """The payers (upper-cased, trimmed) the batch posted entries for, sorted."""
    stmt = (
        select(func.upper(func.trim(FinancialEntry.payer)))
        .where(FinancialEntry.batch_id == batch_id, FinancialEntry.payer.is_not(None))
        .distinct()
    )
    found: Sequence[Any] = db.scalars(stmt).all()
    return sorted(str(name) for name in found)


def payer_spellings(db: Session, limit: int) -> list[str]:
    """The payer names (upper-cased, trimmed) the client's posted entries carry, at most `limit`, sorted."""
    spelled = func.upper(func.trim(FinancialEntry.payer))
    stmt = select(spelled).where(FinancialEntry.payer.is_not(None)).distinct().order_by(spelled).limit(limit)
    found: Sequence[Any] = db.scalars(stmt).all()
    return [str(name) for name in found if name]


def paid_total(db: Session, claim_key: str, payer: str) -> Any:
    """The sum of the claim's `paid` component entries from `payer` (matched case-insensitively), as
    the database answers it (0 when none)."""
    return db.scalar(
        select(func.coalesce(func.sum(FinancialEntry.amount), 0)).where(
            FinancialEntry.claim_key == claim_key,
            func.upper(FinancialEntry.payer) == payer.strip().upper(),
            FinancialEntry.component == "paid",
        )
    )


#: Ledger columns of a claim's events, in the order `claim_event_entries` answers them.
_EVENT_COLUMNS = (
    FinancialEntry.batch_id,
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


def claim_event_entries(db: Session, claim_keys: Sequence[str], entry_types: Iterable[str]) -> list[Any]:
    """Every entry of the types posted for the claims (all payers, all batches), as rows of the
    `_EVENT_COLUMNS` by name, in batch, row and posting order."""
    return list(
        db.execute(
            select(*_EVENT_COLUMNS)
            .where(FinancialEntry.claim_key.in_(claim_keys), FinancialEntry.entry_type.in_(list(entry_types)))
            .order_by(FinancialEntry.batch_id, FinancialEntry.row_id, FinancialEntry.id)
        ).all()
    )


def decisions_cte(decision_types: Iterable[str], denied_status: str) -> CTE:
    """Every posted payer decision on a claim (entries of the types with a claim, payer and payment
    date) as a materialized CTE `decisions` of claim_key, payer_key (upper-cased, trimmed), payer_name,
    paid_on, batch_id, reference, amount, denies (1 when it denies money: a denial entry, or any
    amount of a claim whose CLP02 is `denied_status`) and category."""
    fe = FinancialEntry
    denies = or_(
        and_(fe.is_denial.is_(True), fe.amount > 0), and_(fe.claim_status_code == denied_status, fe.amount > 0)
    )
    return (
        select(
            fe.claim_key.label("claim_key"),
            func.upper(func.trim(fe.payer)).label("payer_key"),
            func.trim(fe.payer).label("payer_name"),
            fe.payment_date.label("paid_on"),
            fe.batch_id.label("batch_id"),
            func.coalesce(fe.reference, literal("")).label("reference"),
            fe.amount.label("amount"),
            case((denies, 1), else_=0).label("denies"),
            func.coalesce(fe.denial_category, literal("")).label("category"),
        )
        .where(
            fe.claim_key.is_not(None),
            fe.payer.is_not(None),
            fe.payment_date.is_not(None),
            fe.entry_type.in_(list(decision_types)),
        )
        .cte("decisions")
        .prefix_with("MATERIALIZED")
    )


# --- a claim's ledger, entry by entry (revenueGraph.forClaim) --------------------------------------


@dataclass(frozen=True)
class LedgerEntry:
    """A posted entry of one claim with the remitted claim (CLP) it belongs to: `claim_row` is the row
    number of that CLP in its batch (an adjustment's parent, a claim row's own; None for an entry without
    a row, a PLB), so the entries of one adjudication share (batch_id, claim_row)."""

    id: int
    batch_id: int
    claim_row: int | None
    entry_type: str
    component: str
    amount: Decimal
    payer: str | None
    payer_claim_number: str | None
    claim_status_code: str | None
    billed_amount: Decimal | None
    group_code: str | None
    carc: str | None
    denial_category: str | None
    is_denial: bool
    payment_date: date | None
    reference: str | None
    reverses_entry_id: int | None


#: The entry columns of a LedgerEntry after its id, batch and CLP row, in its field order.
_LEDGER_COLUMNS = (
    FinancialEntry.entry_type,
    FinancialEntry.component,
    FinancialEntry.amount,
    FinancialEntry.payer,
    FinancialEntry.payer_claim_number,
    FinancialEntry.claim_status_code,
    FinancialEntry.billed_amount,
    FinancialEntry.group_code,
    FinancialEntry.carc,
    FinancialEntry.denial_category,
    FinancialEntry.is_denial,
    FinancialEntry.payment_date,
    FinancialEntry.reference,
    FinancialEntry.reverses_entry_id,
)


def claim_ledger(db: Session, claim_key: str, limit: int) -> list[LedgerEntry]:
    """The first `limit` entries posted for the claim (every payer, batch and type), in batch, CLP and
    posting order."""
    fe = FinancialEntry
    owner = func.coalesce(ImportRow.parent_row_number, ImportRow.row_number)
    stmt = (
        select(fe.id, fe.batch_id, owner, *_LEDGER_COLUMNS)
        .outerjoin(ImportRow, ImportRow.id == fe.row_id)
        .where(fe.claim_key == claim_key)
        .order_by(fe.batch_id, owner, fe.id)
        .limit(limit)
    )
    return [LedgerEntry(*tuple(r)) for r in db.execute(stmt)]
