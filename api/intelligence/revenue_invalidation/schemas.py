"""Inputs and outputs of revenueInvalidation.*."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from api.infra.marts.inputs import MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money
from api.intelligence.revenue_invalidation.reasons import Reason, Source
from api.rpc.schema import Output

SOURCES_TEXT = (
    "remittance: the final denial write-off of the published marts (HFMA MAP Key 'Final Denials Write-off': "
    "initially denied, never overturned, the 180-day appeal window closed by the snapshot's build date; the "
    "first decision's provider-denied amount); case: a denial case decided lost or written off in the "
    "operational database now (the amount at stake it did not recover). A claim both know counts once, by the "
    "remittance rule, as in analytics.kpis' final denial write-off."
)


class InvalidationFilter(MonthRange):
    """Months of the day the revenue was invalidated (YYYY-MM, inclusive), a payer, a reason."""

    payer: PayerKey | None = None
    reason: Reason | None = None


class ListIn(InvalidationFilter, MartPageInput):
    """The filters and a page."""


class InvalidationOut(Output):
    claim_key: str
    payer_key: str
    amount: Money = Field(description="Revenue invalidated")
    on: date = Field(description="When: the day the appeal window closed (remittance) or the case was decided")
    reason: Reason
    source: Source
    case_id: int | None = Field(description="The case (source case); null for the remittance rule")
    carc: str | None = Field(description="The denial's CARC")
    note: str | None = Field(description="The reason the person gave when writing it off (reason written_off)")


class ListOut(MartPage[InvalidationOut]):
    sources: str = SOURCES_TEXT


class Tally(Output):
    items: int
    amount: Money


class ReasonTally(Tally):
    reason: Reason


class PayerTally(Tally):
    payer_key: str


class MonthTally(Tally):
    month: str


class SummaryOut(MartAnswer):
    total: Tally
    by_reason: list[ReasonTally] = Field(description="Every reason of the vocabulary, 0 where none")
    by_payer: list[PayerTally] = Field(description="Most invalidated first")
    by_month: list[MonthTally] = Field(description="Oldest month first, months with an item")
    sources: str = SOURCES_TEXT
