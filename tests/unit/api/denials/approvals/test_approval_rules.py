"""Approval rules (pure): validity with expiry and digest binding, the policy's approvers, separation
of duties, decisions, and the lifecycle table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import Forbidden, InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.approvals import rules
from api.denials.approvals.lifecycle import APPROVAL, FINAL_STATES, OPEN_STATES

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(hours=1)
D1, D2 = "a" * 64, "b" * 64

ALLOWED = {
    ("pending", "approved"),
    ("pending", "rejected"),
    ("pending", "withdrawn"),
    ("pending", "expired"),
    ("pending", "void"),
    ("approved", "used"),
    ("approved", "withdrawn"),
    ("approved", "expired"),
    ("approved", "void"),
}


@pytest.mark.parametrize("current", sorted(APPROVAL.states))
@pytest.mark.parametrize("target", sorted(APPROVAL.states))
def test_every_move_is_exactly_the_table(current, target):
    if (current, target) in ALLOWED:
        assert transition(APPROVAL, current, target) == target
    else:
        with pytest.raises(PreconditionFailed):
            transition(APPROVAL, current, target)


def test_only_pending_and_approved_are_open():
    assert {"pending", "approved"} == OPEN_STATES
    assert APPROVAL.states - OPEN_STATES == FINAL_STATES


def _state(stored, *, expires_at=LATER, current=D1, now=NOW):
    return rules.effective_state(stored, expires_at=expires_at, now=now, bound_digest=D1, current_digest=current)


@pytest.mark.parametrize("stored", ["pending", "approved"])
def test_an_open_approval_lapses_by_time_and_by_change(stored):
    assert _state(stored) == stored
    assert _state(stored, expires_at=NOW) == "expired"  # expiry is inclusive of the instant
    assert _state(stored, current=D2) == "void"
    assert _state(stored, current=None) == "void"  # the subject is gone
    assert _state(stored, current=D2, expires_at=NOW) == "expired"  # lapsed before it changed


@pytest.mark.parametrize("stored", sorted(FINAL_STATES))
def test_a_final_state_never_changes(stored):
    assert _state(stored, current=D2, expires_at=NOW - timedelta(days=9)) == stored


@given(
    st.sampled_from(sorted(APPROVAL.states)),
    st.integers(min_value=-10_000, max_value=10_000),
    st.sampled_from([D1, D2, None]),
)
def test_valid_only_when_granted_unexpired_and_unchanged(stored, seconds, current):
    expires_at = NOW + timedelta(seconds=seconds)
    valid = rules.is_valid(_state(stored, expires_at=expires_at, current=current))
    assert valid == (stored == "approved" and seconds > 0 and current == D1)


@pytest.mark.parametrize(
    ("amount", "threshold", "required"),
    [
        ("100.00", None, 1),
        ("1000.00", "1000.00", 1),  # at the threshold: one
        ("1000.01", "1000.00", 2),  # above: two
        ("0.00", "0.00", 1),
        ("0.01", "0.00", 2),
    ],
)
def test_two_approvers_strictly_above_the_threshold(amount, threshold, required):
    assert rules.required_approvals(Decimal(amount), Decimal(threshold) if threshold else None) == required


@given(
    st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False),
    st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False),
)
def test_required_approvers_are_monotone_in_the_amount(amount, threshold):
    assert rules.required_approvals(amount, threshold) == (2 if amount > threshold else 1)
    assert rules.required_approvals(amount + 1, threshold) >= rules.required_approvals(amount, threshold)


def test_the_requester_or_an_author_never_decides():
    with pytest.raises(Forbidden, match="Separation of duties"):
        rules.check_can_decide("pending", 7, conflicted=[7, 9], prior_deciders=[])
    with pytest.raises(Forbidden, match="Separation of duties"):
        rules.check_can_decide("pending", 9, conflicted=[7, 9], prior_deciders=[])
    rules.check_can_decide("pending", 8, conflicted=[7, 9], prior_deciders=[])


def test_the_second_approver_is_a_different_person():
    with pytest.raises(Forbidden, match="different second approver"):
        rules.check_can_decide("pending", 8, conflicted=[7], prior_deciders=[8])


@pytest.mark.parametrize("state", ["approved", "rejected", "expired", "void", "withdrawn", "used"])
def test_only_a_pending_approval_is_decided(state):
    with pytest.raises(PreconditionFailed, match=f"'{state}'"):
        rules.check_can_decide(state, 8, conflicted=[7], prior_deciders=[])


def test_a_reason_is_required():
    with pytest.raises(InvalidInput, match="reason"):
        rules.check_reason("  \n ")
    assert rules.check_reason("  ok ") == "ok"


def test_decisions_tally_to_the_required_number():
    assert rules.after_decision("approve", 0, 1) == ("approved", 1)
    assert rules.after_decision("approve", 0, 2) == ("pending", 1)
    assert rules.after_decision("approve", 1, 2) == ("approved", 2)
    assert rules.after_decision("reject", 1, 2) == ("rejected", 1)
    with pytest.raises(InvalidInput):
        rules.after_decision("maybe", 0, 1)


@given(st.integers(min_value=1, max_value=2), st.lists(st.sampled_from(rules.DECISIONS), min_size=1, max_size=4))
def test_a_sequence_of_decisions_approves_only_after_enough_approvals_and_no_rejection(required, seq):
    state, count, taken = "pending", 0, 0
    for decision in seq:
        if state != "pending":
            break
        state, count = rules.after_decision(decision, count, required)
        taken += 1
    decided = seq[:taken]
    if "reject" in decided:
        assert state == "rejected" and decided[-1] == "reject" and count < required
    elif len(decided) >= required:
        assert state == "approved" and count == required
    else:
        assert state == "pending" and count == len(decided) < required
