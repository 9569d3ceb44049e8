"""Inputs and outputs of voiceAgent.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator

from api.denials.payer_interactions.vocabulary import Outcome as InteractionOutcome
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Goal = Literal["claim_status", "appeal_status", "reopening_request"]
State = Literal["created", "dialing", "in_call", "completed", "failed", "cancelled"]
FailureMode = Literal[
    "none",
    "dropped_call",
    "long_hold_timeout",
    "wrong_department_transfer",
    "rep_refuses_without_identifier",
    "ivr_loop",
]
ProviderFailure = Literal[
    "dropped_call",
    "long_hold_timeout",
    "wrong_department_transfer",
    "rep_refuses_without_identifier",
    "ivr_loop",
    "no_answer",
    "other",
]
EventKind = Literal["dialing", "connected", "transcript_turn", "outcome", "failed"]
Speaker = Literal["agent", "ivr", "representative"]


class CreateDelegationIn(Schema):
    case_id: DbId
    goal: Goal


class DelegationRef(Schema):
    id: DbId


class ListDelegationsIn(PageInput):
    limit: int = Field(default=20, ge=1, le=100, description="Page size (max 100: items carry transcripts)")
    case_id: DbId | None = None
    state: State | None = None
    goal: Goal | None = None


class TurnIn(Schema):
    speaker: Speaker
    text: Annotated[str, Field(min_length=1, max_length=5000), MULTI_LINE] = Field(
        description="What was said (stored redacted: patient names, dates of birth, member ids become markers)"
    )


class OutcomeIn(Schema):
    status: InteractionOutcome = Field(description="What the payer said, in the payerInteractions outcome vocabulary")
    reference_number: Annotated[str, Field(min_length=1, max_length=80), SINGLE_LINE] | None = None
    next_step: Annotated[str, Field(min_length=1, max_length=500), MULTI_LINE] | None = None
    representative: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE] | None = None


class FailureIn(Schema):
    mode: ProviderFailure


class RecordEventIn(Schema):
    delegation_id: DbId
    provider_event_id: Annotated[
        str, Field(min_length=1, max_length=120, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:\-]*$")
    ] = Field(description="The provider's event id: a redelivery with the same id changes nothing")
    kind: EventKind
    at: float = Field(ge=0, le=86_400, description="Seconds since dialing")
    turn: TurnIn | None = Field(default=None, description="For transcript_turn")
    outcome: OutcomeIn | None = Field(default=None, description="For outcome")
    failure: FailureIn | None = Field(default=None, description="For failed")

    @model_validator(mode="after")
    def _payload_matches_kind(self) -> Self:
        wanted = {"transcript_turn": "turn", "outcome": "outcome", "failed": "failure"}.get(self.kind)
        for name in ("turn", "outcome", "failure"):
            given = getattr(self, name) is not None
            if name == wanted and not given:
                raise ValueError(f"'{name}' is required for a {self.kind} event")
            if name != wanted and given:
                raise ValueError(f"'{name}' does not belong to a {self.kind} event")
        return self


class TurnOut(Output):
    speaker: str
    text: str
    at: float


class StateStepOut(Output):
    state: str
    at: datetime
    detail: str


class DelegationOut(Output):
    id: int
    case_id: int
    goal: str
    state: str
    state_changed_at: datetime
    state_history: list[StateStepOut]
    call_data: dict[str, str | None] = Field(description="The minimum data the call carries (no patient identifiers)")
    opening_script: str
    placed_by: str | None = Field(description="simulation | provider; None before the call starts")
    transcript: list[TurnOut] = Field(description="Turns in order of `at`, redacted")
    timeline: list[dict[str, Any]]
    status: str | None
    interaction_outcome: str | None
    reference_number: str | None
    next_step: str | None
    failure_mode: str | None
    payer_interaction_id: int | None
    created_by_user_id: int
    created_at: datetime


class RecordEventOut(Output):
    delegation: DelegationOut
    duplicate: bool = Field(description="True when this provider event id was recorded before (nothing changed)")


class RunSimulationIn(Schema):
    delegation_id: DbId
    failure_mode: FailureMode = "none"
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1, description="Default: the simulation's id")


class SimulationRef(Schema):
    id: DbId


class ListSimulationsIn(PageInput):
    limit: int = Field(default=20, ge=1, le=100, description="Page size (max 100: items carry transcripts)")
    delegation_id: DbId | None = None
    case_id: DbId | None = None
    failure_mode: FailureMode | None = None


class SimulationOutcomeOut(Output):
    state: str = Field(description="completed | failed")
    failure_mode: str | None
    status: str | None
    interaction_outcome: str | None
    reference_number: str | None
    next_step: str | None


class SimulationOut(Output):
    id: int
    delegation_id: int
    case_id: int
    seed: int
    failure_mode: str
    final_state: str
    outcome: SimulationOutcomeOut
    transcript: list[TurnOut]
    timeline: list[dict[str, Any]]
    duration_seconds: float
    steps: int
    payer_interaction_id: int | None
    created_by_user_id: int
    created_at: datetime
