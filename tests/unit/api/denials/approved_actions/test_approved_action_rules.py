"""The approved-action lifecycle, how it follows its approval, the sandbox target and the payload
checker registry (pure)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import PreconditionFailed
from api.core.hooks import Keyed
from api.core.lifecycle import transition
from api.core.services import PayloadChecker
from api.denials.approvals.lifecycle import APPROVAL
from api.denials.approved_actions import payloads, sandbox
from api.denials.approved_actions.lifecycle import ACTION, OPEN_STATES, RAN_STATES, state_for_approval

ALLOWED = {
    ("pending_approval", "approved"),
    ("pending_approval", "rejected"),
    ("pending_approval", "expired"),
    ("pending_approval", "void"),
    ("approved", "executed"),
    ("approved", "failed"),
    ("approved", "expired"),
    ("approved", "void"),
}
DIGEST = hashlib.sha256(b"payload").hexdigest()


@pytest.mark.parametrize("current", sorted(ACTION.states))
@pytest.mark.parametrize("target", sorted(ACTION.states))
def test_every_move_is_exactly_the_table(current, target):
    if (current, target) in ALLOWED:
        assert transition(ACTION, current, target) == target
    else:
        with pytest.raises(PreconditionFailed):
            transition(ACTION, current, target)


def test_an_action_that_ran_never_runs_again():
    for state in RAN_STATES:
        assert ACTION.allowed(state) == frozenset()
        assert not ACTION.can(state, "executed")


@pytest.mark.parametrize(
    ("approval", "expected"),
    [
        ("pending", "pending_approval"),
        ("approved", "approved"),
        ("rejected", "rejected"),
        ("expired", "expired"),
        ("withdrawn", "void"),
        ("void", "void"),
    ],
)
def test_an_open_action_follows_its_approval(approval, expected):
    assert state_for_approval("pending_approval", approval) == expected


@given(st.sampled_from(sorted(ACTION.states)), st.sampled_from(sorted(APPROVAL.states)))
def test_following_the_approval_is_always_an_allowed_move_and_closed_actions_stay(action_state, approval_state):
    target = state_for_approval(action_state, approval_state)
    if action_state not in OPEN_STATES:
        assert target == action_state
    elif target != action_state:
        assert ACTION.can(action_state, target)


@given(st.sampled_from(payloads.KINDS), st.text(alphabet="0123456789abcdef", min_size=64, max_size=64))
def test_the_sandbox_acknowledges_with_a_tracking_number_derived_from_the_digest(kind, digest):
    answer = sandbox.submit(kind, digest, sandbox.DEFAULT_TARGET[kind])
    again = sandbox.submit(kind, digest, sandbox.DEFAULT_TARGET[kind])
    assert answer == again and answer.accepted
    assert answer.tracking_number == sandbox.tracking_number(kind, digest)
    assert answer.response["payloadDigest"] == digest and answer.response["trackingNumber"] == answer.tracking_number


def test_tracking_numbers_differ_with_the_payload_and_the_kind():
    other = hashlib.sha256(b"other").hexdigest()
    numbers = {sandbox.tracking_number(k, d) for k in payloads.KINDS for d in (DIGEST, other)}
    assert len(numbers) == 6
    assert sandbox.tracking_number("portal_message", DIGEST).startswith("SBX-MSG-")


def test_the_reject_target_refuses_and_an_unknown_target_is_not_accepted():
    refused = sandbox.submit("portal_message", DIGEST, "sandbox-reject")
    assert not refused.accepted and refused.tracking_number is None and refused.response["code"] == "SBX-REJECTED"
    assert not sandbox.submit("portal_message", DIGEST, "somewhere").accepted


def test_every_kind_has_a_default_target():
    assert set(sandbox.DEFAULT_TARGET) == set(payloads.KINDS)
    assert set(sandbox.DEFAULT_TARGET.values()) <= set(sandbox.TARGETS) - {sandbox.REJECTING}


def test_the_checkers_refuse_unknown_kinds_and_a_second_checker():
    # The composition root builds the hook exactly so (api/app.py); a misspelt kind fails at start-up.
    checkers: Keyed[PayloadChecker] = Keyed(payloads.KINDS)

    def first(db, ref):
        return None

    def second(db, ref):
        return None

    with pytest.raises(ValueError, match="'fax_everything' is not a key"):
        checkers.subscribe("fax_everything", first)
    checkers.subscribe("submit_appeal_packet", first)
    checkers.subscribe("submit_appeal_packet", first)  # the same again: no-op
    assert checkers.get("submit_appeal_packet") is first
    assert checkers.get("portal_message") is None
    with pytest.raises(ValueError, match="already subscribed"):
        checkers.subscribe("submit_appeal_packet", second)
