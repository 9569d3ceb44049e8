"""What a parsed 271 means for the check: the status, the plan and its dates, other coverage and the
patient's share. Pure.

Rules (HIPAA 005010X279A1):
- an AAA at the source or receiver level (2000A/2100A, 2100B) or on the patient (2100C/D): the payer did
  not answer for this member. Reject reasons that say the member is not known to it (72 invalid or missing
  member id, 73 invalid or missing name, 75 subscriber/insured not found, 67 patient not found, 71 birth
  date does not match, 76 duplicate member id, 78 not in the group/plan) are `not_found`; any other
  (42 unable to respond now, 15 required data missing, 43 provider identification, ...) is `rejected`;
- else an EB01 of active coverage (1-5) is `active`, unless the plan dates (2100C DTP*346 plan begin /
  347 plan end, else 356/357 eligibility begin/end, else the same on the active EB's 2110C DTP, else an
  RD8 DTP*291 plan or 307 eligibility range) leave the service date out: then `inactive` (the plan ended before, or begins after);
- else an EB01 of inactive coverage (6-8) is `inactive`;
- a 271 that states neither is `error` (TR3 1.4.7: a generic inquiry is answered with EB01 1-8).
The patient is the first member without dependents (the subscriber we ask about, or a dependent).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from pipelines.ingest.x12.eligibility.model import (
    ACTIVE_CODES,
    INACTIVE_CODES,
    OTHER_PAYER,
    PATIENT_SHARE,
    Benefit,
    Member,
    Period,
    Rejection,
    Response271,
)

STATUSES = ("active", "inactive", "not_found", "rejected", "error")
NOT_FOUND_REASONS = frozenset({"67", "71", "72", "73", "75", "76", "78"})
# AAA03 reject reasons (X12 code list of the 005010X279A1 AAA03 element), as a person reads them.
REASONS = {
    "15": "required application data missing",
    "41": "authorization/access restrictions",
    "42": "unable to respond at current time",
    "43": "invalid/missing provider identification",
    "50": "provider ineligible for inquiries",
    "58": "invalid/missing date of birth",
    "67": "patient not found",
    "71": "patient birth date does not match that for the patient on the database",
    "72": "invalid/missing subscriber/insured ID",
    "73": "invalid/missing subscriber/insured name",
    "75": "subscriber/insured not found",
    "76": "duplicate subscriber/insured ID number",
    "78": "subscriber/insured not in group/plan identified",
    "79": "invalid participant identification",
    "80": "no response received - transaction terminated",
}


@dataclass(frozen=True)
class ShareFigure:
    """A patient-share benefit: deductible (EB*C), coinsurance (A), copayment (B) or out of pocket (G)."""

    kind: str
    coverage_level: str | None
    service_types: tuple[str, ...]
    time_period: str | None
    amount: Decimal | None
    percent: Decimal | None
    in_network: str | None


@dataclass(frozen=True)
class OtherCoverage:
    """An EB*R: another payer covers the member (its 2120C NM1 name and id, EB04 insurance type)."""

    payer_name: str | None
    payer_id: str | None
    insurance_type: str | None


@dataclass(frozen=True)
class Summary:
    status: str
    reason: str | None
    rejection_codes: tuple[str, ...]
    payer_name: str | None
    plan_name: str | None = None
    group_number: str | None = None
    plan_begin: date | None = None
    plan_end: date | None = None
    other_coverage: tuple[OtherCoverage, ...] = ()
    patient_share: tuple[ShareFigure, ...] = ()


def _describe(rejection: Rejection) -> str:
    return f"AAA {rejection.reason[:3]}: {REASONS.get(rejection.reason, 'rejected by the payer')}"


def patient_of(response: Response271) -> Member | None:
    return next((m for m in response.members if not m.has_dependents), None)


def _range(member: Member, active: Benefit | None) -> tuple[date | None, date | None]:
    def pick(qualifier: str) -> Period | None:
        return member.period(qualifier) or (active.period(qualifier) if active else None)

    begin, end = pick("346") or pick("356"), pick("347") or pick("357")
    ranged = next((p for p in (pick("291"), pick("307")) if p is not None and p.start != p.end), None)
    return (
        begin.start if begin else (ranged.start if ranged else None),
        end.start if end else (ranged.end if ranged else None),
    )


def _other_coverage(benefits: tuple[Benefit, ...]) -> tuple[OtherCoverage, ...]:
    found = []
    for b in benefits:
        if b.code == OTHER_PAYER:
            payer = next((e for e in b.entities if e.code in ("PR", "PRP", "SEP", "TTP", "GP")), None)
            found.append(
                OtherCoverage(payer.name if payer else None, payer.identifier if payer else None, b.insurance_type)
            )
    return tuple(found)


def _share(benefits: tuple[Benefit, ...]) -> tuple[ShareFigure, ...]:
    return tuple(
        ShareFigure(
            PATIENT_SHARE[b.code], b.coverage_level, b.service_types, b.time_period, b.amount, b.percent, b.in_network
        )
        for b in benefits
        if b.code in PATIENT_SHARE
    )


def _rejected(rejections: tuple[Rejection, ...], payer: str | None) -> Summary:
    """An AAA anywhere means the payer did not answer for this member (005010X279A1 AAA segments)."""
    codes = tuple(r.reason[:3] for r in rejections)
    status = "not_found" if any(c in NOT_FOUND_REASONS for c in codes) else "rejected"
    return Summary(status, _describe(rejections[0]), codes, payer)


def _dated(base: Summary, service_date: date) -> Summary:
    """Active coverage still has to cover the service date (2100C/2110C DTP plan or eligibility dates)."""
    if base.plan_end is not None and base.plan_end < service_date:
        return replace(base, status="inactive", reason="the plan ended before the service date")
    if base.plan_begin is not None and service_date < base.plan_begin:
        return replace(base, status="inactive", reason="the plan begins after the service date")
    return base


def summarise(response: Response271, service_date: date) -> Summary:
    """The check's outcome for `service_date` (see the module docstring)."""
    payer = response.payer.name
    patient = patient_of(response)
    rejections = (*response.rejections, *(patient.rejections if patient else ()))
    if rejections:
        return _rejected(rejections, payer)
    assert patient is not None  # the reader refuses a 271 with neither a member nor an AAA
    benefits = patient.benefits
    active = next((b for b in benefits if b.code in ACTIVE_CODES), None)
    inactive = next((b for b in benefits if b.code in INACTIVE_CODES), None)
    stated = active or inactive
    begin, end = _range(patient, stated)
    base = Summary(
        "active",
        None,
        (),
        payer,
        plan_name=stated.plan_description if stated else None,
        group_number=patient.reference("6P") or patient.reference("18"),
        plan_begin=begin,
        plan_end=end,
        other_coverage=_other_coverage(benefits),
        patient_share=_share(benefits),
    )
    if active is not None:
        return _dated(base, service_date)
    if inactive is not None:
        return replace(base, status="inactive", reason="the payer reports the coverage inactive")
    # TR3 1.4.7: a generic inquiry is answered with EB01 1-8, so a 271 stating neither is malformed.
    return replace(base, status="error", reason="the response states no coverage status (EB01 1-8)")
