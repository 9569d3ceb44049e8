"""Outputs of workflowReadiness.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.rpc.schema import Output

WorkflowName = Literal["upload_and_reconcile_remittances", "work_denial_cases", "assemble_appeals", "automation"]


class BlockerOut(Output):
    code: str = Field(
        description="no_writer, no_specialist, no_confirmed_remittance, no_denial_cases, no_payer_rules, "
        "activation_gates_not_passed"
    )
    sentence: str


class WorkflowOut(Output):
    workflow: WorkflowName
    ready: bool
    sentence: str
    blockers: list[BlockerOut]


class FactsOut(Output):
    writers: int
    specialists: int
    confirmed_remittances: int
    denial_cases: int
    contract_terms: int
    payer_aliases: int
    activation_blockers: list[str]


class AssessmentOut(Output):
    client_id: int
    ready: list[WorkflowName] = Field(description="The workflows the client can run today")
    workflows: list[WorkflowOut]
    facts: FactsOut = Field(description="The counts the assessment was computed from")
