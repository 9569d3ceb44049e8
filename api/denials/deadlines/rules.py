"""Appeal and timely-filing deadlines from limits held as data (pure: the one read is the seed at import).

The limits are the reference seed ``dbt_project/seeds/reference/payer_appeal_limits.csv`` (the same
file dbt loads; its citations and defaults are described in that folder's ORIGIN.md). A row says how
many days a level allows, counted from which basis date, in calendar or business days, whether a
deadline on a weekend or federal holiday rolls to the next business day, and how many days after the
notice date it is presumed received (Medicare: 5). A ``plan`` other than ``*`` holds a payer-specific
value (matched against the case's payer id) and wins over the ``*`` row.

Arithmetic: basis date + receipt days = the start; start + limit (calendar days, or business days
with the start itself never counted) = the due date; then the roll to the next business day if the
rule says so. Example: a Medicare remittance dated 2024-01-02 is presumed received 2024-01-07, and
the redetermination is due 120 days later, 2024-05-06.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Literal

from api.core.business_calendar import EARLIEST, LATEST, add_business_days, next_business_day_on_or_after

SEED_PATH = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "reference" / "payer_appeal_limits.csv"

DayCount = Literal["calendar", "business"]
DeadlineKind = Literal["appeal", "timely_filing"]

TIMELY_FILING = "timely_filing"
#: bases counted from the date of the payer's notice (the remittance date on a case)
NOTICE_BASES = frozenset(
    {"receipt_of_initial_determination", "date_of_denial", "receipt_of_adverse_benefit_determination"}
)
#: the earliest effective date: a platform default is in force for every basis date
ALWAYS = date(1900, 1, 1)
SERVICE_BASIS = "date_of_service"


class LimitsDataError(ValueError):
    """The limits file has a malformed or duplicate row."""


@dataclass(frozen=True, slots=True)
class LimitRule:
    """One row of payer_appeal_limits.csv."""

    payer_type: str
    plan: str
    level: str
    days: int
    day_count: DayCount
    roll_forward: bool
    basis: str
    receipt_days: int
    is_default: bool
    order: int  # position of the row in the file: appeal levels follow each other in file order
    source: str = ""  # the citation (the seed's note; a client rule's own source)
    effective_from: date = ALWAYS
    rule_id: int | None = None  # a client's rule (payer_rules table); None: the platform default

    @property
    def origin(self) -> str:
        """``platform`` (the seed) or ``client`` (a rule the client set with payerRules.upsert)."""
        return "platform" if self.rule_id is None else "client"

    @property
    def reference(self) -> str:
        """A stable name of the rule for storage and display."""
        if self.rule_id is not None:
            return f"payer_rules/{self.rule_id}"
        return f"payer_appeal_limits/{self.payer_type}/{self.plan}/{self.level}"

    @property
    def kind(self) -> DeadlineKind:
        return "timely_filing" if self.level == TIMELY_FILING else "appeal"

    @property
    def business_days(self) -> bool:
        return self.day_count == "business"


@dataclass(frozen=True, slots=True)
class Deadline:
    """A deadline computed from one rule and one basis date."""

    rule: LimitRule
    basis_date: date
    due_on: date

    @property
    def level(self) -> str:
        return self.rule.level


def _flag(value: str, line: int, column: str) -> bool:
    if value not in ("Y", "N"):
        raise LimitsDataError(f"payer_appeal_limits.csv line {line}: '{column}' must be Y or N")
    return value == "Y"


def parse_rules(text: str) -> tuple[LimitRule, ...]:
    """Parse and check the limits file's text; raises LimitsDataError naming the line."""
    rules: list[LimitRule] = []
    seen: set[tuple[str, str, str]] = set()
    for index, row in enumerate(csv.DictReader(text.splitlines())):
        line = index + 2
        try:
            days, receipt = int(row["days"]), int(row.get("receipt_days") or 0)
        except (TypeError, ValueError):
            raise LimitsDataError(
                f"payer_appeal_limits.csv line {line}: 'days' and 'receipt_days' are whole numbers"
            ) from None
        day_count = (row.get("day_count") or "calendar").strip()
        if day_count not in ("calendar", "business") or days <= 0 or receipt < 0:
            raise LimitsDataError(f"payer_appeal_limits.csv line {line}: bad day_count, days or receipt_days")
        key = (row["payer_type"], row["plan"], row["level"])
        if key in seen:
            raise LimitsDataError(f"payer_appeal_limits.csv line {line}: duplicate payer_type/plan/level")
        seen.add(key)
        rules.append(
            LimitRule(
                payer_type=row["payer_type"],
                plan=row["plan"],
                level=row["level"],
                days=days,
                day_count="business" if day_count == "business" else "calendar",
                roll_forward=_flag(row.get("roll_forward") or "N", line, "roll_forward"),
                basis=row["basis"],
                receipt_days=receipt,
                is_default=_flag(row["is_default"], line, "is_default"),
                order=index,
                source=(row.get("note") or "").strip(),
            )
        )
    return tuple(rules)


RULES: tuple[LimitRule, ...] = parse_rules(SEED_PATH.read_text(encoding="utf-8"))


def rule_for(
    payer_type: str,
    level: str,
    plan: str | None = None,
    rules: tuple[LimitRule, ...] = RULES,
    on: date | None = None,
) -> LimitRule | None:
    """The rule of a level in force on ``on`` (any date when None): a payer-specific row (``plan`` =
    the payer id) wins over the class-wide ``*`` row; at the same scope a client's rule wins over the
    platform default, and of a client's rules the latest effective on ``on``."""
    best: tuple[int, int, date] | None = None
    found = None
    for rule in rules:
        if rule.payer_type != payer_type or rule.level != level or rule.plan not in ("*", plan):
            continue
        if on is not None and rule.effective_from > on:
            continue
        key = (int(rule.plan != "*"), int(rule.rule_id is not None), rule.effective_from)
        if best is None or key > best:
            best, found = key, rule
    return found


def appeal_levels(payer_type: str, rules: tuple[LimitRule, ...] = RULES) -> tuple[str, ...]:
    """The appeal levels of a payer type, first to last (file order)."""
    levels: list[str] = []
    for rule in sorted(rules, key=lambda r: r.order):
        if (
            rule.payer_type == payer_type
            and rule.kind == "appeal"
            and rule.level not in levels
            and rule.rule_id is None
        ):
            levels.append(rule.level)
    return tuple(levels)


def next_level(payer_type: str, level: str, rules: tuple[LimitRule, ...] = RULES) -> str | None:
    """The appeal level after ``level`` (None after the last one)."""
    levels = appeal_levels(payer_type, rules)
    if level not in levels:
        return None
    position = levels.index(level)
    return levels[position + 1] if position + 1 < len(levels) else None


def due_date(rule: LimitRule, basis_date: date) -> date:
    """When a rule's limit runs out, counted from ``basis_date`` (see the module docstring)."""
    start = basis_date + timedelta(days=rule.receipt_days)
    due = add_business_days(start, rule.days) if rule.business_days else start + timedelta(days=rule.days)
    return next_business_day_on_or_after(due) if rule.roll_forward else due


def deadline(rule: LimitRule, basis_date: date) -> Deadline:
    return Deadline(rule=rule, basis_date=basis_date, due_on=due_date(rule, basis_date))


# --- payer rules per case (payerRules): the payer type, the rule that applies and why ---------------

UNKNOWN_TYPE = "unknown"
#: CLP06 (835) / SBR09 (837) claim filing indicators whose limits differ from their payer class's:
#: a Medicare Advantage plan (16, "HMO Medicare Risk") is class ``medicare`` in the marts but appeals by
#: 42 CFR 422.582; TRICARE (CH) is ``other_government`` but appeals by 32 CFR 199.10.
FILING_INDICATOR_TYPES: dict[str, str] = {
    "16": "medicare_advantage",
    "CH": "tricare",
    "MA": "medicare",
    "MB": "medicare",
    "MC": "medicaid",
}
#: payer class (claim_filing_indicator_payer_classes seed) -> payer type of the limits. ``other``
#: (auto, liability, workers' comp) is contract-governed like commercial; a class missing here
#: (none, ``other_government`` other than TRICARE, a new one) is unknown; self-pay has no payer to appeal to.
CLASS_TYPES: dict[str, str | None] = {
    "medicare": "medicare",
    "medicaid": "medicaid",
    "commercial": "commercial",
    "other": "commercial",
    "self_pay": None,
}
#: the payer types an unknown payer may be: it gets the shortest of their windows (assumed)
COMMON_TYPES: tuple[str, ...] = ("medicare", "medicare_advantage", "medicaid", "tricare", "commercial")
PAYER_TYPES: tuple[str, ...] = (*COMMON_TYPES, "erisa")
EXPORT_SOURCE = "the hospital's export"


@dataclass(frozen=True, slots=True)
class PayerType:
    """The limits' payer type of a case and how it was found."""

    payer_type: str | None  # None: self-pay, no deadline
    assumed: bool  # unknown payer: the shortest common window is assumed
    basis: str  # which evidence chose it (a sentence, no PHI)


def payer_type_of(payer_class: str | None, filing_indicator: str | None) -> PayerType:
    """The payer type from the claim filing indicator (835 CLP06, else the 837's SBR09) and the payer
    class (the alias table's override, else the indicator's class)."""
    code = (filing_indicator or "").strip().upper()
    if code in FILING_INDICATOR_TYPES:
        return PayerType(FILING_INDICATOR_TYPES[code], False, f"claim filing indicator {code}")
    if payer_class in CLASS_TYPES:
        return PayerType(CLASS_TYPES[payer_class], False, f"payer class {payer_class}")
    return PayerType(UNKNOWN_TYPE, True, "payer class unknown: the shortest common window is assumed")


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What the deadlines of one case are computed from (no PHI)."""

    payer_class: str | None
    filing_indicator: str | None = None
    payer_id: str | None = None
    notice_date: date | None = None  # the remittance (notice) date
    service_date: date | None = None  # the date of service: the through date of an institutional claim
    soft_denial: bool = False  # fix and resubmit: the corrected claim's timely filing, no appeal
    stated_appeal_due: date | None = None  # the hospital's own export stated the appeal deadline


@dataclass(frozen=True, slots=True)
class Scheduled:
    """A deadline of a case with why it applies."""

    deadline: Deadline
    payer_type: str
    assumed: bool
    source: str  # the rule's citation, or EXPORT_SOURCE

    @property
    def level(self) -> str:
        return self.deadline.level


def _in_span(day: date | None) -> date | None:
    # a date outside the calendar's span (a mistyped year in a source file) gives no deadline
    return day if day is not None and EARLIEST <= day <= LATEST else None


def _first_appeal(payer_type: str, notice: date, plan: str | None, rules: tuple[LimitRule, ...]) -> Deadline | None:
    levels = appeal_levels(payer_type, rules)
    rule = rule_for(payer_type, levels[0], plan, rules, on=notice) if levels else None
    if rule is None or rule.basis not in NOTICE_BASES:
        return None
    return deadline(rule, notice)


def _filing(payer_type: str, service: date, plan: str | None, rules: tuple[LimitRule, ...]) -> Deadline | None:
    rule = rule_for(payer_type, TIMELY_FILING, plan, rules, on=service)
    return deadline(rule, service) if rule is not None and rule.basis == SERVICE_BASIS else None


def _shortest(candidates: list[Deadline | None]) -> Deadline | None:
    found = [d for d in candidates if d is not None]
    return min(found, key=lambda d: (d.due_on, d.rule.order)) if found else None


def _appeal(kind: PayerType, facts: CaseFacts, notice: date, rules: tuple[LimitRule, ...]) -> Deadline | None:
    if kind.assumed:
        return _shortest([_first_appeal(t, notice, facts.payer_id, rules) for t in COMMON_TYPES])
    return _first_appeal(str(kind.payer_type), notice, facts.payer_id, rules)


def _timely(kind: PayerType, facts: CaseFacts, service: date, rules: tuple[LimitRule, ...]) -> Deadline | None:
    if kind.assumed:
        return _shortest([_filing(t, service, facts.payer_id, rules) for t in COMMON_TYPES])
    return _filing(str(kind.payer_type), service, facts.payer_id, rules)


def _scheduled(found: Deadline | None, kind: PayerType) -> Scheduled | None:
    return Scheduled(found, found.rule.payer_type, kind.assumed, found.rule.source) if found is not None else None


def _stated(kind: PayerType, facts: CaseFacts, stated: date, rules: tuple[LimitRule, ...]) -> Scheduled:
    """The appeal deadline the hospital's export stated: the level and limit of the rule it stands
    for (so later levels follow), the date as stated."""
    payer_type = kind.payer_type if not kind.assumed else "commercial"
    levels = appeal_levels(str(payer_type), rules) or ("first_level_appeal",)
    rule = rule_for(str(payer_type), levels[0], facts.payer_id, rules) or LimitRule(
        str(payer_type), "*", levels[0], 1, "calendar", False, "date_of_denial", 0, False, 0
    )
    basis = facts.notice_date if facts.notice_date is not None and facts.notice_date <= stated else stated
    return Scheduled(Deadline(rule, basis, stated), str(payer_type), False, EXPORT_SOURCE)


def case_deadlines(facts: CaseFacts, rules: tuple[LimitRule, ...] = RULES) -> tuple[PayerType, list[Scheduled]]:
    """The deadlines a case has and why: the first appeal level (from the notice date) unless the
    denial is soft, and the timely filing of a corrected claim (from the date of service).

    - The payer type comes from the filing indicator and payer class (``payer_type_of``); an unknown
      payer gets, per deadline, the earliest due date among the common payer types, flagged assumed.
    - A soft denial (fix and resubmit, e.g. CO-16 with MA130) has no appeal deadline: the corrected
      claim's timely filing is the one that counts.
    - ``stated_appeal_due`` (the hospital's export) is the appeal deadline when given.
    """
    kind = payer_type_of(facts.payer_class, facts.filing_indicator)
    if kind.payer_type is None:
        return kind, []
    out: list[Scheduled] = []
    notice = _in_span(facts.notice_date)
    stated = _in_span(facts.stated_appeal_due)
    if not facts.soft_denial:
        if stated is not None:
            out.append(_stated(kind, facts, stated, rules))
        elif notice is not None:
            found = _scheduled(_appeal(kind, facts, notice, rules), kind)
            if found is not None:
                out.append(found)
    filing = timely_filing_deadline(facts, rules)
    if filing is not None:
        out.append(filing)
    return kind, out


def timely_filing_deadline(facts: CaseFacts, rules: tuple[LimitRule, ...] = RULES) -> Scheduled | None:
    """The timely filing of a (corrected) claim, counted from the date of service: the rule of the payer
    type (``payer_type_of``: filing indicator, then payer class), a client's rule in force on the date
    of service before the platform default (Medicare 12 months, 42 CFR 424.44; TRICARE one year,
    32 CFR 199.7(d); Medicaid 12 months, 42 CFR 447.45; commercial and MA contract defaults); an unknown
    payer the shortest common window, assumed. None for self-pay or without a date of service."""
    kind = payer_type_of(facts.payer_class, facts.filing_indicator)
    service = _in_span(facts.service_date)
    if kind.payer_type is None or service is None:
        return None
    return _scheduled(_timely(kind, facts, service, rules), kind)


def _following(
    payer_type: str, decided: str, decision: date, plan: str | None, rules: tuple[LimitRule, ...]
) -> Deadline | None:
    following = next_level(payer_type, decided, rules)
    rule = rule_for(payer_type, following, plan, rules, on=decision) if following is not None else None
    return deadline(rule, decision) if rule is not None else None


def later_level_deadline(
    facts: CaseFacts, decided_level: str, decision_date: date, rules: tuple[LimitRule, ...] = RULES
) -> Scheduled | None:
    """The deadline of the appeal level after ``decided_level``, counted from the date of that decision's
    notice, chosen like the first level's (``case_deadlines``): the payer type from the filing indicator
    and payer class, a client's rule in force on the decision date before the platform default, an
    unknown payer the shortest window of the common types that have such a level (assumed).

    The platform defaults and their sources (the seed): Medicare reconsideration 180 days from the
    redetermination (42 CFR 405.962), ALJ hearing 60 days from the reconsideration (42 CFR 405.1014),
    Appeals Council 60 (42 CFR 405.1102), federal court 60 (42 CFR 405.1130), each from the presumed
    receipt (5 days) and rolled to a business day. None when there is no further level, for self-pay,
    or for a date outside the calendar."""
    kind = payer_type_of(facts.payer_class, facts.filing_indicator)
    decision = _in_span(decision_date)
    if kind.payer_type is None or decision is None:
        return None
    if kind.assumed:
        found = _shortest([_following(t, decided_level, decision, facts.payer_id, rules) for t in COMMON_TYPES])
    else:
        found = _following(str(kind.payer_type), decided_level, decision, facts.payer_id, rules)
    return _scheduled(found, kind)
