"""Inputs and outputs of agentWorkbench.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from api.infra.marts.serving import Money
from api.integrations.operational_control.scopes import AutomationTask
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

Reason = Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE]


class QueueIn(PageInput):
    task: AutomationTask | None = None
    case_id: DbId | None = None


class ReviewIn(Schema):
    execution_id: DbId
    reason: Reason = Field(description="Why (required); shown to the client's members")


class ReplayIn(Schema):
    execution_id: DbId
    policy_version: int | None = Field(
        default=None, ge=1, le=1_000_000, description="The task's policy version to decide under; omitted: in force"
    )
    knowledge_version_ids: list[DbId] = Field(
        default_factory=list,
        max_length=3,
        description="Knowledge versions (any state) to use instead of the active ones of their kinds",
    )


class QueueItemOut(Output):
    id: int
    case_id: int
    task: str
    label: str
    confidence: float
    reasons: list[str] = Field(description="Why the policy queued it for a person")
    policy_version: int | None
    amount_at_stake: Money
    output: dict[str, Any] | None
    knowledge_versions: list[dict[str, Any]]
    requested_by_user_id: int | None
    created_at: datetime


class ReviewOut(Output):
    execution_id: int
    decision: str = Field(description="accept or reject")
    reason: str
    reviewer_user_id: int | None
    reviewed_at: datetime
    state: str = Field(description="The execution's state now: accepted or rejected")
    effect: dict[str, Any] = Field(description="What accepting applied (empty when rejected)")
    proof_digest: str = Field(description="The execution's proof digest, re-keyed over its reviewed state")


class RunOut(Output):
    label: str
    confidence: float
    decision: str
    reasons: list[str]
    policy_version: int | None
    output: dict[str, Any] | None
    knowledge_versions: list[dict[str, Any]]


class ChangeOut(Output):
    path: str = Field(description="Dotted path in the output; '' for the whole output")
    before: Any
    after: Any


class DifferencesOut(Output):
    any: bool
    label_changed: bool
    confidence_delta: float
    decision_changed: bool
    reasons_changed: bool
    policy_version_changed: bool
    output: list[ChangeOut]


class ReplayOut(Output):
    execution_id: int
    case_id: int
    task: str
    original: RunOut = Field(description="What was stored when the execution ran")
    replayed: RunOut = Field(description="The task re-run now under the chosen policy and knowledge versions")
    replayed_input_digests: dict[str, str]
    differences: DifferencesOut
