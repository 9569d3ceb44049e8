"""Inputs and outputs of evidence.*. Every rate carries its events/trials and 95% interval."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

from pydantic import Field

from api.rpc.schema import DbId, Output, PageInput, PatternKey, Schema

Months = Annotated[int, Field(ge=1, le=24)]


class CalculateIn(Schema):
    intervention_id: DbId
    months_before: Months = Field(default=6, description="Months before the start month (1..24)")
    months_after: Months = Field(default=6, description="Months from the start month on, itself included (1..24)")


class EvidenceRef(Schema):
    id: DbId


class ForInterventionIn(PageInput):
    intervention_id: DbId


class ForPatternIn(PageInput):
    pattern_key: PatternKey


class CompareIn(Schema):
    first_id: DbId
    second_id: DbId


class RateOut(Output):
    """events/trials with the 95% Wilson interval (all null with the reason when there are no trials)."""

    events: int
    trials: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    reason: str | None


class ChangeOut(Output):
    """after - before with Newcombe's 95% interval; the sample sizes of both periods."""

    before: RateOut
    after: RateOut
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    n_before: int
    n_after: int
    reason: str | None


class DidOut(Output):
    """(treated after - before) - (comparison after - before), normal 95% interval, z and p; nTotal the
    claims of the four cells; null numbers when a cell has no claims."""

    estimate: float | None
    standard_error: float | None
    ci_low: float | None
    ci_high: float | None
    z: float | None
    p_value: float | None
    n_total: int
    min_trials: int


class EvidenceScopeOut(Output):
    payer_key: str | None
    category: str
    carc: str | None
    service_line: str | None
    facility: str | None


class EvidenceOut(Output):
    id: int
    intervention_id: int
    pattern_key: str
    action_key: str
    scope: EvidenceScopeOut
    start_date: date
    months_before: int
    months_after: int
    before_first_month: str = Field(description="YYYY-MM")
    before_last_month: str = Field(description="YYYY-MM, the month before the start month")
    after_first_month: str = Field(description="YYYY-MM, the start date's month")
    after_last_month: str = Field(description="YYYY-MM")
    has_comparison: bool
    comparison_payer_class: str | None
    treated: ChangeOut
    control: ChangeOut | None
    did: DidOut | None
    significant: bool
    enough_trials: bool
    statement: str
    snapshot_built_at: datetime
    computed_at: datetime
    computed_by: int


class DifferenceOut(Output):
    """first DiD - second DiD; se = sqrt(se1^2 + se2^2), normal 95% interval; nTotal the claims behind both."""

    estimate: float | None
    standard_error: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    significant: bool
    n_total: int


class CompareOut(Output):
    first: EvidenceOut
    second: EvidenceOut
    difference: DifferenceOut
    statement: str
