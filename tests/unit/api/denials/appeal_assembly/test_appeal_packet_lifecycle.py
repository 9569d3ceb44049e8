"""The appeal packet lifecycle table."""

from __future__ import annotations

import pytest

from api.core.errors import PreconditionFailed
from api.core.lifecycle import transition
from api.denials.appeal_assembly.lifecycle import CASE_MOVES, EVENT_KINDS, FINAL_STATES, PACKET, WITH_PAYER
from api.denials.cases.lifecycle import CASE


def test_the_happy_path_and_the_final_states():
    state = "assembled"
    for target in ("submitted", "acknowledged", "info_requested", "info_supplied", "info_requested", "decided"):
        state = transition(PACKET, state, target)
    assert {"decided", "withdrawn", "superseded"} == FINAL_STATES


@pytest.mark.parametrize(
    ("current", "target"),
    [
        ("assembled", "decided"),
        ("assembled", "acknowledged"),
        ("decided", "info_requested"),
        ("superseded", "submitted"),
        ("submitted", "superseded"),
        ("withdrawn", "decided"),
    ],
)
def test_moves_not_in_the_table_are_precondition_failed(current, target):
    with pytest.raises(PreconditionFailed, match=f"'{current}'"):
        transition(PACKET, current, target)


def test_every_event_kind_is_a_state_reachable_from_some_state_and_case_moves_are_case_moves():
    reachable = {t for targets in PACKET.moves.values() for t in targets}
    assert set(EVENT_KINDS) <= reachable
    assert {s for s in PACKET.states if "decided" in PACKET.allowed(s)} == WITH_PAYER
    for before, after in CASE_MOVES.values():
        assert CASE.can(before, after)
