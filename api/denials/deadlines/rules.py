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

from api.denials.deadlines.business_calendar import EARLIEST, LATEST, add_business_days, next_business_day_on_or_after

SEED_PATH = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "reference" / "payer_appeal_limits.csv"

DayCount = Literal["calendar", "business"]
DeadlineKind = Literal["appeal", "timely_filing"]

TIMELY_FILING = "timely_filing"
#: bases counted from the date of the payer's notice (the remittance date on a case)
NOTICE_BASES = frozenset(
    {"receipt_of_initial_determination", "date_of_denial", "receipt_of_adverse_benefit_determination"}
)
SERVICE_BASIS = "date_of_service"

#: DenialCase.payer_class (claim_filing_indicator_payer_classes seed) -> payer_type of the limits.
#: Classes without limits of their own get the commercial defaults (flagged is_default, so the answer
#: says it is a default); self-pay has no payer to appeal to.
PAYER_CLASS_TO_TYPE: dict[str, str | None] = {
    "medicare": "medicare",
    "medicaid": "medicaid",
    "commercial": "commercial",
    "other_government": "commercial",
    "other": "commercial",
    "self_pay": None,
}
UNKNOWN_CLASS_TYPE = "commercial"


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

    @property
    def reference(self) -> str:
        """A stable name of the rule for storage and display."""
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
            )
        )
    return tuple(rules)


RULES: tuple[LimitRule, ...] = parse_rules(SEED_PATH.read_text(encoding="utf-8"))


def payer_type_for(payer_class: str | None) -> str | None:
    """The limits' payer_type for a case's payer class (unknown or missing: the commercial defaults)."""
    if payer_class is None:
        return UNKNOWN_CLASS_TYPE
    return PAYER_CLASS_TO_TYPE.get(payer_class, UNKNOWN_CLASS_TYPE)


def rule_for(
    payer_type: str, level: str, plan: str | None = None, rules: tuple[LimitRule, ...] = RULES
) -> LimitRule | None:
    """The rule of a level: the payer-specific plan row if there is one, else the ``*`` row."""
    generic = None
    for rule in rules:
        if rule.payer_type == payer_type and rule.level == level:
            if plan is not None and rule.plan == plan:
                return rule
            if rule.plan == "*":
                generic = rule
    return generic


def appeal_levels(payer_type: str, rules: tuple[LimitRule, ...] = RULES) -> tuple[str, ...]:
    """The appeal levels of a payer type, first to last (file order)."""
    levels: list[str] = []
    for rule in sorted(rules, key=lambda r: r.order):
        if rule.payer_type == payer_type and rule.kind == "appeal" and rule.level not in levels:
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


def initial_deadlines(
    payer_class: str | None,
    *,
    notice_date: date | None,
    service_date: date | None,
    plan: str | None = None,
    rules: tuple[LimitRule, ...] = RULES,
) -> list[Deadline]:
    """The deadlines a new denial case has: the first appeal level (from the notice, i.e. the
    remittance date) and the timely filing of a corrected claim (from the date of service).

    Later appeal levels count from a decision that has not happened yet: ``later_level_deadline``
    computes them when the decision is recorded."""
    payer_type = payer_type_for(payer_class)
    if payer_type is None:
        return []
    # a date outside the calendar's span (a mistyped year in a source file) gives no deadline
    notice_date = notice_date if notice_date is not None and EARLIEST <= notice_date <= LATEST else None
    service_date = service_date if service_date is not None and EARLIEST <= service_date <= LATEST else None
    found: list[Deadline] = []
    levels = appeal_levels(payer_type, rules)
    first = rule_for(payer_type, levels[0], plan, rules) if levels else None
    if first is not None and notice_date is not None and first.basis in NOTICE_BASES:
        found.append(deadline(first, notice_date))
    filing = rule_for(payer_type, TIMELY_FILING, plan, rules)
    if filing is not None and service_date is not None and filing.basis == SERVICE_BASIS:
        found.append(deadline(filing, service_date))
    return found


def later_level_deadline(
    payer_class: str | None,
    decided_level: str,
    decision_date: date,
    *,
    plan: str | None = None,
    rules: tuple[LimitRule, ...] = RULES,
) -> Deadline | None:
    """The deadline of the level after ``decided_level``, counted from the date of that decision's
    notice (Medicare: reconsideration 180 days, ALJ 60, Appeals Council 60, court 60, each from the
    presumed receipt). None when there is no further level."""
    payer_type = payer_type_for(payer_class)
    if payer_type is None or not EARLIEST <= decision_date <= LATEST:
        return None
    following = next_level(payer_type, decided_level, rules)
    rule = rule_for(payer_type, following, plan, rules) if following is not None else None
    return deadline(rule, decision_date) if rule is not None else None
