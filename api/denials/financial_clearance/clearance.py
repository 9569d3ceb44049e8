"""What clears a claim before the service: the eligibility verdict, the authorization blockers, the
allowed amount of each line and the patient's estimate over them. Pure.

- Eligibility: the latest answered check of the claim's patient reference with the claim's payer on or
  before the service date stands (a check that ended in `error` got no answer and counts as none, as
  `eligibility.denialsByEligibility` counts it). It clears only when it answered `active` and the plan
  dates it carried (X12 005010X279A1 2100C DTP*346/347) cover the claim's service date: a check for
  another day may have been answered for a plan that has ended since.
- Authorization: each line priorAuthorization reports missing is one blocker naming the line and code.
- Estimate: each line's allowed amount is the contracted amount the marts priced for its code and units
  with the payer (`fct_service_lines.expected_allowed_amount`, contract pricing is SQL's) or, unknown, its charge,
  which an allowed amount never exceeds (a ceiling, said in the answer). The patient's share is worked
  out ONCE over the claim's total allowed with `estimate.estimate`: the deductible still to meet is one
  pot for the whole visit, so estimating line by line would take it once per line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from api.denials.financial_clearance.estimate import Benefits, PatientEstimate, estimate

CENT = Decimal("0.01")
UNITS = Decimal("0.001")
REMAINING = "29"  # EB06 time period qualifier 29: "remaining" (the amount still to meet)
GENERIC_SERVICE = "30"  # EB03 30: health benefit plan coverage (the generic inquiry's answer)


@dataclass(frozen=True)
class CheckFact:
    """What the clearance reads of one eligibility check."""

    check_id: int
    status: str
    status_reason: str | None
    checked_on: date
    plan_begin: date | None
    plan_end: date | None


@dataclass(frozen=True)
class Blocker:
    kind: str  # eligibility | authorization | claim
    message: str
    line_number: int | None = None
    procedure_code: str | None = None


@dataclass(frozen=True)
class LineAllowed:
    line_number: int
    procedure_code: str | None
    charge: Decimal
    allowed: Decimal
    basis: str  # contract | charge_ceiling


def standing_check(service_date: date, checks: Sequence[CheckFact]) -> CheckFact | None:
    """The latest answered check (by the client's day of the check, then id) on or before the service date."""
    before = [c for c in checks if c.status != "error" and c.checked_on <= service_date]
    return max(before, key=lambda c: (c.checked_on, c.check_id), default=None)


def eligibility_blocker(service_date: date, payer_id: str, check: CheckFact | None) -> Blocker | None:
    """None when the check clears the service date, else why not (no member id, no name: never PHI)."""
    if check is None:
        return Blocker(
            "eligibility",
            f"no eligibility check with payer {payer_id} on or before the service date (run eligibility.check)",
        )
    if check.status != "active":
        why = f": {check.status_reason}" if check.status_reason else ""
        return Blocker("eligibility", f"eligibility check {check.check_id} answered {check.status}{why}")
    if check.plan_begin is not None and service_date < check.plan_begin:
        return Blocker("eligibility", f"eligibility check {check.check_id}: the plan begins after the service date")
    if check.plan_end is not None and check.plan_end < service_date:
        return Blocker("eligibility", f"eligibility check {check.check_id}: the plan ends before the service date")
    return None


def allowed_of(
    lines: Sequence[tuple[int, str | None, Decimal, Decimal]], contracted: Mapping[tuple[str, Decimal], Decimal]
) -> list[LineAllowed]:
    """Each line (number, code, units, charge) with its allowed amount: the contracted amount of its code
    and units (units to thousandths), else its charge as the ceiling."""
    out = []
    for number, code, units, charge in lines:
        known = contracted.get(((code or "").strip().upper(), units.quantize(UNITS)))
        if known is not None and known >= 0:
            out.append(LineAllowed(number, code, charge, known.quantize(CENT), "contract"))
        else:
            out.append(LineAllowed(number, code, charge, charge.quantize(CENT), "charge_ceiling"))
    return out


def _amount(value: Any) -> Decimal | None:
    if value is None:
        return None
    try:
        found = Decimal(str(value))
    except InvalidOperation:
        return None
    return found if found.is_finite() and found >= 0 else None


def _rank(figure: Mapping[str, Any]) -> tuple[int, int, int]:
    """Prefer in-network (EB12 Y), the individual's (EB02 IND) and the generic or unstated service type."""
    types = figure.get("service_types") or []
    return (
        0 if figure.get("in_network") == "Y" else 1,
        0 if figure.get("coverage_level") in (None, "IND") else 1,
        0 if not types or GENERIC_SERVICE in types else 1,
    )


def _pick(figures: Sequence[Mapping[str, Any]], kind: str, field: str, *, remaining: bool) -> Decimal | None:
    usable = [
        f
        for f in figures
        if f.get("kind") == kind
        and f.get("in_network") != "N"
        and (not remaining or f.get("time_period") == REMAINING)
        and _amount(f.get(field)) is not None
    ]
    best = min(usable, key=_rank, default=None)
    return None if best is None else _amount(best.get(field))


def benefits_of(patient_share: Sequence[Mapping[str, Any]]) -> Benefits:
    """The 271's patient-share figures (as the check stores them) as the estimate's benefits: the
    deductible and out-of-pocket still to meet (EB06 29 only: an annual figure is not what is left of
    it), the coinsurance percentage (EB08) and the copayment (EB07). Out-of-network figures are skipped."""
    coinsurance = _pick(patient_share, "coinsurance", "percent", remaining=False)
    return Benefits(
        deductible_remaining=_pick(patient_share, "deductible", "amount", remaining=True),
        coinsurance=coinsurance if coinsurance is not None and coinsurance <= 1 else None,
        copay=_pick(patient_share, "copayment", "amount", remaining=False),
        out_of_pocket_remaining=_pick(patient_share, "out_of_pocket", "amount", remaining=True),
    )


@dataclass(frozen=True)
class ClaimEstimate:
    lines: list[LineAllowed]
    result: PatientEstimate
    notes: list[str]


def claim_estimate(lines: list[LineAllowed], benefits: Benefits) -> ClaimEstimate:
    """The patient's share of the claim's total allowed, with what the figure rests on said in words."""
    total = sum((line.allowed for line in lines), Decimal("0.00"))
    result = estimate(total, benefits)
    notes = []
    ceiling = [line.line_number for line in lines if line.basis == "charge_ceiling"]
    if ceiling:
        notes.append(
            f"no contracted amount is known for line(s) {', '.join(map(str, ceiling))}: their charge is used "
            "as the allowed amount, a ceiling"
        )
    floor = [m for m in result.missing if m != "out_of_pocket_remaining"]
    if floor:
        notes.append(f"the payer did not answer {', '.join(floor)}: counted as 0, so the patient's share is a floor")
    if "out_of_pocket_remaining" in result.missing:
        notes.append("the payer did not answer the out-of-pocket still to meet: the share is not capped by it")
    return ClaimEstimate(lines, result, notes)
