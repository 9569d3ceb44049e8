"""payerRules on the operational DB: the rules (platform defaults + the client's), their upsert, which
rule applies to a case or a described claim, and payer aliases.

The rule table and the choice of a rule live with the deadline scheduler that reads them
(``api/denials/deadlines``: its table through ``service`` — ``list_payer_rules``, ``upsert_payer_rule``,
``facts_of_case`` — and the published pure ``rules.case_deadlines``); this namespace writes and explains them. A write re-schedules the working cases it may change, in the same
transaction, so the worklist follows at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.denials.deadlines import rules
from api.denials.deadlines import service as deadlines
from api.denials.deadlines.service import request_reschedule
from api.money.reconciliation import service as reconciliation


def rule_out(rule: rules.LimitRule) -> dict[str, Any]:
    return {
        "id": rule.rule_id,
        "origin": rule.origin,
        "payer_type": rule.payer_type,
        "payer_id": rule.plan,
        "level": rule.level,
        "kind": rule.kind,
        "days": rule.days,
        "day_count": rule.day_count,
        "roll_forward": rule.roll_forward,
        "basis": rule.basis,
        "receipt_days": rule.receipt_days,
        "effective_from": rule.effective_from,
        "is_default": rule.is_default,
        "source": rule.source,
        "reference": rule.reference,
    }


def list_rules(
    db: Session,
    *,
    payer_type: str | None,
    payer_id: str | None,
    level: str | None,
    before_id: int | None,
    limit: int,
) -> tuple[list[dict[str, Any]], int | None, list[dict[str, Any]]]:
    """The client's rules (newest first, filtered, `limit` of them below `before_id`), the id to continue
    below when there are more (else None), and every platform default."""
    rows = deadlines.list_payer_rules(
        db, payer_type=payer_type, payer_id=payer_id, level=level, before_id=before_id, limit=limit + 1
    )
    more, rows = len(rows) > limit, rows[:limit]
    items = [rule_out(deadlines.as_limit(r)) for r in rows]
    return items, rows[-1].id if more and rows else None, [rule_out(r) for r in rules.RULES]


def _platform_rule(payer_type: str, level: str) -> rules.LimitRule:
    found = rules.rule_for(payer_type, level)
    if found is None:
        known = [*rules.appeal_levels(payer_type)]
        if rules.rule_for(payer_type, rules.TIMELY_FILING) is not None:
            known.append(rules.TIMELY_FILING)
        raise InvalidInput(f"Invalid input: 'level' is not a level of {payer_type} (known: {', '.join(known)})")
    return found


# The audit state of a rule is the deadlines' (the table is theirs).
stored = deadlines.payer_rule_state


@dataclass(frozen=True, slots=True)
class Upserted:
    row: deadlines.Rule
    before: dict[str, Any] | None
    rescheduled: int


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """A client's own limit of one level for a payer type (payer id `*`) or one payer, from a date."""

    payer_type: str
    level: str
    days: int
    effective_from: date
    source: str
    payer_id: str = "*"
    day_count: str = "calendar"
    roll_forward: bool = False
    receipt_days: int = 0


def upsert(db: Session, spec: RuleSpec, *, user_id: int) -> Upserted:
    """Insert or update the client's rule for (payer type, payer id, level, effective date); the basis
    (what the days count from) is the platform rule's for that level, so later levels still follow."""
    platform = _platform_rule(spec.payer_type, spec.level)
    values = deadlines.PayerRuleValues(
        payer_type=spec.payer_type,
        payer_id=spec.payer_id,
        level=spec.level,
        effective_from=spec.effective_from,
        days=spec.days,
        day_count=spec.day_count,
        roll_forward=spec.roll_forward,
        receipt_days=spec.receipt_days,
        basis=platform.basis,
        source=spec.source,
    )
    row, before = deadlines.upsert_payer_rule(db, values, user_id=user_id)
    return Upserted(row, before, request_reschedule(db, None if spec.payer_id == "*" else spec.payer_id))


# --- evaluate --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evaluation:
    case_id: int | None
    facts: rules.CaseFacts
    kind: rules.PayerType
    found: list[rules.Scheduled]


@dataclass(frozen=True, slots=True)
class DescribedClaim:
    """A claim described by hand (no case needed)."""

    payer_class: str | None = None
    filing_indicator: str | None = None
    payer_id: str | None = None
    notice_date: date | None = None
    service_date: date | None = None
    soft_denial: bool = False


def _claim_facts(claim: DescribedClaim) -> rules.CaseFacts:
    return rules.CaseFacts(
        payer_class=claim.payer_class,
        filing_indicator=claim.filing_indicator.upper() if claim.filing_indicator else None,
        payer_id=claim.payer_id,
        notice_date=claim.notice_date,
        service_date=claim.service_date,
        soft_denial=claim.soft_denial,
    )


def evaluate(db: Session, case_id: int | None, claim: DescribedClaim | None) -> Evaluation:
    """Which rules apply to a case (its stored facts) or to a claim described by hand, and why."""
    if case_id is not None:
        facts = deadlines.facts_of_case(db, case_id)
    elif claim is not None:
        facts = _claim_facts(claim)
    else:  # the schema refuses this; kept for a direct caller
        raise InvalidInput("Invalid input: give exactly one of caseId or claim")
    kind, found = rules.case_deadlines(facts, deadlines.client_rules(db))
    return Evaluation(case_id, facts, kind, found)


def applied(found: Sequence[rules.Scheduled], as_of: date) -> list[dict[str, Any]]:
    return [
        {
            "level": s.level,
            "kind": s.deadline.rule.kind,
            "due_on": s.deadline.due_on,
            "basis_date": s.deadline.basis_date,
            "days_left": (s.deadline.due_on - as_of).days,
            "payer_type": s.payer_type,
            "assumed": s.assumed,
            "source": s.source,
            "rule": rule_out(s.deadline.rule),
        }
        for s in found
    ]


# --- aliases ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AliasWritten:
    row: reconciliation.Alias
    before: dict[str, Any] | None
    rescheduled: int


# The audit state of an alias is reconciliation's (the table is its).
alias_state = reconciliation.alias_state


def upsert_alias(
    db: Session,
    *,
    alias_kind: str,
    alias: str,
    canonical_payer_key: str,
    canonical_payer_id: str | None,
    payer_class: str | None,
) -> AliasWritten:
    """Insert or update one spelling of a payer (compared upper-cased and trimmed, one row per spelling):
    its canonical payer and, optionally, its payer class. The marts read it at the next build; the
    deadlines of the payer's working cases (a payer-id alias) are recomputed now."""
    alias = alias.strip().upper()
    row, before = reconciliation.upsert_alias(
        db,
        alias_kind=alias_kind,
        alias=alias,
        canonical_payer_key=canonical_payer_key,
        canonical_payer_id=canonical_payer_id,
        payer_class=payer_class,
    )
    rescheduled = request_reschedule(db, alias) if alias_kind == "payer_id" else 0
    return AliasWritten(row, before, rescheduled)
