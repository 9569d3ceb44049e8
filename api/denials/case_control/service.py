"""Supervisory changes to cases: bulk assignment (all or nothing), escalation, holds.

Each change appends a CaseEvent with who, when and why, like every change to a case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import NotFound, PreconditionFailed
from api.denials.cases import service as cases
from api.denials.cases.models import DenialCase


def bulk_assign(db: Session, ids: Sequence[int], owner_user_id: int, *, user_id: int) -> list[dict[str, Any]]:
    """Assign every case to one owner, or none: a missing or closed case refuses the whole call, and
    the error's details report each id."""
    cases.check_assignable(db, owner_user_id)
    found = {
        c.id: c
        for c in db.scalars(select(DenialCase).where(DenialCase.id.in_(ids)).order_by(DenialCase.id).with_for_update())
    }
    problems = [_problem(i, found.get(i)) for i in ids]
    if any(p is not None for p in problems):
        report = [p or {"id": i, "status": "ok"} for i, p in zip(ids, problems, strict=True)]
        bad = len([r for r in report if r["status"] != "ok"])
        error = NotFound if any(r["status"] == "not_found" for r in report) else PreconditionFailed
        raise error(f"No case was assigned: {bad} of {len(ids)} case(s) cannot be assigned", details={"items": report})
    out = []
    for i in ids:
        case = found[i]
        previous = cases.apply_assignment(db, case, owner_user_id, user_id=user_id)
        out.append(
            {
                "id": i,
                "status": "unchanged" if previous == owner_user_id else "assigned",
                "previous_owner_user_id": previous,
            }
        )
    return out


def _problem(case_id: int, case: DenialCase | None) -> dict[str, Any] | None:
    if case is None:
        return {"id": case_id, "status": "not_found"}
    if case.state in cases.FINAL_STATES:
        return {"id": case_id, "status": "closed"}
    return None


def _workable(db: Session, case_id: int, action: str) -> DenialCase:
    case = cases.get_case(db, case_id, for_update=True)
    if case.state in cases.FINAL_STATES:
        raise PreconditionFailed(f"Case {case.id} is '{case.state}'; a closed case cannot be {action}")
    return case


def escalate(db: Session, case_id: int, reason: str, *, user_id: int) -> DenialCase:
    """Flag the case for a supervisor's attention."""
    case = _workable(db, case_id, "escalated")
    if case.escalated:
        raise PreconditionFailed(f"Case {case.id} is already escalated")
    case.escalated = True
    cases.add_event(db, case, "escalated", actor_user_id=user_id, reason=reason)
    db.flush()
    return case


def hold(db: Session, case_id: int, reason: str, *, user_id: int) -> DenialCase:
    """Stop work on the case (its lifecycle cannot move) until it is released."""
    case = _workable(db, case_id, "put on hold")
    if case.on_hold:
        raise PreconditionFailed(f"Case {case.id} is already on hold")
    case.on_hold, case.hold_reason = True, reason
    cases.add_event(db, case, "held", actor_user_id=user_id, reason=reason)
    db.flush()
    return case


def release(db: Session, case_id: int, reason: str, *, user_id: int) -> DenialCase:
    """Resume work on a held case."""
    case = cases.get_case(db, case_id, for_update=True)
    if not case.on_hold:
        raise PreconditionFailed(f"Case {case.id} is not on hold")
    case.on_hold, case.hold_reason = False, None
    cases.add_event(db, case, "released", actor_user_id=user_id, reason=reason)
    db.flush()
    return case
