"""The simulated payer line and the agent's scripts: every failure mode reaches its outcome, a seed
replays the same call, and any seed ends in a declared final state within a bound of turns."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.automation.voice_agent import agent, ivr
from api.automation.voice_agent.call_data import GOALS, PATIENT_FIELDS_BY_GOAL, minimum_call_data
from api.automation.voice_agent.simulation import MAX_STEPS, simulate

DATA = minimum_call_data(
    "claim_status",
    payer="ACME HEALTH",
    claim_key="PCN-1001",
    payer_claim_number="ICN-7788",
    service_date=date(2026, 3, 14),
    billed_amount=Decimal("1200.50"),
    carc="50",
    denial_category="medical_necessity",
    npi="1234567893",
    tin="123456789",
    caller_name="Patient Financial Services",
    callback_number="3125550100",
)
OPENING = "Hi, this is Patient Financial Services about claim PCN-1001."


def _run(mode: str, seed: int = 11, goal: str = "claim_status"):
    return simulate(replace(DATA, goal=goal), OPENING, seed=seed, failure_mode=mode)


@pytest.mark.parametrize("goal", GOALS)
def test_a_call_without_failure_completes_with_status_reference_and_next_step(goal):
    result = _run("none", goal=goal)
    assert result.final_state == "completed" and result.outcome.state == "completed"
    assert result.outcome.status in {a.status for a in ivr.ANSWERS[goal]}
    assert result.outcome.reference_number and result.outcome.next_step
    kinds = [e["kind"] for e in result.timeline]
    assert kinds[0] == "dialing" and "connected" in kinds and kinds[-1] == "outcome"
    asked = [e["identifier"] for e in result.timeline if e["kind"] == "identifier_requested"]
    assert asked == ["npi", "tin", "claim_number", "date_of_service"]
    said = " ".join(t.text for t in result.turns if t.speaker == "agent")
    assert "1234567893" in said and "123456789" in said and "ICN-7788" in said and "March 14, 2026" in said
    assert result.turns == tuple(sorted(result.turns, key=lambda t: t.at))


@pytest.mark.parametrize("mode", ivr.FAILURE_MODES[1:])
@pytest.mark.parametrize("seed", [1, 2, 3, 42])
def test_each_failure_mode_runs_to_its_outcome(mode, seed):
    result = _run(mode, seed=seed)
    assert result.final_state == mode
    assert result.outcome.state == "failed" and result.outcome.failure_mode == mode
    assert result.outcome.reference_number is None
    assert result.timeline[-1] == {"kind": "failed", "at": result.duration_seconds, "mode": mode}


def test_failure_modes_fail_where_they_should():
    loop = _run("ivr_loop")
    assert any(e["kind"] == "hangup_decided" and e["reason"] == "ivr_loop" for e in loop.timeline)
    assert sum(t.text.endswith("press 4.") for t in loop.turns) == agent.LOOP_LIMIT
    held = _run("long_hold_timeout")
    holds = sum(1 for e in held.timeline if e["kind"] == "hold")
    assert holds >= 2 and held.duration_seconds >= agent.MAX_HOLD_SECONDS
    wrong = _run("wrong_department_transfer")
    transfer = next(e for e in wrong.timeline if e["kind"] == "transfer")
    assert transfer["department"] in ivr.WRONG_DEPARTMENTS
    refused = _run("rep_refuses_without_identifier")
    assert any("member ID" in t.text for t in refused.turns if t.speaker == "representative")
    assert "patient identifiers" in [t for t in refused.turns if t.speaker == "agent"][-1].text
    dropped = _run("dropped_call")
    assert any(e["kind"] == "line_dropped" for e in dropped.timeline)


def test_a_seed_replays_the_same_call_and_seeds_differ():
    assert _run("none", seed=5) == _run("none", seed=5)
    calls = {(_run("none", seed=s).outcome.reference_number, _run("none", seed=s).duration_seconds) for s in range(8)}
    assert len(calls) > 1


def test_the_agent_hangs_up_at_its_hold_budget_not_later():
    result = _run("long_hold_timeout", seed=3)
    joined = [e for e in result.timeline if e["kind"] == "representative_joined"]
    assert joined == []
    decided = [e for e in result.timeline if e["kind"] == "hangup_decided"]
    assert [e["reason"] for e in decided] in (["long_hold_timeout"], [])


def test_no_goal_carries_patient_identifiers():
    assert all(fields == () for fields in PATIENT_FIELDS_BY_GOAL.values())
    for goal in GOALS:
        stored = replace(DATA, goal=goal).stored()
        assert not {"patient_name", "date_of_birth", "member_id"} & set(stored)
    assert "reopening_reason" in replace(DATA, goal="reopening_request").stored()
    assert "reopening_reason" not in DATA.stored()


def test_the_line_refuses_to_go_on_after_the_end():
    scn = ivr.scenario(1, "none", "claim_status", "X")
    ended = ivr.Line(node="ended", final="completed")
    with pytest.raises(ValueError):
        ivr.step(scn, ended, ivr.Action("say", "hello"))


def test_an_agent_that_never_answers_still_ends_the_call():
    """The line hangs up by itself after MAX_REPEATS inputs it cannot take."""
    scn = ivr.scenario(4, "none", "claim_status", "X")
    line = ivr.step(scn, ivr.Line(), ivr.Action("dial")).line
    for _ in range(ivr.MAX_REPEATS + 1):
        if line.final:
            break
        line = ivr.step(scn, line, ivr.Action("say", "gibberish")).line
    assert line.final == "ivr_loop"


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**31 - 1),
    mode=st.sampled_from(ivr.FAILURE_MODES),
    goal=st.sampled_from(GOALS),
    has_dos=st.booleans(),
    has_payer_claim_number=st.booleans(),
)
def test_any_seed_terminates_within_the_bound_in_a_declared_final_state(
    seed, mode, goal, has_dos, has_payer_claim_number
):
    data = replace(
        DATA,
        goal=goal,
        date_of_service=DATA.date_of_service if has_dos else None,
        payer_claim_number=DATA.payer_claim_number if has_payer_claim_number else None,
    )
    result = simulate(data, OPENING, seed=seed, failure_mode=mode)
    assert result.steps < MAX_STEPS and len(result.turns) <= 2 * MAX_STEPS
    assert result.final_state in ivr.FINAL_STATES
    assert (result.final_state == "completed") == (mode == "none")
    assert result == simulate(data, OPENING, seed=seed, failure_mode=mode)


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    actions=st.lists(
        st.sampled_from(
            [ivr.Action("dtmf", "1"), ivr.Action("dtmf", "9"), ivr.Action("say", "hi"), ivr.Action("wait")]
        ),
        max_size=60,
    ),
    mode=st.sampled_from(ivr.FAILURE_MODES),
)
def test_the_line_alone_ends_within_a_bound_whatever_the_caller_does(seed, actions, mode):
    scn = ivr.scenario(seed, mode, "claim_status", "X")
    line = ivr.step(scn, ivr.Line(), ivr.Action("dial")).line
    bound = 15 + ivr.MAX_REPEATS + len(scn.hold_segments)
    for count, action in enumerate(actions * 3, start=1):
        if line.final is not None:
            break
        line = ivr.step(scn, line, action).line
        assert count <= bound
    assert line.final is None or line.final in ivr.FINAL_STATES
