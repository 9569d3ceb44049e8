"""Frequency limits (pure: no I/O): at most N units of a CPT/HCPCS code or code range per period per patient.

A limit is data: a scope (payer type, and a payer id or ``*`` for every payer of the type, a plan or ``*``,
as priorAuthorization's requirements), a code or a range of one kind (parsed by priorAuthorization: one
parsing of codes), at most ``max_units`` units per period, the dates it is in force and its source. The
periods, each the span of dates in which an earlier service of the patient counts against a line served
on day D:

- ``day``: D itself (the date of service; e.g. a per-day units limit);
- ``rolling_days`` N: the N days ending on D (D - (N - 1) .. D), so N = 365 counts the year back to D;
- ``months`` N: Medicare's "N full months have passed following the month in which the last one was
  performed" (42 CFR 410.34, screening mammography: "after at least 11 months have passed following the
  month in which the last screening mammography was performed"; CMS Pub. 100-04 ch. 18 counts the annual
  wellness visit the same way, 11 full months). A service in month M is allowed in month M + N + 1 or later,
  so an earlier one counts when it falls in the months M(D) - N .. M(D): from the first day of the month N
  months before D's month to D;
- ``calendar_year``: 1 January .. 31 December of D's year;
- ``lifetime``: every earlier service (no first day).

A line exceeds its limit when the units of the earlier services in the window plus its own units are more
than ``max_units``. Earlier services are the caller's: the patient's other claim lines on or before D
(claims answers them), of any code the limit's range holds.

The choice of the limit of a line among those in force on D that match its payer and code: the most
specific (a payer-specific row over a type-wide one, a plan over any plan, the narrower code range), then
a client's row over the platform's, then the latest effective, then the highest version. A client row's
versions are its rows of one scope: a later ``effective_from`` closes the one before it
(``versions.ends_of``), whatever end the earlier one was given. A limit for a plan matches the claim's plan
(stored upper-cased, as limits are); a claim without one is matched only by ``*`` plans. An unknown payer type tries each common type (``assumed``), and an exceeding limit is reported
before one that is not (the cautious answer, as priorAuthorization's).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from api.core.errors import InvalidInput
from api.denials.deadlines.rules import COMMON_TYPES, PAYER_TYPES, UNKNOWN_TYPE
from api.denials.prior_authorization.service import CodeRange, line_code, parse_code_range
from api.intelligence.payer_rules.versions import ends_of

ANY = "*"
DAY, ROLLING_DAYS, MONTHS, CALENDAR_YEAR, LIFETIME = "day", "rolling_days", "months", "calendar_year", "lifetime"
PERIODS: tuple[str, ...] = (DAY, ROLLING_DAYS, MONTHS, CALENDAR_YEAR, LIFETIME)
#: the periods that take a length, and its bounds: 10 years of days, 100 years of months
LENGTHS: dict[str, tuple[int, int]] = {ROLLING_DAYS: (1, 3660), MONTHS: (1, 1200)}
MAX_UNITS = 9999
#: how many earlier dates an explanation names before it counts the rest
NAMED_DATES = 5


class FrequencyError(ValueError):
    """A platform row is malformed; the message names its line and field."""


def _bad(field: str, why: str) -> InvalidInput:
    return InvalidInput(f"Invalid input: '{field}' {why}")


@dataclass(frozen=True, slots=True)
class FrequencyLimit:
    """One limit (a platform default when `limit_id` is None, else a client's row)."""

    payer_type: str
    codes: CodeRange
    max_units: int
    period: str
    period_length: int | None  # rolling_days: N days; months: N full months; else None
    effective_from: date
    source: str
    payer_id: str = ANY
    plan: str = ANY
    effective_to: date | None = None
    version: int = 1
    limit_id: int | None = None
    order: int = 0  # the platform file's row

    @property
    def origin(self) -> str:
        return "platform" if self.limit_id is None else "client"

    @property
    def reference(self) -> str:
        if self.limit_id is not None:
            return f"payer_frequency_limits/{self.limit_id}"
        return f"platform/{self.payer_type}/{self.codes}/frequency"

    @property
    def scope(self) -> tuple[str, str, str, str]:
        """The key of a client row's versions (and of the upsert: with `effective_from`)."""
        return (self.payer_type, self.payer_id, self.plan, str(self.codes))

    def in_force(self, on: date) -> bool:
        return self.effective_from <= on and (self.effective_to is None or on <= self.effective_to)

    def terms(self) -> str:
        """``at most 1 per 11 full months`` (the wire's and the explanations' words)."""
        n = self.period_length
        per = {
            DAY: "day (date of service)",
            ROLLING_DAYS: f"{n} days",
            MONTHS: f"{n} full months",
            CALENDAR_YEAR: "calendar year",
            LIFETIME: "lifetime",
        }[self.period]
        return f"at most {self.max_units} per {per}"


def check(limit: FrequencyLimit) -> FrequencyLimit:
    """The limit if its values hold together; INVALID_INPUT naming the field otherwise."""
    if limit.payer_type not in PAYER_TYPES:
        raise _bad("payerType", f"must be one of {', '.join(PAYER_TYPES)}")
    if not limit.payer_id.strip() or not limit.plan.strip():
        raise _bad("payerId", "and 'plan' must be given or *")
    if not 1 <= limit.max_units <= MAX_UNITS:
        raise _bad("maxUnits", f"must be a whole number from 1 to {MAX_UNITS}")
    _check_period(limit.period, limit.period_length)
    if limit.effective_to is not None and limit.effective_to < limit.effective_from:
        raise _bad("effectiveTo", "is before 'effectiveFrom'")
    if not limit.source.strip():
        raise _bad("source", "is required: the payer's policy, contract clause or regulation")
    return limit


def _check_period(period: str, length: int | None) -> None:
    if period not in PERIODS:
        raise _bad("period", f"must be one of {', '.join(PERIODS)}")
    bounds = LENGTHS.get(period)
    if bounds is None:
        if length is not None:
            raise _bad("periodLength", f"is given only for {' or '.join(LENGTHS)} (a {period} has no length)")
    elif length is None or not bounds[0] <= length <= bounds[1]:
        raise _bad("periodLength", f"must be a whole number from {bounds[0]} to {bounds[1]} for {period}")


# --- the window and the verdict ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Window:
    """The dates in which an earlier service counts: `first` None for a lifetime."""

    first: date | None
    last: date

    def holds(self, day: date) -> bool:
        return (self.first is None or self.first <= day) and day <= self.last


def _month_start(day: date, back: int) -> date:
    """The first day of the month `back` months before `day`'s month."""
    index = day.year * 12 + (day.month - 1) - back
    return date(index // 12, index % 12 + 1, 1)


def window(limit: FrequencyLimit, served: date) -> Window:
    """The window of a line served on `served` (see the module docstring for each period's source)."""
    n = limit.period_length or 0
    if limit.period == DAY:
        return Window(served, served)
    if limit.period == ROLLING_DAYS:
        return Window(served - timedelta(days=n - 1), served)
    if limit.period == MONTHS:
        return Window(_month_start(served, n), served)
    if limit.period == CALENDAR_YEAR:
        return Window(date(served.year, 1, 1), date(served.year, 12, 31))
    return Window(None, served)


@dataclass(frozen=True, slots=True)
class ServiceLine:
    """The claim line asked about."""

    procedure_code: str
    service_date: date
    units: Decimal


@dataclass(frozen=True, slots=True)
class EarlierService:
    """One earlier service of the patient (another claim's line, or an earlier line of the same claim)."""

    procedure_code: str
    service_date: date
    units: Decimal
    claim_key: str


@dataclass(frozen=True, slots=True)
class Verdict:
    limit: FrequencyLimit
    window: Window
    used: Decimal  # the units of the earlier services counted
    units: Decimal  # the line's own
    counted: tuple[EarlierService, ...]  # in date order
    exceeds: bool

    def explanation(self, code: str) -> str:
        """``G0439: at most 1 per 11 full months for this patient; 1 earlier on 2026-02-03, this line 1
        -> exceeds``: dates only, never the patient."""
        days = sorted({s.service_date.isoformat() for s in self.counted})
        named = ", ".join(days[:NAMED_DATES]) + (
            f" and {len(days) - NAMED_DATES} more" if len(days) > NAMED_DATES else ""
        )
        earlier = f"{_number(self.used)} earlier on {named}" if self.counted else "none earlier in the window"
        outcome = "exceeds" if self.exceeds else "within the limit"
        return f"{code}: {self.limit.terms()} for this patient; {earlier}, this line {_number(self.units)} -> {outcome}"


def _number(value: Decimal) -> str:
    """Units as written (1, 2.5), without the stored places."""
    return format(value.normalize(), "f") if value != value.to_integral_value() else str(int(value))


def evaluate(limit: FrequencyLimit, line: ServiceLine, earlier: Iterable[EarlierService]) -> Verdict:
    """The window of the line, the units of the earlier services (on or before its date) of the limit's
    codes in it, and whether the line's units on top of them are more than the limit allows."""
    span = window(limit, line.service_date)

    def counts(s: EarlierService) -> bool:
        code = line_code(s.procedure_code)
        served = s.service_date
        return code is not None and limit.codes.contains(code) and span.holds(served) and served <= line.service_date

    counted = tuple(sorted(filter(counts, earlier), key=lambda s: (s.service_date, s.claim_key)))
    used = sum((s.units for s in counted), Decimal(0))
    return Verdict(limit, span, used, line.units, counted, used + line.units > limit.max_units)


# --- which limit applies ---------------------------------------------------------------------------------


def closed(limits: Sequence[FrequencyLimit]) -> tuple[FrequencyLimit, ...]:
    """The limits with each client row ended where the next version of its scope starts (if earlier
    than its own end): what is in force on a date."""
    ends = ends_of((lim.scope, lim.effective_from, lim.limit_id) for lim in limits if lim.limit_id is not None)

    def ended(lim: FrequencyLimit) -> FrequencyLimit:
        end = ends.get(lim.limit_id) if lim.limit_id is not None else None
        if end is not None and (lim.effective_to is None or end < lim.effective_to):
            return replace(lim, effective_to=end)
        return lim

    return tuple(ended(lim) for lim in limits)


def specificity(lim: FrequencyLimit) -> tuple[int, int, int, int, date, int, int]:
    """The sort key of the choice (greater wins): see the module docstring."""
    return (
        int(lim.payer_id != ANY),
        int(lim.plan != ANY),
        -lim.codes.width,
        int(lim.limit_id is not None),
        lim.effective_from,
        lim.version,
        lim.limit_id or 0,
    )


@dataclass(frozen=True, slots=True)
class LineFacts:
    """What a line is matched on: `payer_type` None is self-pay (no limit), ``unknown`` tries each common type."""

    payer_type: str | None
    payer_id: str | None
    procedure_code: str | None
    service_date: date
    plan: str | None = None


def _for_type(payer_type: str, facts: LineFacts, code: str, limits: Sequence[FrequencyLimit]) -> FrequencyLimit | None:
    payer_id = (facts.payer_id or "").strip().upper()
    plan = (facts.plan or "").strip().upper()
    found = [
        lim
        for lim in limits
        if lim.payer_type == payer_type
        and lim.payer_id in (ANY, payer_id)
        and lim.plan in (ANY, plan)
        and lim.codes.contains(code)
        and lim.in_force(facts.service_date)
    ]
    return max(found, key=specificity) if found else None


def limits_for(facts: LineFacts, limits: Sequence[FrequencyLimit]) -> list[tuple[FrequencyLimit, bool]]:
    """The limit that applies to the line and whether its payer type was assumed: one for a known payer
    type, one per common type that has one for an unknown payer (the caller keeps the exceeding first);
    nothing for self-pay or a line without a CPT/HCPCS code. `limits` are ``closed`` already."""
    code = line_code(facts.procedure_code)
    if facts.payer_type is None or code is None:
        return []
    if facts.payer_type != UNKNOWN_TYPE:
        found = _for_type(facts.payer_type, facts, code, limits)
        return [] if found is None else [(found, False)]
    chosen = (_for_type(t, facts, code, limits) for t in COMMON_TYPES)
    return [(lim, True) for lim in chosen if lim is not None]


def verdict_for(
    facts: LineFacts, units: Decimal, earlier: Sequence[EarlierService], limits: Sequence[FrequencyLimit]
) -> tuple[Verdict, bool] | None:
    """The verdict on one line under the limit that applies (None: none applies) and whether the payer type
    was assumed; for an unknown payer the first exceeding verdict of the common types, else the first."""
    code = line_code(facts.procedure_code)
    if code is None:
        return None
    line = ServiceLine(code, facts.service_date, units)
    verdicts = [(evaluate(lim, line, earlier), assumed) for lim, assumed in limits_for(facts, limits)]
    if not verdicts:
        return None
    return next((v for v in verdicts if v[0].exceeds), verdicts[0])


# --- the platform's defaults ---------------------------------------------------------------------------


def _whole(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text else None


def _platform_row(row: dict[str, str], index: int) -> FrequencyLimit:
    until = (row.get("effective_to") or "").strip()
    units = _whole(row["max_units"])
    if units is None:
        raise FrequencyError("'max_units' is required")
    return check(
        FrequencyLimit(
            payer_type=row["payer_type"].strip(),
            payer_id=row["payer_id"].strip().upper() or ANY,
            plan=row["plan"].strip().upper() or ANY,
            codes=parse_code_range(row["procedure_code"], "procedure_code"),
            max_units=units,
            period=row["period"].strip(),
            period_length=_whole(row.get("period_length")),
            effective_from=date.fromisoformat(row["effective_from"].strip()),
            effective_to=date.fromisoformat(until) if until else None,
            source=row["source"].strip(),
            order=index,
        )
    )


def parse_platform_limits(text: str) -> tuple[FrequencyLimit, ...]:
    """The platform's frequency limits (``platform_frequency_limits.csv``: one row per code or range, each
    with its citation); FrequencyError naming the line of a malformed row."""
    out: list[FrequencyLimit] = []
    for index, row in enumerate(csv.DictReader(text.splitlines())):
        try:
            out.append(_platform_row(row, index))
        except (KeyError, ValueError, InvalidInput) as error:  # FrequencyError is a ValueError
            raise FrequencyError(f"platform frequency limits line {index + 2}: {error}") from None
    return tuple(out)
