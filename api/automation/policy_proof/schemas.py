"""Inputs and outputs of policyProof.*."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from api.rpc.schema import DbId, Output, Schema


class ExecutionRef(Schema):
    execution_id: DbId


class ProofOut(Output):
    execution_id: int
    task: str
    case_id: int
    policy_version: int | None = Field(description="The policy version in force; null: none (suggest only)")
    policy: dict[str, Any] | None = Field(description="That version's mode and thresholds")
    input_digests: dict[str, str]
    output_digest: str
    decision: str
    reasons: list[str]
    context: dict[str, Any] = Field(description="Enablement, pauses and evaluation record the decision saw")
    payload: dict[str, Any] = Field(description="Everything the digest covers, as it is stored now")
    algorithm: str
    digest: str = Field(description="HMAC-SHA256 (hex) stored when the execution was recorded")


class VerifyOut(Output):
    execution_id: int
    matches: bool = Field(description="The digest recomputed from what is stored now equals the stored one")
    stored_digest: str
    recomputed_digest: str
