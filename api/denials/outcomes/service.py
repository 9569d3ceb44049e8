"""Recording payer decisions on appeals, and the overturn counts they add up to. Never commits; never
puts the payer reference or the claim key in a message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeAlias

from sqlalchemy import Select, case, func, select
from sqlalchemy.orm import Session

from api.denials.cases import service as cases
from api.denials.cases.lifecycle import WORKING_STATES
from api.denials.cases.models import DenialCase
from api.denials.outcomes import rules
from api.denials.outcomes.models import AppealOutcome
from api.infra.db.base import utcnow
from api.infra.db.lookup import Between, get_by_id, where_given

CASE_EVENT_KIND = "appeal_outcome"


@dataclass(frozen=True)
class NewOutcome:
    """A payer's decision on a case's appeal, as recorded (checked by `rules` against the case)."""

    case_id: int
    decision: str  # rules.DECISIONS
    decided_on: date
    level: int = 1
    amount_recovered: Decimal = Decimal("0")
    payer_reference: str | None = None


def record(db: Session, data: NewOutcome, *, user_id: int) -> tuple[AppealOutcome, DenialCase]:
    """Record the payer's decision on the case's appeal: the case moves to won / partially_won / lost
    (a withdrawn appeal back to in_appeal), its recovered amount grows by the amount, and its history
    gets an `appeal_outcome` event (the move and the event are the cases namespace's: cases.apply_decision)."""
    now = utcnow()
    case = cases.get_case(db, data.case_id)
    rules.check_state(case.state)
    rules.check_amount(data.decision, data.amount_recovered, case.amount_at_stake - case.recovered_amount)
    rules.check_decided_on(data.decided_on, now.date())
    before = case.state
    after = rules.case_state_after(data.decision, before)
    outcome = AppealOutcome(
        case_id=case.id,
        level=data.level,
        decision=data.decision,
        amount_recovered=data.amount_recovered,
        decided_on=data.decided_on,
        payer_reference=data.payer_reference,
        recorded_by_user_id=user_id,
        case_state_before=before,
        case_state_after=after,
        payer=case.payer,
        denial_category=case.denial_category,
        carc=case.carc,
    )
    db.add(outcome)
    db.flush()  # the event names the outcome by id
    case.recovered_amount = case.recovered_amount + data.amount_recovered
    cases.apply_decision(
        db,
        case,
        after,
        kind=CASE_EVENT_KIND,
        user_id=user_id,
        at=now,
        # ids, vocabulary and money only: the payer's reference stays on the outcome
        details={
            "outcomeId": outcome.id,
            "level": outcome.level,
            "decision": outcome.decision,
            "amountRecovered": f"{outcome.amount_recovered:.2f}",
            # what the case's recovered money grew by: caseRecovery.recoveredTotals sums it by month
            "delta": f"{outcome.amount_recovered:.2f}",
            "decidedOn": outcome.decided_on.isoformat(),
        },
    )
    return outcome, case


def audit_view(outcome: AppealOutcome, case: DenialCase) -> dict[str, Any]:
    """What the audit log may digest about a decision: no payer reference, no claim key."""
    return {
        "case_id": outcome.case_id,
        "level": outcome.level,
        "decision": outcome.decision,
        "amount_recovered": f"{outcome.amount_recovered:.2f}",
        "decided_on": outcome.decided_on.isoformat(),
        "case_state": outcome.case_state_after,
        "case_recovered_amount": f"{case.recovered_amount:.2f}",
    }


def get(db: Session, outcome_id: int) -> AppealOutcome:
    return get_by_id(db, AppealOutcome, outcome_id, "Outcome")


def list_statement(
    *,
    case_id: int | None = None,
    decision: str | None = None,
    payer: str | None = None,
    decided_from: date | None = None,
    decided_to: date | None = None,
) -> Select[Any]:
    """Recorded decisions by case, decision and payer, decided within the given dates (inclusive);
    each filter only when given; unordered, for paging."""
    return where_given(
        select(AppealOutcome),
        (AppealOutcome.case_id, case_id),
        (AppealOutcome.decision, decision),
        (AppealOutcome.payer, payer),
        Between(AppealOutcome.decided_on, decided_from, decided_to),
    )


def overturn_counts(db: Session, *, decided_by: date | None = None) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(payer, category, CARC) -> (n decided, k overturned) over the client's recorded decisions
    (withdrawn appeals count for neither; a missing category or CARC is "")."""
    overturned = func.sum(case((AppealOutcome.decision.in_(rules.OVERTURNED), 1), else_=0))
    stmt = (
        select(AppealOutcome.payer, AppealOutcome.denial_category, AppealOutcome.carc, func.count(), overturned)
        .where(AppealOutcome.decision.in_(rules.DECIDED))
        .group_by(AppealOutcome.payer, AppealOutcome.denial_category, AppealOutcome.carc)
    )
    if decided_by is not None:
        stmt = stmt.where(AppealOutcome.decided_on <= decided_by)
    counts: dict[tuple[str, str, str], tuple[int, int]] = {}
    for payer, category, carc, n, k in db.execute(stmt).tuples():
        key: tuple[str, str, str] = (payer, category or "", carc or "")
        old_n, old_k = counts.get(key, (0, 0))  # None and "" are one cell
        counts[key] = (old_n + int(n), old_k + int(k or 0))
    return counts


@dataclass(frozen=True)
class DecidedAppeal:
    """One decided appeal (withdrawn ones are never decided) with what its case looked like, as plain
    values for readers in other contexts (outcomeLearning). ``payer``, ``denial_category`` and ``carc`` are
    the outcome's copies (the case's cell when the decision was recorded, see models.py); the rest is the
    case's current row."""

    outcome_id: int
    case_id: int
    level: int
    decision: str  # won | partially_won | lost
    amount_recovered: Decimal
    decided_on: date
    payer: str
    denial_category: str | None
    carc: str | None
    payer_class: str | None
    rarcs: tuple[str, ...]
    amount_at_stake: Decimal
    remittance_date: date | None
    service_date: date | None
    case_created_at: datetime  # when the case was opened on the platform


def decided_appeals(
    db: Session, *, recorded_through: int | None = None, recorded_after: int | None = None, limit: int
) -> list[DecidedAppeal]:
    """The client's decided appeals (won, partially won, lost; withdrawn excluded: never decided), oldest
    decision first (then by id), at most ``limit``; only outcomes with id <= ``recorded_through`` and/or
    > ``recorded_after`` when given (outcome ids grow with recording: rows are never updated or deleted)."""
    stmt = (
        select(AppealOutcome, DenialCase)
        .join(DenialCase, DenialCase.id == AppealOutcome.case_id)
        .where(AppealOutcome.decision.in_(rules.DECIDED))
        .order_by(AppealOutcome.decided_on, AppealOutcome.id)
        .limit(limit)
    )
    if recorded_through is not None:
        stmt = stmt.where(AppealOutcome.id <= recorded_through)
    if recorded_after is not None:
        stmt = stmt.where(AppealOutcome.id > recorded_after)
    return [
        DecidedAppeal(
            outcome_id=o.id,
            case_id=c.id,
            level=o.level,
            decision=o.decision,
            amount_recovered=o.amount_recovered,
            decided_on=o.decided_on,
            payer=o.payer,
            denial_category=o.denial_category,
            carc=o.carc,
            payer_class=c.payer_class,
            rarcs=tuple(c.rarcs or ()),
            amount_at_stake=c.amount_at_stake,
            remittance_date=c.remittance_date,
            service_date=c.service_date,
            case_created_at=c.created_at,
        )
        for o, c in db.execute(stmt).tuples()
    ]


def last_level(db: Session, case_id: int) -> int:
    """The highest appeal level decided on the case (withdrawn included: that level was tried); 0 if none."""
    level = db.scalar(select(func.max(AppealOutcome.level)).where(AppealOutcome.case_id == case_id))
    return int(level or 0)


@dataclass(frozen=True)
class RecoveryCase:
    """A denial case as the recovery digital twin reads it (plain values: no claim key, no patient): when it was
    opened (the denial's remittance date, else the day it was opened on the platform), its cell, amount, owner,
    appeal deadline, its first recorded appeal outcome (decision, date, recovered amount) and, for a case that
    left the work without one (written off, closed), the day it did."""

    case_id: int
    opened_on: date
    payer: str
    category: str | None
    amount_at_stake: Decimal
    owner_user_id: int | None
    appeal_due_on: date | None
    decided_on: date | None
    decision: str | None
    amount_recovered: Decimal
    ended_on: date | None


def recovery_history(db: Session, *, opened_from: date, opened_to: date, limit: int) -> list[RecoveryCase]:
    """The client's denial cases opened from ``opened_from`` to ``opened_to`` (inclusive), oldest first, at most
    ``limit``, each with its first appeal outcome (by decision date, then id) when one was recorded."""
    start = datetime(opened_from.year, opened_from.month, opened_from.day, tzinfo=utcnow().tzinfo)
    end = datetime(opened_to.year, opened_to.month, opened_to.day, tzinfo=utcnow().tzinfo) + timedelta(days=1)
    opened = (DenialCase.remittance_date.between(opened_from, opened_to)) | (
        DenialCase.remittance_date.is_(None) & (DenialCase.created_at >= start) & (DenialCase.created_at < end)
    )
    found = list(db.scalars(select(DenialCase).where(opened).order_by(DenialCase.id).limit(limit)))
    first: dict[int, AppealOutcome] = {}
    for outcome in sorted(outcomes_of_cases(db, [c.id for c in found]), key=lambda o: (o.decided_on, o.id)):
        first.setdefault(outcome.case_id, outcome)
    out: list[RecoveryCase] = []
    for c in found:
        o = first.get(c.id)
        ended = c.state not in WORKING_STATES and o is None
        out.append(
            RecoveryCase(
                case_id=c.id,
                opened_on=c.remittance_date or c.created_at.date(),
                payer=c.payer,
                category=c.denial_category,
                amount_at_stake=c.amount_at_stake,
                owner_user_id=c.owner_user_id,
                appeal_due_on=c.appeal_due_on,
                decided_on=o.decided_on if o else None,
                decision=o.decision if o else None,
                amount_recovered=o.amount_recovered if o else Decimal("0"),
                ended_on=c.state_changed_at.date() if ended else None,
            )
        )
    return sorted(out, key=lambda r: (r.opened_on, r.case_id))


@dataclass(frozen=True)
class RecordedOutcome:
    """A payer's decision as it was recorded on the platform (when, on which case, what it recovered)."""

    outcome_id: int
    case_id: int
    recorded_at: datetime
    decided_on: date
    level: int
    decision: str  # won | partially_won | lost | withdrawn
    amount_recovered: Decimal


def recorded_outcomes(db: Session, *, recorded_before: datetime) -> list[RecordedOutcome]:
    """The client's appeal decisions recorded before `recorded_before`, oldest first (revenueOperations credits
    each to the owner of its case at that moment)."""
    stmt = (
        select(AppealOutcome)
        .where(AppealOutcome.created_at < recorded_before)
        .order_by(AppealOutcome.created_at, AppealOutcome.id)
    )
    return [
        RecordedOutcome(o.id, o.case_id, o.created_at, o.decided_on, o.level, o.decision, o.amount_recovered)
        for o in db.scalars(stmt)
    ]


def last_outcomes(db: Session, case_ids: Sequence[int]) -> dict[int, tuple[str, int]]:
    """The last decision recorded on each of `case_ids` (decision, level); cases without one are left out."""
    return {o.case_id: (o.decision, o.level) for o in outcomes_of_cases(db, case_ids)}


#: An appeal outcome row, named here for other namespaces.
OutcomeRow: TypeAlias = AppealOutcome


def outcomes_of_cases(db: Session, case_ids: Sequence[int]) -> list[AppealOutcome]:
    """The recorded decisions on the client's cases `case_ids`, per case in the order recorded (read in chunks
    of 500 ids: a bound list of parameters on either database)."""
    ids = sorted(set(case_ids))
    found: list[AppealOutcome] = []
    for start in range(0, len(ids), 500):
        stmt = select(AppealOutcome).where(AppealOutcome.case_id.in_(ids[start : start + 500]))
        found.extend(db.scalars(stmt.order_by(AppealOutcome.case_id, AppealOutcome.id)))
    return found
