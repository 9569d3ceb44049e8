"""Match scores (pure): patients by Fellegi-Sunter weights, claims by a documented weighted score, payer
spellings by token-based string similarity.

Patients (Fellegi & Sunter 1969, "A theory for record linkage", JASA 64:1183). Each field's comparison
falls in a level; a level observed with probability m among true matches and u among non-matches adds
log2(m / u) to the score (the log-likelihood ratio of "same person"), a missing field adds 0. The m and
u below are assumptions, not estimates from a tenant's data (EM estimation needs more labelled history
than a tenant has at first): u of an exact birth date ~ 1 / (365 x 80) birthdays, of a member id ~ 1 in
100,000, of sex 1/2, of a name agreeing 1 in 200; m reflects typing errors (a few in a hundred).
Names are compared on Bloom filters (`encoding.dice`) in both orders, first/last and last/first, and the
better order counts: a swapped order is a data-entry error, not a different person.

Nothing here is decided automatically: a pair at or above `PATIENT_REVIEW` is a candidate a person
confirms (`merge`) or leaves; there is no auto-match threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from rapidfuzz import fuzz

from api.money.entity_resolution.encoding import dice


def _w(m: float, u: float) -> float:
    return round(math.log2(m / u), 2)


_NAME = {"agree": _w(0.85, 0.005), "partial": _w(0.10, 0.02), "disagree": _w(0.05, 0.975)}
# field -> level -> weight (bits). Levels: agree, partial, disagree.
WEIGHTS: dict[str, dict[str, float]] = {
    # exact; partial = the same eight digits in another order (two digits transposed)
    "dob": {"agree": _w(0.95, 1 / 29_200), "partial": _w(0.03, 0.001), "disagree": _w(0.02, 0.999)},
    "member_id": {"agree": _w(0.90, 0.00001), "disagree": _w(0.10, 0.99999)},
    "sex": {"agree": _w(0.98, 0.5), "disagree": _w(0.02, 0.5)},
    # Dice >= NAME_AGREE agree, >= NAME_PARTIAL partial (a typo, a nickname sharing letters). First and
    # last name weigh the same: names are compared in both orders, and one table for both keeps the
    # score symmetric whichever order wins.
    "first_name": _NAME,
    "last_name": _NAME,
}
NAME_AGREE = 0.85
NAME_PARTIAL = 0.6
#: A pair scoring at least this many bits is put before a person. Same birth date and names agreeing
#: (14.76 + 7.41 + 7.41 = 29.58 bits) or the same names with two birth-date digits transposed
#: (4.91 + 14.82 = 19.73) are above it; the same names with another birth date (14.82 - 5.64 = 9.18) or
#: the same birth date with other names (14.76 - 4.29 - 4.29 = 6.18) are not.
PATIENT_REVIEW = 12.0


@dataclass(frozen=True)
class PatientCode:
    """One patient identity as the platform keeps it: keyed digests and name filters, never values."""

    dob: str | None = None
    dob_digits: str | None = None
    birth_year: str | None = None
    member: str | None = None
    sex: str | None = None
    first: int = 0
    last: int = 0


@dataclass(frozen=True)
class FieldScore:
    field: str
    level: str  # agree | partial | disagree | missing
    weight: float


def _exact(field: str, a: str | None, b: str | None) -> FieldScore:
    if a is None or b is None:
        return FieldScore(field, "missing", 0.0)
    level = "agree" if a == b else "disagree"
    return FieldScore(field, level, WEIGHTS[field][level])


def _dob(a: PatientCode, b: PatientCode) -> FieldScore:
    if a.dob is None or b.dob is None:
        return FieldScore("dob", "missing", 0.0)
    if a.dob == b.dob:
        level = "agree"
    else:
        level = "partial" if a.dob_digits == b.dob_digits else "disagree"
    return FieldScore("dob", level, WEIGHTS["dob"][level])


def _name(field: str, a: int, b: int) -> FieldScore:
    if not a or not b:
        return FieldScore(field, "missing", 0.0)
    similarity = dice(a, b)
    level = "agree" if similarity >= NAME_AGREE else "partial" if similarity >= NAME_PARTIAL else "disagree"
    return FieldScore(field, level, WEIGHTS[field][level])


def _names(a: PatientCode, b: PatientCode) -> list[FieldScore]:
    straight = [_name("first_name", a.first, b.first), _name("last_name", a.last, b.last)]
    crossed = [_name("first_name", a.first, b.last), _name("last_name", a.last, b.first)]
    return crossed if sum(f.weight for f in crossed) > sum(f.weight for f in straight) else straight


def patient_fields(a: PatientCode, b: PatientCode) -> list[FieldScore]:
    """Each field's level and weight for the pair (a missing field weighs 0)."""
    return [_dob(a, b), _exact("member_id", a.member, b.member), _exact("sex", a.sex, b.sex), *_names(a, b)]


def patient_score(a: PatientCode, b: PatientCode) -> float:
    """The pair's Fellegi-Sunter score in bits (symmetric)."""
    return round(sum(f.weight for f in patient_fields(a, b)), 2)


def patient_max(a: PatientCode) -> float:
    """The highest score `a` can reach: every field it has agreeing."""
    present = {
        "dob": a.dob is not None,
        "member_id": a.member is not None,
        "sex": a.sex is not None,
        "first_name": bool(a.first),
        "last_name": bool(a.last),
    }
    return round(sum(WEIGHTS[f]["agree"] for f, has in present.items() if has), 2)


# --- claims ---------------------------------------------------------------------------------------

#: Documented weights of the claim score (0..1). The patient and the money say most: the same charge
#: on the same dates for the same patient is the same claim whatever its key says; the key still helps
#: when it differs only by padding or separators; the payer least (a COB secondary's 835 names another).
CLAIM_WEIGHTS = {
    "patient": 0.30,
    "service_from": 0.15,
    "service_to": 0.10,
    "total_charge": 0.20,
    "claim_key": 0.15,
    "payer": 0.10,
}
CLAIM_REVIEW = 0.6


@dataclass(frozen=True)
class ClaimCode:
    """One claim as seen in one file: its keys (platform references), keyed date digests, charge, payer."""

    claim_key: str
    payer_claim_number: str = ""  # normalized CLP07, '' when none
    identity: int | None = None  # the patient identity id
    service_from: str | None = None  # keyed digests
    service_to: str | None = None
    total_charge: Decimal | None = None
    payer: str = ""  # normalized payer name


def _claim_key_agree(a: ClaimCode, b: ClaimCode) -> bool | None:
    if not a.claim_key or not b.claim_key:
        return None
    keys_a = {a.claim_key, a.payer_claim_number} - {""}
    keys_b = {b.claim_key, b.payer_claim_number} - {""}
    return bool(keys_a & keys_b)


def _payer_agree(a: ClaimCode, b: ClaimCode) -> bool | None:
    if not a.payer or not b.payer:
        return None
    return payer_similarity(a.payer, b.payer) >= 0.9


def claim_fields(a: ClaimCode, b: ClaimCode, *, same_patient: bool | None) -> list[FieldScore]:
    """Each part of the claim score: agree earns its weight, anything else 0. `same_patient` is whether
    the two identities are one (the same identity, a confirmed merge, or a patient candidate); None when
    either claim has no patient."""
    checks: dict[str, bool | None] = {
        "patient": same_patient,
        "service_from": None if a.service_from is None or b.service_from is None else a.service_from == b.service_from,
        "service_to": None if a.service_to is None or b.service_to is None else a.service_to == b.service_to,
        "total_charge": None if a.total_charge is None or b.total_charge is None else a.total_charge == b.total_charge,
        "claim_key": _claim_key_agree(a, b),
        "payer": _payer_agree(a, b),
    }
    out = []
    for field, agreed in checks.items():
        level = "missing" if agreed is None else "agree" if agreed else "disagree"
        out.append(FieldScore(field, level, CLAIM_WEIGHTS[field] if agreed else 0.0))
    return out


def claim_score(a: ClaimCode, b: ClaimCode, *, same_patient: bool | None) -> float:
    return round(sum(f.weight for f in claim_fields(a, b, same_patient=same_patient)), 4)


# --- payers ---------------------------------------------------------------------------------------

#: A spelling scoring at least this against a known payer is offered as its alias.
PAYER_REVIEW = 0.8


def payer_similarity(a: str, b: str) -> float:
    """Similarity of two normalized payer names, 0..1 (symmetric): the mean of rapidfuzz's
    token_sort_ratio and token_set_ratio. Token-based measures suit names whose words come in another
    order or with extra words (Cohen, Ravikumar & Fienberg 2003, "A comparison of string distance
    metrics for name-matching tasks", IJCAI-03 IIWeb: token-based measures did best on such names);
    token_set alone gives 1.0 whenever one name's words are a subset of the other's ("AETNA" vs
    "AETNA BETTER HEALTH", two payers), so it is averaged with token_sort, which counts the extra words."""
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    return round((fuzz.token_sort_ratio(a, b) + fuzz.token_set_ratio(a, b)) / 200.0, 4)
