"""Inputs and outputs of evidenceSynthesis.*. Every estimate carries its standard error, 95% interval and
the claims behind it."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.rpc.schema import ActionKey, DbId, Output, PageInput, PatternKey, Schema


class CalculateIn(Schema):
    pattern_key: PatternKey
    action_key: ActionKey


class SynthesisRef(Schema):
    id: DbId


class ForPatternIn(PageInput):
    pattern_key: PatternKey


class ForActionIn(PageInput):
    action_key: ActionKey


class CompareIn(Schema):
    first_id: DbId
    second_id: DbId


class StudyOut(Output):
    """One intervention's latest evidence record: its difference-in-differences (a fraction: -0.02 is 2
    points fewer denials), standard error, normal 95% interval and claims (n)."""

    evidence_id: int
    intervention_id: int
    client_id: int
    effect: float
    standard_error: float
    ci_low: float
    ci_high: float
    n: int
    computed_at: datetime


class EstimateOut(Output):
    """A pooled estimate with its standard error and normal 95% interval."""

    estimate: float
    standard_error: float
    ci_low: float
    ci_high: float


class HeterogeneityOut(Output):
    """DerSimonian-Laird tau² (floored at 0), Cochran's Q on qDf = k - 1 df with its chi-squared p-value,
    and I² (a fraction, 0 when Q <= df)."""

    tau2: float
    q: float
    q_df: int
    q_p_value: float
    i2: float


class SynthesisOut(Output):
    id: int
    pattern_key: str
    action_key: str
    organization_wide: bool = Field(description="Pooled over every client of the organization (else those reached)")
    studies: list[StudyOut]
    excluded_interventions: int = Field(description="Interventions whose latest record has no DiD estimate")
    fixed: EstimateOut
    random: EstimateOut
    heterogeneity: HeterogeneityOut | None = Field(description="Null with a single study")
    n_studies: int
    n_total: int = Field(description="Claims behind every pooled study")
    statement: str
    computed_at: datetime
    computed_by: int


class DifferenceOut(Output):
    """first random-effects estimate - second; se = sqrt(se1² + se2²), normal 95% interval, two-sided p;
    nTotal the claims behind both syntheses."""

    estimate: float
    standard_error: float
    ci_low: float
    ci_high: float
    p_value: float
    significant: bool
    shared_studies: int
    n_total: int


class CompareOut(Output):
    first: SynthesisOut
    second: SynthesisOut
    difference: DifferenceOut
    statement: str
