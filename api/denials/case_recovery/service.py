"""Recovery plans and money recovered per case.

The recovered amount of a case has two sources: what the payer paid beyond ``paid_before`` in the
ledger (updated by ``api.denials.cases.intake`` on each confirmed remittance) and what was recorded by
hand here (kept apart in ``recovered_by_hand``, so a later ledger update adds to it instead of
overwriting it). Each change is a CaseEvent carrying its ``delta``; totals by month sum those.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.denials.cases import service as cases
from api.denials.cases.models import CaseEvent, DenialCase
from api.denials.cases.rules import ZERO, money
from api.infra.db.base import utcnow

# Events that change recovered money (details.delta): by hand, from the ledger, from a payer decision.
RECOVERY_EVENT_KINDS = ("recovery", "ledger_update", "appeal_outcome")


def set_plan(db: Session, case_id: int, plan: dict[str, Any], *, user_id: int) -> DenialCase:
    """Replace the case's recovery plan (strategy, expected recovery, next step)."""
    case = cases.get_case(db, case_id, for_update=True)
    if case.state in cases.FINAL_STATES:
        raise PreconditionFailed(f"Case {case.id} is '{case.state}'; reopen it before planning its recovery")
    expected = plan.get("expected_recovery")
    if expected is not None and Decimal(expected) > case.amount_at_stake:
        raise InvalidInput(
            f"Invalid input: 'expectedRecovery' {Decimal(expected):.2f} is above the amount at stake "
            f"{case.amount_at_stake:.2f}"
        )
    case.recovery_plan = {**plan, "set_by": user_id, "set_at": utcnow().isoformat()}
    cases.add_event(db, case, "plan_set", actor_user_id=user_id, details={"strategy": plan.get("strategy")})
    db.flush()
    return case


def recoveries_of(db: Session, case_id: int) -> list[CaseEvent]:
    return list(
        db.scalars(
            select(CaseEvent)
            .where(CaseEvent.case_id == case_id, CaseEvent.kind.in_(RECOVERY_EVENT_KINDS))
            .order_by(CaseEvent.id)
        )
    )


def record_recovery(
    db: Session, case_id: int, amount: Decimal, source: str, reference: str | None, *, user_id: int
) -> DenialCase:
    """Add money recovered outside the ledger (a check, a secondary payer, the patient). Never more
    than what is still at stake; a lost or written-off case writes off that much less."""
    case = cases.get_case(db, case_id, for_update=True)
    if case.state in cases.FINAL_STATES:
        raise PreconditionFailed(f"Case {case.id} is '{case.state}'; reopen it before recording a recovery")
    if amount <= 0:
        raise InvalidInput("Invalid input: 'amount' must be more than 0.00")
    room = money(case.amount_at_stake - case.recovered_amount)
    if amount > room:
        raise InvalidInput(
            f"Invalid input: 'amount' {amount:.2f} would bring the recovered amount to "
            f"{case.recovered_amount + amount:.2f}, above the amount at stake {case.amount_at_stake:.2f}; "
            f"at most {room:.2f} more can be recorded"
        )
    before = case.recovered_amount
    case.recovered_amount = money(before + amount)
    case.recovered_by_hand = money(case.recovered_by_hand + amount)
    if case.state in cases.LOST_STATES:
        case.written_off_amount = money(max(case.amount_at_stake - case.recovered_amount, ZERO))
    details = {"delta": f"{amount:.2f}", "recovered": f"{case.recovered_amount:.2f}", "source": source}
    if reference:
        details["reference"] = reference
    cases.add_event(db, case, "recovery", actor_user_id=user_id, details=details)
    db.flush()
    return case


@dataclass
class _Total:
    amount: Decimal
    cases: set[int]


def _bounds(from_date: date | None, to_date: date | None) -> list[Any]:
    clauses = []
    if from_date is not None:
        clauses.append(CaseEvent.created_at >= datetime.combine(from_date, time.min, UTC))
    if to_date is not None:
        clauses.append(CaseEvent.created_at < datetime.combine(to_date + timedelta(days=1), time.min, UTC))
    return clauses


def recovered_totals(db: Session, from_date: date | None, to_date: date | None) -> tuple[Decimal, list[dict[str, Any]]]:
    """Recovered money by payer, category, current owner and month of the event that recorded it."""
    rows = db.execute(
        select(
            CaseEvent.case_id,
            CaseEvent.created_at,
            CaseEvent.details,
            DenialCase.payer,
            DenialCase.denial_category,
            DenialCase.owner_user_id,
        )
        .join(DenialCase, DenialCase.id == CaseEvent.case_id)
        .where(CaseEvent.kind.in_(RECOVERY_EVENT_KINDS), *_bounds(from_date, to_date))
    ).all()
    groups: dict[tuple[str, str | None, int | None, str], _Total] = defaultdict(lambda: _Total(ZERO, set()))
    for r in rows:
        details: dict[str, Any] = r.details or {}
        delta = Decimal(str(details.get("delta") or "0"))
        if delta == 0:
            continue
        at: datetime = r.created_at
        total = groups[(r.payer, r.denial_category, r.owner_user_id, at.astimezone(UTC).strftime("%Y-%m"))]
        total.amount += delta
        total.cases.add(r.case_id)
    out = [
        {
            "payer": k[0],
            "category": k[1],
            "owner_user_id": k[2],
            "month": k[3],
            "recovered": money(t.amount),
            "cases": len(t.cases),
        }
        for k, t in sorted(groups.items(), key=lambda kv: (kv[0][3], kv[0][0], kv[0][1] or "", kv[0][2] or 0))
    ]
    return money(sum((t.amount for t in groups.values()), ZERO)), out
