"""The claim lifecycle table: every declared move, a sample of refused ones, and random walks."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.claims.lifecycle import (
    ADJUDICATED_STATES,
    CLAIM,
    FINAL_STATES,
    PRE_SUBMISSION_STATES,
    path_to,
)

# Written out by hand from the brief, not derived from the table under test.
ALLOWED = {
    ("draft", "in_review"),
    ("draft", "withdrawn"),
    ("in_review", "correction_requested"),
    ("in_review", "ready_for_submission_preparation"),
    ("in_review", "withdrawn"),
    ("correction_requested", "corrected"),
    ("correction_requested", "withdrawn"),
    ("corrected", "in_review"),
    ("corrected", "withdrawn"),
    ("ready_for_submission_preparation", "approved_for_submission_preparation"),
    ("ready_for_submission_preparation", "correction_requested"),
    ("ready_for_submission_preparation", "withdrawn"),
    ("approved_for_submission_preparation", "submitted"),
    ("approved_for_submission_preparation", "withdrawn"),
    ("submitted", "adjudicated_paid"),
    ("submitted", "adjudicated_partially_paid"),
    ("submitted", "adjudicated_denied"),
    ("adjudicated_paid", "adjudicated_partially_paid"),
    ("adjudicated_paid", "adjudicated_denied"),
    ("adjudicated_paid", "closed"),
    ("adjudicated_partially_paid", "adjudicated_paid"),
    ("adjudicated_partially_paid", "adjudicated_denied"),
    ("adjudicated_partially_paid", "closed"),
    ("adjudicated_denied", "adjudicated_paid"),
    ("adjudicated_denied", "adjudicated_partially_paid"),
    ("adjudicated_denied", "closed"),
}
STATES = sorted(CLAIM.states)


def test_the_table_is_exactly_the_declared_moves():
    declared = {(s, t) for s, targets in CLAIM.moves.items() for t in targets}
    assert declared == ALLOWED
    assert len(STATES) == 12


@pytest.mark.parametrize(("current", "target"), sorted(ALLOWED))
def test_every_declared_move_is_allowed(current, target):
    assert transition(CLAIM, current, target) == target


@pytest.mark.parametrize(
    ("current", "target"),
    [
        ("draft", "submitted"),
        ("draft", "approved_for_submission_preparation"),
        ("in_review", "approved_for_submission_preparation"),
        ("correction_requested", "in_review"),
        ("submitted", "withdrawn"),
        ("adjudicated_denied", "withdrawn"),
        ("closed", "draft"),
        ("withdrawn", "draft"),
        ("submitted", "in_review"),
    ],
)
def test_undeclared_moves_are_refused_naming_the_current_state(current, target):
    with pytest.raises(PreconditionFailed) as err:
        transition(CLAIM, current, target)
    assert f"'{current}'" in err.value.message
    assert err.value.details["currentState"] == current


def test_withdrawal_exactly_before_submission_and_final_states_are_final():
    assert {s for s in STATES if CLAIM.can(s, "withdrawn")} == set(PRE_SUBMISSION_STATES)
    for state in FINAL_STATES:
        assert CLAIM.allowed(state) == frozenset()
    assert {s for s in STATES if "closed" in CLAIM.allowed(s)} == set(ADJUDICATED_STATES)


def test_unknown_target_is_bad_input():
    with pytest.raises(InvalidInput):
        transition(CLAIM, "draft", "sent")


def test_shortest_path_to_submission():
    assert path_to("draft", "submitted") == [
        "in_review",
        "ready_for_submission_preparation",
        "approved_for_submission_preparation",
        "submitted",
    ]
    assert path_to("correction_requested", "submitted")[:2] == ["corrected", "in_review"]
    assert path_to("submitted", "submitted") == []
    assert path_to("withdrawn", "submitted") == []
    assert path_to("adjudicated_paid", "submitted") == []


@given(st.lists(st.sampled_from(STATES), max_size=40))
def test_random_walks_stay_in_declared_states_and_record_one_move_each(targets):
    """Apply random moves as the service does: an accepted move changes the state and adds exactly one
    transition record; a refused one changes nothing."""
    state = "draft"
    records: list[tuple[str | None, str]] = [(None, "draft")]
    for target in targets:
        before = len(records)
        try:
            state_after = transition(CLAIM, state, target)
        except PreconditionFailed:
            assert len(records) == before
            continue
        records.append((state, state_after))
        state = state_after
        assert state in CLAIM.states
        assert len(records) == before + 1
    # the recorded history is itself a chain of declared moves
    for (_, prev_to), (frm, to) in itertools.pairwise(records):
        assert frm is not None and frm == prev_to and CLAIM.can(frm, to)
