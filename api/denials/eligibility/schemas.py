"""Inputs and outputs of eligibility.*.

The member id and the birth date travel in as `SecretStr`: the audit log digests every mutation's input,
and a secret field enters that digest as the constant "<secret>" (api.platform.audit.digest), so neither is
part of any audit digest, keyed or not; validation messages name the field, never the value.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, Field, SecretStr, model_validator

from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

Status = Literal["active", "inactive", "not_found", "rejected", "error"]
Bucket = Literal["no_check", "checked_active", "checked_inactive", "checked_after_service", "service_date_unknown"]

_MEMBER_ID = re.compile(r"[A-Za-z0-9-]{1,80}")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _member_id(value: SecretStr) -> SecretStr:
    if _MEMBER_ID.fullmatch(value.get_secret_value()) is None:
        raise ValueError("must be 1-80 letters, digits or dashes")
    return value


def _birth_date(value: SecretStr) -> SecretStr:
    text = value.get_secret_value()
    try:
        if _DAY.fullmatch(text) is None:
            raise ValueError
        date.fromisoformat(text)
    except ValueError:
        raise ValueError("must be a date written YYYY-MM-DD") from None
    return value


MemberId = Annotated[SecretStr, AfterValidator(_member_id)]
BirthDate = Annotated[SecretStr, AfterValidator(_birth_date)]
PatientRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=80,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="The caller's opaque reference to the patient (e.g. a claim's patientRef), never a name",
    ),
]
PayerId = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9-]+$", description="The payer's id")]
ServiceType = Annotated[str, Field(pattern=r"^[A-Z0-9]{1,2}$", description="X12 service type code, e.g. 30")]


class CheckIn(Schema):
    patient_ref: PatientRef
    payer_id: PayerId
    payer_name: Annotated[str, Field(min_length=1, max_length=60, pattern=r"^[^*~:^]+$"), SINGLE_LINE] | None = Field(
        default=None, description="The payer's name for the 270 (NM1*PR); its id when not given"
    )
    member_id: MemberId = Field(description="The member id on the patient's card (sent, never stored or logged)")
    birth_date: BirthDate | None = Field(default=None, description="YYYY-MM-DD (sent in the 270, never stored)")
    service_date: date
    service_type_codes: list[ServiceType] = Field(default_factory=lambda: ["30"], min_length=1, max_length=20)
    provider_npi: Annotated[str, Field(pattern=r"^\d{10}$")] | None = Field(
        default=None, description="The NPI asking (2100B); the platform's configured NPI when not given"
    )

    @model_validator(mode="after")
    def _born_before_service(self) -> Self:
        if self.birth_date is not None and date.fromisoformat(self.birth_date.get_secret_value()) > self.service_date:
            raise ValueError("the birth date is after the service date")
        return self

    def birth_day(self) -> date | None:
        return None if self.birth_date is None else date.fromisoformat(self.birth_date.get_secret_value())


class CheckRef(Schema):
    id: DbId


class HistoryIn(PageInput):
    patient_ref: PatientRef
    payer_id: PayerId | None = None


class DenialsIn(PageInput):
    bucket: Bucket | None = Field(default=None, description="Only the cases of this bucket")


class OtherCoverageOut(Output):
    payer_name: str | None
    payer_id: str | None
    insurance_type: str | None


class ShareOut(Output):
    kind: Literal["deductible", "coinsurance", "copayment", "out_of_pocket"]
    coverage_level: str | None
    service_types: list[str]
    time_period: str | None = Field(description="EB06: 23 calendar year, 27 visit, 29 remaining, ...")
    amount: str | None = Field(description="EB07, an exact decimal string")
    percent: str | None = Field(description="EB08, a decimal fraction (0.2 = 20 percent)")
    in_network: str | None = Field(description="EB12: Y in network, N out of network, W not applicable, U unknown")


class CheckOut(Output):
    id: int
    patient_ref: str
    payer_id: str
    payer_name: str | None
    member_last4: str = Field(description="The last four characters of the member id (the id is not stored)")
    birth_date_sent: bool
    service_date: date
    service_types: list[str]
    provider_npi: str
    transport: str
    status: Status
    status_reason: str | None
    rejection_codes: list[str] = Field(description="AAA03 reject reasons, e.g. 75 subscriber not found")
    plan_name: str | None
    group_number: str | None
    plan_begin: date | None
    plan_end: date | None
    other_coverage: list[OtherCoverageOut]
    patient_share: list[ShareOut]
    interchange_control: str
    group_control: str
    transaction_control: str
    trace_number: str
    response_interchange_control: str | None
    response_transaction_control: str | None
    request_digest: str = Field(description="SHA-256 of the 270 sent (the 270 itself is not stored)")
    request_bytes: int
    response_digest: str | None = Field(description="SHA-256 of the 271 received (not stored)")
    response_bytes: int | None
    checked_at: datetime
    checked_on: date = Field(description="The client's day of the check (its time zone)")
    checked_by_user_id: int


class CheckSummaryOut(Output):
    id: int
    payer_id: str
    status: Status
    service_date: date
    checked_on: date


class DenialCaseOut(Output):
    case_id: int
    payer: str
    payer_id: str | None
    carc: str | None
    state: str
    amount_at_stake: str
    service_date: date | None
    patient_ref: str | None
    bucket: Bucket
    checked: bool = Field(description="Whether any answered check decided the bucket")
    check: CheckSummaryOut | None


class DenialsOut(Output):
    items: list[DenialCaseOut]
    next_cursor: str | None = None
    counts: dict[Bucket, int] = Field(description="Cases per bucket, over every case read (not the page)")
    cases_read: int
    truncated: bool = Field(description="More eligibility cases exist than were read (the newest are)")
