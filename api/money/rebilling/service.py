"""Rebills on the operational DB: create, move along the lifecycle, list.

The timely-filing limit (from the payer limits held as data) is checked when a rebill is created and
again when it is marked submitted: past the limit, either call needs an override reason, which is
kept on the rebill (a reason given at create covers the submission too).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.business_calendar import EARLIEST
from api.core.errors import InvalidInput, NotFound
from api.core.lifecycle import transition
from api.denials.cases.payer_classes import payer_class_of
from api.denials.deadlines import rules
from api.denials.deadlines import service as deadlines
from api.infra.db.lookup import where_given
from api.money.rebilling import timely_filing
from api.money.rebilling.lifecycle import REBILL
from api.money.rebilling.models import Rebill


@dataclass(frozen=True, slots=True)
class NewRebill:
    case_id: int | None
    claim_key: str | None
    payer: str | None
    payer_class: str | None
    service_date: date | None
    kind: str
    frequency_code: str
    override_reason: str | None


@dataclass(frozen=True, slots=True)
class _Claim:
    claim_key: str
    payer: str
    payer_class: str | None
    facts: rules.CaseFacts  # what the timely-filing limit is computed from


def _from_case(db: Session, spec: NewRebill) -> _Claim:
    """The claim of the rebill: the case's (its deadline facts: filing indicator, payer alias, an
    institutional claim's through date) with the spec's payer class and date of service when given, or
    the claim the spec describes."""
    if spec.case_id is None:
        if spec.claim_key is None or spec.payer is None:
            raise InvalidInput("Invalid input: give 'caseId', or 'claimKey' and 'payer'")
        facts = rules.CaseFacts(payer_class=spec.payer_class, service_date=spec.service_date)
        return _Claim(spec.claim_key, spec.payer, spec.payer_class, facts)
    case, facts = deadlines.case_with_facts(db, spec.case_id)
    if spec.payer_class is not None:
        # the caller says which payer class the claim is: the case's filing indicator counts only if it agrees
        agrees = payer_class_of(facts.filing_indicator) == spec.payer_class
        facts = replace(
            facts, payer_class=spec.payer_class, filing_indicator=facts.filing_indicator if agrees else None
        )
    if spec.service_date is not None:
        facts = replace(facts, service_date=spec.service_date)
    return _Claim(case.claim_key, case.payer, facts.payer_class, facts)


def create(db: Session, spec: NewRebill, *, user_id: int, on: date) -> Rebill:
    claim = _from_case(db, spec)
    service_date = claim.facts.service_date
    if service_date is None:
        raise InvalidInput("Invalid input: 'serviceDate' is required (the case has no date of service)")
    if service_date > on:
        raise InvalidInput("Invalid input: 'serviceDate' cannot be in the future")
    if service_date < EARLIEST:
        raise InvalidInput("Invalid input: 'serviceDate' is before 1900")
    limit = timely_filing.limit_for(claim.facts, deadlines.client_rules(db))
    timely_filing.check(limit, on, spec.override_reason)
    rebill = Rebill(
        case_id=spec.case_id,
        claim_key=claim.claim_key,
        payer=claim.payer,
        payer_class=claim.payer_class,
        kind=spec.kind,
        frequency_code=spec.frequency_code,
        service_date=service_date,
        timely_filing_due_on=limit.due_on if limit else None,
        timely_filing_days=limit.days if limit else None,
        timely_filing_rule=limit.rule_reference if limit else None,
        timely_filing_override_reason=spec.override_reason if limit and on > limit.due_on else None,
        state="draft",
        created_by=user_id,
        state_changed_at=datetime.now(UTC),
        state_changed_by=user_id,
    )
    db.add(rebill)
    db.flush()
    return rebill


def get(db: Session, rebill_id: int) -> Rebill:
    rebill = db.scalar(select(Rebill).where(Rebill.id == rebill_id))
    if rebill is None:
        raise NotFound(f"Rebill {rebill_id} was not found")
    return rebill


def move(db: Session, rebill: Rebill, target: str, *, user_id: int) -> str:
    before = rebill.state
    rebill.state = transition(REBILL, rebill.state, target)
    rebill.state_changed_at, rebill.state_changed_by = datetime.now(UTC), user_id
    db.flush()
    return before


def mark_submitted(
    db: Session,
    rebill_id: int,
    *,
    user_id: int,
    submitted_on: date,
    today: date,
    override_reason: str | None,
    payer_reference: str | None,
) -> tuple[Rebill, str]:
    """Submitted to the payer on ``submitted_on`` (not after today); past the limit needs a reason."""
    if submitted_on > today:
        raise InvalidInput("Invalid input: 'submittedOn' cannot be in the future")
    rebill = get(db, rebill_id)
    transition(REBILL, rebill.state, "submitted")  # refuse a wrong state before judging the dates
    if submitted_on < rebill.created_at.date():
        raise InvalidInput("Invalid input: 'submittedOn' cannot be before the rebill was created")
    reason = override_reason or rebill.timely_filing_override_reason
    due, days, rule = rebill.timely_filing_due_on, rebill.timely_filing_days, rebill.timely_filing_rule
    if due is not None and days is not None and rule is not None:
        limit = timely_filing.FilingLimit(due, days, rule)
        timely_filing.check(limit, submitted_on, reason)
        if submitted_on > limit.due_on and rebill.timely_filing_override_reason is None:
            rebill.timely_filing_override_reason = override_reason
    rebill.submitted_on, rebill.payer_reference = submitted_on, payer_reference
    before = move(db, rebill, "submitted", user_id=user_id)
    if rebill.case_id is not None:
        deadlines.mark_timely_filing_met(db, rebill.case_id)
    return rebill, before


def list_statement(state: str | None, case_id: int | None, kind: str | None) -> Select[Any]:
    """Rebills by state, case and kind (each when given), unordered, for paging."""
    return where_given(select(Rebill), (Rebill.state, state), (Rebill.case_id, case_id), (Rebill.kind, kind))
