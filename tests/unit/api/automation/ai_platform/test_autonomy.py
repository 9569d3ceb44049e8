"""The autonomy decision table: explicit rows, then properties over every input (Hypothesis)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.automation.ai_platform.autonomy import (
    MODES,
    Decision,
    DecisionInputs,
    Evaluation,
    Policy,
    decide,
)

AUTO = Policy(
    "auto_below_threshold", min_confidence=0.8, max_amount=Decimal("500.00"), min_accuracy=0.9, min_samples=20
)
GOOD_EVAL = Evaluation(0.95, 50)


def inputs(
    *,
    policy: Policy | None = AUTO,
    confidence: float = 0.9,
    amount: str = "100.00",
    pauses: tuple[str, ...] = (),
    evaluation: Evaluation = GOOD_EVAL,
    enabled: bool = True,
) -> DecisionInputs:
    return DecisionInputs("classify_denial", policy, confidence, Decimal(amount), pauses, evaluation, enabled)


def mode(m: str) -> Policy:
    return Policy(m, 0.8, Decimal("500.00"), 0.9, 20)  # type: ignore[arg-type]


ROWS = [
    # (inputs, outcome, reasons)
    (inputs(), "applied", ("within_policy",)),
    (inputs(confidence=0.8, amount="500.00", evaluation=Evaluation(0.9, 20)), "applied", ("within_policy",)),
    (inputs(policy=None), "queued", ("no_policy",)),
    (inputs(policy=mode("suggest_only")), "queued", ("suggest_only",)),
    (inputs(policy=mode("off")), "refused", ("policy_off",)),
    (inputs(enabled=False), "refused", ("task_disabled",)),
    (inputs(enabled=False, policy=None), "refused", ("task_disabled", "no_policy")),
    (inputs(pauses=("client_paused",)), "queued", ("client_paused",)),
    (inputs(pauses=("task_paused",)), "queued", ("task_paused",)),
    (inputs(pauses=("task_paused", "client_paused")), "queued", ("client_paused", "task_paused")),
    (inputs(pauses=("client_paused",), policy=mode("off")), "refused", ("client_paused", "policy_off")),
    (inputs(confidence=0.79), "queued", ("confidence_below_minimum",)),
    (inputs(amount="500.01"), "queued", ("amount_above_maximum",)),
    (inputs(evaluation=Evaluation(0.95, 19)), "queued", ("too_few_evaluated_samples",)),
    (inputs(evaluation=Evaluation(0.89, 50)), "queued", ("accuracy_below_minimum",)),
    (
        inputs(evaluation=Evaluation(None, 0)),
        "queued",
        ("too_few_evaluated_samples", "accuracy_below_minimum"),
    ),
    (
        inputs(confidence=0.1, amount="9999.00", evaluation=Evaluation(0.5, 1), pauses=("client_paused",)),
        "queued",
        (
            "client_paused",
            "confidence_below_minimum",
            "amount_above_maximum",
            "too_few_evaluated_samples",
            "accuracy_below_minimum",
        ),
    ),
    # a policy asking for no evaluations applies without any
    (
        inputs(policy=Policy("auto_below_threshold", 0.5, Decimal("500.00"), 0.0, 0), evaluation=Evaluation(None, 0)),
        "applied",
        ("within_policy",),
    ),
    # thresholds of a suggest-only policy are not consulted
    (inputs(policy=mode("suggest_only"), confidence=0.0), "queued", ("suggest_only",)),
]


@pytest.mark.parametrize(("given_inputs", "outcome", "reasons"), ROWS)
def test_decision_table_rows(given_inputs, outcome, reasons):
    assert decide(given_inputs) == Decision(outcome, reasons)


def test_out_of_range_confidence_and_unknown_pause_reasons_are_errors():
    with pytest.raises(ValueError):
        decide(inputs(confidence=1.01))
    with pytest.raises(ValueError):
        decide(inputs(pauses=("holiday",)))


policies = st.one_of(
    st.none(),
    st.builds(
        Policy,
        mode=st.sampled_from(MODES),
        min_confidence=st.floats(0, 1),
        max_amount=st.decimals(0, 10_000, places=2),
        min_accuracy=st.floats(0, 1),
        min_samples=st.integers(0, 100),
    ),
)
evaluations = st.builds(Evaluation, accuracy=st.one_of(st.none(), st.floats(0, 1)), n=st.integers(0, 200))
pause_sets = st.lists(st.sampled_from(["client_paused", "task_paused"]), unique=True).map(tuple)
all_inputs = st.builds(
    DecisionInputs,
    task=st.just("predict_overturn"),
    policy=policies,
    confidence=st.floats(0, 1),
    amount_at_stake=st.decimals(0, 10_000, places=2),
    pause_reasons=pause_sets,
    evaluation=evaluations,
    enabled=st.booleans(),
)


@given(all_inputs)
def test_paused_is_never_applied(i):
    if i.pause_reasons:
        d = decide(i)
        assert d.outcome != "applied"
        assert set(i.pause_reasons) <= set(d.reasons)


@given(all_inputs)
def test_applied_only_when_every_condition_holds(i):
    d = decide(i)
    every = (
        i.enabled
        and not i.pause_reasons
        and i.policy is not None
        and i.policy.mode == "auto_below_threshold"
        and i.confidence >= i.policy.min_confidence
        and i.amount_at_stake <= i.policy.max_amount
        and i.evaluation.n >= i.policy.min_samples
        and (i.evaluation.accuracy if i.evaluation.accuracy is not None else 0.0) >= i.policy.min_accuracy
    )
    assert (d.outcome == "applied") == every
    assert (d.reasons == ("within_policy",)) == every


@given(all_inputs)
def test_refused_exactly_when_disabled_or_off(i):
    refused = (not i.enabled) or (i.policy is not None and i.policy.mode == "off")
    assert (decide(i).outcome == "refused") == refused


@given(all_inputs, pause_sets)
def test_adding_a_pause_never_makes_an_outcome_more_automatic(i, extra):
    rank = {"refused": 0, "queued": 1, "applied": 2}
    more = DecisionInputs(
        i.task,
        i.policy,
        i.confidence,
        i.amount_at_stake,
        tuple(sorted(set(i.pause_reasons) | set(extra))),
        i.evaluation,
        i.enabled,
    )
    assert rank[decide(more).outcome] <= rank[decide(i).outcome]
