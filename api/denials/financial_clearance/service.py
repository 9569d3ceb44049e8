"""Clearing a claim before its service: its eligibility (the latest check of its patient reference with
its payer), its prior authorizations (priorAuthorization's flag) and the patient's estimate, stored as
a clearance record; the latest clearance of a claim and whether it is stale.

Not a `submission_blockers` listener: priorAuthorization already refuses submission preparation for a
missing authorization (that rule has one owner), and requiring a platform eligibility check before every
submission would refuse claims that were verified outside the platform (imported 837s). A clearance is
advice before the service, answered here; claims' gate is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.denials.claims import service as claims
from api.denials.eligibility import service as eligibility
from api.denials.financial_clearance import clearance as rules
from api.denials.financial_clearance.models import FinancialClearance
from api.denials.prior_authorization import service as prior_authorization
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given

STATUSES = ("cleared", "blocked")


@dataclass(frozen=True)
class PricingKeys:
    """What the marts are asked for a claim's contracted amounts: its payer (as the marts key it, the
    upper-cased name), its lines' procedure codes and its service date (None: nothing to ask)."""

    payer_key: str | None
    procedure_codes: tuple[str, ...]
    service_date: date | None


def pricing_keys(db: Session, claim_id: int) -> PricingKeys:
    """The claim's payer key, codes and service date; NOT_FOUND when the claim is not the client's."""
    claims.get_claim(db, claim_id)
    record = claims.claim_record(db, claim_id)
    assert record is not None  # get_claim found it in this session
    codes = sorted({(line.procedure_code or "").strip().upper() for line in record.lines} - {""})
    payer = (record.claim.payer or "").strip().upper() or None
    return PricingKeys(payer, tuple(codes), _service_date(record))


def _service_date(record: claims.ClaimRecord) -> date | None:
    dates = [line.service_date_from for line in record.lines if line.service_date_from is not None]
    return record.claim.statement_from or min(dates, default=None)


def _fact(row: eligibility.CheckRow) -> rules.CheckFact:
    return rules.CheckFact(row.id, row.status, row.status_reason, row.checked_on, row.plan_begin, row.plan_end)


def _money(value: Decimal) -> str:
    return str(value)


def _estimate_record(found: rules.ClaimEstimate) -> dict[str, Any]:
    r = found.result
    return {
        "allowed": _money(r.allowed),
        "deductible": _money(r.deductible),
        "coinsurance": _money(r.coinsurance),
        "copay": _money(r.copay),
        "patient": _money(r.patient),
        "plan": _money(r.plan),
        "capped_by_out_of_pocket": r.capped_by_out_of_pocket,
        "complete": r.complete,
        "missing": list(r.missing),
        "notes": found.notes,
        "lines": [
            {
                "line_number": line.line_number,
                "procedure_code": line.procedure_code,
                "charge": _money(line.charge),
                "allowed": _money(line.allowed),
                "basis": line.basis,
            }
            for line in found.lines
        ],
    }


def _blocker(b: rules.Blocker) -> dict[str, Any]:
    return {"kind": b.kind, "message": b.message, "line_number": b.line_number, "procedure_code": b.procedure_code}


# An eligibility check is matched on the claim's patient reference, payer id and service date: a claim
# missing any of them cannot be matched, and each absent key is its own blocker (the person fixes each).
_MATCHING_KEYS = ("service date", "patient reference", "payer id")


def _unmatchable(served: date | None, patient_ref: str | None, payer_id: str | None) -> list[rules.Blocker]:
    absent = (served is None, not patient_ref, payer_id is None)
    return [
        rules.Blocker("claim", f"the claim has no {key}: eligibility cannot be matched")
        for key, missing in zip(_MATCHING_KEYS, absent, strict=True)
        if missing
    ]


def _standing(
    db: Session, served: date, patient_ref: str, payer_id: str
) -> tuple[eligibility.CheckRow | None, rules.Blocker | None]:
    """The check that stands for the service date (None: none does) and the eligibility blocker, if any."""
    checks = eligibility.checks_of(db, patient_ref, payer_id)
    standing = rules.standing_check(served, [_fact(c) for c in checks])
    check = next((c for c in checks if standing is not None and c.id == standing.check_id), None)
    return check, rules.eligibility_blocker(served, payer_id, standing)


def _authorization_blockers(status: prior_authorization.ClaimStatus) -> list[rules.Blocker]:
    return [
        rules.Blocker(
            "authorization",
            f"line {m.line_number} ({m.procedure_code}) needs a prior authorization: {m.explanation} [{m.source}]",
            m.line_number,
            m.procedure_code,
        )
        for m in prior_authorization.missing_of(status)
    ]


def _estimate(
    record: claims.ClaimRecord,
    check: eligibility.CheckRow | None,
    blockers: list[rules.Blocker],
    contracted: Mapping[tuple[str, Decimal], Decimal],
) -> rules.ClaimEstimate | None:
    """The patient's estimate, only from a check that clears the service date (its benefits are the plan's)."""
    if check is None or any(b.kind == "eligibility" for b in blockers):
        return None
    lines = rules.allowed_of(
        [(ln.line_number, ln.procedure_code, ln.units or Decimal(1), ln.charge) for ln in record.lines],
        contracted,
    )
    return rules.claim_estimate(lines, rules.benefits_of(check.patient_share))


def _estimate_columns(estimate: rules.ClaimEstimate | None) -> dict[str, Any]:
    if estimate is None:
        return {"allowed_amount": None, "patient_estimate": None, "estimate_complete": False, "estimate": None}
    return {
        "allowed_amount": estimate.result.allowed,
        "patient_estimate": estimate.result.patient,
        "estimate_complete": bool(estimate.result.complete),
        "estimate": _estimate_record(estimate),
    }


def clear(
    db: Session, claim_id: int, *, contracted: Mapping[tuple[str, Decimal], Decimal], user_id: int
) -> FinancialClearance:
    """Evaluate the client's claim now and store the clearance: `cleared` when its eligibility check
    clears the service date and no line misses an authorization, else `blocked` with every blocker.
    `contracted`: the contracted allowed amount per (procedure code upper-cased, units) the marts know.
    NOT_FOUND when the claim is not the client's."""
    status = prior_authorization.claim_status(db, claim_id)  # NOT_FOUND for another client's claim
    record = claims.claim_record(db, claim_id)
    assert record is not None  # claim_status found it in this session
    claim = record.claim
    served = _service_date(record)
    payer_id = (claim.payer_id or "").strip() or None
    blockers = _unmatchable(served, claim.patient_ref, payer_id)
    check = None
    if served is not None and claim.patient_ref and payer_id is not None:
        check, found = _standing(db, served, claim.patient_ref, payer_id)
        if found is not None:
            blockers.append(found)
    blockers.extend(_authorization_blockers(status))
    estimate = _estimate(record, check, blockers, contracted)
    row = FinancialClearance(
        claim_id=claim.id,
        status="blocked" if blockers else "cleared",
        service_date=served,
        payer_id=payer_id[:80] if payer_id else None,
        eligibility_check_id=check.id if check is not None else None,
        eligibility_status=check.status if check is not None else None,
        authorization_ids=[a.id for a in status.authorizations],
        blockers=[_blocker(b) for b in blockers],
        evaluated_at=utcnow(),
        evaluated_by=user_id,
        **_estimate_columns(estimate),
    )
    db.add(row)
    db.flush()
    return row


def audit_view(row: FinancialClearance) -> dict[str, Any]:
    """What the audit log keeps of a clearance: ids, the status and the blockers' kinds; no patient, no dates."""
    return {
        "claim": row.claim_id,
        "status": row.status,
        "eligibility_check": row.eligibility_check_id,
        "authorizations": row.authorization_ids,
        "blockers": [b["kind"] for b in row.blockers],
    }


@dataclass(frozen=True)
class Latest:
    """A claim's latest clearance (None: never cleared) and why it is stale (empty: it is not)."""

    claim_id: int
    clearance: FinancialClearance | None
    stale_because: list[str]


def latest(db: Session, claim_id: int) -> Latest:
    """The claim's latest clearance and whether an eligibility check of its patient with its payer, or an
    authorization request of the claim, was made or answered after it. NOT_FOUND for another client's claim."""
    claim = claims.get_claim(db, claim_id)
    row = db.scalar(
        select(FinancialClearance)
        .where(FinancialClearance.claim_id == claim.id)
        .order_by(FinancialClearance.id.desc())
        .limit(1)
    )
    if row is None:
        return Latest(claim.id, None, [])
    since = row.evaluated_at
    stale = []
    if claim.patient_ref and row.payer_id:
        for check in eligibility.checks_of(db, claim.patient_ref, row.payer_id):
            if check.checked_at > since:
                stale.append(f"eligibility check {check.id} was made after the clearance")
    for auth in prior_authorization.claim_status(db, claim.id).authorizations:
        if auth.state_changed_at > since:
            stale.append(f"authorization request {auth.id} became {auth.state} after the clearance")
    return Latest(claim.id, row, sorted(stale))


def get(db: Session, clearance_id: int) -> FinancialClearance:
    return get_by_id(db, FinancialClearance, clearance_id, "Clearance")


def list_statement(*, status: str | None = None, claim_id: int | None = None) -> Select[Any]:
    """Clearances by status and claim (each when given); unordered, for paging."""
    return where_given(
        select(FinancialClearance), (FinancialClearance.status, status), (FinancialClearance.claim_id, claim_id)
    )
