"""Inputs and outputs of caseRecovery.*."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, PlainSerializer, model_validator

from api.rpc.schema import DbId, Output, Schema

MoneyOut = Annotated[Decimal, PlainSerializer(lambda d: f"{d:.2f}", return_type=str, when_used="json")]
MoneyIn = Annotated[Decimal, Field(gt=0, max_digits=16, decimal_places=2, description='Amount, e.g. "80.00"')]
Strategy = Literal["appeal", "corrected_claim", "rebill_other_payer", "payer_call", "patient_billing", "write_off"]
RecoverySource = Literal["payer_payment", "secondary_payer", "patient", "payer_refund_reversal", "other"]


class CaseRef(Schema):
    id: DbId


class SetPlanIn(Schema):
    id: DbId
    strategy: Strategy
    expected_recovery: MoneyIn | None = Field(default=None, description="What the plan expects to recover")
    next_step: str | None = Field(default=None, min_length=1, max_length=200)
    next_step_due: date | None = None


class PlanOut(Output):
    strategy: Strategy | None = None
    expected_recovery: MoneyOut | None = None
    next_step: str | None = None
    next_step_due: date | None = None
    set_by: int | None = None
    set_at: datetime | None = None


class RecoveryOut(Output):
    event_id: int
    kind: str = Field(description="recovery (recorded by hand) | ledger_update (from a confirmed remittance)")
    amount: MoneyOut = Field(description="Change of the recovered amount (negative when the payer took money back)")
    source: str | None
    reference: str | None
    actor_user_id: int | None
    recorded_at: datetime


class CasePlanOut(Output):
    id: int
    state: str
    plan: PlanOut
    amount_at_stake: MoneyOut
    paid_before: MoneyOut
    recovered_amount: MoneyOut
    recovered_by_hand: MoneyOut
    recovered_from_ledger: MoneyOut
    written_off_amount: MoneyOut
    remaining: MoneyOut = Field(description="At stake, less recovered and written off (never below 0)")
    recoveries: list[RecoveryOut]


class RecordRecoveryIn(Schema):
    id: DbId
    amount: MoneyIn
    source: RecoverySource
    reference: str | None = Field(
        default=None, min_length=1, max_length=80, description="Check or EFT number, letter id"
    )


class RecoveredTotalsIn(Schema):
    from_date: date | None = Field(default=None, description="First day (UTC) of recoveries counted")
    to_date: date | None = Field(default=None, description="Last day (UTC) of recoveries counted")

    @model_validator(mode="after")
    def _ordered(self) -> RecoveredTotalsIn:
        if self.from_date and self.to_date and self.from_date > self.to_date:
            raise ValueError("fromDate must not be after toDate")
        return self


class RecoveredTotalRow(Output):
    payer: str
    category: str | None
    owner_user_id: int | None
    month: str = Field(description="YYYY-MM of the event that recorded the recovery (UTC)")
    recovered: MoneyOut
    cases: int


class RecoveredTotalsOut(Output):
    from_date: date | None
    to_date: date | None
    total: MoneyOut
    rows: list[RecoveredTotalRow]
