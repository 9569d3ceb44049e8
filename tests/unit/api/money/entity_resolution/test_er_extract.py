"""From parsed rows (the parsers' field names, written by hand) to codes: an 837 claim and the 835 that
pays it under a differently spelled key are one patient and one claim."""

from __future__ import annotations

import re
from decimal import Decimal

from api.money.entity_resolution.encoding import LinkageKey
from api.money.entity_resolution.extract import extract, raw_claim_key
from api.money.entity_resolution.scoring import CLAIM_REVIEW, PATIENT_REVIEW, claim_fields, patient_score

KEY = LinkageKey.derive(b"extract tests")
HEX64 = re.compile(r"^[0-9a-f]{64}$")

CLAIM_837 = {  # 837 CLM01, CLM02, DTP*434, 2010BA NM1*IL NM109, 2010CA NM1*QC, DMG
    "patient_control_number": "PCN-000123",
    "total_charge": "1500.00",
    "statement_from": "2026-01-05",
    "statement_to": "2026-01-06",
    "payer_name": "AETNA",
    "payer_id": "60054",
    "subscriber_member_id": "W1234-5678",
    "patient_last_name": "DOE",
    "patient_first_name": "JANE",
    "patient_birth_date": "1980-02-03",
    "patient_gender": "F",
}
CLAIM_835 = {  # CLP01 as the payer keyed it, CLP03, CLP07, NM1*QC (no DMG in an 835), N1*PR
    "patient_control_number": "PCN000123",
    "payer_claim_control_number": "EX-99",
    "total_charge": "1500.00",
    "statement_from": "2026-01-05",
    "statement_to": "2026-01-06",
    "payer_name": "Aetna Inc",
    "patient_last_name": "DOE",
    "patient_first_name": "JANE",
    "patient_member_id": "W12345678",
}


def test_an_837_and_its_835_are_one_patient_and_one_claim():
    a, b = extract("claim", CLAIM_837, KEY), extract("remittance_claim", CLAIM_835, KEY)
    assert a is not None and b is not None and (a.source, b.source) == ("837", "835")
    assert a.patient is not None and b.patient is not None
    assert b.patient.dob is None and a.patient.dob is not None  # the 835 has no birth date
    # member id 16.46 + first 7.41 + last 7.41 = 31.28 (birth date and sex missing on one side)
    assert patient_score(a.patient, b.patient) == 31.28 >= PATIENT_REVIEW
    assert (a.claim.claim_key, b.claim.claim_key, b.claim.payer_claim_number) == ("PCN000123", "PCN000123", "EX99")
    assert a.claim.total_charge == b.claim.total_charge == Decimal("1500.00")
    fields = claim_fields(a.claim, b.claim, same_patient=True)
    assert {f.field: f.level for f in fields} == dict.fromkeys(
        ("patient", "service_from", "service_to", "total_charge", "claim_key", "payer"), "agree"
    )
    assert sum(f.weight for f in fields) >= CLAIM_REVIEW
    assert (raw_claim_key(CLAIM_837), raw_claim_key(CLAIM_835)) == ("PCN-000123", "PCN000123")


def test_codes_hold_digests_and_filters_only():
    x = extract("claim", CLAIM_837, KEY)
    assert x is not None and x.patient is not None
    for digest in (x.patient.dob, x.patient.dob_digits, x.patient.birth_year, x.patient.member, x.patient.sex):
        assert digest is not None and HEX64.match(digest)
    assert x.claim.service_from is not None and HEX64.match(x.claim.service_from)
    assert "JANE" not in repr(x) and "DOE" not in repr(x.claim) and "2026-01-05" not in repr(x)


def test_an_export_with_one_name_column_and_rows_without_identity():
    csv = {"patient_account_number": "A-1", "patient_name": "Doe, Jane", "patient_birth_date": "1980-02-03"}
    x = extract("csv_claim", csv, KEY)
    y = extract("claim", CLAIM_837, KEY)
    assert x is not None and y is not None and x.patient is not None and y.patient is not None
    assert (x.patient.first, x.patient.last) == (y.patient.first, y.patient.last)
    assert extract("csv_claim", {"patient_account_number": "A-2"}, KEY).patient is None  # type: ignore[union-attr]
    assert extract("service_line", CLAIM_837, KEY) is None
