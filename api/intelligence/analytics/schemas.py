"""Inputs and outputs of analytics.*."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import Field, field_validator

from api.infra.marts.fields import ClaimVolume, MonthSpanAnswer
from api.infra.marts.inputs import Month, MonthRange
from api.infra.marts.serving import MartAnswer, Money, OptionalMoney
from api.rpc.schema import Output, Schema

TrendMetric = Literal[
    "initial_denial_rate",
    "initial_denial_rate_dollars",
    "first_pass_yield",
    "final_denial_write_off_pct",
    "overturn_rate",
    "net_collection_rate",
    "cost_to_collect",
    "aged_ar_over_90_pct",
    "days_in_ar",
    "days_in_dnfb",
    "case_win_rate",
    "avg_days_to_pay",
    "billed_amount",
    "paid_amount",
    "claims_adjudicated",
    "ar_amount",
    "dnfb_amount",
    "cases_opened",
    "cases_closed",
    "cases_decided",
    "case_recovered_amount",
    "case_written_off_amount",
]
BreakdownDimension = Literal["category", "carc", "payer", "group_code", "hard_or_soft", "preventable", "claim_type"]
CLEAN_CLAIM_RATE_UNAVAILABLE = (
    "HFMA's clean claim rate counts claims accepted by the clearinghouse and the payer without manual "
    "intervention; it needs acknowledgement data (999 and 277CA), which are not ingested yet. "
    "first_pass_yield is the remittance-side figure."
)


class KpisIn(MonthRange):
    """Months to cover (default: every month in the snapshot)."""


# Every ratio is null when its denominator is 0. Definitions: dbt_project/models/marts/_analytics.yml.
# Case figures (cases_*, case_*) count a denial case in the month it opened, closed or was decided.
class Kpis(ClaimVolume):
    patient_responsibility: Money
    net_patient_revenue: Money = Field(description="paid_amount + patient_responsibility of the claims adjudicated")
    contractual_amount: Money = Field(description="CO adjustments that are not denials")
    initially_denied_claims: int
    initial_denied_amount: Money
    initially_denied_charges: Money = Field(description="Charges of the claims denied on first adjudication")
    initial_denial_rate: float | None = Field(description="initially_denied_claims / claims_adjudicated")
    initial_denial_rate_dollars: float | None = Field(description="initially_denied_charges / billed_amount")
    clean_claims: int = Field(description="Claims without a denial on their first adjudication")
    first_pass_yield: float | None = Field(description="clean_claims / claims_adjudicated")
    clean_claim_rate: float | None = Field(description="Always null until acknowledgement data exist")
    clean_claim_rate_unavailable: str = Field(description="Why clean_claim_rate is null")
    final_write_off_claims: int
    final_denial_write_off_amount: Money = Field(
        description=(
            "Provider-loss denials not paid later whose appeal window (180 days) has closed, plus"
            " case_final_write_off_amount"
        )
    )
    case_final_write_off_amount: Money = Field(
        description=(
            "written_off_amount of cases decided lost or written_off in the months, on claims the"
            " remittance rule does not already write off (counted once)"
        )
    )
    final_denial_write_off_pct: float | None = Field(description="final_denial_write_off_amount / net_patient_revenue")
    overturned_claims: int = Field(description="Initially denied claims paid later by anyone")
    appeal_overturned_claims: int = Field(
        description="Initially denied claims paid later by the same payer, not as COB nor a corrected claim"
    )
    worked_overturned_claims: int = Field(
        description="appeal_overturned_claims whose case a person worked before the remittance that paid"
    )
    overturn_rate: float | None = Field(description="worked_overturned_claims / initially_denied_claims")
    immature_months: int = Field(description="Months in the range younger than the overturn maturity (90 days)")
    recovered_amount: Money
    net_collection_rate: float | None = Field(
        description="paid_amount / (billed_amount - contractual_amount - patient_responsibility)"
    )
    cost_to_collect_amount: OptionalMoney = Field(
        description="Revenue-cycle costs recorded with analytics.recordCollectionCost; null when none are recorded"
    )
    cost_to_collect: float | None = Field(
        description="cost_to_collect_amount / paid_amount of the months with recorded costs (HFMA MAP Key)"
    )
    avg_days_to_pay: float | None
    balances_month: str | None = Field(description="The month at whose last day the balances are taken")
    ar_amount: OptionalMoney = Field(description="Gross open A/R at the end of the range")
    net_ar_amount: OptionalMoney = Field(
        description="ar_amount less the expected contractual allowance of the charges awaiting adjudication"
    )
    aged_ar_amount: OptionalMoney = Field(description="The part of ar_amount over 90 days past the statement end")
    aged_ar_over_90_pct: float | None = Field(description="aged_ar_amount / ar_amount")
    days_in_ar: float | None = Field(
        description="HFMA MAP Key Net Days in A/R: net_ar_amount / (net_patient_revenue / days in the range)"
    )
    dnfb_amount: OptionalMoney = Field(description="Discharged not final billed at the end of the range")
    days_in_dnfb: float | None = Field(description="dnfb_amount / (discharged charges / days in the range)")
    cases_opened: int = Field(description="Denial cases opened in the months")
    cases_closed: int = Field(description="Denial cases closed in the months (state closed)")
    cases_decided: int = Field(description="Denial cases whose current decision was taken in the months")
    cases_won: int
    cases_partially_won: int
    cases_lost: int
    cases_written_off: int
    case_win_rate: float | None = Field(description="(cases_won + cases_partially_won) / cases_decided")
    case_recovered_amount: Money = Field(description="recovered_amount of the cases decided in the months")
    case_written_off_amount: Money = Field(
        description="written_off_amount of the cases decided lost or written_off in the months"
    )


class KpisOut(MonthSpanAnswer):
    months: int
    data_as_of: date | None = Field(description="The latest remittance payment date: ages are measured to it")
    kpis: Kpis


class TrendIn(MonthRange):
    metric: TrendMetric = "initial_denial_rate"


class TrendPoint(Output):
    month: str
    value: float | None = Field(description="Null for a rate whose denominator is 0")
    numerator: float | None = Field(default=None, description="For rates: the counted part")
    denominator: float | None = Field(default=None, description="For rates: the whole")
    is_mature: bool | None = Field(
        default=None, description="overturn_rate: false while the month is younger than the maturity (90 days)"
    )


class TrendOut(MartAnswer):
    metric: str
    points: list[TrendPoint]


class BreakdownIn(MonthRange):
    by: BreakdownDimension = "category"
    limit: int = Field(default=50, ge=1, le=500)


class BreakdownRow(Output):
    key: str
    denied_claims: int
    denied_amount: Money
    share_of_denials: float | None = Field(description="denied_claims / all initially denied claims in the range")
    overturned_claims: int
    recovered_amount: OptionalMoney = None


class BreakdownOut(MartAnswer):
    by: str
    total_denied_claims: int
    total_denied_amount: Money
    rows: list[BreakdownRow]


CostCategory = Literal["staff", "vendor", "clearinghouse", "systems", "other"]


class RecordCollectionCostIn(Schema):
    """A revenue-cycle cost of one month (HFMA MAP Key "Cost to Collect": the cost of the patient
    financial services / revenue-cycle functions); a correction is a negative amount."""

    month: Month
    amount: Decimal = Field(max_digits=16, decimal_places=2, description='Amount, e.g. "12500.00"; not 0')
    category: CostCategory = "other"
    note: str | None = Field(default=None, max_length=1000)

    @field_validator("amount")
    @classmethod
    def _not_zero(cls, value: Decimal) -> Decimal:
        if value == 0:
            raise ValueError("amount must not be 0")
        return value


class CollectionCostOut(Output):
    id: int
    month: str
    amount: Money
    category: str
    note: str | None
    recorded_by: int
    month_total: Money = Field(description="Every cost recorded for that month, this one included")
