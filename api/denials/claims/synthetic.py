"""Synthetic claims for UAT and the synthetic 835 a payer would send back (pure, no I/O).

Claims are generated from a seed alone (``random.Random(seed)``): the same seed and count always give
the same claims, so a UAT run can be repeated and compared. The 835 is built from a claim and the
answer asked for (paid, partially paid, denied); its amounts balance the way the ingestion rules
check them (BPR02 = CLP04, CLP03 - CLP04 = the claim's CAS amounts, SVC02 - SVC03 = the line's) and
its envelope counts (SE01, GE01, IEA01) are exact, so it passes through the real upload path. The
segments are written by the platform's one 835 writer, the corpus generator's (`pipelines.synthetic`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Literal

from api.core.errors import InvalidInput
from pipelines.ingest.money import CENT, quantize
from pipelines.synthetic.money import to_cents, x12_amount
from pipelines.synthetic.x12_835 import (
    VERSION_835,
    EftAccounts,
    bpr_segment,
    cas_segments,
    clp_segment,
    svc_segment,
    trn_segment,
)
from pipelines.synthetic.x12_envelope import gs, interchange, isa, wrap_transaction

Outcome = Literal["paid", "partially_paid", "denied"]

# (payer name, payer id, claim filing indicator): invented names, never a real payer's.
PAYERS: tuple[tuple[str, str, str], ...] = (
    ("SYNTHETIC HEALTH PLAN", "SYNHP1", "CI"),
    ("SYNTHETIC MEDICARE", "SYNMCR", "MB"),
    ("SYNTHETIC MEDICAID", "SYNMCD", "MC"),
)
# (procedure code, revenue code, charge range in whole dollars)
SERVICES: tuple[tuple[str, str, int, int], ...] = (
    ("99213", "0510", 90, 180),
    ("99284", "0450", 400, 1200),
    ("80053", "0301", 40, 90),
    ("71046", "0324", 120, 300),
    ("93000", "0730", 60, 140),
)
DIAGNOSES: tuple[str, ...] = ("R51", "J069", "M545", "E119", "I10", "R079")
FIRST_SERVICE_DAY = date(2025, 1, 1)
PROVIDER_NAME = "SYNTHETIC HOSPITAL"
PROVIDER_NPI = "1234567893"
DEFAULT_CARC = {"paid": "45", "partially_paid": "50", "denied": "50"}


@dataclass(frozen=True)
class SyntheticLine:
    procedure_code: str
    revenue_code: str
    units: Decimal
    charge: Decimal
    service_date: date


@dataclass(frozen=True)
class SyntheticClaim:
    claim_key: str
    payer: str
    payer_id: str
    filing_indicator: str
    statement_from: date
    statement_to: date
    facility_type: str
    bill_type: str
    diagnosis_codes: tuple[str, ...]
    patient_ref: str
    lines: tuple[SyntheticLine, ...]

    @property
    def total_charge(self) -> Decimal:
        return sum((line.charge for line in self.lines), Decimal("0.00"))


def claim_key(seed: int, index: int) -> str:
    """The key of the seed's index-th claim: recognisably synthetic, never a real account number."""
    return f"SYN{seed}-{index + 1:05d}"


def generate(seed: int, count: int) -> list[SyntheticClaim]:
    """`count` claims drawn from `seed` alone (the same arguments always give the same claims)."""
    rng = random.Random(seed)
    return [_claim(rng, seed, i) for i in range(count)]


def _claim(rng: random.Random, seed: int, index: int) -> SyntheticClaim:
    payer, payer_id, filing = PAYERS[rng.randrange(len(PAYERS))]
    start = FIRST_SERVICE_DAY + timedelta(days=rng.randrange(365))
    end = start + timedelta(days=rng.randrange(3))
    lines = []
    for _ in range(rng.randint(1, 3)):
        code, revenue, low, high = SERVICES[rng.randrange(len(SERVICES))]
        units = Decimal(rng.randint(1, 2))
        charge = quantize(Decimal(rng.randint(low * 100, high * 100)) * CENT * units)
        lines.append(SyntheticLine(code, revenue, units, charge, start + timedelta(days=rng.randrange(3))))
    return SyntheticClaim(
        claim_key=claim_key(seed, index),
        payer=payer,
        payer_id=payer_id,
        filing_indicator=filing,
        statement_from=start,
        statement_to=max(end, *(line.service_date for line in lines)),
        facility_type="13",
        bill_type="131",
        diagnosis_codes=tuple(rng.sample(DIAGNOSES, rng.randint(1, 3))),
        patient_ref=f"SYN-PT-{rng.randrange(10**6):06d}",
        lines=tuple(lines),
    )


@dataclass(frozen=True)
class RemitLine:
    procedure_code: str | None
    modifiers: tuple[str, ...]
    units: Decimal | None
    charge: Decimal
    service_date: date | None


@dataclass(frozen=True)
class RemitClaim:
    """What the 835 needs to know of a claim."""

    claim_id: int
    claim_key: str
    payer: str
    payer_id: str | None
    filing_indicator: str | None
    total_charge: Decimal
    lines: tuple[RemitLine, ...]


@dataclass(frozen=True)
class Response:
    """The payer's answer to simulate: how much it pays and the adjustment reason for the rest."""

    outcome: Outcome
    paid: Decimal
    group_code: str
    carc: str


def plan_response(
    total_charge: Decimal, outcome: Outcome, paid: Decimal | None, group_code: str | None, carc: str | None
) -> Response:
    """The response with its defaults filled in; InvalidInput naming the field when the amount cannot
    be that outcome (a denial pays nothing, a partial payment pays something but not everything)."""
    if outcome == "denied":
        if paid not in (None, Decimal(0)):
            raise InvalidInput("Invalid input: 'paidAmount' must be 0 or absent for a denial")
        amount = Decimal("0.00")
    elif outcome == "paid":
        amount = total_charge if paid is None else paid
        if not Decimal(0) < amount <= total_charge:
            raise InvalidInput(
                "Invalid input: 'paidAmount' of a payment must be above 0 and at most the claim's charge"
            )
    else:
        amount = quantize(total_charge / 2) if paid is None else paid
        if not Decimal(0) < amount < total_charge:
            raise InvalidInput("Invalid input: 'paidAmount' of a partial payment must be above 0 and below the charge")
    return Response(outcome, quantize(amount), group_code or "CO", carc or DEFAULT_CARC[outcome])


def allocate(charges: list[Decimal], paid: Decimal) -> list[Decimal]:
    """The paid amount spread over lines in order, each paid at most its charge (the last ones go unpaid first)."""
    left = paid
    out = []
    for charge in charges:
        share = min(charge, left)
        out.append(share)
        left -= share
    return out


def _clean(text: str, width: int | None = None) -> str:
    """Text safe inside an element (no separators), upper case, optionally cut to `width`."""
    cleaned = "".join(" " if ch in "*~:^\r\n" else ch for ch in text).upper().strip()
    return cleaned[:width] if width else cleaned


#: The simulated payer's bank details on an ACH payment (invented, as every synthetic identifier).
EFT = EftAccounts("999999999", "123456", "1512345678", "888888888", "654321")
SENDER, RECEIVER = "SYNPAYER", "SYNHOSPITAL"


def build_835(claim: RemitClaim, response: Response, *, sequence: int, payment_date: date) -> str:
    """A complete ISA..IEA interchange remitting `claim` as `response` (segments end with '~' and a newline),
    written by the corpus generator's 835 writer (`pipelines.synthetic.x12_835`); ISA15 is T (test data)."""
    control = (claim.claim_id * 100 + sequence) % 10**9
    trace = f"SYN{claim.claim_id}R{sequence}"
    day = payment_date.toordinal()
    transaction = wrap_transaction(1, "835", VERSION_835, _transaction(claim, response, trace, payment_date, sequence))
    return interchange(
        isa(SENDER, RECEIVER, day, control, usage="T"),
        gs("HP", SENDER, RECEIVER, day, control, VERSION_835),
        [transaction],
        control,
    )


def _transaction(claim: RemitClaim, response: Response, trace: str, payment_date: date, sequence: int) -> list[str]:
    """The segments between ST and SE of one remittance with one claim."""
    paid = to_cents(response.paid)
    payer = [f"N1*PR*{_clean(claim.payer, 60) or 'SYNTHETIC PAYER'}"]
    if claim.payer_id:
        payer.append(f"REF*2U*{_clean(claim.payer_id, 50)}")
    return [
        bpr_segment(paid, payment_date.strftime("%Y%m%d"), EFT),
        trn_segment(trace, EFT.originator),
        *payer,
        f"N1*PE*{PROVIDER_NAME}*XX*{PROVIDER_NPI}",
        "LX*1",
        *_claim_segments(claim, response, sequence),
    ]


def _claim_segments(claim: RemitClaim, response: Response, sequence: int) -> list[str]:
    """CLP with its SVC lines (each with its CAS), or a claim-level CAS when the claim has no lines."""
    paid, total = to_cents(response.paid), to_cents(claim.total_charge)
    status = "4" if response.outcome == "denied" else "1"
    patient = total - paid if response.group_code == "PR" else 0
    filing = _clean(claim.filing_indicator or "CI", 2)
    key = _clean(claim.claim_key)
    out = [clp_segment(key, status, total, paid, patient or None, filing, f"SYN{claim.claim_id}C{sequence}")]
    if not claim.lines:
        _unpaid(response, total - paid, out)
        return out
    shares = allocate([line.charge for line in claim.lines], response.paid)
    for line, share in zip(claim.lines, shares, strict=True):
        procedure = ":".join(
            ["HC", _clean(line.procedure_code or "99499", 48), *(_clean(m, 2) for m in line.modifiers)]
        )
        units = f"{line.units.normalize():f}" if line.units else "1"
        charge, line_paid = to_cents(line.charge), to_cents(share)
        out.append(svc_segment(procedure, x12_amount(charge), line_paid, "", units))
        if line.service_date is not None:
            out.append(f"DTM*472*{line.service_date.strftime('%Y%m%d')}")
        _unpaid(response, charge - line_paid, out)
    return out


def _unpaid(response: Response, cents: int, out: list[str]) -> None:
    """The CAS of what was not paid (none when everything was), with the response's group and reason."""
    if cents:
        cas_segments([(response.group_code, response.carc, cents)], 1, out, [])
