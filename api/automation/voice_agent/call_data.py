"""The minimum data a delegated payer call carries (pure, no I/O).

Payers' provider lines identify a claim by the provider (NPI, TIN), the claim number and the date of
service; the billed amount tells two claims of one day apart. That is all a status or appeal-status
call needs, and what a reopening needs plus the reason (the denial's CARC and category, codes only).

No goal carries the patient's name, date of birth or member id: a denial case does not hold them,
and none of the three goals needs them when the claim number is known. A representative who will
not go on without one ends the call (`rep_refuses_without_identifier`); the work then goes by portal
or in writing, where a person attaches what the payer asks for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

GOALS: tuple[str, ...] = ("claim_status", "appeal_status", "reopening_request")
COMMON_FIELDS: tuple[str, ...] = (
    "payer",
    "claim_number",
    "payer_claim_number",
    "date_of_service",
    "billed_amount",
    "npi",
    "tin",
    "caller_name",
    "callback_number",
)
FIELDS_BY_GOAL: dict[str, tuple[str, ...]] = {
    "claim_status": COMMON_FIELDS,
    "appeal_status": COMMON_FIELDS,
    "reopening_request": (*COMMON_FIELDS, "reopening_reason"),
}
#: Patient identifiers a goal may carry: none (see the module docstring).
PATIENT_FIELDS_BY_GOAL: dict[str, tuple[str, ...]] = dict.fromkeys(GOALS, ())


@dataclass(frozen=True)
class CallData:
    goal: str
    payer: str
    claim_number: str
    payer_claim_number: str | None
    date_of_service: date | None
    billed_amount: Decimal | None
    npi: str
    tin: str
    caller_name: str
    callback_number: str | None
    reopening_reason: str | None = None

    def stored(self) -> dict[str, str | None]:
        """The fields of this goal, as stored on the delegation and returned on the wire."""
        values = {
            "payer": self.payer,
            "claim_number": self.claim_number,
            "payer_claim_number": self.payer_claim_number,
            "date_of_service": self.date_of_service.isoformat() if self.date_of_service else None,
            "billed_amount": str(self.billed_amount) if self.billed_amount is not None else None,
            "npi": self.npi,
            "tin": self.tin,
            "caller_name": self.caller_name,
            "callback_number": self.callback_number,
            "reopening_reason": self.reopening_reason,
        }
        return {name: values[name] for name in FIELDS_BY_GOAL[self.goal]}

    def spoken(self) -> dict[str, str]:
        """Values for the script's placeholders, as a person would say them."""
        values = {k: v for k, v in self.stored().items() if v is not None}
        if self.date_of_service is not None:
            values["date_of_service"] = spoken_date(self.date_of_service)
        if self.billed_amount is not None:
            values["billed_amount"] = f"${self.billed_amount:,.2f}"
        return values

    @classmethod
    def from_stored(cls, goal: str, values: dict[str, str | None]) -> CallData:
        dos, billed = values.get("date_of_service"), values.get("billed_amount")
        return cls(
            goal=goal,
            payer=values["payer"] or "",
            claim_number=values["claim_number"] or "",
            payer_claim_number=values.get("payer_claim_number"),
            date_of_service=date.fromisoformat(dos) if dos else None,
            billed_amount=Decimal(billed) if billed else None,
            npi=values["npi"] or "",
            tin=values["tin"] or "",
            caller_name=values["caller_name"] or "",
            callback_number=values.get("callback_number"),
            reopening_reason=values.get("reopening_reason"),
        )


def spoken_date(day: date) -> str:
    return f"{day.strftime('%B')} {day.day}, {day.year}"


def reopening_reason(carc: str | None, category: str | None) -> str:
    """The reason a reopening names: the denial's codes in words (no patient data)."""
    parts = []
    if category:
        parts.append(category.replace("_", " "))
    if carc:
        parts.append(f"adjustment reason code {carc}")
    return "a clerical error behind " + (", ".join(parts) if parts else "the denial")


def minimum_call_data(
    goal: str,
    *,
    payer: str,
    claim_key: str,
    payer_claim_number: str | None,
    service_date: date | None,
    billed_amount: Decimal | None,
    carc: str | None,
    denial_category: str | None,
    npi: str,
    tin: str,
    caller_name: str,
    callback_number: str | None,
) -> CallData:
    """What the call for `goal` needs, from the case's claim facts and the hospital's identifiers."""
    return CallData(
        goal=goal,
        payer=payer,
        claim_number=claim_key,
        payer_claim_number=payer_claim_number,
        date_of_service=service_date,
        billed_amount=billed_amount,
        npi=npi,
        tin=tin,
        caller_name=caller_name,
        callback_number=callback_number,
        reopening_reason=reopening_reason(carc, denial_category) if goal == "reopening_request" else None,
    )
