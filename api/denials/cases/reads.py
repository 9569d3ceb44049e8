"""Reads of denial cases and their histories that other namespaces ask for (revenueOperations,
revenueInvalidation, revenueGraph), published through ``cases.service`` as plain values or rows.

Kept apart from the use cases in ``service.py`` (which own every change of a case): these only read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from api.denials.cases.lifecycle import DECIDED_STATES, FINAL_STATES, LOST_STATES, WORKING_STATES
from api.denials.cases.models import CaseEvent, DenialCase
from api.denials.cases.rules import ZERO, money


@dataclass(frozen=True)
class CaseMove:
    """One event of a case's history that changed its state or its owner, as plain values."""

    event_id: int
    at: datetime
    kind: str  # assigned | unassigned | transition | appeal_outcome | ... (any event with a state move)
    from_state: str | None
    to_state: str | None
    owner_from: int | None
    owner_to: int | None
    assignment: bool  # the event changed the owner (owner_from -> owner_to), not the state
    working: bool | None  # after a state move: is the case in a working state (None for an assignment)


@dataclass(frozen=True)
class CaseHistory:
    """A case's opening (when, and its state and owner then) and its moves, oldest first."""

    case_id: int
    opened_at: datetime
    opened_state: str
    opened_owner: int | None
    opened_working: bool  # opened in a working state (open, triaged, in_appeal, awaiting_payer)
    moves: tuple[CaseMove, ...]


def _owner_of(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _move(event: CaseEvent) -> CaseMove | None:
    details = event.details or {}
    if event.kind in ("assigned", "unassigned"):
        owners = (_owner_of(details.get("from")), _owner_of(details.get("to")))
        return CaseMove(event.id, event.created_at, event.kind, None, None, *owners, assignment=True, working=None)
    if event.to_state is not None and event.from_state is not None and event.from_state != event.to_state:
        working = event.to_state in WORKING_STATES
        return CaseMove(
            event.id, event.created_at, event.kind, event.from_state, event.to_state, None, None, False, working
        )
    return None


def case_histories(db: Session, *, opened_before: datetime) -> list[CaseHistory]:
    """The client's cases opened before `opened_before` with every assignment and state move of their
    history (the owner at any moment, and whether the case was being worked). The state and owner at the
    opening are read back from the first move of each kind (else the case's current ones)."""
    rows = db.execute(
        select(DenialCase.id, DenialCase.created_at, DenialCase.state, DenialCase.owner_user_id)
        .where(DenialCase.created_at < opened_before)
        .order_by(DenialCase.id)
    ).all()
    moves: dict[int, list[CaseMove]] = {int(r.id): [] for r in rows}
    events = db.scalars(
        select(CaseEvent)
        .where(CaseEvent.case_id.in_(select(DenialCase.id).where(DenialCase.created_at < opened_before)))
        .where(or_(CaseEvent.to_state.is_not(None), CaseEvent.kind.in_(("assigned", "unassigned"))))
        .order_by(CaseEvent.id)
    )
    for event in events:
        found = _move(event)
        if found is not None and event.case_id in moves:
            moves[event.case_id].append(found)
    out = []
    for r in rows:
        own = tuple(moves[int(r.id)])
        # the opening event names no state before it: the state then is what the first move left
        state = next((m.from_state for m in own if not m.assignment), r.state) or r.state
        first_owner = next((m.owner_from for m in own if m.assignment), r.owner_user_id)
        out.append(CaseHistory(int(r.id), r.created_at, state, first_owner, state in WORKING_STATES, own))
    return out


@dataclass(frozen=True)
class LostCase:
    """A case whose current decision is lost or written off: the money it did not recover, when, and why."""

    case_id: int
    claim_key: str
    payer: str
    decision: str  # lost | written_off
    decided_at: datetime  # the move into the decision
    reason: str | None  # the person's reason given with that move, if any
    by_user_id: int | None
    amount_not_recovered: Decimal  # amount at stake less what was recovered
    denial_category: str | None
    group_code: str | None
    carc: str | None
    appeal_due_on: date | None


def lost_cases(db: Session) -> list[LostCase]:
    """The client's cases decided lost or written off (a decided case since closed included: its last decision
    counts; one reopened into work has none), with the amount not recovered: amount at stake less recovered
    (written_off_amount when a person's move set it; a payer's loss recorded with outcomes.record leaves it
    unset, so it is worked out the same way here)."""
    rows = list(db.scalars(select(DenialCase).where(DenialCase.state.in_(LOST_STATES | FINAL_STATES))))
    if not rows:
        return []
    decisive = DECIDED_STATES | WORKING_STATES
    last: dict[int, CaseEvent] = {}
    for moved in db.scalars(
        select(CaseEvent)
        .where(CaseEvent.case_id.in_(select(DenialCase.id).where(DenialCase.state.in_(LOST_STATES | FINAL_STATES))))
        .where(CaseEvent.to_state.in_(decisive))
        .order_by(CaseEvent.id)
    ):
        last[moved.case_id] = moved
    out = []
    for case in rows:
        event = last.get(case.id)
        decision = case.state if case.state in LOST_STATES else (event.to_state if event is not None else None)
        if decision not in LOST_STATES or event is None:
            continue
        out.append(
            LostCase(
                case_id=case.id,
                claim_key=case.claim_key,
                payer=case.payer,
                decision=str(decision),
                decided_at=event.created_at,
                reason=event.reason,
                by_user_id=event.actor_user_id,
                amount_not_recovered=money(max(case.amount_at_stake - case.recovered_amount, ZERO)),
                denial_category=case.denial_category,
                group_code=case.group_code,
                carc=case.carc,
                appeal_due_on=case.appeal_due_on,
            )
        )
    return out


def cases_of_claim(db: Session, claim_key: str) -> list[DenialCase]:
    """Every denial case of the client's claim `claim_key` (all payers, every state), oldest first: the
    claim's lineage (revenueGraph.forClaim)."""
    return list(db.scalars(select(DenialCase).where(DenialCase.claim_key == claim_key).order_by(DenialCase.id)))
