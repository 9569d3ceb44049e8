"""policyImpact's pure parts: the limit rules a proposed appeal-limit change adds, and the claims
history's monthly figures (no I/O).

A proposed limit is the payer's first appeal level with its new number of days, in force from the
effective date, scoped like payerRules' own (a payer id of one payer type, else a whole payer type); the
rest of the rule (calendar or business days, rolling to a business day, the receipt presumption, the basis
date) is the rule it replaces (``rules.rule_for``), so only the days move. The deadline engine then picks
it as it picks a client's rule (``rules.rule_for``: payer-specific > type-wide, client > platform, the
latest in force on the notice date): a denial noticed before the effective date keeps its old deadline.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from api.denials.deadlines import rules

PROPOSED_SOURCE = "the proposed change (policyImpact, not stored)"
PROPOSED_ID = -1  # marks the proposed rule as a client's for rule_for; never a stored id


def proposed_limits(
    current: tuple[rules.LimitRule, ...],
    *,
    payer_type: str | None,
    payer_id: str | None,
    days: int,
    effective_from: date,
) -> tuple[rules.LimitRule, ...]:
    """The first-appeal rules the change adds: for `payer_type` (every payer type when only a payer id is
    given), scoped to `payer_id` (or type-wide), each a copy of the rule it replaces with `days`."""
    plan = "*" if payer_id is None else payer_id.strip().upper()
    types = rules.PAYER_TYPES if payer_type is None else (payer_type,)
    out = []
    for kind in types:
        levels = rules.appeal_levels(kind, current)
        base = rules.rule_for(kind, levels[0], plan, current) if levels else None
        if base is None:
            continue
        out.append(
            replace(
                base, plan=plan, days=days, effective_from=effective_from, source=PROPOSED_SOURCE, rule_id=PROPOSED_ID
            )
        )
    return tuple(out)


def month_of(day: date) -> date:
    return day.replace(day=1)


def months_back(last: date, count: int) -> list[date]:
    """The `count` months ending with the month of `last`, oldest first."""
    index = last.year * 12 + last.month - 1
    return [date((i) // 12, i % 12 + 1, 1) for i in range(index - count + 1, index + 1)]


@dataclass(frozen=True, slots=True)
class Served:
    claim_id: int
    served_from: date
    charge: Decimal
    authorized: bool


@dataclass(frozen=True, slots=True)
class Month:
    month: date
    claims: int
    lines: int
    charges: Decimal
    lines_without_authorization: int


def monthly(lines: Iterable[Served], months: Sequence[date]) -> list[Month]:
    """Per month of `months` (0 where none): claims, lines, charges and lines no authorization covers."""
    found: dict[date, list[Served]] = {m: [] for m in months}
    for line in lines:
        found.setdefault(month_of(line.served_from), []).append(line)
    return [
        Month(
            month=m,
            claims=len({s.claim_id for s in found[m]}),
            lines=len(found[m]),
            charges=sum((s.charge for s in found[m]), Decimal("0.00")),
            lines_without_authorization=sum(1 for s in found[m] if not s.authorized),
        )
        for m in months
    ]


def average(values: Sequence[Decimal]) -> Decimal:
    """The mean to the cent (0.00 for no months)."""
    if not values:
        return Decimal("0.00")
    return (sum(values, Decimal(0)) / len(values)).quantize(Decimal("0.01"))
