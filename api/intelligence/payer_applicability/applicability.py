"""Why a rule applies to a claim (pure): its scope, the date it is in force from, its source, and the claim
facts that selected it.

An applied rule is kind-neutral (kind, scope, source, selectors, why) with the kind's own detail beside
it: today the appeal and timely-filing limits of the deadline engine (``api.denials.deadlines.rules``);
authorization requirements and frequency limits are meant to be further kinds with their own detail,
found by their own finder (the service's ``FINDERS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from api.denials.deadlines import rules

#: the kinds this module builds (the limits); others join through the service's finders
APPEAL_LIMIT, TIMELY_FILING_LIMIT = "appeal_limit", "timely_filing_limit"


@dataclass(frozen=True, slots=True)
class Selector:
    """A claim fact that selected a rule (no PHI: codes, payer ids, dates of notice and service)."""

    fact: str
    value: str


@dataclass(frozen=True, slots=True)
class Scope:
    origin: str  # client (the client's own rule) | platform (the reference seed)
    breadth: str  # payer_specific (one payer id) | type_wide (every payer of the type)
    payer_type: str
    payer_id: str  # "*" for type-wide


@dataclass(frozen=True, slots=True)
class LimitDetail:
    level: str
    due_on: date
    basis_date: date
    days: int
    day_count: str
    roll_forward: bool
    receipt_days: int


@dataclass(frozen=True, slots=True)
class Applied:
    kind: str
    scope: Scope
    effective_from: date | None  # None: a platform default, in force for every date
    source: str
    reference: str
    selected_by: tuple[Selector, ...]
    why: str
    limit: LimitDetail | None = None


def _payer_selectors(kind: rules.PayerType, facts: rules.CaseFacts) -> list[Selector]:
    out = []
    if facts.filing_indicator:
        out.append(Selector("filing_indicator", facts.filing_indicator))
    if facts.payer_class:
        out.append(Selector("payer_class", facts.payer_class))
    if kind.assumed:
        out.append(Selector("payer_type", "unknown: the shortest common window is assumed"))
    return out


def _why(s: rules.Scheduled, kind: rules.PayerType, facts: rules.CaseFacts) -> str:
    rule = s.deadline.rule
    scope = f"{s.payer_type} payer {rule.plan}" if rule.plan != "*" else f"every {s.payer_type} payer"
    whose = "the client's rule" if rule.rule_id is not None else "the platform default"
    if s.source == rules.EXPORT_SOURCE:
        return f"The hospital's export stated the appeal deadline ({kind.basis})"
    if s.deadline.rule.kind == "timely_filing" and facts.soft_denial:
        return f"A soft denial is fixed and resubmitted: {whose} for {scope}, timely filing ({kind.basis})"
    return f"{whose[0].upper()}{whose[1:]} for {scope}, {rule.level} ({kind.basis})"


def from_scheduled(s: rules.Scheduled, kind: rules.PayerType, facts: rules.CaseFacts) -> Applied:
    """An applied limit from the deadline engine's answer (``rules.case_deadlines``) for these facts."""
    rule = s.deadline.rule
    selectors = _payer_selectors(kind, facts)
    if rule.plan != "*":
        selectors.append(Selector("payer_id", rule.plan))
    if s.source == rules.EXPORT_SOURCE and facts.stated_appeal_due is not None:
        selectors.append(Selector("stated_appeal_deadline", facts.stated_appeal_due.isoformat()))
    elif rule.kind == "timely_filing":
        selectors.append(Selector("service_date", s.deadline.basis_date.isoformat()))
        if facts.soft_denial:
            selectors.append(Selector("soft_denial", "true"))
    else:
        selectors.append(Selector("notice_date", s.deadline.basis_date.isoformat()))
    return Applied(
        kind=TIMELY_FILING_LIMIT if rule.kind == "timely_filing" else APPEAL_LIMIT,
        scope=Scope(
            origin=rule.origin,
            breadth="type_wide" if rule.plan == "*" else "payer_specific",
            payer_type=s.payer_type,
            payer_id=rule.plan,
        ),
        effective_from=None if rule.effective_from == rules.ALWAYS else rule.effective_from,
        source=s.source,
        reference=rule.reference,
        selected_by=tuple(selectors),
        why=_why(s, kind, facts),
        limit=LimitDetail(
            level=rule.level,
            due_on=s.deadline.due_on,
            basis_date=s.deadline.basis_date,
            days=rule.days,
            day_count=rule.day_count,
            roll_forward=rule.roll_forward,
            receipt_days=rule.receipt_days,
        ),
    )
