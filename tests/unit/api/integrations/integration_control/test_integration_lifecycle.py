"""The integration and run lifecycles."""

from __future__ import annotations

import pytest

from api.core.errors import PreconditionFailed
from api.core.lifecycle import transition
from api.integrations.integration_control.lifecycle import INTEGRATION, RUN, TRANSITION_MOVES


def test_the_happy_path_to_live_and_back():
    state = "draft"
    for target in ("validated", "approved", "active", "suspended", "active", "suspended", "retired"):
        state = transition(INTEGRATION, state, target)
    assert state == "retired" and not INTEGRATION.allowed("retired")


@pytest.mark.parametrize(
    "current,target",
    [("draft", "approved"), ("draft", "active"), ("validated", "active"), ("active", "retired"), ("retired", "draft")],
)
def test_shortcuts_are_refused(current, target):
    with pytest.raises(PreconditionFailed):
        transition(INTEGRATION, current, target)


def test_a_changed_configuration_goes_back_to_draft_from_every_live_state():
    for state in ("validated", "approved", "active", "suspended"):
        assert INTEGRATION.can(state, "draft")


def test_transition_moves_are_declared_moves():
    assert all(INTEGRATION.can(a, b) for a, b in TRANSITION_MOVES)
    assert ("approved", "active") not in TRANSITION_MOVES  # only by activate


def test_runs_finish_once():
    for final in ("succeeded", "failed", "cancelled"):
        transition(RUN, "running", final)
        with pytest.raises(PreconditionFailed):
            transition(RUN, final, "running")
