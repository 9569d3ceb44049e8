"""From a confirmed file's row to its codes (pure): the patient identity and the claim as the matcher
keeps them. The row's data holds PHI; it is read here, reduced to keyed digests and name filters at
once, and never returned, stored or logged in clear.

Where identity sits in each file (what the parsers keep, `pipelines/ingest`):
- 837 claim rows (`claim`): subscriber NM1*IL member id (NM109), patient (2010CA NM1*QC, else the
  subscriber 2010BA NM1*IL) last and first name, DMG02 birth date and DMG03 sex (X12 837 TR3
  005010X222/X223 loops 2010BA/2010CA); CLM01 is the claim key.
- 835 claim rows (`remittance_claim`): NM1*QC name and NM109 id, NM1*IL member id (X12 835 TR3
  005010X221 loop 2100); no birth date (an 835 has no DMG); CLP01 the claim key, CLP07 the payer's
  claim control number, CLP03 the total charge, the N1*PR payer name.
- CSV exports (`csv_claim`, `csv_denial`, `csv_payment`): patient last/first name or one name column,
  birth date, member id (or the MRN, an identifier of the hospital's own), account number / claim id.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from api.money.entity_resolution import normalize
from api.money.entity_resolution.encoding import LinkageKey, bloom, date_digests, keyed
from api.money.entity_resolution.scoring import ClaimCode, PatientCode

#: Row entities that name a patient and a claim, and the file they come from.
SOURCES = {
    "claim": "837",
    "remittance_claim": "835",
    "csv_claim": "csv",
    "csv_denial": "csv",
    "csv_payment": "csv",
}


@dataclass(frozen=True)
class Extracted:
    """What the matcher keeps of one row: its patient code (None without any identity field), its claim
    (without the patient identity id, assigned when stored) and its payer name (not PHI)."""

    source: str
    patient: PatientCode | None
    claim: ClaimCode
    payer_name: str | None
    payer_id: str | None


def _text(value: Any, limit: int) -> str:
    return str(value).strip()[:limit] if value not in (None, "") else ""


def _names(d: dict[str, Any]) -> tuple[str, str]:
    first, last = normalize.person_name(d.get("patient_first_name")), normalize.person_name(d.get("patient_last_name"))
    if not first and not last:
        first, last = normalize.split_full_name(d.get("patient_name"))
    return first, last


def patient_code(d: dict[str, Any], key: LinkageKey) -> PatientCode | None:
    """The patient identity of a row's data, reduced to digests and filters; None if it names nobody."""
    first, last = _names(d)
    # The subscriber's id where the file has it (837 NM1*IL NM109; 835 NM1*IL, sent when the insured is not
    # the patient, else the patient's NM1*QC NM109 is that id: X12 835 TR3 loop 2100), then an export's.
    member = normalize.member_id(
        d.get("subscriber_member_id") or d.get("insured_member_id") or d.get("patient_member_id") or d.get("member_id")
    )
    dob, dob_digits, year = date_digests(key, normalize.birth_date(d.get("patient_birth_date")))
    sex = normalize.sex(d.get("patient_gender"))
    if not (first or last or member or dob):
        return None
    return PatientCode(
        dob=dob,
        dob_digits=dob_digits,
        birth_year=year,
        member=keyed(key, "member", member),
        sex=keyed(key, "sex", sex),
        first=bloom(key, first),
        last=bloom(key, last),
    )


def _money(value: Any) -> Decimal | None:
    try:
        amount = Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None
    if amount is None or not amount.is_finite() or abs(amount) >= 10**12:
        return None
    return amount.quantize(Decimal("0.01"))


def _day_digest(key: LinkageKey, field: str, value: Any) -> str | None:
    day = normalize.birth_date(value)  # the same date reading: YYYY-MM-DD or CCYYMMDD
    return keyed(key, field, day.isoformat()) if day else None


def claim_code(entity: str, d: dict[str, Any], key: LinkageKey) -> ClaimCode:
    """The claim of a row: normalized keys, keyed service-date digests, total charge and payer name."""
    raw_key = d.get("patient_control_number") or d.get("patient_account_number") or d.get("claim_id")
    charge = d.get("total_charge") if entity in ("claim", "remittance_claim") else d.get("billed_amount")
    return ClaimCode(
        claim_key=normalize.claim_key(_text(raw_key, 80)),
        payer_claim_number=normalize.claim_key(_text(d.get("payer_claim_control_number"), 80)),
        service_from=_day_digest(key, "service-date", d.get("statement_from") or d.get("service_from")),
        service_to=_day_digest(key, "service-date", d.get("statement_to") or d.get("service_to")),
        total_charge=_money(charge),
        payer=normalize.payer_name(_text(d.get("payer_name"), 200)),
    )


def raw_claim_key(d: dict[str, Any]) -> str:
    """The claim key as the file spells it (the platform's reference to the claim), '' when none."""
    return _text(d.get("patient_control_number") or d.get("patient_account_number") or d.get("claim_id"), 80)


def extract(entity: str, d: dict[str, Any], key: LinkageKey) -> Extracted | None:
    """The row's codes, None for a row that is not a claim of a known source."""
    source = SOURCES.get(entity)
    if source is None:
        return None
    return Extracted(
        source=source,
        patient=patient_code(d, key),
        claim=claim_code(entity, d, key),
        payer_name=_text(d.get("payer_name"), 200) or None,
        payer_id=_text(d.get("payer_id"), 80) or None,
    )
