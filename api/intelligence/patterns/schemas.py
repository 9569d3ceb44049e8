"""Inputs and outputs of patterns.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from api.infra.marts.inputs import MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage
from api.rpc.schema import Output, PatternKey
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Dimension = Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]


class MiningIn(MonthRange):
    """The search: the months (default: the client's last 3 adjudication months present) and the tests'
    thresholds. The same inputs always give the same patterns on the same snapshot."""

    min_claims: int = Field(default=30, ge=1, le=1_000_000, description="Cells with fewer claims are not tested")
    min_lift: float = Field(default=1.5, ge=1.0, le=100.0, description="A pattern's rate is at least this x baseline")
    fdr: float = Field(default=0.05, gt=0.0, le=0.5, description="Benjamini-Hochberg false discovery rate")


class PatternsIn(MiningIn, MartPageInput):
    """Filters narrow the answer only: the cells tested (and so the q-values) are the whole window's."""

    payer_key: PayerKey | None = None
    service_line: Dimension | None = None
    facility: Dimension | None = None
    category: Dimension | None = None


class PatternRef(MiningIn):
    pattern_key: PatternKey


class ConfirmIn(PatternRef):
    note: Annotated[str, Field(max_length=1000), MULTI_LINE] | None = None


class WindowOut(Output):
    from_month: str = Field(description="First month searched, YYYY-MM")
    to_month: str = Field(description="Last month searched, YYYY-MM")


class BaselineOut(Output):
    """The client's claims and denials over the whole window: the rate every cell is tested against."""

    claims: int
    denied: int
    rate: float | None = Field(description="denied / claims; null without claims")


class PatternOut(Output):
    """A cell whose denial rate is significantly (BH q <= fdr) and materially (lift >= minLift) above
    the client's; a null dimension means all its values."""

    pattern_key: str
    payer_key: str | None
    category: str | None
    carc: str | None
    service_line: str | None
    facility: str | None
    claims: int = Field(description="n: claim x payer initial adjudications in the cell's slice")
    denied: int = Field(description="k: of which denied at the cell's level")
    rate: float
    rate_low: float = Field(description="95% Wilson interval, lower")
    rate_high: float
    baseline_claims: int
    baseline_denied: int
    baseline_rate: float
    lift: float
    lift_low: float
    lift_high: float
    excess_denials: float = Field(description="k - n x baseline rate: denials a root-cause fix can win back")
    p_value: float = Field(description="One-sided exact binomial test against the baseline rate")
    q_value: float = Field(description="Benjamini-Hochberg over every cell tested in the window")
    tests_run: int
    confirmed: bool
    confirmed_at: datetime | None = None


class SearchOut(Output):
    """What was searched: the window (null: the client has no adjudication month yet), the baseline,
    the cells built and tested, and the thresholds."""

    window: WindowOut | None
    baseline: BaselineOut
    cells_built: int
    tests_run: int = Field(description="Cells with claims >= minClaims: the Benjamini-Hochberg family")
    min_claims: int
    min_lift: float
    fdr: float


class PatternsOut(MartPage[PatternOut]):
    search: SearchOut


class PatternAnswer(MartAnswer):
    search: SearchOut
    pattern: PatternOut


class ConfirmedPatternOut(Output):
    id: int
    pattern_key: str
    payer_key: str | None
    category: str | None
    carc: str | None
    service_line: str | None
    facility: str | None
    from_month: str
    to_month: str
    claims: int
    denied: int
    rate: float
    q_value: float
    snapshot_built_at: datetime
    confirmed_by: int
    note: str | None
    created_at: datetime
