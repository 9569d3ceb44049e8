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
from api.intelligence.payer_rules.schemas import AliasIn, ClaimFacts, ListIn, UpsertIn
from api.money.reconciliation import service as reconciliation
from api.rpc.schema import decode_cursor, encode_cursor


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


def list_rules(db: Session, f: ListIn) -> tuple[list[dict[str, Any]], str | None, list[dict[str, Any]]]:
    """The client's rules (newest first, filtered, paginated) and every platform default."""
    rows = deadlines.list_payer_rules(
        db,
        payer_type=f.payer_type,
        payer_id=f.payer_id,
        level=f.level,
        before_id=decode_cursor(f.cursor),
        limit=f.limit + 1,
    )
    more, rows = len(rows) > f.limit, rows[: f.limit]
    cursor = encode_cursor(rows[-1].id) if more and rows else None
    items = [rule_out(deadlines.as_limit(r)) for r in rows]
    return items, cursor, [rule_out(r) for r in rules.RULES]


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


def upsert(db: Session, spec: UpsertIn, *, user_id: int) -> Upserted:
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


def _claim_facts(claim: ClaimFacts) -> rules.CaseFacts:
    return rules.CaseFacts(
        payer_class=claim.payer_class,
        filing_indicator=claim.filing_indicator.upper() if claim.filing_indicator else None,
        payer_id=claim.payer_id,
        notice_date=claim.notice_date,
        service_date=claim.service_date,
        soft_denial=claim.soft_denial,
    )


def evaluate(db: Session, case_id: int | None, claim: ClaimFacts | None) -> Evaluation:
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


def upsert_alias(db: Session, spec: AliasIn) -> AliasWritten:
    """Insert or update one spelling of a payer (compared upper-cased and trimmed, one row per spelling):
    its canonical payer and, optionally, its payer class. The marts read it at the next build; the
    deadlines of the payer's working cases (a payer-id alias) are recomputed now."""
    alias = spec.alias.strip().upper()
    row, before = reconciliation.upsert_alias(
        db,
        alias_kind=spec.alias_kind,
        alias=alias,
        canonical_payer_key=spec.canonical_payer_key,
        canonical_payer_id=spec.canonical_payer_id,
        payer_class=spec.payer_class,
    )
    rescheduled = request_reschedule(db, alias) if spec.alias_kind == "payer_id" else 0
    return AliasWritten(row, before, rescheduled)
