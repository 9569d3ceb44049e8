"""The case lifecycle table: every declared move, a sample of refused ones, the reopen moves.
The Hypothesis state machine over the service is tests/integration/api/denials/cases/test_case_moves_stateful.py."""

from __future__ import annotations

import pytest

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.cases.lifecycle import CASE, DECIDED_STATES, REOPEN_MOVES, WORKING_STATES

ALL_MOVES = sorted((s, t) for s, targets in CASE.moves.items() for t in targets)


@pytest.mark.parametrize(("current", "target"), ALL_MOVES)
def test_every_declared_move_is_accepted(current, target):
    assert transition(CASE, current, target) == target


@pytest.mark.parametrize(
    ("current", "target"),
    [
        ("open", "closed"),
        ("open", "awaiting_payer"),
        ("triaged", "awaiting_payer"),
        ("triaged", "open"),
        ("in_appeal", "open"),
        ("awaiting_payer", "closed"),
        ("won", "lost"),
        ("closed", "open"),
        ("closed", "won"),
        ("written_off", "won"),
    ],
)
def test_undeclared_moves_are_precondition_failed_naming_the_state(current, target):
    with pytest.raises(PreconditionFailed) as refused:
        transition(CASE, current, target)
    assert f"'{current}'" in refused.value.message
    assert refused.value.details["allowedMoves"] == sorted(CASE.allowed(current))


def test_an_unknown_target_is_invalid_input():
    with pytest.raises(InvalidInput):
        transition(CASE, "open", "appealed")


def test_reopen_moves_leave_a_decision_or_a_closed_case_for_a_working_state():
    assert {
        ("won", "triaged"),
        ("partially_won", "triaged"),
        ("partially_won", "in_appeal"),
        ("lost", "triaged"),
        ("lost", "in_appeal"),
        ("written_off", "triaged"),
        ("closed", "triaged"),
    } == REOPEN_MOVES
    assert all(s in DECIDED_STATES | {"closed"} and t in WORKING_STATES for s, t in REOPEN_MOVES)
