"""Inputs and outputs of policyImpact.assess."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from api.infra.marts.serving import Money
from api.rpc.schema import Output, Schema

PayerType = Literal["medicare", "medicare_advantage", "medicaid", "tricare", "commercial", "erisa"]
PayerId = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._/-]*$")]
#: at most this many working cases are recomputed, and this many claim lines read
MAX_CASES = 2000
MAX_LINES = 20_000
MAX_MONTHS = 24


class AppealLimitChange(Schema):
    """A payer's first-level appeal limit changed to `days`, for denials noticed from `effectiveFrom`."""

    kind: Literal["appeal_limit"]
    payer_id: PayerId | None = Field(default=None, description="One payer (as cases store it); or give payerType")
    payer_type: PayerType | None = Field(default=None, description="Every payer of this type (type-wide)")
    days: int = Field(ge=1, le=730)
    effective_from: date

    @model_validator(mode="after")
    def _scope(self) -> Self:
        if self.payer_id is None and self.payer_type is None:
            raise ValueError("give payerId, payerType or both")
        return self


class AuthorizationChange(Schema):
    """A payer newly requiring a prior authorization for a CPT/HCPCS code or range from `effectiveFrom`."""

    kind: Literal["authorization"]
    payer_id: PayerId
    procedure_codes: str = Field(min_length=5, max_length=11, description="A code or a range, e.g. 70551-70553")
    effective_from: date
    months: int = Field(default=12, ge=1, le=MAX_MONTHS, description="Claims history read: the months up to asOf")


class AssessIn(Schema):
    change: Annotated[AppealLimitChange | AuthorizationChange, Field(discriminator="kind")]
    as_of: date | None = Field(default=None, description="Default: today in the client's time zone")


class MovedCase(Output):
    case_id: int
    payer_id: str | None
    payer_type: str | None
    assumed: bool = Field(description="Unknown payer type: the shortest common window")
    level: str | None
    basis_date: date | None
    due_on: date | None = Field(description="The appeal deadline today")
    new_due_on: date | None = Field(description="The appeal deadline under the change")
    days_moved: int | None = Field(description="newDueOn - dueOn in days (negative: sooner)")
    past_due: bool = Field(description="newDueOn is before asOf: the case would already be late")


class OpenCases(Output):
    checked: int = Field(description="Working cases of the scope recomputed")
    moved: int
    past_due: int = Field(description="Moved cases whose new deadline is before asOf")
    truncated: bool = Field(description=f"More than {MAX_CASES} working cases: only the first were checked")
    items: list[MovedCase] = Field(description="The cases whose appeal deadline moves, soonest new deadline first")


class FutureMonth(Output):
    month: str
    claims: int
    lines: int
    charges: Money
    lines_without_authorization: int


class FutureClaims(Output):
    procedure_codes: str
    from_month: str
    to_month: str
    months: list[FutureMonth]
    monthly_claims: float = Field(description="Average claims per month of the history")
    monthly_charges: Money = Field(description="Average charges per month of the history")
    lines: int
    lines_without_authorization: int = Field(description="Lines no approved authorization of theirs covers today")
    truncated: bool = Field(description=f"More than {MAX_LINES} lines: only the first were read")


class AssessOut(Output):
    kind: Literal["appeal_limit", "authorization"]
    as_of: date
    open_cases: OpenCases | None = Field(description="An appeal-limit change's effect on working cases")
    future_claims: FutureClaims | None = Field(description="An authorization change's claims in the history")
