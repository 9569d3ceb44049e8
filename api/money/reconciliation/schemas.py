"""Inputs and outputs of reconciliation.*."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import Field

from api.infra.marts.inputs import MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money, OptionalMoney
from api.rpc.schema import Output, Schema


class SummaryIn(MonthRange):
    """Service months (statement from-date) to cover."""


class MatchBucket(Output):
    match_status: str
    claims: int
    billed_amount: Money
    paid_amount: Money


class SummaryOut(MartAnswer):
    claims: int
    matched_claims: int
    match_rate: float | None = Field(description="matched_claims / claims; null without claims")
    manually_matched: int
    buckets: list[MatchBucket]


class UnmatchedIn(MartPageInput):
    payer: PayerKey | None = None


class UnmatchedRemittance(Output):
    remittance_claim_key: str
    claim_key: str
    payer_key: str
    payment_date: date | None
    claim_status_code: str | None
    billed_amount: Money
    paid_amount: Money
    submitted_billed_amount: OptionalMoney
    match_status: str


class UnmatchedRemittancesOut(MartPage[UnmatchedRemittance]):
    pass


class UnmatchedClaim(Output):
    claim_key: str
    payer_key: str | None
    statement_from: date | None
    statement_to: date | None
    billed_amount: Money
    remit_billed_amount: OptionalMoney
    match_status: str


class UnmatchedClaimsOut(MartPage[UnmatchedClaim]):
    pass


class MatchManuallyIn(Schema):
    remittance_claim_key: str = Field(min_length=1, max_length=200)
    claim_key: str = Field(min_length=1, max_length=80, description="The submitted claim this payment belongs to")
    note: str | None = Field(default=None, max_length=1000)


class ManualMatchOut(Output):
    id: int
    remittance_claim_key: str
    claim_key: str
    note: str | None
    matched_by: int
    created_at: datetime
