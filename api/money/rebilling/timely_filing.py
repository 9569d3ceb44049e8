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


def limit_for(facts: rules.CaseFacts, limits: tuple[rules.LimitRule, ...] = rules.RULES) -> FilingLimit | None:
    """The timely-filing deadline of the claim the facts describe (None: no limit applies), by the same
    rule as a case's own timely-filing deadline (``rules.timely_filing_deadline``: the payer type from
    the filing indicator and payer class, the client's rules before the platform defaults, an unknown
    payer's shortest common window)."""
    found = rules.timely_filing_deadline(facts, limits)
    if found is None:
        return None
    return FilingLimit(found.deadline.due_on, found.deadline.rule.days, found.deadline.rule.reference)


def check(limit: FilingLimit | None, on: date, override_reason: str | None) -> None:
    """PRECONDITION_FAILED when ``on`` is past the limit and nobody gave a reason to file late anyway."""
    if limit is None or on <= limit.due_on or override_reason:
        return
    raise PreconditionFailed(
        f"Past timely filing: the limit of {limit.days} days from the date of service ran out on "
        f"{limit.due_on.isoformat()}; give 'overrideReason' to file anyway",
        details={"limitDays": limit.days, "dueOn": limit.due_on.isoformat(), "rule": limit.rule_reference},
    )
