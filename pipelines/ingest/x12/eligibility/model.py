"""The typed results of a 271 (HIPAA 005010X279A1), and the values they are read with.

A member's name, member id and birth date are PHI: they are kept out of `repr` (so a result that reaches
a log or an assertion message shows none of them) and never put in an error message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from pipelines.ingest.x12.eligibility.segments import Segment
from pipelines.ingest.x12.errors import X12ParseError

# EB01, Eligibility or Benefit Information Code (TR3 2110C EB01): the codes this platform reads.
ACTIVE_CODES = frozenset({"1", "2", "3", "4", "5"})  # active coverage (1) and its capitated/pending variants
INACTIVE_CODES = frozenset({"6", "7", "8"})  # inactive, pending eligibility update, pending investigation
OTHER_PAYER = "R"  # other or additional payer; its name in the 2120C NM1 (NM101 PR, PRP, ...)
PATIENT_SHARE = {"C": "deductible", "A": "coinsurance", "B": "copayment", "G": "out_of_pocket"}

_AMOUNT = re.compile(r"[+-]?(\d{1,15}(\.\d{0,2}0*)?|\.\d{1,2}0*)")
_DECIMAL = re.compile(r"[+-]?(\d{1,15}(\.\d{0,6})?|\.\d{1,6})")


@dataclass(frozen=True, slots=True)
class Rejection:
    """An AAA segment: the request (or part of it) could not be answered.

    `level` is where it sat: source (2000A/2100A), receiver (2100B), subscriber (2100C), dependent
    (2100D) or benefit (2110C/D). AAA01 says whether the request was valid (Y) or not (N); AAA03 the
    reject reason (72 invalid/missing subscriber id, 73 invalid/missing name, 75 subscriber not found,
    42 unable to respond now, ...); AAA04 the follow-up action (C correct and resubmit, N do not, R
    resubmission allowed, ...)."""

    level: str
    valid_request: bool
    reason: str
    follow_up: str | None
    segment_number: int


@dataclass(frozen=True, slots=True)
class Period:
    """A DTP: its qualifier (346 plan begin, 347 plan end, 291 plan, 307 eligibility, ...) and the days it
    names (D8: one day; RD8: a range, both ends included)."""

    qualifier: str
    start: date
    end: date


@dataclass(frozen=True, slots=True)
class Entity:
    """An NM1: entity code (PR payer, PRP primary payer, 1P provider, P3 primary care provider, ...),
    its name (NM103, the organisation's or a person's last name) and identifier (NM108/NM109)."""

    code: str
    name: str | None
    id_qualifier: str | None
    identifier: str | None


@dataclass(frozen=True, slots=True)
class Benefit:
    """One 2110C/D loop: the EB segment and what follows it (DTP, REF, AAA, the 2120 entities)."""

    code: str  # EB01
    coverage_level: str | None  # EB02: IND, FAM, ...
    service_types: tuple[str, ...]  # EB03, repeated with the repetition separator
    insurance_type: str | None  # EB04
    plan_description: str | None  # EB05
    time_period: str | None  # EB06: 23 calendar year, 27 visit, 29 remaining, ...
    amount: Decimal | None  # EB07
    percent: Decimal | None  # EB08, a decimal fraction (.2 = 20 percent)
    quantity_qualifier: str | None  # EB09
    quantity: Decimal | None  # EB10
    authorization_required: str | None  # EB11: Y, N, U
    in_network: str | None  # EB12: Y in plan network, N out of network, W not applicable, U unknown
    segment_number: int
    periods: tuple[Period, ...] = ()
    references: tuple[tuple[str, str], ...] = ()
    entities: tuple[Entity, ...] = ()
    rejections: tuple[Rejection, ...] = ()

    def period(self, qualifier: str) -> Period | None:
        return next((p for p in self.periods if p.qualifier == qualifier), None)


@dataclass(frozen=True, slots=True)
class Member:
    """A subscriber (2000C, NM1*IL) or a dependent (2000D, NM1*03) and everything the 271 says of them."""

    level: str  # subscriber | dependent
    hl_id: str
    last_name: str | None = field(repr=False)
    first_name: str | None = field(repr=False)
    member_id: str | None = field(repr=False)  # NM109 with NM108 MI
    birth_date: date | None = field(repr=False)  # DMG02 with DMG01 D8
    trace_numbers: tuple[str, ...] = ()  # TRN02, echoed from the inquiry
    references: tuple[tuple[str, str], ...] = ()  # 2100C/D REF: 6P group number, 18 plan number, ...
    periods: tuple[Period, ...] = ()  # 2100C/D DTP
    rejections: tuple[Rejection, ...] = ()  # 2100C/D AAA
    benefits: tuple[Benefit, ...] = ()
    has_dependents: bool = False

    def reference(self, qualifier: str) -> str | None:
        """A REF value of the member, else of its first benefit that carries one."""
        for qual, value in self.references:
            if qual == qualifier:
                return value
        for benefit in self.benefits:
            for qual, value in benefit.references:
                if qual == qualifier:
                    return value
        return None

    def period(self, qualifier: str) -> Period | None:
        return next((p for p in self.periods if p.qualifier == qualifier), None)


@dataclass(frozen=True, slots=True)
class Response271:
    """One real-time 271: its control numbers, the payer (2100A) and receiver (2100B), the rejections at
    those levels and every member (2000C/D) in file order."""

    interchange_control_number: str
    group_control_number: str
    transaction_control_number: str
    reference: str  # BHT03, the inquiry's reference echoed
    payer: Entity
    receiver: Entity | None
    rejections: tuple[Rejection, ...]
    members: tuple[Member, ...]

    @property
    def subscribers(self) -> tuple[Member, ...]:
        return tuple(m for m in self.members if m.level == "subscriber")


def day(value: str, source: str, seg: Segment, label: str) -> date:
    """CCYYMMDD as a date; anything else raises without quoting the value (it may be a birth date)."""
    if len(value) == 8 and value.isdigit():
        try:
            return date(int(value[:4]), int(value[4:6]), int(value[6:]))
        except ValueError:
            pass
    raise X12ParseError(
        source,
        f"{label} is not a valid CCYYMMDD date",
        segment_number=seg.number,
        segment_id=seg.sid,
        expected="a valid CCYYMMDD date",
    )


def period(seg: Segment, source: str) -> Period:
    """A DTP segment: DTP02 D8 (one day) or RD8 (CCYYMMDD-CCYYMMDD)."""
    qualifier, form, value = seg.get(1), seg.get(2), seg.get(3)
    if not qualifier:
        raise X12ParseError(
            source,
            "DTP01 (date qualifier) is missing",
            segment_number=seg.number,
            segment_id="DTP",
            expected="a DTP01 qualifier such as 346",
        )
    if form == "D8":
        one = day(value, source, seg, "DTP03")
        return Period(qualifier, one, one)
    if form == "RD8":
        first, _, last = value.partition("-")
        start, end = day(first, source, seg, "DTP03"), day(last, source, seg, "DTP03")
        if end < start:
            raise X12ParseError(
                source,
                "DTP03 range ends before it starts",
                segment_number=seg.number,
                segment_id="DTP",
                expected="CCYYMMDD-CCYYMMDD with start <= end",
            )
        return Period(qualifier, start, end)
    raise X12ParseError(
        source,
        f"DTP02 format {form[:4]!r} is not D8 or RD8",
        segment_number=seg.number,
        segment_id="DTP",
        expected="DTP02 D8 or RD8",
    )


def amount(value: str, source: str, seg: Segment, label: str, *, money: bool) -> Decimal | None:
    """An X12 R value (EB07 money with at most 2 decimals, EB08/EB10 decimals); "" is not sent."""
    if not value:
        return None
    if (_AMOUNT if money else _DECIMAL).fullmatch(value) is None:
        raise X12ParseError(
            source,
            f"{label} is not a decimal number",
            segment_number=seg.number,
            segment_id=seg.sid,
            expected="a decimal number" + (" with at most 2 decimals" if money else ""),
        )
    return Decimal(value)


def entity(seg: Segment) -> Entity:
    return Entity(seg.get(1), seg.get(3) or None, seg.get(8) or None, seg.get(9) or None)
