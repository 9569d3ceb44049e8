"""Inputs and outputs of payerChangeRadar.*."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from api.infra.marts.inputs import MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartPage
from api.rpc.schema import Output, Schema


class AlertsIn(MonthRange, MartPageInput):
    payer: PayerKey | None = None
    metric: Literal["carc_denial_rate", "days_to_pay"] | None = None
    include_acknowledged: bool = True


class Alert(Output):
    """A tested cell whose Benjamini-Hochberg q-value is within the false discovery rate."""

    alert_key: str
    payer_key: str
    month: str
    metric: str
    carc: str | None
    claims_adjudicated: int
    sample_size: int
    value: float
    denied_claims: int | None
    baseline_denied_claims: int | None
    baseline_sample_size: int
    baseline_mean: float
    baseline_stddev: float | None
    baseline_months: int
    min_denials: int | None
    p_value: float
    q_value: float
    false_discovery_rate: float
    acknowledged: bool
    acknowledged_at: datetime | None = None
    acknowledged_by: int | None = None


class AlertsOut(MartPage[Alert]):
    pass


class AcknowledgeIn(Schema):
    alert_key: str = Field(min_length=1, max_length=300)
    note: str | None = Field(default=None, max_length=1000)


class AcknowledgementOut(Output):
    id: int
    alert_key: str
    acknowledged_by: int
    note: str | None
    created_at: datetime
