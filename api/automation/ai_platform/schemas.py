"""Inputs and outputs of aiPlatform.*."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from api.automation.ai_platform.autonomy import Mode
from api.infra.marts.serving import Money
from api.integrations.operational_control.scopes import AutomationTask
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

Amount = Annotated[Decimal, Field(ge=0, le=Decimal("9999999999.99"), max_digits=12, decimal_places=2)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Label = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.:-]+$")]
Outcome = Literal["applied", "queued", "refused"]
State = Literal["applied", "queued", "refused", "accepted", "rejected"]


class ExecuteIn(Schema):
    task: AutomationTask
    case_id: DbId


class DecideIn(Schema):
    task: AutomationTask
    confidence: Confidence
    amount_at_stake: Amount


class GateIn(Schema):
    task: AutomationTask
    case_id: DbId
    confidence: Confidence | None = Field(
        default=None, description="The result's confidence; omitted: 1.0 (the most a result could get)"
    )


class PolicyIn(Schema):
    task: AutomationTask
    mode: Mode
    min_confidence: Confidence = Field(default=0.9, description="Apply only at this confidence or above")
    max_amount_at_stake: Amount = Field(description="Apply only when at most this much money is at stake")
    min_evaluation_accuracy: Confidence = Field(
        default=0.9, description="Apply only while evaluated accuracy is this or above"
    )
    min_evaluated_samples: int = Field(default=30, ge=0, le=1_000_000)
    reason: Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE]


class EvaluationIn(Schema):
    actual: Label = Field(description="The true label, as a person judged it")
    execution_id: DbId | None = Field(default=None, description="The execution judged (its task, label, confidence)")
    task: AutomationTask | None = Field(default=None, description="Without executionId: the task")
    predicted: Label | None = Field(default=None, description="Without executionId: the predicted label")
    confidence: Confidence | None = Field(default=None, description="Without executionId: its confidence")


class MetricsIn(Schema):
    task: AutomationTask | None = Field(default=None, description="One task; omitted: every task")


class EvaluationRecordOut(Output):
    accuracy: float | None
    n: int


class DecisionOut(Output):
    task: str
    outcome: Outcome
    reasons: list[str]
    confidence: float
    amount_at_stake: Money
    policy_version: int | None = Field(description="The policy version in force; null: none (suggest only)")
    policy_mode: str | None
    enabled: bool
    pauses: list[str] = Field(description="client_paused / task_paused when automation is paused")
    evaluation: EvaluationRecordOut


class GateOut(DecisionOut):
    case_id: int
    confidence_assumed: bool = Field(description="No confidence was given: the gate assumed 1.0")


class PolicyOut(Output):
    id: int
    task: str
    version: int
    mode: str
    min_confidence: float
    max_amount_at_stake: Money
    min_evaluation_accuracy: float
    min_evaluated_samples: int
    reason: str
    created_by_user_id: int | None
    created_at: datetime


class ExecutionOut(Output):
    id: int
    case_id: int
    task: str
    provider: str
    label: str
    output: dict[str, Any] | None = Field(description="The result; null when refused")
    confidence: float
    amount_at_stake: Money
    decision: Outcome
    reasons: list[str]
    state: str = Field(
        description="applied, queued (waiting for a person) or refused; accepted or rejected once a person "
        "reviewed a queued one (agentWorkbench)"
    )
    effect: dict[str, Any] = Field(description="What applying changed (empty unless applied)")
    input_digests: dict[str, str] = Field(
        description="SHA-256 of each input read (case facts, evidence, model, knowledge versions)"
    )
    knowledge_versions: list[dict[str, Any]] = Field(
        description="The knowledgeControl versions the task read: id, kind, key, version, sha256"
    )
    output_digest: str
    policy_version: int | None
    proof_digest: str = Field(description="HMAC-SHA256 over the proof payload (policyProof.forAction)")
    requested_by_user_id: int | None
    created_at: datetime


class EvaluationOut(Output):
    id: int
    task: str
    execution_id: int | None
    predicted: str
    actual: str
    confidence: float
    recorded_by_user_id: int | None
    created_at: datetime


class LabelMetricsOut(Output):
    label: str
    precision: float
    recall: float
    support: int


class TaskMetricsOut(Output):
    task: str
    n: int
    accuracy: float | None
    macro_precision: float | None
    macro_recall: float | None
    expected_calibration_error: float | None = Field(description="Over 10 equal-width confidence bins")
    brier_score: float | None
    labels: list[LabelMetricsOut]


class MetricsOut(Output):
    items: list[TaskMetricsOut]


class ListExecutionsIn(PageInput):
    task: AutomationTask | None = None
    case_id: DbId | None = None
    state: State | None = None
