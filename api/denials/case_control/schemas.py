"""Inputs and outputs of caseControl.*."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from api.rpc.schema import DbId, Output, Schema

Reason = Annotated[str, Field(min_length=3, max_length=500)]


class BulkAssignIn(Schema):
    ids: list[DbId] = Field(min_length=1, max_length=500, description="Case ids (each once)")
    owner_user_id: DbId = Field(description="The new owner of every case")

    @field_validator("ids")
    @classmethod
    def _distinct(cls, ids: list[int]) -> list[int]:
        if len(set(ids)) != len(ids):
            raise ValueError("each case id may appear once")
        return ids


class BulkAssignItem(Output):
    id: int
    status: Literal["assigned", "unchanged"] = Field(description="unchanged: the case already had this owner")
    previous_owner_user_id: int | None


class BulkAssignOut(Output):
    owner_user_id: int
    assigned: int
    items: list[BulkAssignItem]


class ReasonIn(Schema):
    id: DbId
    reason: Reason


class ControlOut(Output):
    id: int
    state: str
    escalated: bool
    on_hold: bool
    hold_reason: str | None
