"""The patient's share of a service before it is rendered, from the expected allowed amount and the plan's
patient-share benefits the payer answered in its X12 271 (pure).

The plan's share rules are the standard cost-sharing order (45 CFR 155.20 "cost sharing"; the healthcare.gov
glossary's deductible, coinsurance, copayment and out-of-pocket maximum): the patient pays the allowed amount
up to the deductible still to meet, then the co-insurance percentage of the rest, plus the co-payment of the
service; never more than the out-of-pocket maximum still to meet, nor more than the allowed amount. The 271's
EB segments carry them (X12 005010X279A1 2110C EB: EB01 C deductible, A co-insurance with EB08 the patient's
percentage, B co-payment, G out-of-pocket (stop loss); EB06 29 "remaining" for the amounts still to meet).

A benefit the payer did not answer is not guessed: it counts as 0 and the estimate says so, so the patient's
figure is then a floor (`complete` False).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Benefits:
    """The patient-share benefits of the plan in force on the service date (None: not answered)."""

    deductible_remaining: Decimal | None = None
    coinsurance: Decimal | None = None  # the patient's share, 0..1 (EB08 0.2 = 20 %)
    copay: Decimal | None = None
    out_of_pocket_remaining: Decimal | None = None


@dataclass(frozen=True)
class PatientEstimate:
    allowed: Decimal
    deductible: Decimal
    coinsurance: Decimal
    copay: Decimal
    patient: Decimal  # what the patient is expected to pay
    plan: Decimal  # allowed - patient
    capped_by_out_of_pocket: bool
    complete: bool  # every benefit was answered: otherwise `patient` is a floor
    missing: tuple[str, ...]


def _check(name: str, value: Decimal | None) -> None:
    if value is not None and (not value.is_finite() or value < 0):
        raise ValueError(f"{name} must be a non-negative amount, got {value}")


def estimate(allowed: Decimal, benefits: Benefits) -> PatientEstimate:
    """The patient's and the plan's shares of `allowed` under `benefits` (amounts in dollars, cents)."""
    _check("allowed", allowed)
    for name in ("deductible_remaining", "copay", "out_of_pocket_remaining"):
        _check(name, getattr(benefits, name))
    if benefits.coinsurance is not None and not (benefits.coinsurance.is_finite() and 0 <= benefits.coinsurance <= 1):
        raise ValueError(f"coinsurance must be a share between 0 and 1, got {benefits.coinsurance}")
    missing = tuple(
        name
        for name in ("deductible_remaining", "coinsurance", "copay", "out_of_pocket_remaining")
        if getattr(benefits, name) is None
    )
    deductible = min(benefits.deductible_remaining or ZERO, allowed)
    coinsurance = ((allowed - deductible) * (benefits.coinsurance or ZERO)).quantize(CENT, rounding=ROUND_HALF_UP)
    copay = min(benefits.copay or ZERO, allowed - deductible - coinsurance)
    patient = deductible + coinsurance + copay
    capped = benefits.out_of_pocket_remaining is not None and patient > benefits.out_of_pocket_remaining
    if capped:
        assert benefits.out_of_pocket_remaining is not None
        patient = benefits.out_of_pocket_remaining
    patient = patient.quantize(CENT, rounding=ROUND_HALF_UP)
    return PatientEstimate(
        allowed=allowed.quantize(CENT, rounding=ROUND_HALF_UP),
        deductible=deductible.quantize(CENT, rounding=ROUND_HALF_UP),
        coinsurance=coinsurance,
        copay=copay.quantize(CENT, rounding=ROUND_HALF_UP),
        patient=patient,
        plan=(allowed - patient).quantize(CENT, rounding=ROUND_HALF_UP),
        capped_by_out_of_pocket=capped,
        complete=not missing,
        missing=missing,
    )
