"""Claims from confirmed files: an 837 (or a claims export) records submitted claims, an 835 adjudicates them.

Registered in the composition root as a `Services.batch_posted` listener, so it runs inside the
confirm's own transaction: the claims exist exactly when the batch's entries do (an error here rolls
the confirm back). Only the rows the confirm posted count (included, valid or repaired).

- 837 / CSV claims: one claim per claim key (CLM01, or the export's account number / claim id), in state
  ``submitted``, with its place of service (837P/837D CLM05-1, each line's SV105/SV303; the export's place
  of service column) and plan (837 SBR03; the export's plan column), as prior authorization matches them;
  idempotent on (client, claim key): a key already known is not inserted again (a claim approved for
  submission preparation moves to ``submitted``; any other state is left as it is).
- 835: a known claim that is submitted (or adjudicated already) moves to adjudicated_paid /
  _partially_paid / _denied by its last remittance in the file, and the paid amount is recorded.

Row data holds PHI (names, member ids, birth dates): it is read here, never logged, and the patient
becomes an opaque keyed digest (`patient_ref`), never stored in clear.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.core.services import BatchPostedListener
from api.denials.claims.lifecycle import ADJUDICATED_STATES, CLAIM
from api.denials.claims.models import Claim, ClaimAmount, ClaimLine, ClaimTransition
from api.denials.claims.transitions import move
from api.infra.db.base import table_of, utcnow
from api.money.ingestion import service as ingestion
from pipelines.ingest.classify import PREDETERMINATION_STATUS, REVERSAL_STATUS
from pipelines.ingest.money import ZERO, BadMoneyCell, read_money

CLAIM_BATCH_KINDS = frozenset({"claims_837", "csv_claims"})
ORIGIN_OF_KIND = {"claims_837": "837", "csv_claims": "csv"}
CHUNK = 500


@dataclass
class IntakeResult:
    """What one confirmed batch did to the client's claims."""

    created: int = 0
    submitted: int = 0  # existing claims moved to submitted
    adjudicated: int = 0
    unchanged: int = 0


@dataclass
class IncomingClaim:
    claim_key: str
    total_charge: Decimal
    payer: str | None = None
    payer_id: str | None = None
    filing_indicator: str | None = None
    statement_from: date | None = None
    statement_to: date | None = None
    facility_type: str | None = None
    bill_type: str | None = None
    place_of_service: str | None = None
    plan: str | None = None
    diagnosis_codes: list[str] = field(default_factory=list)
    patient_ref: str | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)


#: An included, valid import row of a confirmed batch (ingestion publishes it).
PostedRow = ingestion.PostedRow
#: A posted financial entry (ingestion publishes it).
PostedEntry = ingestion.PostedEntry


def listener(patient_key: bytes) -> BatchPostedListener:
    """The batch_posted listener, with the installation's key for patient digests."""

    def on_batch_posted(db: Session, batch_id: int, /) -> None:
        claims_from_batch(db, batch_id, patient_key=patient_key)

    return on_batch_posted


def claims_from_batch(db: Session, batch_id: int, *, patient_key: bytes = b"") -> IntakeResult:
    """Record the claims of a confirmed 837 / claims export, or adjudicate known claims from an 835."""
    batch = ingestion.posted_batch(db, batch_id)
    if batch is None or batch.status != "confirmed":
        return IntakeResult()
    rows = ingestion.posted_rows(db, batch_id)
    if batch.kind in CLAIM_BATCH_KINDS:
        incoming = (
            claims_from_837_rows(rows, patient_key)
            if batch.kind == "claims_837"
            else claims_from_csv_rows(rows, patient_key)
        )
        return _record_submissions(db, batch, incoming)
    if batch.kind == "era_835":
        return _record_adjudications(db, batch, rows)
    return IntakeResult()


# --- rows -> claims (pure) -------------------------------------------------------------------


def _text(value: Any, width: int) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text[:width] if text else None


def _money(value: Any) -> Decimal:
    """A money cell of a posted row; an empty one, or one that is not an amount, is 0.00: the claim
    record describes what was billed, the ledger (posting, which refuses a bad cell) holds the money."""
    try:
        return read_money(value) or ZERO
    except BadMoneyCell:
        return ZERO


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _units(value: Any) -> Decimal | None:
    try:
        units = Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None
    return units.quantize(Decimal("0.001")) if units is not None and 0 <= units < 10**9 else None


def place_of_service(value: Any) -> str | None:
    """A CMS place-of-service code (two digits, 01-99: the CMS Place of Service Code Set), None when the
    value is not one: the claim records what was billed, a malformed code is not refused here (the ledger
    already holds the row), it only matches no place-specific requirement. One digit is a code whose
    leading zero a spreadsheet dropped (``2`` is telehealth ``02``)."""
    text = "" if value is None else str(value).strip()
    if len(text) == 1:
        text = "0" + text
    return text if len(text) == 2 and text.isascii() and text.isdigit() else None


def plan_of(value: Any) -> str | None:
    """The plan a claim is billed under, trimmed and upper-cased as prior-authorization requirements store
    and compare theirs (``api.denials.prior_authorization.requirements``), at most 80 characters."""
    text = _text(value, 80)
    return text.upper() if text else None


#: The claim types whose CLM05-1 is a place of service: 837P (005010X222A1, 2300 CLM05-1 "Place of Service
#: Code", code source 237) and 837D (005010X224A2, the same). An 837I's CLM05-1 is the facility type code
#: of its type of bill (code source 236), not a place of service.
POS_CLAIM_TYPES = frozenset({"837P", "837D"})


def patient_ref(patient_key: bytes, *parts: Any) -> str | None:
    """An opaque, stable reference to a patient: a keyed digest of what identifies them in the file."""
    cleaned = ["" if p is None else str(p).strip().upper() for p in parts]
    if not any(cleaned):
        return None
    digest = hmac.new(patient_key or b"claims", "\x1f".join(cleaned).encode("utf-8"), hashlib.sha256)
    return "pt_" + digest.hexdigest()[:32]


def claims_from_837_rows(rows: Iterable[PostedRow], patient_key: bytes) -> list[IncomingClaim]:
    """One claim per 837 claim row (the first of a repeated CLM01 wins) with its posted lines."""
    claims: dict[str, IncomingClaim] = {}
    by_row: dict[int, IncomingClaim] = {}
    for row in rows:
        d = row.data
        if row.entity == "claim":
            key = _text(d.get("patient_control_number"), 80)
            if key is None or key in claims:
                continue
            facility, frequency = _text(d.get("facility_code"), 2), _text(d.get("frequency_code"), 1)
            claims[key] = by_row[row.row_number] = IncomingClaim(
                claim_key=key,
                total_charge=_money(d.get("total_charge")),
                payer=_text(d.get("payer_name"), 200),
                payer_id=_text(d.get("payer_id"), 80),
                filing_indicator=_text(d.get("filing_indicator"), 2),
                statement_from=_day(d.get("statement_from")),
                statement_to=_day(d.get("statement_to")),
                facility_type=facility,
                bill_type=f"{facility}{frequency}" if facility and frequency else None,
                place_of_service=_claim_place_of_service(d),
                plan=plan_of(d.get("subscriber_group_number")),  # SBR03 of the subscriber loop (2000B)
                diagnosis_codes=[str(c)[:10] for c in (d.get("diagnosis_codes") or [])][:25],
                patient_ref=patient_ref(
                    patient_key,
                    d.get("subscriber_member_id"),
                    d.get("patient_birth_date"),
                    d.get("patient_last_name"),
                    d.get("patient_first_name"),
                ),
            )
        elif row.entity == "claim_line" and row.parent_row_number in by_row:
            by_row[row.parent_row_number].lines.append(_line_from_837(d))
    return list(claims.values())


def _claim_place_of_service(d: dict[str, Any]) -> str | None:
    """CLM05-1 as the claim's place of service, only where it is one (``POS_CLAIM_TYPES``)."""
    return place_of_service(d.get("facility_code")) if d.get("claim_type") in POS_CLAIM_TYPES else None


def _line_from_837(d: dict[str, Any]) -> dict[str, Any]:
    modifiers = [str(d[f"modifier_{i}"])[:2] for i in range(1, 5) if d.get(f"modifier_{i}")]
    return {
        "procedure_code": _text(d.get("procedure_code"), 20),
        "modifiers": modifiers,
        "revenue_code": _text(d.get("revenue_code"), 10),
        "units": _units(d.get("units")),
        "charge": _money(d.get("charge_amount")),
        "service_date_from": _day(d.get("service_date_from")),
        "service_date_to": _day(d.get("service_date_to")),
        # 837P SV105 (837D SV303): the line's place of service when it differs from the claim's CLM05-1
        "place_of_service": place_of_service(d.get("place_of_service")),
    }


def claims_from_csv_rows(rows: Iterable[PostedRow], patient_key: bytes) -> list[IncomingClaim]:
    """A claims export: rows sharing a claim key are one claim, each row with a code one of its lines."""
    claims: dict[str, IncomingClaim] = {}
    for row in rows:
        d = row.data
        key = _text(d.get("patient_account_number") or d.get("claim_id"), 80)
        if row.entity != "csv_claim" or key is None:
            continue
        charge = _money(d.get("billed_amount"))
        claim = claims.get(key)
        if claim is None:
            bill_type = _text(d.get("bill_type"), 4)
            claim = claims[key] = IncomingClaim(
                claim_key=key,
                total_charge=Decimal("0.00"),
                payer=_text(d.get("payer_name"), 200),
                statement_from=_day(d.get("service_from")),
                statement_to=_day(d.get("service_to")) or _day(d.get("service_from")),
                bill_type=bill_type,
                facility_type=bill_type[-3:-1] if bill_type and len(bill_type) >= 3 else None,
                place_of_service=place_of_service(d.get("place_of_service")),  # the claim's first row's
                plan=plan_of(d.get("plan")),
                diagnosis_codes=[str(c)[:10] for c in (d.get("diagnosis") or [])][:25],
                patient_ref=patient_ref(
                    patient_key, d.get("mrn") or d.get("member_id"), d.get("patient_birth_date"), d.get("patient_name")
                ),
            )
        claim.total_charge += charge
        if d.get("procedure_code") or d.get("revenue_code"):
            claim.lines.append(
                {
                    "procedure_code": _text(d.get("procedure_code"), 20),
                    "modifiers": [],
                    "revenue_code": _text(d.get("revenue_code"), 10),
                    "units": None,
                    "charge": charge,
                    "service_date_from": _day(d.get("service_from")),
                    "service_date_to": _day(d.get("service_to")),
                    "place_of_service": place_of_service(d.get("place_of_service")),
                }
            )
    return list(claims.values())


# --- writes ----------------------------------------------------------------------------------


def _existing(db: Session, keys: Sequence[str]) -> dict[str, Claim]:
    found: dict[str, Claim] = {}
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        found.update({c.claim_key: c for c in db.scalars(select(Claim).where(Claim.claim_key.in_(chunk)))})
    return found


def _record_submissions(db: Session, batch: ingestion.PostedBatch, incoming: list[IncomingClaim]) -> IntakeResult:
    result = IntakeResult()
    existing = _existing(db, [c.claim_key for c in incoming])
    reason = f"submitted in import batch {batch.id}"
    for claim in existing.values():
        if CLAIM.can(claim.state, "submitted") and claim.state != "submitted":
            move(db, claim, "submitted", batch.confirmed_by, reason)
            claim.source_batch_id = batch.id
            result.submitted += 1
        else:
            result.unchanged += 1
    new = [c for c in incoming if c.claim_key not in existing]
    for start in range(0, len(new), CHUNK):
        result.created += _insert_claims(db, batch, new[start : start + CHUNK], reason)
    result.unchanged += len(new) - result.created
    db.flush()
    return result


def _insert_claims(db: Session, batch: ingestion.PostedBatch, claims: list[IncomingClaim], reason: str) -> int:
    """Insert claims with their lines and their first transition; a key inserted meanwhile by a
    concurrent confirm is skipped (ON CONFLICT DO NOTHING), never duplicated."""
    now = utcnow()
    tenant = {"organization_id": batch.organization_id, "client_id": batch.client_id}
    values = [
        {
            **tenant,
            "created_at": now,
            "claim_key": c.claim_key,
            "payer": c.payer,
            "payer_id": c.payer_id,
            "filing_indicator": c.filing_indicator,
            "statement_from": c.statement_from,
            "statement_to": c.statement_to,
            "total_charge": c.total_charge,
            "facility_type": c.facility_type,
            "bill_type": c.bill_type,
            "place_of_service": c.place_of_service,
            "plan": c.plan,
            "diagnosis_codes": c.diagnosis_codes,
            "origin": ORIGIN_OF_KIND[batch.kind],
            "source_batch_id": batch.id,
            "patient_ref": c.patient_ref,
            "is_synthetic": False,
            "synthetic_seed": None,
            "state": "submitted",
            "state_changed_at": now,
            "created_by": batch.confirmed_by,
            "submission_requested_by": None,
            "submission_approved_by": None,
        }
        for c in claims
    ]
    table = table_of(Claim)
    insert_into = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    inserted = {
        r.claim_key: r.id
        for r in db.execute(
            insert_into(table)
            .on_conflict_do_nothing(index_elements=["client_id", "claim_key"])
            .returning(table.c.id, table.c.claim_key),
            values,
        )
    }
    lines = [
        {**tenant, "claim_id": inserted[c.claim_key], "line_number": n, **line}
        for c in claims
        if c.claim_key in inserted
        for n, line in enumerate(c.lines, start=1)
    ]
    if lines:
        db.execute(insert(table_of(ClaimLine)), lines)
    moves = [
        {
            **tenant,
            "created_at": now,
            "claim_id": claim_id,
            "from_state": None,
            "to_state": "submitted",
            "actor_user_id": batch.confirmed_by,
            "reason": reason,
        }
        for claim_id in inserted.values()
    ]
    if moves:
        db.execute(insert(table_of(ClaimTransition)), moves)
    return len(inserted)


# --- 835 -> adjudications ----------------------------------------------------------------------


@dataclass(frozen=True)
class Adjudication:
    claim_key: str
    status: str | None
    paid: Decimal
    denied: Decimal
    patient: Decimal


def adjudication_state(status: str | None, paid: Decimal, denied: Decimal) -> str | None:
    """The claim state a remittance decision means; None for a reversal or a predetermination (no decision)."""
    if status in (REVERSAL_STATUS, PREDETERMINATION_STATUS):
        return None
    if status == "4" or (denied > 0 and paid <= 0):
        return "adjudicated_denied"
    return "adjudicated_partially_paid" if denied > 0 else "adjudicated_paid"


def _entries_by_claim_row(rows: Sequence[PostedRow], entries: Iterable[PostedEntry]) -> dict[int, list[PostedEntry]]:
    """Posted entries grouped by the row number of the CLP they belong to (its own or its adjustments')."""
    owner = {r.id: (r.parent_row_number or r.row_number) for r in rows}
    posted: dict[int, list[PostedEntry]] = defaultdict(list)
    for entry in entries:
        if entry.row_id is not None and entry.row_id in owner:
            posted[owner[entry.row_id]].append(entry)
    return posted


def _total(entries: Iterable[PostedEntry]) -> Decimal:
    return sum((e.amount for e in entries), Decimal("0.00"))


def adjudications(rows: Sequence[PostedRow], entries: Iterable[PostedEntry]) -> dict[str, Adjudication]:
    """Per claim key, the last decision of the file (reversals and predeterminations skipped), with the
    amounts the confirm posted for that CLP: paid, denied and patient responsibility."""
    posted = _entries_by_claim_row(rows, entries)
    out: dict[str, Adjudication] = {}
    for row in rows:
        key, status = row.data.get("patient_control_number"), row.data.get("claim_status_code")
        if row.entity != "remittance_claim" or not key or status in (REVERSAL_STATUS, PREDETERMINATION_STATUS):
            continue
        mine = posted.get(row.row_number, [])
        out[key] = Adjudication(
            claim_key=key,
            status=status,
            paid=_total(e for e in mine if e.entry_type == "payment"),
            denied=_total(e for e in mine if e.is_denial),
            patient=_total(e for e in mine if e.entry_type == "patient_responsibility"),
        )
    return out


def _record_adjudications(db: Session, batch: ingestion.PostedBatch, rows: list[PostedRow]) -> IntakeResult:
    result = IntakeResult()
    entries = ingestion.batch_entries(db, batch.id)
    decided = adjudications(rows, entries)
    reason = f"remittance in import batch {batch.id}"
    for claim in _existing(db, sorted(decided)).values():
        found = decided[claim.claim_key]
        target = adjudication_state(found.status, found.paid, found.denied)
        if claim.state not in ADJUDICATED_STATES | {"submitted"} or target is None or target == claim.state:
            result.unchanged += 1
            continue
        move(db, claim, target, batch.confirmed_by, reason)
        for kind, amount in (("paid", found.paid), ("patient", found.patient)):
            if amount or kind == "paid":
                db.add(
                    ClaimAmount(
                        claim_id=claim.id,
                        kind=kind,
                        amount=amount,
                        source="remittance",
                        reference=f"import batch {batch.id}",
                        recorded_by=batch.confirmed_by,
                    )
                )
        result.adjudicated += 1
    db.flush()
    return result
