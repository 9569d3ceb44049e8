"""Is a rebill within the payer's timely-filing limit? (pure, rules from deadlines.rules)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from api.core.errors import PreconditionFailed
from api.denials.deadlines import rules


@dataclass(frozen=True, slots=True)
class FilingLimit:
    due_on: date
    days: int
    rule_reference: str


def limit_for(payer_class: str | None, service_date: date, plan: str | None = None) -> FilingLimit | None:
    """The timely-filing deadline of a claim with this date of service (None: no limit applies)."""
    payer_type = rules.payer_type_for(payer_class)
    rule = rules.rule_for(payer_type, rules.TIMELY_FILING, plan) if payer_type else None
    if rule is None:
        return None
    return FilingLimit(rules.due_date(rule, service_date), rule.days, rule.reference)


def check(limit: FilingLimit | None, on: date, override_reason: str | None) -> None:
    """PRECONDITION_FAILED when ``on`` is past the limit and nobody gave a reason to file late anyway."""
    if limit is None or on <= limit.due_on or override_reason:
        return
    raise PreconditionFailed(
        f"Past timely filing: the limit of {limit.days} days from the date of service ran out on "
        f"{limit.due_on.isoformat()}; give 'overrideReason' to file anyway",
        details={"limitDays": limit.days, "dueOn": limit.due_on.isoformat(), "rule": limit.rule_reference},
    )
