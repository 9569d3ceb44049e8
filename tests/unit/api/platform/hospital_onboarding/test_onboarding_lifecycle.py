"""The onboarding request lifecycle, separation of duties and default connector profiles (pure)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import Forbidden, InvalidInput, PreconditionFailed
from api.evidence.evidence_control import retention
from api.platform.hospital_onboarding import connectors, schemas
from api.platform.hospital_onboarding.lifecycle import (
    DEDICATED_TARGETS,
    FINAL_STATES,
    INITIAL_STATE,
    ONBOARDING,
    check_decider,
    decision_move,
    generic_move,
)
from pipelines.ingest.tabular import validate_profile


def test_the_happy_path_is_declared():
    path = ["submitted", "in_review", "approved", "provisioned", "live", "suspended", "live"]
    for current, target in itertools.pairwise(path):
        assert ONBOARDING.can(current, target), (current, target)
    assert INITIAL_STATE == "submitted"
    assert {"rejected", "withdrawn"} == FINAL_STATES


def test_every_state_is_reachable_from_submitted():
    seen, frontier = {INITIAL_STATE}, [INITIAL_STATE]
    while frontier:
        for target in ONBOARDING.allowed(frontier.pop()):
            if target not in seen:
                seen.add(target)
                frontier.append(target)
    assert seen == ONBOARDING.states


@pytest.mark.parametrize("state", ["provisioned", "live", "suspended", "rejected"])
def test_nothing_provisioned_or_rejected_is_withdrawn(state):
    assert not ONBOARDING.can(state, "withdrawn")


def test_generic_moves_refuse_the_dedicated_targets_naming_the_procedure():
    for target, procedure in DEDICATED_TARGETS.items():
        with pytest.raises(InvalidInput, match=procedure):
            generic_move("in_review", target)
    assert generic_move("in_review", "on_hold") == "on_hold"
    assert generic_move("on_hold", "in_review") == "in_review"


def test_an_undeclared_move_names_the_current_state():
    with pytest.raises(PreconditionFailed, match="'submitted'") as caught:
        generic_move("submitted", "live")
    assert caught.value.details["allowedMoves"] == ["in_review", "withdrawn"]


def test_decisions_are_made_under_review_only():
    assert decision_move("in_review", "approved") == "approved"
    assert decision_move("in_review", "rejected") == "rejected"
    with pytest.raises(PreconditionFailed, match="'submitted'"):
        decision_move("submitted", "approved")
    with pytest.raises(InvalidInput, match="'decision'"):
        decision_move("in_review", "provisioned")


@given(st.integers(min_value=1), st.integers(min_value=1))
def test_nobody_decides_their_own_request(submitter, decider):
    if submitter == decider:
        with pytest.raises(Forbidden):
            check_decider(submitter, decider)
    else:
        check_decider(submitter, decider)


@given(st.lists(st.sampled_from(sorted(ONBOARDING.states)), max_size=30))
def test_any_walk_stays_inside_the_declared_moves(targets):
    state = INITIAL_STATE
    for target in targets:
        try:
            moved = generic_move(state, target)
        except (InvalidInput, PreconditionFailed):
            continue
        assert ONBOARDING.can(state, moved) and target not in DEDICATED_TARGETS
        state = moved


@pytest.mark.parametrize("kind", sorted(connectors.CONNECTOR_KINDS))
def test_each_connector_kind_has_a_valid_default_profile_or_needs_none(kind):
    definition = connectors.default_profile(kind)
    if connectors.CONNECTOR_KINDS[kind] is None:
        assert definition is None
        return
    assert definition is not None
    profile = validate_profile(definition)
    assert profile.name == connectors.profile_name(kind)


def test_the_schema_knows_every_connector_kind_and_the_retention_bounds():
    assert set(schemas.ConnectorKind.__args__) == set(connectors.CONNECTOR_KINDS)
    assert (schemas.RETENTION_MIN_YEARS, schemas.RETENTION_MAX_YEARS) == (retention.MIN_YEARS, retention.MAX_YEARS)
    assert set(schemas.State.__args__) == ONBOARDING.states
    assert set(schemas.GenericTarget.__args__) == {t for targets in ONBOARDING.moves.values() for t in targets} - set(
        DEDICATED_TARGETS
    )
