"""Inputs and outputs of drafts.*.

Draft content travels in as a `SecretStr`: the audit log digests every mutation's input, and a
secret field enters that digest as the constant "<secret>" (api.platform.audit.digest), so the
content of a draft (which may hold PHI) is never part of any audit digest, keyed or not.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, ConfigDict, Field, SecretStr, model_validator

from api.denials.drafts.content import MAX_CONTENT
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, multi_line

Kind = Literal["appeal_letter", "corrected_claim", "note"]
State = Literal["editing", "in_approval", "approved", "discarded"]


def _clean_content(value: SecretStr) -> SecretStr:
    multi_line(value.get_secret_value())
    if not value.get_secret_value().strip():
        raise ValueError("must not be blank")
    return value


Content = Annotated[SecretStr, Field(min_length=1, max_length=MAX_CONTENT), AfterValidator(_clean_content)]
Version = Annotated[int, Field(ge=1, le=1_000_000)]


class CreateDraftIn(Schema):
    model_config = ConfigDict(str_strip_whitespace=False)  # the content is kept byte for byte

    case_id: DbId
    claim_id: DbId | None = Field(default=None, description="The case's claim, when the draft is about it")
    kind: Kind
    content: Content = Field(
        description="The text (may hold PHI: returned to members, never logged; the audit gets neither it nor a digest of it)"
    )


class UpdateDraftIn(Schema):
    model_config = ConfigDict(str_strip_whitespace=False)  # the content is kept byte for byte

    id: DbId
    content: Content
    expected_version: Version | None = Field(
        default=None, description="The version this edit started from; CONFLICT if the draft has moved on"
    )


class DiscardDraftIn(Schema):
    id: DbId
    reason: Annotated[str, Field(min_length=1, max_length=500), MULTI_LINE]


class DraftRef(Schema):
    id: DbId
    version: Version | None = Field(default=None, description="A past version (default: the current one)")


class DraftVersionsIn(PageInput):
    id: DbId


class DiffIn(Schema):
    id: DbId
    from_version: Version
    to_version: Version
    context: int = Field(default=3, ge=0, le=50, description="Unchanged lines shown around each change")

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        if self.from_version == self.to_version:
            raise ValueError("'fromVersion' and 'toVersion' must differ")
        return self


class ListDraftsIn(PageInput):
    case_id: DbId | None = None
    kind: Kind | None = None
    state: State | None = Field(default=None, description="The stored state (an expired lock reads as editing)")


class DraftSummaryOut(Output):
    id: int
    case_id: int
    claim_id: int | None
    kind: str
    state: str = Field(
        description="editing | in_approval | approved | discarded (as of now: an expired approval no longer locks)"
    )
    current_version: int
    current_digest: str = Field(description="SHA-256 (hex) of the current version's content")
    approval_id: int | None = Field(description="The approval holding the draft while in_approval or approved")
    locked_until: datetime | None
    created_by_user_id: int
    created_at: datetime
    updated_at: datetime
    discarded_at: datetime | None
    discard_reason: str | None


class VersionOut(Output):
    version: int
    content_digest: str
    content_bytes: int
    author_user_id: int
    created_at: datetime


class DraftOut(DraftSummaryOut):
    version: VersionOut = Field(description="The version returned (the current one unless asked)")
    content: str


class DiffOut(Output):
    id: int
    from_version: VersionOut
    to_version: VersionOut
    diff: str = Field(description="Unified diff (may hold PHI, like the content); empty when equal")
