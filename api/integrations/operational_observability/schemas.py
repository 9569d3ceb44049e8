"""Inputs and outputs of operationalObservability.*."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from api.infra.marts.inputs import MartPageInput
from api.infra.marts.serving import MartAnswer, MartPage, OptionalMoney
from api.integrations.operations.schemas import PipelineRunOut
from api.rpc.schema import Output, PageInput


class PipelineRunsIn(PageInput):
    status: str | None = Field(default=None, pattern=r"^(queued|running|succeeded|failed)$")


class ObservedRun(PipelineRunOut):
    job_status: str | None = Field(description="queued | running | succeeded | failed | dead")
    job_attempts: int | None
    job_last_error: str | None
    wait_seconds: float | None = Field(description="From request to start")


class MartFreshness(Output):
    mart: str
    built_at: datetime
    age_seconds: float
    tenant_rows: int = Field(description="Rows of this client in the mart")


class FreshnessOut(Output):
    published: bool
    built_at: datetime | None
    age_seconds: float | None
    run_id: str | None
    stale: bool = Field(description="True when the snapshot is older than staleAfterSeconds (or missing)")
    stale_after_seconds: int
    marts: list[MartFreshness]


class QueueOut(Output):
    depth: int = Field(description="This organization's jobs due now and waiting")
    oldest_age_seconds: float | None = Field(description="Wait of this organization's oldest due job")
    running: int = Field(description="This organization's jobs running now")
    organization_jobs: dict[str, int] = Field(description="This organization's jobs by status")
    pipeline_runs_pending: int = Field(description="This client's pipeline runs queued or running")


class QuarantineOut(Output):
    """One failing mart contract that held this client's new data back (names tests and counts, never values)."""

    test: str = Field(
        description="The dbt data test that failed, e.g. not_null_fct_remittance_claims_claim_status_code"
    )
    kind: str = Field(description="not_null, unique, accepted_values, relationships, ... or singular")
    model: str | None = Field(description="The mart (or model) the test checks")
    column: str | None = Field(description="The column the test checks, when it has one")
    failing_rows: int = Field(description="This client's rows failing the test")
    reason: str
    detected_at: datetime = Field(description="The build that found it (the published snapshot's builtAt)")
    since: datetime = Field(description="The first consecutive build that quarantined this client for this test")


class QuarantinesOut(MartAnswer):
    quarantined: bool = Field(description="True when this client's marts hold older data than the snapshot")
    data_built_at: datetime | None = Field(description="When the rows this client is served were built")
    data_age_seconds: float | None
    items: list[QuarantineOut]


DifferenceKind = Literal["missing_case", "case_without_denial", "at_stake_differs", "recovered_differs"]


class CaseLedgerDifferencesIn(MartPageInput):
    kind: DifferenceKind | None = Field(default=None, description="Only differences of this kind")


class CaseLedgerDifference(Output):
    """One disagreement between a denial case and the payer's adjudication history in the marts."""

    difference_kind: DifferenceKind = Field(
        description="missing_case (the marts show the claim x payer initially denied, no case) | at_stake_differs "
        "(amount at stake <> the initial denied amount) | recovered_differs (the case's recovery from the ledger "
        "<> final paid - initial paid, capped at the amount at stake) | case_without_denial (a remittance case "
        "on a claim x payer the marts show neither denied nor taken back)"
    )
    case_id: int | None = Field(description="The denial case; null for missing_case")
    claim_key: str
    payer_key: str | None
    payer_identity: str | None = Field(description="The payer id, else the payer name (the marts' payer identity)")
    case_origin: str | None
    case_state: str | None
    ledger_amount: OptionalMoney = Field(description="The marts' figure of the kind compared")
    case_amount: OptionalMoney = Field(description="The case's figure of the kind compared")
    ledger_at_stake: OptionalMoney
    case_at_stake: OptionalMoney
    ledger_recovered: OptionalMoney
    case_recovered: OptionalMoney = Field(description="recovered - recovered by hand (the part from the ledger)")
    case_recovered_by_hand: OptionalMoney


class CaseLedgerDifferencesOut(MartPage[CaseLedgerDifference]):
    differences: int = Field(description="This client's differences of the kind asked (every page)")
