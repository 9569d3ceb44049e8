"""Inputs and outputs of revenuePayerIntelligence.*."""

from __future__ import annotations

from pydantic import Field

from api.infra.marts.inputs import MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money
from api.rpc.schema import Output

ASSUMPTION = (
    "Every unrecovered denial in the months is taken as still recoverable at the payer's overturn rate over "
    "the same months (a Beta posterior with Jeffreys' prior); denials past their appeal window count too, "
    "so for old months the expected recovery is an upper reading."
)


class AtRiskIn(MonthRange, MartPageInput):
    """Adjudication months (the payer's first decision of the claim), an optional payer, a page."""

    payer: PayerKey | None = None


class _Recovery(Output):
    overturn_rate: float | None = Field(description="Posterior mean of the payer's overturn rate, (k + 1/2) / (n + 1)")
    overturn_rate_low: float | None
    overturn_rate_high: float | None
    expected_recovery: Money | None = Field(description="Overturn rate x amount at risk")
    recovery_low: Money | None = Field(description="95% interval of the recovery: which denials come back and the rate")
    recovery_high: Money | None
    expected_loss: Money | None = Field(description="Amount at risk - expected recovery")
    loss_low: Money | None
    loss_high: Money | None


class PayerAtRisk(_Recovery):
    payer_key: str
    payer_name: str | None
    denied_claims: int = Field(description="Claims the payer initially denied (n)")
    overturned_claims: int = Field(description="Of them, overturned by the payer (k)")
    denied_amount: Money = Field(description="Their initial denied amount (as payerIntelligence.scorecard)")
    recovered_amount: Money = Field(description="Paid back by the payer's overturns so far")
    at_risk_amount: Money = Field(description="Sum over the denials of max(denied - recovered, 0)")


class TotalAtRisk(Output):
    payers: int
    denied_amount: Money
    recovered_amount: Money
    at_risk_amount: Money
    expected_recovery: Money = Field(description="Sum of the payers' expected recoveries")
    recovery_low: Money = Field(description="95% interval, the payers' recoveries taken as independent")
    recovery_high: Money


class AtRiskOut(MartPage[PayerAtRisk]):
    total: TotalAtRisk = Field(description="Every payer in the months (not only this page)")
    assumption: str = ASSUMPTION


class TrendIn(MonthRange):
    """Adjudication months (default: the 12 months up to the latest one) and an optional payer."""

    payer: PayerKey | None = None


class MonthAtRisk(Output):
    month: str
    denied_claims: int
    denied_amount: Money
    recovered_amount: Money
    at_risk_amount: Money


class TrendOut(MartAnswer):
    payer_key: str | None = Field(description="The payer; null: every payer of the client")
    months: list[MonthAtRisk] = Field(description="Every month of the range, oldest first (0 without denials)")
    slope_per_month: Money | None = Field(description="OLS slope of the monthly amount at risk; null below 3 months")
    slope_low: Money | None = Field(description="95% t interval of the slope")
    slope_high: Money | None
    statement: str
