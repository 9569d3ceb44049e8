"""payerRules on the operational DB: the rules (platform defaults + the client's), changes to them through
approval, which rule applies to a case or a described claim, and payer aliases.

The rule table and the choice of a rule live with the deadline scheduler that reads them
(``api/denials/deadlines``: its table through ``service`` — ``list_payer_rules``, ``upsert_payer_rule``,
``facts_of_case`` — and the published pure ``rules.case_deadlines``); this namespace writes and explains
them. A rule changes only through approval (separation of duties): ``propose`` stores a change checked by
its kind's checker (``proposals.py``), ``decide`` by another person applies it through its owner: a limit
through the deadlines (queuing the re-scheduling of the working cases it may change, a job run after the
commit), an authorization requirement through priorAuthorization, a frequency limit to this namespace's own
``payer_frequency_limits`` (``frequency.py`` decides which applies to a claim line and whether the patient's
earlier services, read from claims, exceed it: ``claim_frequency``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, InvalidInput
from api.core.lifecycle import transition
from api.denials.claims import service as claims
from api.denials.deadlines import rules
from api.denials.deadlines import service as deadlines
from api.denials.deadlines.service import request_reschedule
from api.denials.prior_authorization import service as prior_authorization
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.intelligence.payer_rules import frequency, proposals, versions
from api.intelligence.payer_rules.defaults import platform_frequency_limits
from api.intelligence.payer_rules.lifecycle import CHANGE
from api.intelligence.payer_rules.models import PayerFrequencyLimit, PayerRuleChange
from api.money.reconciliation import service as reconciliation
from api.platform.organizations.service import require_independent


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
    # a rule's versions are its effective dates: each says until when it is in force (the history)
    ends = versions.version_ends(deadlines.client_rules(db)) if rows else {}
    items = [{**rule_out(deadlines.as_limit(r)), "effective_to": ends.get(r.id)} for r in rows]
    return items, rows[-1].id if more and rows else None, [rule_out(r) for r in rules.RULES]


# The audit state of a rule is the deadlines' (the table is theirs).
stored = deadlines.payer_rule_state


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

    def payload(self) -> dict[str, Any]:
        return {
            "payer_type": self.payer_type,
            "payer_id": self.payer_id,
            "level": self.level,
            "days": self.days,
            "day_count": self.day_count,
            "roll_forward": self.roll_forward,
            "receipt_days": self.receipt_days,
            "effective_from": self.effective_from.isoformat(),
            "source": self.source,
        }


# --- changes go through approval: one person proposes, another decides ------------------------------


@dataclass(frozen=True, slots=True)
class Proposed:
    change: PayerRuleChange
    rule: dict[str, Any]  # the rule as it would read once approved (`rule_out`'s keys)
    created: bool  # approving it adds a rule (False: it updates the rule of the same key and date)


def change_state(row: PayerRuleChange) -> dict[str, Any]:
    """The change as the audit records it."""
    return {
        "kind": row.kind,
        "payload": row.payload,
        "state": row.state,
        "proposed_by": row.proposed_by,
        "decided_by": row.decided_by,
        "reason": row.reason,
        "applied_rule_id": row.applied_rule_id,
    }


def _existing_limit(db: Session, payload: dict[str, Any]) -> rules.LimitRule | None:
    """The client's rule a limit payload would update (same payer type, payer, level and date), if any."""
    key = (payload["payer_type"], payload["payer_id"], payload["level"], date.fromisoformat(payload["effective_from"]))
    for rule in deadlines.client_rules(db):
        if rule.rule_id is not None and (rule.payer_type, rule.plan, rule.level, rule.effective_from) == key:
            return rule
    return None


def _limit_values(payload: dict[str, Any]) -> deadlines.PayerRuleValues:
    # the basis (what the days count from) is the platform rule's for that level, so later levels follow
    platform = proposals.level_of(payload["payer_type"], payload["level"])
    return deadlines.PayerRuleValues(
        payer_type=payload["payer_type"],
        payer_id=payload["payer_id"],
        level=payload["level"],
        effective_from=date.fromisoformat(payload["effective_from"]),
        days=payload["days"],
        day_count=payload["day_count"],
        roll_forward=payload["roll_forward"],
        receipt_days=payload["receipt_days"],
        basis=platform.basis,
        source=payload["source"],
    )


def proposed_rule(change: PayerRuleChange, existing: rules.LimitRule | None) -> dict[str, Any]:
    """A proposed limit as `rule_out` shows a rule: the id of the rule it would update (None: a new one),
    its reference the change's."""
    values = _limit_values(change.payload)
    as_rule = rules.LimitRule(
        payer_type=values.payer_type,
        plan=values.payer_id,
        level=values.level,
        days=values.days,
        day_count="business" if values.day_count == "business" else "calendar",
        roll_forward=values.roll_forward,
        basis=values.basis,
        receipt_days=values.receipt_days,
        is_default=False,
        order=0,
        source=values.source,
        effective_from=values.effective_from,
        rule_id=None if existing is None else existing.rule_id,
    )
    return {**rule_out(as_rule), "origin": "client", "reference": f"payer_rule_changes/{change.id}"}


def propose(db: Session, kind: str, payload: dict[str, Any], *, user_id: int) -> PayerRuleChange:
    """A proposed change of a rule of `kind`, checked by the kind's checker (`proposals.check`); nothing
    changes until another manager or admin approves it (`decide`)."""
    checked = proposals.check(kind, payload)
    change = PayerRuleChange(kind=kind, payload=checked, state="proposed", proposed_by=user_id)
    db.add(change)
    db.flush()
    return change


def propose_limit(db: Session, spec: RuleSpec, *, user_id: int) -> Proposed:
    """Propose the client's limit of one level for (payer type, payer id) from a date, with the rule as
    it will read once approved."""
    change = propose(db, "limit", spec.payload(), user_id=user_id)
    existing = _existing_limit(db, change.payload)
    return Proposed(change, proposed_rule(change, existing), existing is None)


@dataclass(frozen=True, slots=True)
class Applied:
    rule_id: int  # the row written: payer_rules (limit), prior_auth_requirements (authorization),
    # payer_frequency_limits (frequency)
    rule: dict[str, Any]  # the row as shown: `rule_out`, `prior_authorization.requirement_view`, `frequency_view`
    before: dict[str, Any] | None  # its audit state before (None: inserted)
    after: dict[str, Any]
    rescheduled: int


def _apply_limit(db: Session, payload: dict[str, Any], *, user_id: int) -> Applied:
    """Write the limit through the deadlines (`upsert_payer_rule`) and queue the recomputation of the
    working cases it may change (the payer's, or every one for a type-wide rule), as a rule write always did."""
    row, before = deadlines.upsert_payer_rule(db, _limit_values(payload), user_id=user_id)
    payer_id = payload["payer_id"]
    rescheduled = request_reschedule(db, None if payer_id == "*" else payer_id)
    return Applied(row.id, rule_out(deadlines.as_limit(row)), before, stored(row), rescheduled)


# --- authorization requirements: priorAuthorization's table, written only here, after approval ----------


def _scope(req: prior_authorization.Requirement) -> tuple[Any, ...]:
    # the key priorAuthorization updates a requirement by (`upsert_requirement`)
    return (
        req.payer_type,
        req.payer_id,
        req.plan,
        req.codes,
        req.place_of_service,
        req.revenue_code,
        req.effective_from,
    )


@dataclass(frozen=True, slots=True)
class ProposedRequirement:
    change: PayerRuleChange
    requirement: dict[str, Any]  # as it would read once approved (`prior_authorization.requirement_view`'s keys)
    created: bool  # approving it adds a requirement (False: it updates the one of the same scope and date)


def propose_authorization(
    db: Session, values: prior_authorization.RequirementValues, *, user_id: int
) -> ProposedRequirement:
    """Propose the client's prior-authorization requirement (or exemption) for a scope from a date; nothing
    changes until another manager or admin approves it. Answers it as it will read: the id and next
    version of the requirement of the same scope and date it would update (None and 1: a new one)."""
    payload = {
        "payer_type": values.payer_type,
        "payer_id": values.payer_id,
        "plan": values.plan,
        "procedure_codes": values.procedure_code,
        "place_of_service": values.place_of_service,
        "revenue_code": values.revenue_code,
        "requires_authorization": values.requires_authorization,
        "effective_from": values.effective_from.isoformat(),
        "effective_to": None if values.effective_to is None else values.effective_to.isoformat(),
        "source": values.source,
    }
    change = propose(db, "authorization", payload, user_id=user_id)
    wanted = prior_authorization.checked_requirement(proposals.authorization_values(change.payload))
    existing = next(
        (
            r
            for r in prior_authorization.all_requirements(db)
            if r.requirement_id is not None and _scope(r) == _scope(wanted)
        ),
        None,
    )
    shown = prior_authorization.requirement_view(wanted)
    shown.update(
        id=None if existing is None else existing.requirement_id,
        origin="client",
        reference=f"payer_rule_changes/{change.id}",
        version=1 if existing is None else existing.version + 1,
    )
    return ProposedRequirement(change, shown, existing is None)


def _apply_authorization(db: Session, payload: dict[str, Any], *, user_id: int) -> Applied:
    """Write the requirement through priorAuthorization (`upsert_requirement`, version + 1 on the same scope
    and date). A claim's lines are matched at read, so nothing is rescheduled: the next status, submission
    preparation or payerApplicability answer uses it."""
    row, before = prior_authorization.upsert_requirement(db, proposals.authorization_values(payload), user_id=user_id)
    shown = prior_authorization.requirement_view(prior_authorization.as_requirement(row))
    return Applied(row.id, shown, before, prior_authorization.requirement_state(row), 0)


# --- frequency limits: payerRules' own table, written only here, after approval ---------------------------


@dataclass(frozen=True, slots=True)
class FrequencyValues:
    """A client's frequency limit as given: `procedure_codes` a code or a range (``G0438-G0439``), at most
    `max_units` per `period` (`period_length` N for rolling_days and months), payer id and plan ``*`` for any."""

    payer_type: str
    procedure_codes: str
    max_units: int
    period: str
    effective_from: date
    source: str
    period_length: int | None = None
    payer_id: str = frequency.ANY
    plan: str = frequency.ANY
    effective_to: date | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "payer_type": self.payer_type,
            "payer_id": self.payer_id,
            "plan": self.plan,
            "procedure_codes": self.procedure_codes,
            "max_units": self.max_units,
            "period": self.period,
            "period_length": self.period_length,
            "effective_from": self.effective_from.isoformat(),
            "effective_to": None if self.effective_to is None else self.effective_to.isoformat(),
            "source": self.source,
        }


def frequency_view(limit: frequency.FrequencyLimit) -> dict[str, Any]:
    """A frequency limit as the wire shows it (payerRules.frequencyLimits, proposals and decisions)."""
    return {
        "id": limit.limit_id,
        "origin": limit.origin,
        "reference": limit.reference,
        "payer_type": limit.payer_type,
        "payer_id": limit.payer_id,
        "plan": limit.plan,
        "procedure_codes": str(limit.codes),
        "max_units": limit.max_units,
        "period": limit.period,
        "period_length": limit.period_length,
        "terms": limit.terms(),
        "effective_from": limit.effective_from,
        "effective_to": limit.effective_to,
        "source": limit.source,
        "version": limit.version,
    }


def frequency_state(row: PayerFrequencyLimit) -> dict[str, Any]:
    """The row as the audit records it."""
    return {
        **{k: v for k, v in frequency_view(as_frequency(row)).items() if k not in ("id", "origin", "reference")},
        "effective_from": row.effective_from.isoformat(),
        "effective_to": row.effective_to.isoformat() if row.effective_to else None,
    }


def as_frequency(row: PayerFrequencyLimit) -> frequency.FrequencyLimit:
    return frequency.FrequencyLimit(
        payer_type=row.payer_type,
        payer_id=row.payer_id,
        plan=row.plan,
        codes=prior_authorization.CodeRange(row.code_low, row.code_high),
        max_units=row.max_units,
        period=row.period,
        period_length=row.period_length,
        effective_from=row.effective_from,
        effective_to=row.effective_to,
        source=row.source,
        version=row.version,
        limit_id=row.id,
    )


def client_frequency_limits(db: Session) -> tuple[frequency.FrequencyLimit, ...]:
    """The session client's own frequency limits, each ended where its next version starts (``closed``)."""
    rows = db.scalars(select(PayerFrequencyLimit).order_by(PayerFrequencyLimit.id))
    return frequency.closed([as_frequency(r) for r in rows])


def all_frequency_limits(db: Session) -> tuple[frequency.FrequencyLimit, ...]:
    """The platform's frequency limits followed by the session client's own (closed by their versions)."""
    return (*platform_frequency_limits(), *client_frequency_limits(db))


@dataclass(frozen=True, slots=True)
class ProposedFrequency:
    change: PayerRuleChange
    limit: dict[str, Any]  # as it would read once approved (`frequency_view`'s keys)
    created: bool  # approving it adds a limit (False: it updates the one of the same scope and date)


def _same_scope(db: Session, wanted: frequency.FrequencyLimit) -> frequency.FrequencyLimit | None:
    key = (wanted.scope, wanted.effective_from)
    return next((lim for lim in client_frequency_limits(db) if (lim.scope, lim.effective_from) == key), None)


def propose_frequency(db: Session, values: FrequencyValues, *, user_id: int) -> ProposedFrequency:
    """Propose the client's frequency limit for a scope from a date; nothing changes until another manager
    or admin approves it. Answers it as it will read: the id and next version of the limit of the same
    scope and date it would update (None and 1: a new one)."""
    change = propose(db, "frequency", values.payload(), user_id=user_id)
    wanted = proposals.frequency_limit(change.payload)
    existing = _same_scope(db, wanted)
    shown = frequency_view(wanted)
    shown.update(
        id=None if existing is None else existing.limit_id,
        origin="client",
        reference=f"payer_rule_changes/{change.id}",
        version=1 if existing is None else existing.version + 1,
    )
    return ProposedFrequency(change, shown, existing is None)


def _apply_frequency(db: Session, payload: dict[str, Any], *, user_id: int) -> Applied:
    """Write the limit to ``payer_frequency_limits``: the same scope and date updates it (version + 1), a
    later date is a new version that closes the one before it from that date (``frequency.closed``). A
    claim's lines are evaluated at read: nothing is rescheduled."""
    limit = proposals.frequency_limit(payload)
    scope = {
        "payer_type": limit.payer_type,
        "payer_id": limit.payer_id,
        "plan": limit.plan,
        "code_low": limit.codes.low,
        "code_high": limit.codes.high,
        "effective_from": limit.effective_from,
    }
    row = db.scalar(select(PayerFrequencyLimit).filter_by(**scope))
    before = frequency_state(row) if row is not None else None
    if row is None:
        row = PayerFrequencyLimit(**scope, version=0)
        db.add(row)
    row.max_units, row.period, row.period_length = limit.max_units, limit.period, limit.period_length
    row.effective_to, row.source = limit.effective_to, limit.source
    row.version, row.updated_by = (row.version or 0) + 1, user_id
    db.flush()
    return Applied(row.id, frequency_view(as_frequency(row)), before, frequency_state(row), 0)


def frequency_list_statement(
    *, payer_type: str | None = None, payer_id: str | None = None, procedure_code: str | None = None
) -> Select[Any]:
    """The client's frequency limits by payer type, payer id and a code they cover (each when given)."""
    stmt = where_given(
        select(PayerFrequencyLimit),
        (PayerFrequencyLimit.payer_type, payer_type),
        (PayerFrequencyLimit.payer_id, payer_id.strip().upper() if payer_id else None),
    )
    if procedure_code is not None:
        stmt = stmt.where(
            PayerFrequencyLimit.code_low <= procedure_code, PayerFrequencyLimit.code_high >= procedure_code
        )
    return stmt


def frequency_listed(
    db: Session, rows: Sequence[PayerFrequencyLimit], *, payer_type: str | None, procedure_code: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The page's rows as shown (each ended where its next version starts) and the platform's limits
    matching the filters."""
    closed = {lim.limit_id: lim for lim in client_frequency_limits(db)} if rows else {}
    items = [frequency_view(closed.get(r.id) or as_frequency(r)) for r in rows]
    defaults = [
        frequency_view(lim)
        for lim in platform_frequency_limits()
        if (payer_type is None or lim.payer_type == payer_type)
        and (procedure_code is None or lim.codes.contains(procedure_code))
    ]
    return items, defaults


@dataclass(frozen=True, slots=True)
class LineFrequency:
    """One claim line under the frequency limit that applies to it."""

    line_number: int
    procedure_code: str
    service_date: date
    verdict: frequency.Verdict
    assumed: bool  # the payer type was unknown: a common payer type's limit is assumed

    @property
    def explanation(self) -> str:
        return self.verdict.explanation(self.procedure_code)


def _earlier(services: Sequence[claims.PatientService]) -> list[frequency.EarlierService]:
    return [
        frequency.EarlierService(s.procedure_code or "", s.service_date, s.units, s.claim_key)
        for s in services
        if s.procedure_code
    ]


def claim_frequency(
    db: Session, record: claims.ClaimRecord | None, *, payer_type: str | None, payer_id: str | None
) -> list[LineFrequency]:
    """Each line of the client's claim (``claims.claim_record``, as the caller read it) whose code a
    frequency limit in force on its date covers, with the verdict: the patient's earlier services (claims'
    `patient_services`: the client's other claims of the same patient reference, and this claim's earlier
    lines) in the limit's window. Self-pay or a line without a code or a date: nothing."""
    if record is None or payer_type is None:
        return []
    dated = [(line, line.service_date_from or record.claim.statement_from) for line in record.lines]
    days = [served for _, served in dated if served is not None]
    if not days:
        return []
    others = _earlier(claims.patient_services(db, record.claim.id, through=max(days)))
    known = all_frequency_limits(db)
    out = []
    for index, (line, served) in enumerate(dated):
        code = prior_authorization.line_code(line.procedure_code)
        if served is None or code is None:
            continue
        own = _own_earlier(dated[:index], record.claim.claim_key)
        facts = frequency.LineFacts(payer_type, payer_id, code, served, plan=record.claim.plan)
        found = frequency.verdict_for(facts, line.units or Decimal(1), [*others, *own], known)
        if found is not None:
            out.append(LineFrequency(line.line_number, code, served, found[0], found[1]))
    return out


def _own_earlier(
    before: Sequence[tuple[claims.ClaimLineRow, date | None]], claim_key: str
) -> list[frequency.EarlierService]:
    """The claim's own lines before the one asked about (a second unit of a code on the same claim counts)."""
    return [
        frequency.EarlierService(str(line.procedure_code), day, line.units or Decimal(1), claim_key)
        for line, day in before
        if day is not None and line.procedure_code
    ]


#: how an approved change of each kind is applied (keyed like `proposals.CHECKERS`)
APPLIERS: dict[str, Callable[..., Applied]] = {
    "limit": _apply_limit,
    "authorization": _apply_authorization,
    "frequency": _apply_frequency,
}


@dataclass(frozen=True, slots=True)
class Decided:
    change: PayerRuleChange
    before: dict[str, Any]
    applied: Applied | None


def get_change(db: Session, change_id: int, *, for_update: bool = False) -> PayerRuleChange:
    return get_by_id(db, PayerRuleChange, change_id, "Payer rule change", for_update=for_update)


def decide(
    db: Session, change_id: int, *, approve: bool, reason: str, user_id: int, invited_window_days: int
) -> Decided:
    """Approve (apply) or reject a proposed change, with a reason. Separation of duties: the proposer
    never decides their own change (FORBIDDEN; they may withdraw it), nor approves someone they invited
    within the window; a decided change is PRECONDITION_FAILED naming its state."""
    if not reason.strip():
        raise InvalidInput("Invalid input: 'reason' is required to decide a payer rule change")
    change = get_change(db, change_id, for_update=True)
    before = change_state(change)
    target = transition(CHANGE, change.state, "approved" if approve else "rejected")
    if change.proposed_by == user_id:
        raise Forbidden(
            "Separation of duties: you proposed this payer rule change, so another manager or admin must "
            "decide it (withdraw it with payerRules.withdraw if it is no longer wanted)"
        )
    applied = None
    if approve:
        require_independent(
            db, user_id, [change.proposed_by], window_days=invited_window_days, requester="this change's proposer"
        )
        # checked again: the platform's levels may have changed since it was proposed
        payload = proposals.check(change.kind, change.payload)
        applied = APPLIERS[change.kind](db, payload, user_id=user_id)
        change.applied_rule_id = applied.rule_id
    change.state, change.decided_by, change.decided_at, change.reason = target, user_id, utcnow(), reason
    db.flush()
    return Decided(change, before, applied)


def withdraw(db: Session, change_id: int, *, user_id: int) -> tuple[PayerRuleChange, dict[str, Any]]:
    """The proposer takes a proposed change back (anyone else: FORBIDDEN, reject it instead)."""
    change = get_change(db, change_id, for_update=True)
    before = change_state(change)
    target = transition(CHANGE, change.state, "withdrawn")
    if change.proposed_by != user_id:
        raise Forbidden("Only the proposer withdraws a payer rule change; decide it with payerRules.decide instead")
    change.state, change.decided_by, change.decided_at = target, user_id, utcnow()
    db.flush()
    return change, before


def changes_statement(*, state: str | None, kind: str | None) -> Select[Any]:
    """The client's rule changes, filtered by the values given (paged newest first by the caller)."""
    return where_given(select(PayerRuleChange), (PayerRuleChange.state, state), (PayerRuleChange.kind, kind))


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
    return evaluation_of(db, case_id, facts)


def evaluation_of(db: Session, case_id: int | None, facts: rules.CaseFacts) -> Evaluation:
    """The rules the deadline engine applies to these facts (the platform defaults and the client's
    rules, ``rules.case_deadlines``): what evaluate answers, and payerApplicability for a claim."""
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
