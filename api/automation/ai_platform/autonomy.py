"""Whether an AI result is applied, queued for a person or refused (pure, no I/O).

The decision table, every rule checked (the answer lists every reason that holds, not only the first):

| rule | reason | outcome it forces |
|---|---|---|
| the task is disabled for the client (aiGovernance) | `task_disabled` | refused |
| the policy's mode is `off` | `policy_off` | refused |
| the client's automation is paused (operationalControl) | `client_paused` | queued |
| the task is paused | `task_paused` | queued |
| no policy recorded for the task | `no_policy` | queued (suggest only) |
| mode `suggest_only` | `suggest_only` | queued |
| auto mode, confidence < the policy's minimum | `confidence_below_minimum` | queued |
| auto mode, amount at stake > the policy's maximum | `amount_above_maximum` | queued |
| auto mode, evaluated samples < the policy's minimum | `too_few_evaluated_samples` | queued |
| auto mode, evaluation accuracy < the minimum (no evaluations: unless the minimum is 0) | `accuracy_below_minimum` | queued |

Outcome: refused if any refusing reason holds, else queued if any reason holds, else applied (reason
`within_policy`). So `applied` needs an enabled task, no pause, an `auto_below_threshold` policy and
every threshold met: a paused client or task is never applied, on any path. Thresholds are inclusive
(confidence == minimum applies; amount == maximum applies).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from api.integrations.operational_control.scopes import CLIENT_PAUSED, TASK_PAUSED

Mode = Literal["off", "suggest_only", "auto_below_threshold"]
MODES: tuple[Mode, ...] = ("off", "suggest_only", "auto_below_threshold")
Outcome = Literal["applied", "queued", "refused"]

TASK_DISABLED = "task_disabled"
POLICY_OFF = "policy_off"
NO_POLICY = "no_policy"
SUGGEST_ONLY = "suggest_only"
CONFIDENCE_BELOW_MINIMUM = "confidence_below_minimum"
AMOUNT_ABOVE_MAXIMUM = "amount_above_maximum"
TOO_FEW_EVALUATED_SAMPLES = "too_few_evaluated_samples"
ACCURACY_BELOW_MINIMUM = "accuracy_below_minimum"
WITHIN_POLICY = "within_policy"

REFUSING = frozenset({TASK_DISABLED, POLICY_OFF})
PAUSE_REASONS = frozenset({CLIENT_PAUSED, TASK_PAUSED})


@dataclass(frozen=True)
class Policy:
    """One version of a client's autonomy policy for a task."""

    mode: Mode
    min_confidence: float
    max_amount: Decimal
    min_accuracy: float
    min_samples: int
    version: int = 1


@dataclass(frozen=True)
class Evaluation:
    """The task's labelled record for the client: accuracy (None without samples) over n samples."""

    accuracy: float | None
    n: int


@dataclass(frozen=True)
class DecisionInputs:
    task: str
    policy: Policy | None
    confidence: float
    amount_at_stake: Decimal
    pause_reasons: tuple[str, ...]  # operationalControl: client_paused and/or task_paused
    evaluation: Evaluation
    enabled: bool


@dataclass(frozen=True)
class Decision:
    outcome: Outcome
    reasons: tuple[str, ...]


def _threshold_reasons(policy: Policy, inputs: DecisionInputs) -> list[str]:
    reasons = []
    if inputs.confidence < policy.min_confidence:
        reasons.append(CONFIDENCE_BELOW_MINIMUM)
    if inputs.amount_at_stake > policy.max_amount:
        reasons.append(AMOUNT_ABOVE_MAXIMUM)
    if inputs.evaluation.n < policy.min_samples:
        reasons.append(TOO_FEW_EVALUATED_SAMPLES)
    accuracy = inputs.evaluation.accuracy
    if (accuracy is None and policy.min_accuracy > 0.0) or (accuracy is not None and accuracy < policy.min_accuracy):
        reasons.append(ACCURACY_BELOW_MINIMUM)
    return reasons


def _policy_reasons(policy: Policy | None, inputs: DecisionInputs) -> list[str]:
    if policy is None:
        return [NO_POLICY]
    if policy.mode == "off":
        return [POLICY_OFF]
    if policy.mode == "suggest_only":
        return [SUGGEST_ONLY]
    return _threshold_reasons(policy, inputs)


def decide(inputs: DecisionInputs) -> Decision:
    """The outcome and every reason for it (see the module's table)."""
    if not 0.0 <= inputs.confidence <= 1.0:
        raise ValueError("confidence must lie in [0, 1]")
    unknown = set(inputs.pause_reasons) - PAUSE_REASONS
    if unknown:
        raise ValueError(f"unknown pause reasons {sorted(unknown)}")
    reasons: list[str] = []
    if not inputs.enabled:
        reasons.append(TASK_DISABLED)
    reasons.extend(r for r in (CLIENT_PAUSED, TASK_PAUSED) if r in inputs.pause_reasons)
    reasons.extend(_policy_reasons(inputs.policy, inputs))
    if any(r in REFUSING for r in reasons):
        return Decision("refused", tuple(reasons))
    if reasons:
        return Decision("queued", tuple(reasons))
    return Decision("applied", (WITHIN_POLICY,))
