"""Approval requests: open, decide, withdraw, lapse; and the client's policy. Never commits.

Validity is computed by `rules.effective_state` from the stored state, the expiry and the subject's
current digest. Mutations that check it write the result back (`refresh`), moving the subject along;
queries compute it at read (`view`), since a query's transaction is never committed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, and_, or_, select
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.approvals import rules
from api.denials.approvals.lifecycle import APPROVAL, OPEN_STATES
from api.denials.approvals.models import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from api.denials.cases import service as cases
from api.denials.cases.models import DenialCase
from api.denials.drafts import service as drafts
from api.denials.drafts.lifecycle import effective_state as draft_state
from api.denials.drafts.models import Draft
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.platform.organizations.service import require_independent

DRAFT = "draft"
ACTION = "action"


# --- policy -----------------------------------------------------------------------------------------


def policy(db: Session) -> ApprovalPolicy | None:
    return db.scalar(select(ApprovalPolicy))


def policy_view(row: ApprovalPolicy | None) -> dict[str, Any]:
    if row is None:
        return {
            "two_approvers_above": None,
            "expires_after_hours": rules.DEFAULT_EXPIRES_AFTER_HOURS,
            "is_default": True,
            "updated_by_user_id": None,
            "updated_at": None,
        }
    return {
        "two_approvers_above": row.two_approvers_above,
        "expires_after_hours": row.expires_after_hours,
        "is_default": False,
        "updated_by_user_id": row.updated_by_user_id,
        "updated_at": row.updated_at,
    }


def set_policy(
    db: Session, *, two_approvers_above: Decimal | None, expires_after_hours: int, user_id: int
) -> ApprovalPolicy:
    """Set the client's policy. It applies to requests made from now on, and a decision on an open
    request needs the stricter of the policy it was made under and the current one."""
    row = policy(db)
    if row is None:
        row = ApprovalPolicy(expires_after_hours=expires_after_hours, updated_by_user_id=user_id, updated_at=utcnow())
        db.add(row)
    row.two_approvers_above = two_approvers_above
    row.expires_after_hours = expires_after_hours
    row.updated_by_user_id, row.updated_at = user_id, utcnow()
    db.flush()
    return row


def _threshold_and_ttl(db: Session) -> tuple[Decimal | None, int]:
    row = policy(db)
    return (
        (None, rules.DEFAULT_EXPIRES_AFTER_HOURS) if row is None else (row.two_approvers_above, row.expires_after_hours)
    )


# --- reading and validity ---------------------------------------------------------------------------


def get(db: Session, approval_id: int, *, for_update: bool = False) -> ApprovalRequest:
    return get_by_id(db, ApprovalRequest, approval_id, "Approval", for_update=for_update)


def _current_digests(db: Session, approvals: Iterable[ApprovalRequest]) -> dict[tuple[str, int], str | None]:
    """Each subject's digest now. A draft's is its current version's (None when discarded or gone); an
    action's payload is re-checked when it runs, so here its bound digest stands."""
    rows = list(approvals)
    draft_ids = {a.subject_id for a in rows if a.subject_type == DRAFT}
    found: dict[int, str | None] = {}
    if draft_ids:
        for ident, state, digest in db.execute(
            select(Draft.id, Draft.state, Draft.current_digest).where(Draft.id.in_(draft_ids))
        ).tuples():
            found[ident] = None if state == "discarded" else digest
    out: dict[tuple[str, int], str | None] = {}
    for a in rows:
        key = (a.subject_type, a.subject_id)
        out[key] = found.get(a.subject_id) if a.subject_type == DRAFT else a.subject_digest
    return out


def effective(db: Session, approval: ApprovalRequest, now: datetime) -> str:
    """The approval's state as of `now`, without writing anything."""
    current = _current_digests(db, [approval])[(approval.subject_type, approval.subject_id)]
    return rules.effective_state(
        approval.state,
        expires_at=approval.expires_at,
        now=now,
        bound_digest=approval.subject_digest,
        current_digest=current,
    )


def _lapse_reason(state: str, approval: ApprovalRequest) -> str:
    if state == "expired":
        return "expired"
    what = "draft" if approval.subject_type == DRAFT else "payload"
    return f"the {what} changed or was discarded after the approval was requested"


def _follow(db: Session, approval: ApprovalRequest) -> None:
    """Move the subject with its approval (drafts; an action follows when approvedActions reads it)."""
    if approval.subject_type != DRAFT:
        return
    draft = db.scalar(select(Draft).where(Draft.id == approval.subject_id).with_for_update())
    if draft is not None:
        drafts.follow_approval(db, draft, approval.id, approval.state, approval.expires_at)


def _close(db: Session, approval: ApprovalRequest, target: str, reason: str | None, now: datetime) -> None:
    approval.state = transition(APPROVAL, approval.state, target)
    approval.state_reason = reason
    if target not in OPEN_STATES:
        approval.closed_at = now
    db.flush()
    _follow(db, approval)


def refresh(db: Session, approval: ApprovalRequest, now: datetime) -> str:
    """Write back a lapse (expired, void) found on the way, moving the subject too; the state now."""
    state = effective(db, approval, now)
    if state != approval.state:
        _close(db, approval, state, _lapse_reason(state, approval), now)
    return state


def decisions(db: Session, approval_id: int) -> Sequence[ApprovalDecision]:
    stmt = select(ApprovalDecision).where(ApprovalDecision.approval_id == approval_id).order_by(ApprovalDecision.id)
    return db.scalars(stmt).all()


# --- requesting, deciding, withdrawing --------------------------------------------------------------


def open_request(
    db: Session,
    *,
    subject_type: str,
    subject_id: int,
    subject_version: int | None,
    subject_digest: str,
    case_id: int,
    amount: Decimal,
    requested_by: int,
    conflicted: Iterable[int],
    note: str | None,
) -> ApprovalRequest:
    """A pending approval bound to `subject_digest`, needing the number of approvers the client's policy
    sets for `amount`, expiring after the policy's hours. Nobody in `conflicted` (nor the requester)
    may decide it. Used by approvals.request (drafts) and approvedActions.request."""
    now = utcnow()
    threshold, hours = _threshold_and_ttl(db)
    approval = ApprovalRequest(
        subject_type=subject_type,
        subject_id=subject_id,
        subject_version=subject_version,
        subject_digest=subject_digest,
        case_id=case_id,
        amount=amount,
        required_approvals=rules.required_approvals(amount, threshold),
        approvals_count=0,
        state="pending",
        requested_by_user_id=requested_by,
        conflicted_user_ids=sorted({requested_by, *conflicted}),
        note=note,
        expires_at=now + timedelta(hours=hours),
        created_at=now,
    )
    db.add(approval)
    db.flush()
    return approval


def request_for_draft(db: Session, draft_id: int, *, note: str | None, user_id: int) -> ApprovalRequest:
    """Ask for approval of a draft's current version: the draft must be editing (an expired approval
    is written back first); it moves to in_approval and is locked until the approval is decided,
    withdrawn or lapses. The draft's authors and the requester may not decide it."""
    now = utcnow()
    draft = drafts.get(db, draft_id, for_update=True)
    if draft.approval_id is not None and draft_state(draft.state, draft.locked_until, now) == "editing":
        refresh(db, get(db, draft.approval_id, for_update=True), now)
        drafts.release_expired_lock(draft, now)
    if draft.state != "editing":
        raise PreconditionFailed(
            f"The draft is '{draft.state}'; approval can be requested only for a draft that is editing",
            details={"currentState": draft.state},
        )
    case = cases.get_case(db, draft.case_id)
    approval = open_request(
        db,
        subject_type=DRAFT,
        subject_id=draft.id,
        subject_version=draft.current_version,
        subject_digest=draft.current_digest,
        case_id=draft.case_id,
        amount=case.amount_at_stake,
        requested_by=user_id,
        conflicted=drafts.authors(db, draft.id),
        note=note,
    )
    drafts.follow_approval(db, draft, approval.id, "pending", approval.expires_at)
    return approval


def _amount_now(db: Session, approval: ApprovalRequest) -> Decimal:
    """The larger of the amount the request was made for and its case's amount at stake now: the case
    is the subject's own (a draft's case; an action's, which is its payload's case), so a case whose
    amount grew after the request needs the approvers its amount needs now (issue 23)."""
    now_at_stake = db.scalar(select(DenialCase.amount_at_stake).where(DenialCase.id == approval.case_id))
    return approval.amount if now_at_stake is None else max(approval.amount, now_at_stake)


def decide(
    db: Session, approval_id: int, *, decision: str, reason: str, user_id: int, invited_window_days: int
) -> ApprovalRequest:
    """One approver's decision with its reason. Refused (FORBIDDEN) to the requester and the subject's
    authors, to someone one of them (or an earlier approver) invited within `invited_window_days`, and to
    an approver who already approved; PRECONDITION_FAILED unless the approval is still
    pending (expired or voided ones are written back as such first). A rejection rejects; approvals
    approve once the policy's number of distinct approvers is reached (for the larger of the
    request's amount and its case's amount now, under the stricter of the two policies)."""
    now = utcnow()
    reason = rules.check_reason(reason)
    approval = get(db, approval_id, for_update=True)
    state = refresh(db, approval, now)
    prior = [d.approver_user_id for d in decisions(db, approval.id) if d.decision == "approve"]
    rules.check_can_decide(state, user_id, approval.conflicted_user_ids, prior)
    if decision == "approve":
        require_independent(
            db,
            user_id,
            approval.conflicted_user_ids,
            window_days=invited_window_days,
            requester="the requester (or an author of what it approves)",
        )
        require_independent(
            db, user_id, prior, window_days=invited_window_days, requester="this approval's earlier approver"
        )
    threshold, _ = _threshold_and_ttl(db)
    amount = _amount_now(db, approval)
    required = max(approval.required_approvals, rules.required_approvals(amount, threshold))
    db.add(ApprovalDecision(approval_id=approval.id, approver_user_id=user_id, decision=decision, reason=reason))
    target, count = rules.after_decision(decision, approval.approvals_count, required)
    approval.required_approvals, approval.approvals_count = required, count
    if target != approval.state:
        approval.decided_at = now
        _close(db, approval, target, None, now)
    db.flush()
    return approval


def withdraw(db: Session, approval_id: int, *, reason: str, user_id: int) -> ApprovalRequest:
    """The requester (or an author of the subject) withdraws a pending or granted approval, e.g. to
    edit the approved draft again; an approval already used by an action cannot be withdrawn."""
    now = utcnow()
    reason = rules.check_reason(reason)
    approval = get(db, approval_id, for_update=True)
    state = refresh(db, approval, now)
    if state not in OPEN_STATES:
        raise PreconditionFailed(
            f"The approval is '{state}'; only a pending or approved one can be withdrawn",
            details={"currentState": state},
        )
    if user_id not in approval.conflicted_user_ids:
        raise Forbidden(
            "Only the requester (or an author of what it approves) can withdraw an approval; approvers reject it"
        )
    _close(db, approval, "withdrawn", reason, now)
    return approval


def mark_used(db: Session, approval: ApprovalRequest) -> None:
    """The approved action ran: its approval is spent (final)."""
    _close(db, approval, "used", None, utcnow())


def void(db: Session, approval: ApprovalRequest, reason: str) -> None:
    if approval.state in OPEN_STATES:
        _close(db, approval, "void", reason, utcnow())


def void_for_draft(db: Session, draft_id: int) -> None:
    """`Services.draft_discarded` listener: the open approval of a discarded draft is void."""
    stmt = select(ApprovalRequest).where(
        ApprovalRequest.subject_type == DRAFT,
        ApprovalRequest.subject_id == draft_id,
        ApprovalRequest.state.in_(OPEN_STATES),
    )
    now = utcnow()
    for approval in db.scalars(stmt.with_for_update()).all():
        if approval.expires_at <= now:  # it had lapsed before the discard
            _close(db, approval, "expired", "expired", now)
        else:
            void(db, approval, "the draft was discarded")


# --- views ------------------------------------------------------------------------------------------


def view(approval: ApprovalRequest, current_digest: str | None, now: datetime) -> dict[str, Any]:
    """The approval for the wire, with its state as of now."""
    fields = {c: getattr(approval, c) for c in ApprovalRequest.__table__.columns.keys()}  # noqa: SIM118
    state = rules.effective_state(
        approval.state,
        expires_at=approval.expires_at,
        now=now,
        bound_digest=approval.subject_digest,
        current_digest=current_digest,
    )
    if state != approval.state:
        fields["state_reason"] = _lapse_reason(state, approval)
    fields["state"], fields["valid"] = state, rules.is_valid(state)
    return fields


def detail(db: Session, approval: ApprovalRequest, now: datetime) -> dict[str, Any]:
    current = _current_digests(db, [approval])[(approval.subject_type, approval.subject_id)]
    return {**view(approval, current, now), "decisions": decisions(db, approval.id)}


def effective_states(db: Session, approvals: Sequence[ApprovalRequest], now: datetime) -> dict[int, str]:
    """Approval id -> its state as of now, without writing anything."""
    return {item["id"]: item["state"] for item in views(db, approvals, now)}


def views(db: Session, approvals: Sequence[ApprovalRequest], now: datetime) -> list[dict[str, Any]]:
    digests = _current_digests(db, approvals)
    return [view(a, digests[(a.subject_type, a.subject_id)], now) for a in approvals]


def list_statement(
    subject_type: str | None, subject_id: int | None, case_id: int | None, state: str | None, now: datetime
) -> Select[Any]:
    stmt = where_given(
        select(ApprovalRequest),
        (ApprovalRequest.subject_type, subject_type),
        (ApprovalRequest.subject_id, subject_id),
        (ApprovalRequest.case_id, case_id),
    )
    if state == "expired":
        lapsed = and_(ApprovalRequest.state.in_(OPEN_STATES), ApprovalRequest.expires_at <= now)
        stmt = stmt.where(or_(ApprovalRequest.state == "expired", lapsed))
    elif state in OPEN_STATES:
        stmt = stmt.where(ApprovalRequest.state == state, ApprovalRequest.expires_at > now)
    elif state is not None:
        stmt = stmt.where(ApprovalRequest.state == state)
    return stmt


def audit_view(approval: ApprovalRequest) -> dict[str, Any]:
    """What the audit log may digest: ids, digests, counts and states; never reasons or notes."""
    return {
        "subject_type": approval.subject_type,
        "subject_id": approval.subject_id,
        "subject_version": approval.subject_version,
        "subject_digest": approval.subject_digest,
        "case_id": approval.case_id,
        "required_approvals": approval.required_approvals,
        "approvals_count": approval.approvals_count,
        "state": approval.state,
    }
