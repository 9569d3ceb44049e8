"""Claim simulation: one claim, its first adjudication and its appeal outcome.

Pure logic driven by one ``random.Random``; no I/O.  Money in integer cents,
dates as proleptic ordinals (``date.toordinal``) to keep the hot loop cheap.
The order in which random numbers are drawn is part of the output contract
(same seed => same corpus), so change it only together with GENERATOR_VERSION.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Final

from .catalog import (
    Payer,
    Service,
)
from .money import x12_amount

# Line result tuple layout (kept as tuples: millions of them are built).
# (paid, patient_resp, allowed, cas: tuple[(group, carc, cents), ...], rarc | None)
PAID: Final = 0
PR: Final = 1
ALLOWED: Final = 2
CAS: Final = 3
RARC: Final = 4


_CHARGE_TEXT: dict[int, str] = {}  # chargemaster price x units: a small, bounded set of values


class Line:
    """One service line of a claim (837 side)."""

    __slots__ = ("charge", "charge_text", "code", "day", "modifier", "procedure", "revenue", "service", "units")

    def __init__(self, service: Service, units: int, day: int) -> None:
        self.service = service
        self.code = service.code
        self.revenue = service.revenue
        self.modifier = ""
        self.units = units
        self.charge = charge = service.charge * units
        text = _CHARGE_TEXT.get(charge)
        if text is None:
            text = _CHARGE_TEXT[charge] = x12_amount(charge)
        self.charge_text = text
        self.day = day
        # SVC01/SV101 composite: HCPCS when there is one, else the revenue code (NUBC)
        self.procedure = f"HC:{service.code}" if service.code else f"NU:{service.revenue}"

    def add_modifier(self, modifier: str) -> None:
        """Attach a procedure modifier (e.g. 25 on an E/M billed with a procedure)."""
        self.modifier = modifier
        self.procedure = f"HC:{self.code}:{modifier}"


#: One adjustment as written to a CAS segment: (group, CARC, cents).
Adjustment = tuple[str, str, int]
#: One adjudicated line: (paid, patient_resp, allowed, adjustments, rarc | None); see PAID .. RARC.
LineResult = tuple[int, int, int, tuple[Adjustment, ...], str | None]


@dataclass(slots=True)
class Followup:
    """A later CLP loop about a claim: a reversal, a correction, a re-adjudication, a secondary or
    tertiary payer's payment, or a predetermination (money in cents, signed as written in CLP04/CLP05)."""

    day: int  # payment day of the remittance that carries it
    payer_ix: int  # the payer that sends it (a secondary payer for COB)
    kind: str  # reversal | correction | readjudication | secondary | tertiary | predetermination
    clp02: str
    sign: int  # -1: the loop negates ``results``/``claim_cas`` (a reversal)
    paid: int
    pr: int
    results: list[LineResult] | None
    claim_cas: tuple[Adjustment, ...]
    ccn: str  # the payer's claim control number (CLP07)


@dataclass(slots=True)
class Claim:
    """A claim with everything the writers and the ground truth need (money in cents, days as ordinals)."""

    idx: int
    pcn: str  # patient control number (CLM01 / CLP01)
    ctype: str  # "P" (837P) or "I" (837I)
    inpatient: bool
    facility: int  # index into Simulator.facilities
    payer_ix: int  # index into Simulator.payers
    payer: Payer
    pid: int  # patient number
    month: int  # 1-based corpus month of the first service day
    first_day: int
    last_day: int
    submit_day: int
    lines: list[Line]
    dx: tuple[str, str]
    auth: str | None
    place: str  # place of service / facility type code
    payer_ccn: str  # payer claim control number (CLP07)
    billed: int
    # first adjudication
    clp02: str
    status: str  # paid | partial | denied
    category: str | None  # denial category; None when paid in full
    carc: str
    group: str
    rarc: str | None
    cause: str  # "base" | "carc_spike" | "" (not denied)
    denied_line: int  # index of the one denied line of a partial denial, else -1
    claim_level_denial: bool  # the denial is a claim-level CAS (no service lines)
    claim_cas: tuple[Adjustment, ...]
    line_results: list[LineResult] | None  # None for a claim-level denial
    expected_results: list[LineResult]  # the contract adjudication of every line
    expected_paid: int
    paid: int
    patient_resp: int
    denied: int
    underpaid: int
    remit_day: int
    # appeal (0 / None when not overturned)
    overturn_day: int
    repay_results: list[LineResult] | None
    repay_paid: int
    repay_pr: int
    # situations (see situations.py); defaults = none planted
    mispriced: bool = False  # the payer's allowed differs from the contract's on some line
    followups: list[Followup] = field(default_factory=list)
    situations: list[str] = field(default_factory=list)
    moa_rarc: str | None = None  # claim-level remark of the first remittance (MA18 on a crossover)
    received_day: int = 0  # DTM*050 written when not 0
    allowed_reported: bool = True  # AMT*B6 written on the service lines
    drg: str = ""  # CLP11 / HI*DR when priced by DRG case rate
    drg_weight: str = ""
    chain: tuple[int, ...] = ()  # payers that adjudicated it in order, when more than the primary
    balance: int | None = None  # patient balance when a situation changed it (COB, recoupment, correction)
    current: str = ""  # current adjudication when a situation changed it: paid | denied
    corrected: int = 0  # increment paid by a corrected underpayment
    recouped: int = 0  # payment taken back by a recoupment


@dataclass(slots=True)
class _Denial:
    """The first-adjudication denial decision of one claim (category None = no denial)."""

    category: str | None = None
    carc: str = ""
    cause: str = ""
    denied_line: int = -1


@dataclass(slots=True)
class _Adjudication:
    """Contract (expected) and actual payment of every line of one claim."""

    expected: list[LineResult]
    actual: list[LineResult]
    expected_paid: int
    expected_pr: int
    underpaid: int
    actual_paid: int
    actual_pr: int
    mispriced: bool


@dataclass(slots=True)
class _Outcome:
    """What the first remittance says about the claim as a whole."""

    status: str
    line_results: list[LineResult] | None
    claim_cas: tuple[Adjustment, ...]
    claim_level_denial: bool
    paid: int
    patient_resp: int
    denied: int
    underpaid: int


def _month_index(start: date, day: date) -> int:
    return (day.year - start.year) * 12 + day.month - start.month + 1


def _add_months(start: date, months: int) -> date:
    y, m = divmod(start.month - 1 + months, 12)
    return date(start.year + y, m + 1, 1)


def _mix(a: int, b: int) -> int:
    """Cheap deterministic 32-bit hash for per-patient attributes."""
    x = (a * 0x9E3779B1 + b * 0x85EBCA77 + 0x27D4EB2F) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    return x


@dataclass(slots=True)
class Patient:
    """Demographics of one (fictional) patient (``dob`` as a day ordinal)."""

    last: str
    first: str
    sub_last: str  # subscriber (the patient unless a dependent)
    sub_first: str
    dob: int
    sex: str
    member_id: str
    mrn: str
    street: str
    dependent: bool


def _discounted_line(charge: int, result: LineResult, actual_pay: int) -> LineResult:
    """A line the payer allows at the contract price but pays less: the gap is an unexplained
    'negotiated discount' (CO-131), so AMT*B6 shows no variance although the payment is short."""
    pay, pr, allowed, cas, _ = result
    return (actual_pay, pr, allowed, (*cas, ("CO", "131", pay - actual_pay)), None)


def _benefits_on(allowed: int, ded_left: int, coins_pct: int, copay: int, em: bool, medicare: bool) -> tuple[int, ...]:
    """(pay, pr, seq, ded, copay, coinsurance, deductible left) of one line allowed at ``allowed``."""
    ded = ded_left if ded_left < allowed else allowed
    rest = allowed - ded
    cop = copay if em and copay < rest else (rest if em and copay else 0)
    rest -= cop
    coins = rest * coins_pct // 100
    rest -= coins
    seq = rest * 2 // 100 if medicare else 0
    return rest - seq, ded + cop + coins, seq, ded, cop, coins, ded_left - ded


def _line_result(charge: int, pay: int, pr: int, seq: int, ded: int, cop: int, coins: int) -> LineResult:
    """A paid line: CO-45 takes what payment, patient share and sequestration leave of the charge,
    so the line balances by construction."""
    co45 = charge - pay - pr - seq
    cas: list[Adjustment] = []
    if co45:
        cas.append(("CO", "45", co45))
    if seq:
        cas.append(("CO", "253", seq))
    if ded:
        cas.append(("PR", "1", ded))
    if coins:
        cas.append(("PR", "2", coins))
    if cop:
        cas.append(("PR", "3", cop))
    return (pay, pr, pay + pr + seq, tuple(cas), None)
