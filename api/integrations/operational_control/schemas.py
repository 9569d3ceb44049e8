"""Inputs and outputs of operationalControl.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from api.integrations.operational_control.scopes import PausableTask
from api.rpc.schema import Output, Schema
from api.rpc.text import SINGLE_LINE

Reason = Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE]


class PauseIn(Schema):
    task: PausableTask | None = Field(
        default=None, description="One automated task (an AI task or an automated path); omitted: every task"
    )
    reason: Reason


class ResumeIn(Schema):
    task: PausableTask | None = Field(
        default=None, description="Resume this task's own pause; omitted: the client-wide pause"
    )
    reason: Reason


class StateIn(Schema):
    history_limit: int = Field(default=20, ge=0, le=200, description="How many pause/resume events to include")


class PauseOut(Output):
    task: str | None = Field(description="The paused task; null: every task of the client")
    reason: str
    paused_by_user_id: int | None
    paused_at: datetime


class PauseEventOut(Output):
    task: str | None
    action: str
    reason: str
    actor_user_id: int | None
    created_at: datetime


class AutomatedPathOut(Output):
    task: str = Field(description="The name a pause carries for this path")
    description: str = Field(description="What pausing it stops")
    paused: bool = Field(description="Paused now, by a client-wide pause or its own")
    reasons: list[str] = Field(description="client_paused and/or task_paused; empty: it runs")


class StateOut(Output):
    client_paused: bool = Field(description="Every automated task of the client is paused")
    paused_tasks: list[str] = Field(description="Tasks paused by name (a client-wide pause covers the others too)")
    pauses: list[PauseOut]
    automated_paths: list[AutomatedPathOut] = Field(description="Every automated task and whether it is paused now")
    history: list[PauseEventOut]
