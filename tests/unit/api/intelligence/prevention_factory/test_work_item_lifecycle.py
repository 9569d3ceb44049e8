"""The prevention work item lifecycle, move by move: every pair of states is either allowed or refused."""

from __future__ import annotations

import pytest

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.intelligence.prevention_factory.lifecycle import STATES, WORK_ITEM

ALLOWED = {
    ("open", "in_progress"),
    ("open", "cancelled"),
    ("in_progress", "done"),
    ("in_progress", "cancelled"),
    ("in_progress", "open"),
}


def test_the_states_are_the_four_declared():
    assert WORK_ITEM.states == frozenset(STATES) == {"open", "in_progress", "done", "cancelled"}


@pytest.mark.parametrize("current", STATES)
@pytest.mark.parametrize("target", STATES)
def test_each_move_is_allowed_exactly_when_listed(current, target):
    if (current, target) in ALLOWED:
        assert transition(WORK_ITEM, current, target) == target
    else:
        with pytest.raises(PreconditionFailed) as refused:
            transition(WORK_ITEM, current, target)
        assert f"'{current}'" in refused.value.message


def test_done_and_cancelled_are_final():
    assert WORK_ITEM.allowed("done") == WORK_ITEM.allowed("cancelled") == frozenset()


def test_an_unknown_target_is_invalid_input():
    with pytest.raises(InvalidInput):
        transition(WORK_ITEM, "open", "closed")
