"""Claims use cases on the operational database: create, read, move, correct, amounts, attachments.

Functions take the tenant-scoped session (every query sees only the caller's client) and never commit.
Messages name fields and states, never the claim key, the patient or any other PHI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, TypeAlias

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, Forbidden, InvalidInput, PreconditionFailed
from api.core.hooks import Hook
from api.core.services import SubmissionBlocker
from api.denials.claims.lifecycle import ADJUDICATED_STATES, CLAIM, FINAL_STATES
from api.denials.claims.models import (
    Claim,
    ClaimAmount,
    ClaimAttachment,
    ClaimExternalAction,
    ClaimLine,
    ClaimLink,
    ClaimTransition,
)
from api.denials.claims.transitions import move
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.platform.organizations.service import require_independent

#: The header fields a claim is created with and a correction may change (the wire's `ClaimFields`).
HEADER_FIELDS = (
    "payer",
    "payer_id",
    "filing_indicator",
    "statement_from",
    "statement_to",
    "facility_type",
    "bill_type",
    "place_of_service",
    "plan",
    "diagnosis_codes",
    "patient_ref",
)


@dataclass(frozen=True)
class NewLine:
    """A service line: a procedure code or a revenue code, units, charge and service dates."""

    charge: Decimal
    service_date_from: date
    procedure_code: str | None = None
    modifiers: tuple[str, ...] = ()
    revenue_code: str | None = None
    units: Decimal = Decimal(1)
    service_date_to: date | None = None
    place_of_service: str | None = None  # the line's own, when it is not the claim's


@dataclass(frozen=True)
class NewClaim:
    """A claim created by hand (or by synthetic UAT) with its lines; `total_charge`, when given, must be
    the sum of the line charges."""

    claim_key: str
    payer: str
    statement_from: date
    statement_to: date
    lines: tuple[NewLine, ...]
    total_charge: Decimal | None = None
    payer_id: str | None = None
    filing_indicator: str | None = None
    facility_type: str | None = None
    bill_type: str | None = None
    place_of_service: str | None = None  # a CMS place-of-service code (2 digits)
    plan: str | None = None  # upper-cased, as prior-authorization requirements compare plans
    diagnosis_codes: tuple[str, ...] | None = None
    patient_ref: str | None = None


def get_claim(db: Session, claim_id: int, *, for_update: bool = False) -> Claim:
    """The claim if it belongs to the caller's client, else NOT_FOUND (ids of other tenants never leak)."""
    return get_by_id(db, Claim, claim_id, "Claim", for_update=for_update)


def _check_dates(statement_from: Any, statement_to: Any) -> None:
    if statement_from is not None and statement_to is not None and statement_to < statement_from:
        raise InvalidInput("Invalid input: 'statementTo' is before 'statementFrom'")


def _check_lines(lines: Sequence[NewLine], total: Decimal | None) -> Decimal:
    """The sum of the line charges; InvalidInput naming the field when a line or the total disagrees."""
    for n, line in enumerate(lines):
        if line.service_date_to is not None and line.service_date_to < line.service_date_from:
            raise InvalidInput(f"Invalid input: 'lines.{n}.serviceDateTo' is before 'lines.{n}.serviceDateFrom'")
        if line.procedure_code is None and line.revenue_code is None:
            raise InvalidInput(f"Invalid input: 'lines.{n}' needs a 'procedureCode' or a 'revenueCode'")
    summed = sum((line.charge for line in lines), Decimal("0.00"))
    if total is not None and total != summed:
        raise InvalidInput(f"Invalid input: 'totalCharge' {total:.2f} is not the sum of the line charges {summed:.2f}")
    return summed


def _line_rows(claim: Claim, lines: Sequence[NewLine]) -> list[ClaimLine]:
    return [
        ClaimLine(
            claim_id=claim.id,
            line_number=n,
            procedure_code=line.procedure_code,
            modifiers=list(line.modifiers),
            revenue_code=line.revenue_code,
            units=line.units,
            charge=line.charge,
            service_date_from=line.service_date_from,
            service_date_to=line.service_date_to,
            place_of_service=line.place_of_service,
        )
        for n, line in enumerate(lines, start=1)
    ]


def create(db: Session, input: NewClaim, user_id: int, *, origin: str = "manual", seed: int | None = None) -> Claim:
    """A new claim in `draft` with its lines; CONFLICT when the client already has the claim key."""
    _check_dates(input.statement_from, input.statement_to)
    total = _check_lines(input.lines, input.total_charge)
    if db.scalar(select(Claim.id).where(Claim.claim_key == input.claim_key)) is not None:
        raise Conflict("A claim with this 'claimKey' already exists in this client")
    now = utcnow()
    claim = Claim(
        claim_key=input.claim_key,
        **{name: getattr(input, name) for name in HEADER_FIELDS},
        total_charge=total,
        origin=origin,
        is_synthetic=origin == "synthetic",
        synthetic_seed=seed,
        state="draft",
        state_changed_at=now,
        created_by=user_id,
    )
    claim.diagnosis_codes = list(input.diagnosis_codes or [])
    db.add(claim)
    db.flush()
    db.add_all(_line_rows(claim, input.lines))
    db.add(ClaimTransition(claim_id=claim.id, from_state=None, to_state="draft", actor_user_id=user_id))
    db.flush()
    return claim


@dataclass(frozen=True)
class MigratedClaim:
    """A claim moved from a hospital's old system: header only (the old system's lines stay there)."""

    claim_key: str
    payer: str
    total_charge: Decimal
    state: str  # where the claim stood in the old system: submitted or adjudicated_*
    statement_from: date | None = None
    statement_to: date | None = None
    open_balance: Decimal | None = None


def create_migrated(db: Session, given: MigratedClaim, user_id: int, *, reason: str) -> Claim:
    """A claim from a migration (origin `migration`) in the state it had, its creation recorded as one
    transition with `reason` (which names the migration) and its open balance as an `expected` amount.
    CONFLICT when the client already has the claim key (the migration's plan said it did not)."""
    _check_dates(given.statement_from, given.statement_to)
    if given.state not in CLAIM.states:
        raise InvalidInput(f"'{given.state}' is not a claim state")
    if db.scalar(select(Claim.id).where(Claim.claim_key == given.claim_key)) is not None:
        raise Conflict("A claim with this 'claimKey' already exists in this client")
    claim = Claim(
        claim_key=given.claim_key,
        payer=given.payer,
        statement_from=given.statement_from,
        statement_to=given.statement_to,
        total_charge=given.total_charge,
        diagnosis_codes=[],
        origin="migration",
        is_synthetic=False,
        state=given.state,
        state_changed_at=utcnow(),
        created_by=user_id,
    )
    db.add(claim)
    db.flush()
    db.add(
        ClaimTransition(claim_id=claim.id, from_state=None, to_state=given.state, actor_user_id=user_id, reason=reason)
    )
    if given.open_balance is not None:
        db.add(
            ClaimAmount(
                claim_id=claim.id,
                kind="expected",
                amount=given.open_balance,
                source="migration",
                reference=reason[:120],
                recorded_by=user_id,
            )
        )
    db.flush()
    return claim


# The header fields a migration may fill on a claim the client already has (its plan says which are blank).
MIGRATION_FILLABLE = ("payer", "statement_from", "statement_to")


def fill_migrated(db: Session, claim_id: int, values: dict[str, Any]) -> Claim:
    """Set header fields a migration found blank on the client's claim (locked; NOT_FOUND if not the
    client's). Only `MIGRATION_FILLABLE` fields; anything else is a wiring error, refused as INVALID_INPUT."""
    unknown = sorted(set(values) - set(MIGRATION_FILLABLE))
    if unknown:
        raise InvalidInput(f"Invalid input: a migration cannot set {', '.join(unknown)} on a claim")
    claim = get_claim(db, claim_id, for_update=True)
    for name, value in values.items():
        setattr(claim, name, value)
    return claim


def list_statement(
    *,
    state: str | None = None,
    origin: str | None = None,
    payer: str | None = None,
    claim_key: str | None = None,
    is_synthetic: bool | None = None,
) -> Select[Any]:
    """Claims by state, origin, payer, claim key and synthetic or not (each when given); unordered, for paging."""
    return where_given(
        select(Claim),
        (Claim.state, state),
        (Claim.origin, origin),
        (Claim.payer, payer),
        (Claim.claim_key, claim_key),
        (Claim.is_synthetic, is_synthetic),
    )


def summary(claim: Claim) -> dict[str, Any]:
    """The claim's header as the wire shows it, with the moves its state allows next."""
    out = {c.key: getattr(claim, c.key) for c in Claim.__table__.columns}
    out["allowed_moves"] = sorted(CLAIM.allowed(claim.state))
    return out


def detail(db: Session, claim: Claim) -> dict[str, Any]:
    """The claim with its lines, amounts, attachments, links, prepared actions and full history."""

    def of(model: Any) -> list[Any]:
        return list(db.scalars(select(model).where(model.claim_id == claim.id).order_by(model.id)))

    return {
        **summary(claim),
        "lines": list(
            db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim.id).order_by(ClaimLine.line_number))
        ),
        "amounts": of(ClaimAmount),
        "attachments": of(ClaimAttachment),
        "links": of(ClaimLink),
        "external_actions": of(ClaimExternalAction),
        "transitions": of(ClaimTransition),
    }


def move_claim(db: Session, claim_id: int, target: str, user_id: int, reason: str | None = None) -> tuple[Claim, str]:
    """(the claim after the move, its state before)."""
    claim = get_claim(db, claim_id, for_update=True)
    before = claim.state
    move(db, claim, target, user_id, reason)
    return claim, before


def review(db: Session, claim_id: int, user_id: int, reason: str | None) -> tuple[Claim, str]:
    """draft or corrected -> in_review."""
    return move_claim(db, claim_id, "in_review", user_id, reason)


def withdraw(db: Session, claim_id: int, user_id: int, reason: str) -> tuple[Claim, str]:
    """Any state before submission -> withdrawn (final)."""
    return move_claim(db, claim_id, "withdrawn", user_id, reason)


def request_correction(db: Session, claim_id: int, user_id: int, reason: str) -> tuple[Claim, str]:
    """in_review (or ready for submission preparation) -> correction_requested, with what to fix."""
    return move_claim(db, claim_id, "correction_requested", user_id, reason)


def approve_correction(
    db: Session,
    claim_id: int,
    user_id: int,
    *,
    changes: Mapping[str, Any] | None = None,
    lines: Sequence[NewLine] | None = None,
    reason: str | None = None,
) -> tuple[Claim, str, list[str]]:
    """correction_requested -> corrected, applying the corrected header fields (`changes`: the fields
    given, by name in `HEADER_FIELDS`; None clears one) and lines; (claim, state before, names of the
    fields changed)."""
    claim = get_claim(db, claim_id, for_update=True)
    if not CLAIM.can(claim.state, "corrected"):
        move(db, claim, "corrected", user_id, reason)  # raises, naming the current state
    changed = _apply_changes(claim, changes)
    if lines is not None:
        claim.total_charge = _check_lines(lines, None)
        for old in db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim.id)):
            db.delete(old)
        db.flush()
        db.add_all(_line_rows(claim, lines))
        changed.append("lines")
    before = claim.state
    move(db, claim, "corrected", user_id, reason)
    return claim, before, changed


def _apply_changes(claim: Claim, changes: Mapping[str, Any] | None) -> list[str]:
    if changes is None:
        return []
    unknown = sorted(set(changes) - set(HEADER_FIELDS))
    if unknown:  # a wiring error: the wire input has only header fields
        raise InvalidInput(f"Invalid input: a correction cannot set {', '.join(unknown)} on a claim")
    given = dict(changes)
    _check_dates(given.get("statement_from", claim.statement_from), given.get("statement_to", claim.statement_to))
    for name, value in given.items():
        setattr(claim, name, list(value) if name == "diagnosis_codes" and value is not None else value)
    if claim.diagnosis_codes is None:
        claim.diagnosis_codes = []
    return sorted(given)


def request_submission_preparation(
    db: Session, blockers: Hook[SubmissionBlocker], claim_id: int, user_id: int, reason: str | None
) -> tuple[Claim, str]:
    """in_review -> ready_for_submission_preparation; the requester is recorded (they may not approve it).
    PRECONDITION_FAILED listing every subscribed blocker's reasons (a line's missing prior authorization),
    asked once the claim is known to be the client's and in a state that may move."""
    claim = get_claim(db, claim_id, for_update=True)
    if CLAIM.can(claim.state, "ready_for_submission_preparation"):
        reasons = [reason for found in blockers.collect(db, claim.id) for reason in found]
        if reasons:
            raise PreconditionFailed("Cannot request submission preparation: " + "; ".join(reasons))
    before = claim.state
    move(db, claim, "ready_for_submission_preparation", user_id, reason)  # raises, naming the state, otherwise
    claim.submission_requested_by = user_id
    db.flush()
    return claim, before


def approve_for_submission_preparation(
    db: Session, claim_id: int, user_id: int, reason: str | None, *, invited_window_days: int
) -> tuple[Claim, str]:
    """ready_for_submission_preparation -> approved_for_submission_preparation, by someone other than the
    requester and not invited by the requester within `invited_window_days`."""
    claim = get_claim(db, claim_id, for_update=True)
    if claim.state == "ready_for_submission_preparation":
        if claim.submission_requested_by == user_id:
            raise Forbidden(
                "Separation of duties: you requested submission preparation of this claim, so someone else must approve it"
            )
        require_independent(
            db,
            user_id,
            [claim.submission_requested_by],
            window_days=invited_window_days,
            requester="the member who requested submission preparation",
        )
    before = claim.state
    move(db, claim, "approved_for_submission_preparation", user_id, reason)
    claim.submission_approved_by = user_id
    db.flush()
    return claim, before


def close(db: Session, claim_id: int, user_id: int, reason: str | None) -> tuple[Claim, str]:
    """An adjudicated claim -> closed (final)."""
    return move_claim(db, claim_id, "closed", user_id, reason)


def _require_open(claim: Claim, what: str) -> None:
    if claim.state in FINAL_STATES:
        raise PreconditionFailed(f"The claim is '{claim.state}'; {what} is not possible any more")


def add_attachment(
    db: Session,
    claim_id: int,
    user_id: int,
    *,
    title: str,
    media_type: str,
    sha256: str,
    size_bytes: int,
    storage_ref: str | None = None,
) -> ClaimAttachment:
    """A reference to a supporting document (title, media type, digest, size, where it is stored)."""
    claim = get_claim(db, claim_id)
    _require_open(claim, "adding an attachment")
    attachment = ClaimAttachment(
        claim_id=claim.id,
        title=title,
        media_type=media_type,
        sha256=sha256.lower(),
        size_bytes=size_bytes,
        storage_ref=storage_ref,
        added_by=user_id,
    )
    db.add(attachment)
    db.flush()
    return attachment


def record_amount(
    db: Session, claim_id: int, user_id: int, *, kind: str, amount: Decimal, source: str, reference: str | None = None
) -> ClaimAmount:
    """A money figure about the claim with its kind and source (the history keeps every figure recorded)."""
    claim = get_claim(db, claim_id)
    _require_open(claim, "recording an amount")
    recorded = ClaimAmount(
        claim_id=claim.id,
        kind=kind,
        amount=amount,
        source=source,
        reference=reference,
        recorded_by=user_id,
    )
    db.add(recorded)
    db.flush()
    return recorded


# --- a claim as other contexts read it (FHIR resources: api/integrations/fhir_smart_contracts) ----------------


@dataclass(frozen=True)
class ClaimRecord:
    """A claim with its lines (in line order), the latest remittance amount of each kind, and whether it
    is adjudicated (an adjudicated state, or closed with a paid amount)."""

    claim: Claim
    lines: list[ClaimLine]
    remitted: dict[str, ClaimAmount]
    adjudicated: bool


def claim_record(db: Session, claim_id: int) -> ClaimRecord | None:
    """The client's claim `claim_id` as a record, or None when the client has no such claim."""
    claim = db.scalar(select(Claim).where(Claim.id == claim_id))
    if claim is None:
        return None
    lines = db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim.id).order_by(ClaimLine.line_number))
    amounts = db.scalars(
        select(ClaimAmount).where(ClaimAmount.claim_id == claim.id, ClaimAmount.source == "remittance")
    ).all()
    latest = {a.kind: a for a in sorted(amounts, key=lambda a: a.id)}
    adjudicated = claim.state in ADJUDICATED_STATES or (claim.state == "closed" and "paid" in latest)
    return ClaimRecord(claim, list(lines), latest, adjudicated)


def claim_ids_after(db: Session, after_id: int, limit: int) -> list[int]:
    """The client's claim ids greater than `after_id`, ascending, at most `limit`: a stable order to page
    through every claim by id (FHIR search in fhirSmartContracts)."""
    return list(db.scalars(select(Claim.id).where(Claim.id > after_id).order_by(Claim.id).limit(limit)))


#: The claim row the published functions answer: other contexts name it here, never through models.
ClaimRow: TypeAlias = Claim


#: A claim line row, named here for other namespaces.
ClaimLineRow: TypeAlias = ClaimLine


def lines_of_claims(db: Session, claim_ids: Sequence[int]) -> dict[int, list[ClaimLine]]:
    """The lines of the client's claims `claim_ids`, per claim in line order (one query)."""
    found: dict[int, list[ClaimLine]] = {claim_id: [] for claim_id in claim_ids}
    if not found:
        return found
    stmt = (
        select(ClaimLine).where(ClaimLine.claim_id.in_(list(found))).order_by(ClaimLine.claim_id, ClaimLine.line_number)
    )
    for line in db.scalars(stmt):
        found[line.claim_id].append(line)
    return found


@dataclass(frozen=True)
class PatientService:
    """One service line of a claim of the patient, as plain values (no patient data: the claim's key and
    the line's code, date and units)."""

    claim_id: int
    claim_key: str
    line_number: int
    procedure_code: str | None
    service_date: date
    units: Decimal


def patient_services(db: Session, claim_id: int, *, through: date) -> list[PatientService]:
    """The service lines of the client's other claims of the same patient as claim `claim_id` (the same
    `patient_ref`, an opaque reference), served on or before `through` (a line's from date, else its claim's
    statement from date), in date order: what payer rules count a frequency limit against. A withdrawn
    claim was never billed and counts nothing; a claim without a patient reference has no history here
    (an empty list); an unknown claim too."""
    ref = db.scalar(select(Claim.patient_ref).where(Claim.id == claim_id))
    if not ref:
        return []
    served = func.coalesce(ClaimLine.service_date_from, Claim.statement_from)
    stmt = (
        select(Claim.id, Claim.claim_key, ClaimLine.line_number, ClaimLine.procedure_code, served, ClaimLine.units)
        .join(ClaimLine, ClaimLine.claim_id == Claim.id)
        .where(Claim.patient_ref == ref, Claim.id != claim_id, Claim.state != "withdrawn", served <= through)
        .order_by(served, Claim.id, ClaimLine.line_number)
    )
    return [
        PatientService(row[0], row[1], row[2], row[3], row[4], row[5] if row[5] is not None else Decimal(1))
        for row in db.execute(stmt)
    ]


def find_claim(db: Session, claim_id: int) -> Claim | None:
    """The client's claim `claim_id`, or None (no error: for a caller that treats a gone claim as none)."""
    return db.scalar(select(Claim).where(Claim.id == claim_id))


def claim_with_key(db: Session, claim_key: str) -> Claim | None:
    """The client's claim with `claim_key` (CLP01), or None."""
    return db.scalar(select(Claim).where(Claim.claim_key == claim_key))


def claims_with_keys(db: Session, claim_keys: Sequence[str]) -> list[Claim]:
    """The client's claims whose claim key is one of `claim_keys`."""
    return list(db.scalars(select(Claim).where(Claim.claim_key.in_(claim_keys))))


def link_denial_cases(db: Session, claim_id: int, user_id: int, case_id: int | None) -> None:
    """Link the claim to the denial cases opened for its claim key (or to the one case named);
    NOT_FOUND when the client has no such case (`links.link_denial_cases`)."""
    # links reads this module's get_claim, so it is imported when called, not when this module loads
    from api.denials.claims import links

    links.link_denial_cases(db, claim_id, user_id, case_id)


@dataclass(frozen=True, slots=True)
class PayerLine:
    """A line of one of the client's claims of a payer (policyImpact's claims history)."""

    claim_id: int
    claim_key: str
    line_number: int
    procedure_code: str | None
    units: Decimal
    charge: Decimal
    served_from: date  # the line's from date, else the claim's statement from
    served_to: date


def payer_lines(db: Session, *, payer_id: str, first: date, last: date, limit: int) -> list[PayerLine]:
    """At most `limit` lines of the client's claims of the payer (payer id compared upper-cased; withdrawn
    claims left out) served `first`..`last`, in date order."""
    served = func.coalesce(ClaimLine.service_date_from, Claim.statement_from)
    stmt = (
        select(Claim.id, Claim.claim_key, ClaimLine, served.label("served"))
        .join(ClaimLine, ClaimLine.claim_id == Claim.id)
        .where(func.upper(func.trim(Claim.payer_id)) == payer_id.strip().upper(), Claim.state != "withdrawn")
        .where(served >= first, served <= last)
        .order_by(served, Claim.id, ClaimLine.line_number)
        .limit(limit)
    )
    return [
        PayerLine(
            claim_id=claim_id,
            claim_key=claim_key,
            line_number=line.line_number,
            procedure_code=line.procedure_code,
            units=line.units or Decimal(1),
            charge=line.charge,
            served_from=day,
            served_to=max(line.service_date_to or day, day),
        )
        for claim_id, claim_key, line, day in db.execute(stmt)
    ]
