"""Inputs and outputs of knowledgeControl.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from api.automation.knowledge_control.rules import Kind, ShownState
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Key = Annotated[str, Field(min_length=1, max_length=120), SINGLE_LINE]
Reason = Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE]
Content = Annotated[str, Field(min_length=1, max_length=20_000), MULTI_LINE]


class PublishIn(Schema):
    kind: Kind | None = Field(default=None, description="Publishing: payer_policy, appeal_template or carc_guidance")
    key: Key | None = Field(
        default=None,
        description="Publishing: the payer's name (payer_policy), the denial category or 'default' "
        "(appeal_template), the CARC (carc_guidance)",
    )
    content: Content | None = Field(
        default=None,
        description="Publishing: the text; an appeal_template uses the appeal letter's $placeholders only",
    )
    note: Reason | None = Field(default=None, description="Publishing: what changed and why")
    approve_version_id: DbId | None = Field(
        default=None, description="Approving: the pending version to approve (not your own)"
    )
    reason: Reason | None = Field(default=None, description="Approving: why it may be used (required)")


class RetireIn(Schema):
    id: DbId
    reason: Reason


class ListKnowledgeIn(PageInput):
    kind: Kind | None = None
    key: Key | None = None
    state: ShownState | None = Field(
        default=None, description="pending_approval, active (what agents use), superseded or retired"
    )


class KnowledgeVersionOut(Output):
    id: int
    kind: str
    key: str
    version: int
    state: ShownState = Field(
        description="pending_approval (not used), active (used by agents: the highest approved version), "
        "superseded (approved, a higher version is active) or retired (never used again)"
    )
    content: str
    content_sha256: str
    note: str | None
    author_user_id: int | None
    created_at: datetime
    approved_by_user_id: int | None
    approved_at: datetime | None
    approval_reason: str | None
    retired_by_user_id: int | None
    retired_at: datetime | None
    retire_reason: str | None
