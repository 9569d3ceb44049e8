"""Approval rules (pure, no I/O): validity, the policy's number of approvers, separation of duties,
and what a decision does.

Validity is computed, never trusted from the stored state alone: an open approval whose subject's
current digest differs from the one it was requested on is void, and one past `expires_at` is
expired. The stored state is written back by the mutations that check validity (decide, withdraw,
request, execute); queries compute it at read (their transaction is never committed).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from decimal import Decimal

from api.core.errors import Forbidden, InvalidInput, PreconditionFailed
from api.denials.approvals.lifecycle import OPEN_STATES

DECISIONS: tuple[str, ...] = ("approve", "reject")
DEFAULT_EXPIRES_AFTER_HOURS = 72
MAX_EXPIRES_AFTER_HOURS = 24 * 30


def effective_state(
    stored: str, *, expires_at: datetime, now: datetime, bound_digest: str, current_digest: str | None
) -> str:
    """The state as of `now`. `current_digest` is the subject's digest now (None: the subject is gone);
    time expires an open approval, a change or a disappearance voids it. Expiry is checked first: a
    draft stays locked until its approval expires, so a change found after the expiry came after it
    (the approval had lapsed already; it was not the change that ended it)."""
    if stored not in OPEN_STATES:
        return stored
    if now >= expires_at:
        return "expired"
    if current_digest is None or current_digest != bound_digest:
        return "void"
    return stored


def is_valid(state: str) -> bool:
    """Only a granted approval that has not lapsed lets its subject go ahead."""
    return state == "approved"


def required_approvals(amount: Decimal, two_approvers_above: Decimal | None) -> int:
    """Two distinct approvers when the amount is strictly above the policy's threshold, else one."""
    return 2 if two_approvers_above is not None and amount > two_approvers_above else 1


def check_can_decide(state: str, user_id: int, conflicted: Collection[int], prior_deciders: Collection[int]) -> None:
    """Only a pending approval takes a decision, never from the requester or an author of the subject
    (FORBIDDEN, separation of duties), and one decision per approver (the second approver of a
    two-approver policy is a different person)."""
    if state != "pending":
        raise PreconditionFailed(
            f"The approval is '{state}'; only a pending approval can be decided",
            details={"currentState": state},
        )
    if user_id in conflicted:
        raise Forbidden(
            "Separation of duties: you requested this approval or wrote what it approves, so someone else must decide it"
        )
    if user_id in prior_deciders:
        raise Forbidden(
            "Separation of duties: you have already approved this request; the policy needs a different second approver"
        )


def check_reason(reason: str) -> str:
    cleaned = reason.strip()
    if not cleaned:
        raise InvalidInput("Invalid input: 'reason' is required for every decision")
    return cleaned


def after_decision(decision: str, approvals_so_far: int, required: int) -> tuple[str, int]:
    """(state, approvals counted) after one more decision: a rejection rejects; an approval approves
    once `required` distinct approvers have approved, else the request stays pending."""
    if decision == "reject":
        return "rejected", approvals_so_far
    if decision != "approve":
        raise InvalidInput(f"Invalid input: 'decision' must be one of {', '.join(DECISIONS)}")
    count = approvals_so_far + 1
    return ("approved" if count >= required else "pending"), count
