"""Denial case use cases on the operational database: read, open by hand, assign, move, note.

Every function takes the tenant-scoped session and never commits (the executor commits the call
with its audit event). Every change appends a ``CaseEvent`` (who, when, from/to, reason). Messages
name the case by id and never echo the claim key, patient data or a note's text.

This module is the one owner of a case's state and history: other namespaces read a case with
``get_case``, append to its history with ``add_event`` and move it with ``transition`` (a person's
move), ``apply_move`` (a planned move, with what it implies) or ``apply_decision`` (a payer's
decision); none of them builds a ``CaseEvent`` or sets ``DenialCase.state`` itself
(tests/unit/test_rule_owners.py holds them to it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeAlias

from sqlalchemy import Select, Table, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition as move
from api.core.permissions import explain
from api.core.services import CaseCategory, OpenCase
from api.denials.cases.lifecycle import CASE, DECIDED_STATES, FINAL_STATES, LOST_STATES, REOPEN_MOVES, WORKING_STATES
from api.denials.cases.models import CaseEvent, CaseNote, DenialCase
from api.denials.cases.reads import CaseHistory, CaseMove, LostCase, case_histories, cases_of_claim, lost_cases
from api.denials.cases.rules import ZERO, CaseOpening, denial_key, money
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id
from api.infra.db.tenant_filter import get_scope
from api.money.ingestion import service as ingestion
from api.platform.organizations import service as organizations
from pipelines.ingest.classify import UnknownGroupCodeError, classify_adjustment
from pipelines.ingest.reference import load_reference

#: The published surface: the use cases below, and what other namespaces read of cases (``reads.py``, kept
#: apart from the use cases, which own every change of a case) and the state sets (``lifecycle.py``).
__all__ = [
    "FINAL_STATES",
    "LOST_STATES",
    "Case",
    "CaseFilters",
    "CaseHistory",
    "CaseMove",
    "LostCase",
    "ManualOpening",
    "add_event",
    "add_note",
    "apply_assignment",
    "apply_decision",
    "apply_move",
    "assign",
    "case_category",
    "case_count",
    "case_histories",
    "cases_of_claim",
    "cases_with_denial_keys",
    "check_assignable",
    "denial_cases_classified",
    "events_of",
    "find_case",
    "get_case",
    "insert_opening",
    "lost_cases",
    "manual_denial_key",
    "notes_of",
    "open_case_claim_keys",
    "open_case_facts",
    "open_cases_of_claims",
    "open_manual",
    "opened_event",
    "paid_total",
    "transition",
    "working_cases_of_claims",
    "worklist",
]


def _table() -> Table:
    table = DenialCase.__table__
    assert isinstance(table, Table)  # declarative maps one plain Table
    return table


def get_case(db: Session, case_id: int, *, for_update: bool = False) -> DenialCase:
    """The case if it belongs to the caller's client, else NOT_FOUND (ids never leak across tenants)."""
    return get_by_id(db, DenialCase, case_id, "Case", for_update=for_update)


#: The case row the published functions answer: other contexts name it here, never through models.
Case: TypeAlias = DenialCase


def case_count(db: Session) -> int:
    """How many denial cases the session's client has (any state)."""
    return int(db.scalar(select(func.count(DenialCase.id))) or 0)


def open_cases_of_claims(db: Session, claim_keys: Iterable[str]) -> dict[str, DenialCase]:
    """The open case of each of `claim_keys` that has one (one query, tenant-scoped by the session).

    A claim's open case is its case that is not closed (being worked, or decided and not yet closed: a lost
    case tells the follow-up team to stop chasing); of several, a case still being worked if there is one,
    else the latest decided one, the most recently opened first."""
    keys = sorted(set(claim_keys))
    if not keys:
        return {}
    found = db.scalars(
        select(DenialCase).where(DenialCase.claim_key.in_(keys), DenialCase.state != "closed").order_by(DenialCase.id)
    )
    chosen: dict[str, DenialCase] = {}
    for case in found:
        # ascending ids: a later case replaces an earlier one unless it would swap a worked case for a decided one
        current = chosen.get(case.claim_key)
        if current is None or case.state in WORKING_STATES or current.state not in WORKING_STATES:
            chosen[case.claim_key] = case
    return chosen


def open_case_facts(db: Session, claim_keys: Iterable[str]) -> dict[str, OpenCase]:
    """`open_cases_of_claims` as plain facts (id, state, owner), for a context that shows the case
    column without reading cases (arOperations, through the services' `open_cases_of_claims`)."""
    return {
        key: OpenCase(case.id, case.state, case.owner_user_id)
        for key, case in open_cases_of_claims(db, claim_keys).items()
    }


def open_case_claim_keys(db: Session) -> list[str]:
    """The claim keys of the client's open (not closed) cases, sorted."""
    return sorted(set(db.scalars(select(DenialCase.claim_key).where(DenialCase.state != "closed"))))


def working_cases_of_claims(db: Session, claim_keys: Sequence[str]) -> list[DenialCase]:
    """The client's working cases (`lifecycle.WORKING_STATES`) of `claim_keys`, the newest first."""
    stmt = (
        select(DenialCase)
        .where(DenialCase.claim_key.in_(claim_keys), DenialCase.state.in_(WORKING_STATES))
        .order_by(DenialCase.id.desc())
    )
    return list(db.scalars(stmt))


def find_case(db: Session, case_id: int) -> DenialCase | None:
    """The client's case `case_id`, or None (no error: for a caller that treats a gone case as none)."""
    return db.scalar(select(DenialCase).where(DenialCase.id == case_id))


def case_category(db: Session, case_id: int) -> CaseCategory | None:
    """The client's case `case_id` with its denial category, or None (the services' `case_category_of`,
    which evidenceQuality asks)."""
    case = find_case(db, case_id)
    return None if case is None else CaseCategory(case.id, case.denial_category)


def cases_with_denial_keys(db: Session, denial_keys: Sequence[str]) -> list[DenialCase]:
    """The client's cases whose denial key is one of `denial_keys` (any state)."""
    return list(db.scalars(select(DenialCase).where(DenialCase.denial_key.in_(denial_keys))))


def denial_cases_classified(
    db: Session, *, categories: Sequence[str], carcs: Sequence[str], limit: int
) -> list[DenialCase]:
    """The client's denial cases (event kind `denial`) whose category is one of `categories` or whose CARC
    is one of `carcs`, the newest first, at most `limit` (chargeCoding.codingDenials)."""
    stmt = (
        select(DenialCase)
        .where(DenialCase.event_kind == "denial")
        .where(DenialCase.denial_category.in_(categories) | DenialCase.carc.in_(carcs))
        .order_by(DenialCase.id.desc())
        .limit(limit)
    )
    return list(db.scalars(stmt))


def add_event(
    db: Session,
    case: DenialCase,
    kind: str,
    *,
    actor_user_id: int | None,
    reason: str | None = None,
    from_state: str | None = None,
    to_state: str | None = None,
    details: dict[str, Any] | None = None,
) -> CaseEvent:
    """Append one event to the case's history (never updated afterwards)."""
    event = CaseEvent(
        organization_id=case.organization_id,
        client_id=case.client_id,
        case_id=case.id,
        kind=kind,
        from_state=from_state,
        to_state=to_state,
        reason=reason,
        actor_user_id=actor_user_id,
        details=details or {},
    )
    db.add(event)
    return event


def events_of(db: Session, case_id: int) -> list[CaseEvent]:
    return list(db.scalars(select(CaseEvent).where(CaseEvent.case_id == case_id).order_by(CaseEvent.id)))


def notes_of(db: Session, case_id: int) -> list[CaseNote]:
    return list(db.scalars(select(CaseNote).where(CaseNote.case_id == case_id).order_by(CaseNote.id)))


# --- the worklist -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseFilters:
    """Worklist filters of cases.list (all optional, combined with AND)."""

    states: tuple[str, ...] = ()
    owner: str | None = None  # "me" | "unassigned" | a user id as text
    payer: str | None = None
    category: str | None = None
    carc: str | None = None
    min_amount: Decimal | None = None
    due_before: date | None = None
    escalated: bool | None = None
    on_hold: bool | None = None


def _owner_clause(owner: str, user_id: int) -> Any:
    if owner == "unassigned":
        return DenialCase.owner_user_id.is_(None)
    if owner == "me":
        return DenialCase.owner_user_id == user_id
    return DenialCase.owner_user_id == int(owner)


def worklist(filters: CaseFilters, user_id: int) -> Select[Any]:
    """The statement selecting the cases the filters keep (the caller paginates it)."""
    stmt = select(DenialCase)
    if filters.states:
        unknown = sorted(set(filters.states) - CASE.states)
        if unknown:
            raise InvalidInput(f"Invalid input: 'states' has unknown state(s) {', '.join(unknown)}")
        stmt = stmt.where(DenialCase.state.in_(filters.states))
    if filters.owner is not None:
        stmt = stmt.where(_owner_clause(filters.owner, user_id))
    if filters.payer:
        stmt = stmt.where(func.upper(DenialCase.payer) == filters.payer.upper())
    if filters.category:
        stmt = stmt.where(DenialCase.denial_category == filters.category)
    if filters.carc:
        stmt = stmt.where(DenialCase.carc == filters.carc.upper())
    if filters.min_amount is not None:
        stmt = stmt.where(DenialCase.amount_at_stake >= filters.min_amount)
    if filters.due_before is not None:
        stmt = stmt.where(DenialCase.appeal_due_on.is_not(None), DenialCase.appeal_due_on < filters.due_before)
    if filters.escalated is not None:
        stmt = stmt.where(DenialCase.escalated.is_(filters.escalated))
    if filters.on_hold is not None:
        stmt = stmt.where(DenialCase.on_hold.is_(filters.on_hold))
    return stmt


# --- opening ------------------------------------------------------------------------------------


def paid_total(db: Session, claim_key: str, payer: str) -> Decimal:
    """What `payer` has paid for the claim in the ledger (payments less reversals and recoupments)."""
    total = ingestion.paid_total(db, claim_key, payer)
    return money(Decimal(str(total or 0)))


def insert_opening(
    db: Session, opening: CaseOpening, *, organization_id: int, client_id: int, origin: str, source_batch_id: int | None
) -> int | None:
    """Insert the case unless its denial_key is already there; the new id, or None when it was.

    ON CONFLICT DO NOTHING on (client_id, denial_key): a concurrent insert of the same key waits
    for the other transaction and then inserts nothing, so one denial never opens two cases."""
    dialect = db.get_bind().dialect.name
    insert_into = postgresql.insert if dialect == "postgresql" else sqlite.insert
    now = utcnow()
    values = {
        "organization_id": organization_id,
        "client_id": client_id,
        "created_at": now,
        "denial_key": opening.denial_key,
        "origin": origin,
        "event_kind": opening.event_kind,
        "claim_key": opening.claim_key,
        "payer": opening.payer[:200],
        "payer_id": opening.payer_id[:80] if opening.payer_id else None,
        "payer_class": opening.payer_class,
        "payer_identity": opening.payer_identity[:200] if opening.payer_identity else None,
        "episode": opening.episode,
        "source_batch_id": source_batch_id,
        "payer_claim_number": opening.payer_claim_number,
        "claim_status_code": opening.claim_status_code,
        "remittance_date": opening.remittance_date,
        "service_date": opening.service_date,
        "denial_category": opening.denial_category,
        "group_code": opening.group_code,
        "carc": opening.carc,
        "rarcs": list(opening.rarcs),
        "hard_or_soft": opening.hard_or_soft,
        "preventable": opening.preventable,
        "billed_amount": opening.billed_amount,
        "amount_at_stake": opening.amount_at_stake,
        "paid_before": opening.paid_before,
        "recovered_amount": ZERO,
        "recovered_by_hand": ZERO,
        "written_off_amount": ZERO,
        "state": "open",
        "state_changed_at": now,
        "escalated": False,
        "on_hold": False,
        "recovery_plan": {},
    }
    stmt = (
        insert_into(_table())
        .values(**values)
        .on_conflict_do_nothing(index_elements=["client_id", "denial_key"])
        .returning(_table().c.id)
    )
    row = db.execute(stmt).first()
    return None if row is None else int(row[0])


def opened_event(
    db: Session,
    case_id: int,
    *,
    organization_id: int,
    client_id: int,
    actor_user_id: int | None,
    details: dict[str, Any],
) -> None:
    """The first event of a case just inserted (built without reading the case back: a big batch opens many)."""
    db.add(
        CaseEvent(
            organization_id=organization_id,
            client_id=client_id,
            case_id=case_id,
            kind="opened",
            to_state="open",
            actor_user_id=actor_user_id,
            details=details,
        )
    )


@dataclass(frozen=True)
class ManualOpening:
    """What cases.open is given (a denial the ledger does not show, e.g. from a letter or a portal)."""

    claim_key: str
    payer: str
    amount_at_stake: Decimal
    event_kind: str = "denial"
    denial_category: str | None = None
    group_code: str | None = None
    carc: str | None = None
    rarcs: tuple[str, ...] = ()
    denied_on: date | None = None
    reference: str | None = None  # the payer's claim number or letter reference


def _manual_classification(given: ManualOpening) -> dict[str, Any]:
    """Category, hard/soft and preventable from the CARC when one is given; else the category as given."""
    ref = load_reference()
    if given.denial_category is not None and given.denial_category not in ref.categories:
        raise InvalidInput(
            f"Invalid input: 'denialCategory' is not a denial category; known: {', '.join(sorted(ref.categories))}"
        )
    if given.carc is None:
        return {"denial_category": given.denial_category, "group_code": given.group_code}
    group = given.group_code or "CO"
    try:
        result = classify_adjustment(group, given.carc, list(given.rarcs))
    except UnknownGroupCodeError:
        raise InvalidInput(f"Invalid input: 'groupCode' must be one of {', '.join(sorted(ref.group_rules))}") from None
    return {
        "denial_category": given.denial_category or result.category,
        "group_code": group,
        "hard_or_soft": result.hard_or_soft,
        "preventable": result.preventable,
    }


def manual_denial_key(given: ManualOpening) -> str:
    """The denial key a case opened by hand gets (the same claim, payer, kind, amount, date and reference)."""
    identity = f"manual|{given.reference or ''}|{given.denied_on.isoformat() if given.denied_on else ''}|{given.amount_at_stake:.2f}"
    return denial_key(given.claim_key, given.payer, identity, given.event_kind)


def open_manual(
    db: Session,
    given: ManualOpening,
    *,
    organization_id: int,
    client_id: int,
    user_id: int,
    origin: str = "manual",
    provenance: dict[str, Any] | None = None,
) -> tuple[DenialCase, bool]:
    """Open a case by hand; (case, created). The same claim, payer, kind, amount, date and reference
    name the same denial event: opening it again answers the existing case. `origin` and `provenance`
    (added to the `opened` event) say where a case opened on someone's behalf came from (a migration)."""
    if given.amount_at_stake <= 0:
        raise InvalidInput("Invalid input: 'amountAtStake' must be more than 0.00")
    found = _manual_classification(given)
    opening = CaseOpening(
        denial_key=manual_denial_key(given),
        event_kind=given.event_kind,
        claim_key=given.claim_key,
        payer=given.payer,
        payer_id=None,
        amount_at_stake=money(given.amount_at_stake),
        paid_before=paid_total(db, given.claim_key, given.payer),
        remittance_date=given.denied_on,
        claim_status_code=None,
        payer_claim_number=given.reference,
        billed_amount=None,
        service_date=None,
        carc=given.carc.upper() if given.carc else None,
        rarcs=tuple(r.upper() for r in given.rarcs),
        **found,
    )
    new_id = insert_opening(
        db, opening, organization_id=organization_id, client_id=client_id, origin=origin, source_batch_id=None
    )
    if new_id is None:
        existing = db.scalar(select(DenialCase).where(DenialCase.denial_key == opening.denial_key))
        assert existing is not None  # the conflict was on this very key, in this client
        return existing, False
    opened_event(
        db,
        new_id,
        organization_id=organization_id,
        client_id=client_id,
        actor_user_id=user_id,
        details={"origin": origin, "amountAtStake": f"{opening.amount_at_stake:.2f}", **(provenance or {})},
    )
    return get_case(db, new_id), True


# --- work ---------------------------------------------------------------------------------------


def check_assignable(db: Session, owner_user_id: int) -> str:
    """The owner's role, if they are a member of the organization whose membership reaches the session's
    client and who may work cases; InvalidInput otherwise (a member reaching other clients only could
    not even read the case)."""
    scope = get_scope(db)
    assert scope is not None and scope.client_id is not None  # cases are worked in a client's scope only
    role = organizations.role_reaching(db, owner_user_id, scope.client_id)
    if role is None:
        raise InvalidInput("Invalid input: 'ownerUserId' is not a member of this organization reaching this client")
    granted, _ = explain(role, "write")
    if not granted:
        raise InvalidInput(f"Invalid input: 'ownerUserId' has role '{role}', which cannot work cases")
    return role


def _require_workable(case: DenialCase, action: str) -> None:
    if case.state in FINAL_STATES:
        raise PreconditionFailed(f"Case {case.id} is '{case.state}'; reopen it before it can be {action}")


def assign(db: Session, case_id: int, owner_user_id: int | None, *, user_id: int) -> tuple[DenialCase, int | None]:
    """Give the case an owner (None: unassign); (case, previous owner)."""
    if owner_user_id is not None:
        check_assignable(db, owner_user_id)
    case = get_case(db, case_id, for_update=True)
    _require_workable(case, "assigned")
    return case, apply_assignment(db, case, owner_user_id, user_id=user_id)


def apply_assignment(db: Session, case: DenialCase, owner_user_id: int | None, *, user_id: int) -> int | None:
    """Set the owner and record it (nothing is recorded when the owner does not change)."""
    previous = case.owner_user_id
    if previous != owner_user_id:
        case.owner_user_id = owner_user_id
        add_event(
            db,
            case,
            "assigned" if owner_user_id is not None else "unassigned",
            actor_user_id=user_id,
            details={"from": previous, "to": owner_user_id},
        )
        db.flush()
    return previous


def transition(
    db: Session, case_id: int, target: str, *, reason: str | None, user_id: int | None
) -> tuple[DenialCase, str]:
    """Move the case along its lifecycle; (case, previous state). Reopening needs a reason, a held
    case must be released first; a loss or write-off records what was not recovered."""
    case = get_case(db, case_id, for_update=True)
    current = case.state
    move(CASE, current, target)
    if (current, target) in REOPEN_MOVES and not reason:
        raise InvalidInput(f"Invalid input: 'reason' is required to reopen a case that is '{current}'")
    if case.on_hold:
        raise PreconditionFailed(f"Case {case.id} is on hold; release it (caseControl.release) before moving it")
    apply_move(db, case, target, reason=reason, user_id=user_id, kind="transition")
    return case, current


def apply_move(
    db: Session,
    case: DenialCase,
    target: str,
    *,
    reason: str | None,
    user_id: int | None,
    kind: str,
    details: dict[str, Any] | None = None,
) -> None:
    """Set the new state and what it implies, and append the one event recording the move."""
    current = case.state
    now = utcnow()
    case.state = target
    case.state_changed_at = now
    if target in LOST_STATES:
        case.written_off_amount = money(max(case.amount_at_stake - case.recovered_amount, ZERO))
    elif target not in DECIDED_STATES and target != "closed":
        case.written_off_amount = ZERO  # reopened: nothing is written off any more
    if target == "closed":
        case.closed_at = now
    elif current == "closed":
        case.closed_at = None
    add_event(
        db, case, kind, actor_user_id=user_id, reason=reason, from_state=current, to_state=target, details=details
    )
    db.flush()


def apply_decision(
    db: Session,
    case: DenialCase,
    target: str,
    *,
    kind: str,
    user_id: int | None,
    details: dict[str, Any],
    at: datetime,
) -> str:
    """Move the case to where a payer's decision puts it (outcomes.record: won / partially_won / lost,
    a withdrawn appeal back to in_appeal) and append the one event recording it; the previous state.

    The move is checked against the case lifecycle (PRECONDITION_FAILED naming the state) but not
    against a person's rules (a held case still learns the payer's decision, no reason is asked), and
    it changes only the state: what was recovered is the caller's to add. The event is appended even
    when the state stays (a withdrawal recorded on a case already in_appeal)."""
    current = case.state
    if target != current:
        move(CASE, current, target)
        case.state, case.state_changed_at = target, at
    add_event(db, case, kind, actor_user_id=user_id, from_state=current, to_state=target, details=details)
    db.flush()
    return current


def add_note(db: Session, case_id: int, body: str, *, user_id: int) -> CaseNote:
    """A note on the case; its text is never logged or audited in clear."""
    case = get_case(db, case_id)
    note = CaseNote(
        organization_id=case.organization_id,
        client_id=case.client_id,
        case_id=case.id,
        author_user_id=user_id,
        body=body,
    )
    db.add(note)
    db.flush()
    add_event(db, case, "note_added", actor_user_id=user_id, details={"noteId": note.id})
    db.flush()
    return note
