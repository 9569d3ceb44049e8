"""Approved actions: request (with their approval), decide, run once against the sandbox. Never
commits, except `void_after_change`, which records a void in its own transaction because the call
that found the change answers with an error (and its own transaction is rolled back).

Running an action hands its payload to an external target, so it is automation acting for the client
(operationalControl task `execute_action`): while paused, `execute_sandbox` is refused before anything
is read or written and the action stays approved (its approval keeps its own expiry).

An action carries only its own case's payload (issue 23: a $1 case carried a $50,000 case's packet,
needed one approver instead of two, and the big packet was submitted): the payload checker answers the
case the payload belongs to, a request naming another case is refused, the amount that sets the
number of approvers is the payload's case's, whoever wrote or assembled the payload never approves it,
and a run re-checks the case along with the digest.

Never puts payload content anywhere: the target, the executions table and the audit log get the
payload's digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from pydantic import BaseModel
from sqlalchemy import CursorResult, Select, select, update
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, InvalidInput, NotFound, PreconditionFailed
from api.core.hooks import Keyed
from api.core.identity import Principal, Tenant
from api.core.lifecycle import transition
from api.core.services import AuditRecord, PauseGuard, PayloadChecker, PayloadFacts
from api.denials.approvals import service as approvals
from api.denials.approvals.models import ApprovalRequest
from api.denials.approved_actions import sandbox
from api.denials.approved_actions.lifecycle import ACTION, OPEN_STATES, RAN_STATES, state_for_approval
from api.denials.approved_actions.models import ActionExecution, ApprovedAction
from api.denials.approved_actions.payloads import other_case_message
from api.denials.cases import service as cases
from api.denials.cases.models import DenialCase
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.services.container import Services

SUBJECT = "action"
CHANGED = "changed after approval"
PAUSE_TASK = "execute_action"


class PayloadChanged(PreconditionFailed):
    """The payload is not the approved one (gone, another digest, or another case's): the action is void."""

    def __init__(self, action: ApprovedAction, found: PayloadFacts | None) -> None:
        if found is not None and found.case_id != action.case_id:
            message = (
                other_case_message(action.payload_ref, found.description, found.case_id, action.case_id)
                + "; the action is void"
            )
        else:
            what = "no longer exists" if found is None else "has a different SHA-256"
            message = (
                f"The payload {CHANGED}: it {what}, so the action is void; request a new action for the current payload"
            )
        super().__init__(message, details={"actionId": action.id, "currentState": "void"})
        self.action_id = action.id


def payload_problem(action: ApprovedAction, found: PayloadFacts | None) -> str | None:
    """Why the action may not carry its payload as it is now (the void reason), or None when the
    payload is the approved one: same case, same SHA-256."""
    if found is None:
        return "the payload is gone"
    if found.case_id != action.case_id:
        return f"the payload belongs to case {found.case_id}"
    if found.digest != action.payload_digest:
        return f"the payload {CHANGED}"
    return None


def get(db: Session, action_id: int, *, for_update: bool = False) -> ApprovedAction:
    return get_by_id(db, ApprovedAction, action_id, "Action", for_update=for_update)


def _approval_id(action: ApprovedAction) -> int:
    assert action.approval_id is not None  # set in the transaction that requested the action
    return action.approval_id


def _move(action: ApprovedAction, target: str, reason: str | None, now: datetime) -> None:
    action.state = transition(ACTION, action.state, target)
    action.state_reason, action.state_changed_at = reason, now


def _sync(db: Session, action: ApprovedAction, now: datetime) -> ApprovalRequest:
    """Write the approval's state as of now (and the action's that follows from it) back."""
    approval = approvals.get(db, _approval_id(action), for_update=True)
    approval_state = approvals.refresh(db, approval, now)
    target = state_for_approval(action.state, approval_state)
    if target != action.state:
        _move(action, target, approval.state_reason, now)
        db.flush()
    return approval


def _checker(checkers: Keyed[PayloadChecker], kind: str) -> PayloadChecker:
    checker = checkers.get(kind)
    if checker is None:
        raise PreconditionFailed(
            f"No payload checker is registered for '{kind}' actions, so they cannot be requested or run yet",
            details={"kind": kind},
        )
    return checker


def _payload_case(db: Session, case_id: int, payload_ref: str, found: PayloadFacts) -> DenialCase:
    """The case the payload belongs to, which must be the one the caller named: the action acts on it
    and its amount sets the approvers (never a case the caller picked for a smaller amount)."""
    if found.case_id != case_id:
        raise InvalidInput(other_case_message(payload_ref, found.description, found.case_id, case_id))
    # the payload's rows point at their case with a foreign key: NOT_FOUND is not expected here
    return cases.get_case(db, found.case_id)


def request(
    db: Session,
    checkers: Keyed[PayloadChecker],
    *,
    case_id: int,
    kind: str,
    payload_ref: str,
    note: str | None,
    user_id: int,
) -> ApprovedAction:
    """An action on a case (not closed) carrying a payload of that same case, with the payload's
    SHA-256 now and the case's amount at stake, and its pending approval (policy: one or two
    approvers by that amount; neither the requester nor whoever wrote or assembled the payload
    decides). A payload of another case is INVALID_INPUT naming both."""
    checker = _checker(checkers, kind)
    cases.get_case(db, case_id)  # NOT_FOUND before the payload is looked at
    found = checker(db, payload_ref)
    if found is None:
        raise NotFound(f"The payload of this {kind} action was not found in this client")
    case = _payload_case(db, case_id, payload_ref, found)
    if case.state == "closed":
        raise PreconditionFailed("The case is 'closed'; reopen it before requesting an action on it")
    now = utcnow()
    action = ApprovedAction(
        case_id=case.id,
        kind=kind,
        payload_ref=payload_ref,
        payload_digest=found.digest,
        amount=case.amount_at_stake,
        state="pending_approval",
        state_changed_at=now,
        requested_by_user_id=user_id,
    )
    db.add(action)
    db.flush()
    approval = approvals.open_request(
        db,
        subject_type=SUBJECT,
        subject_id=action.id,
        subject_version=None,
        subject_digest=found.digest,
        case_id=case.id,
        amount=action.amount,
        requested_by=user_id,
        conflicted=found.authors.keys(),
        note=note,
    )
    action.approval_id = approval.id
    db.flush()
    return action


def _refuse_payload_authors(db: Session, checkers: Keyed[PayloadChecker], action: ApprovedAction, user_id: int) -> None:
    """FORBIDDEN, saying why, to whoever wrote or assembled the payload (they are also among the
    approval's conflicted users, so approvals.decide refuses them too; this names what they did)."""
    if user_id == action.requested_by_user_id:
        return  # approvals.decide refuses the requester with its own message
    found = _checker(checkers, action.kind)(db, action.payload_ref)
    did = found.authors.get(user_id) if found is not None else None
    if did is not None:
        raise Forbidden(
            f"Separation of duties: you {did}, which this action carries, so someone else must decide it",
            details={"actionId": action.id},
        )


def decide(
    db: Session,
    checkers: Keyed[PayloadChecker],
    action_id: int,
    *,
    decision: str,
    reason: str,
    user_id: int,
    invited_window_days: int,
) -> ApprovedAction:
    """Decide the action's approval (the rules of approvals.decide), then move the action with it.
    Whoever wrote or assembled the payload is refused (FORBIDDEN) like the requester, and so is someone
    any of them invited within `invited_window_days` (approvals.decide)."""
    action = get(db, action_id, for_update=True)
    _refuse_payload_authors(db, checkers, action, user_id)
    approvals.decide(
        db,
        _approval_id(action),
        decision=decision,
        reason=reason,
        user_id=user_id,
        invited_window_days=invited_window_days,
    )
    _sync(db, action, utcnow())
    return action


def _claim(db: Session, action: ApprovedAction, target: str, user_id: int, now: datetime) -> None:
    """approved -> executed/failed, only if still approved: a conditional UPDATE, so of two concurrent
    runs exactly one moves it (the other sees 0 rows)."""
    transition(ACTION, "approved", target)
    stmt = (
        update(ApprovedAction)
        .where(ApprovedAction.id == action.id, ApprovedAction.state == "approved")
        .values(state=target, state_changed_at=now, executed_at=now, executed_by_user_id=user_id, state_reason=None)
        .execution_options(synchronize_session=False)
    )
    if cast(CursorResult[Any], db.execute(stmt)).rowcount != 1:
        raise PreconditionFailed("The action has already run; an action runs only once")
    db.refresh(action)


def _refuse_unless_approved(action: ApprovedAction) -> None:
    if action.state in RAN_STATES:
        raise PreconditionFailed(
            f"The action has already run ('{action.state}'); an action runs only once",
            details={"currentState": action.state},
        )
    if action.state != "approved":
        raise PreconditionFailed(
            f"The action is '{action.state}'; only an approved action (with a valid approval) can run",
            details={"currentState": action.state},
        )


def execute_sandbox(
    db: Session,
    checkers: Keyed[PayloadChecker],
    require_not_paused: PauseGuard,
    action_id: int,
    *,
    target: str | None,
    user_id: int,
) -> tuple[ApprovedAction, ActionExecution]:
    """Run an approved action once against the sandbox target. Its approval must be valid now (not
    expired, withdrawn or void) and the payload must still be the approved one (its SHA-256) of the
    action's case, else `PayloadChanged` (the caller records the void: see `void_after_change`). The target gets the
    digest, never the content; the action becomes executed (acknowledged) or failed (refused) and
    its approval used. Refused while the client or `execute_action` is paused (operationalControl, asked
    through `require_not_paused`, the services' pause guard)."""
    require_not_paused(db, PAUSE_TASK)
    now = utcnow()
    action = get(db, action_id, for_update=True)
    approval = _sync(db, action, now)
    _refuse_unless_approved(action)
    found = _checker(checkers, action.kind)(db, action.payload_ref)
    if payload_problem(action, found) is not None:
        raise PayloadChanged(action, found)
    chosen = target or sandbox.DEFAULT_TARGET[action.kind]
    answer = sandbox.submit(action.kind, action.payload_digest, chosen)
    _claim(db, action, "executed" if answer.accepted else "failed", user_id, now)
    execution = ActionExecution(
        action_id=action.id,
        target=chosen,
        request={
            "actionId": action.id,
            "kind": action.kind,
            "payloadRef": action.payload_ref,
            "payloadDigest": action.payload_digest,
            "caseId": action.case_id,
        },
        response=answer.response,
        outcome="acknowledged" if answer.accepted else "rejected",
        tracking_number=answer.tracking_number,
        executed_by_user_id=user_id,
        created_at=now,
    )
    db.add(execution)
    db.flush()
    approvals.mark_used(db, approval)
    return action, execution


def void_after_change(
    services: Services, tenant: Tenant, principal: Principal, procedure: str, input_value: BaseModel, action_id: int
) -> None:
    """Record, in its own committed transaction with its audit event, that an action is void because its
    payload changed after approval, is gone or is another case's (the calling transaction answers
    PRECONDITION_FAILED and is rolled back; the caller must have released its own locks first).
    Re-checked under lock: nothing is written if the action has moved on or the payload is back to
    the approved one."""
    with services.database.transaction() as tx:
        set_scope(tx, TenantScope(tenant.organization_id, tenant.client_id))
        action = tx.scalar(select(ApprovedAction).where(ApprovedAction.id == action_id).with_for_update())
        if action is None or action.state not in OPEN_STATES:
            return
        checker = services.payload_checkers.get(action.kind)
        found = checker(tx, action.payload_ref) if checker is not None else None
        reason = payload_problem(action, found)
        if reason is None:
            return
        before = action.state
        _move(action, "void", reason, utcnow())
        approvals.void(tx, approvals.get(tx, _approval_id(action), for_update=True), reason)
        tx.flush()
        after = {
            **audit_view(action),
            "current_payload_digest": found.digest if found else None,
            "current_payload_case_id": found.case_id if found else None,
        }
        set_scope(tx, None)
        services.audit(
            tx,
            AuditRecord(
                organization_id=tenant.organization_id,
                client_id=tenant.client_id,
                actor_user_id=principal.user_id,
                actor_kind=principal.method,
                procedure=procedure,
                input_value=input_value,
                target_type="approved_action",
                target_id=str(action.id),
                before={"state": before},
                after=after,
            ),
        )


# --- views ------------------------------------------------------------------------------------------


def execution_of(db: Session, action_id: int) -> ActionExecution | None:
    return db.scalar(select(ActionExecution).where(ActionExecution.action_id == action_id))


def _view(action: ApprovedAction, approval_state: str | None) -> dict[str, Any]:
    fields = {c: getattr(action, c) for c in ApprovedAction.__table__.columns.keys()}  # noqa: SIM118
    state = state_for_approval(action.state, approval_state) if approval_state else action.state
    if state != action.state:
        fields["state"], fields["state_reason"] = state, f"its approval is {approval_state}"
    return fields


def views(db: Session, actions: Sequence[ApprovedAction], now: datetime) -> list[dict[str, Any]]:
    """Actions for the wire, each with its state as of now (following its approval)."""
    ids = {a.approval_id for a in actions if a.approval_id is not None}
    rows = db.scalars(select(ApprovalRequest).where(ApprovalRequest.id.in_(ids))).all() if ids else []
    states = approvals.effective_states(db, rows, now)
    return [_view(a, states.get(a.approval_id) if a.approval_id else None) for a in actions]


def detail(db: Session, action: ApprovedAction, now: datetime) -> dict[str, Any]:
    approval = approvals.get(db, _approval_id(action))
    return {
        **views(db, [action], now)[0],
        "approval": approvals.detail(db, approval, now),
        "execution": execution_of(db, action.id),
    }


def list_statement(case_id: int | None, kind: str | None, state: str | None) -> Select[Any]:
    return where_given(
        select(ApprovedAction),
        (ApprovedAction.case_id, case_id),
        (ApprovedAction.kind, kind),
        (ApprovedAction.state, state),
    )


def audit_view(action: ApprovedAction, execution: ActionExecution | None = None) -> dict[str, Any]:
    """What the audit log may digest: ids, kind, digests, states, the outcome; never payload content."""
    view: dict[str, Any] = {
        "case_id": action.case_id,
        "kind": action.kind,
        "payload_digest": action.payload_digest,
        "approval_id": action.approval_id,
        "state": action.state,
    }
    if execution is not None:
        view |= {
            "execution_id": execution.id,
            "target": execution.target,
            "outcome": execution.outcome,
            "tracking_number": execution.tracking_number,
        }
    return view
