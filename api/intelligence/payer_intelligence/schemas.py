"""Inputs and outputs of payerIntelligence.*."""

from __future__ import annotations

from pydantic import Field, field_validator

from api.infra.marts.fields import ClaimVolume
from api.infra.marts.inputs import MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money
from api.rpc.schema import Output


class ScorecardIn(MonthRange, MartPageInput):
    """Adjudication months and a page of payers (largest billed first)."""


class _PayerNamed(Output):
    payer_key: str
    payer_name: str | None


# Bases in reverse wire order: payer key and name, then the claim volume, then its own fields.
class PayerScore(ClaimVolume, _PayerNamed):
    denied_claims: int
    denied_amount: Money
    denial_rate: float | None = Field(description="denied_claims / claims_adjudicated; null without claims")
    denial_rate_dollars: float | None = Field(description="denied_amount / billed_amount")
    first_pass_yield: float | None
    clean_claims: int
    avg_days_to_pay: float | None
    overturned_claims: int
    overturn_rate: float | None = Field(description="overturned_claims / denied_claims; null without denials")
    recovered_amount: Money


class ScorecardOut(MartPage[PayerScore]):
    pass


class DenialReasonsIn(MonthRange, MartPageInput):
    payer: PayerKey | None = None


class DenialReason(Output):
    payer_key: str
    denial_category: str
    carc: str
    denied_claims: int
    denied_amount: Money
    overturned_claims: int
    recovered_amount: Money
    overturn_rate: float | None
    denial_rate: float | None = Field(description="denied_claims / the payer's claims adjudicated in the range")
    payer_claims_adjudicated: int


class DenialReasonsOut(MartPage[DenialReason]):
    pass


class TimeToPayIn(MonthRange):
    payer: PayerKey | None = None


class PayerTimeToPay(Output):
    payer_key: str
    paid_claims: int
    mean_days: float
    median_days: float
    p90_days: float
    min_days: int
    max_days: int
    days_above_all_payers: float = Field(description="mean_days minus the mean over every payer in the range")


class TimeToPayOut(MartAnswer):
    all_payers_mean_days: float | None
    payers: list[PayerTimeToPay] = Field(description="Slowest first")


class CompareIn(MonthRange):
    payers: list[PayerKey] = Field(min_length=2, max_length=10, description="2 to 10 payer keys")

    @field_validator("payers")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("list each payer once")
        return value


class CompareOut(MartAnswer):
    payers: list[PayerScore]
    missing: list[str] = Field(description="Requested payers with no claims adjudicated in the range")
