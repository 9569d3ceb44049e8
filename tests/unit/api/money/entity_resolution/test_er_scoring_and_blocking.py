"""Scores and blocking of entity resolution: hand-worked weights and Hypothesis properties."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from api.money.entity_resolution.blocking import (
    MAX_BLOCK,
    Bands,
    claim_block_keys,
    pairs_from_blocks,
    patient_block_keys,
)
from api.money.entity_resolution.encoding import LinkageKey, bloom, date_digests, keyed
from api.money.entity_resolution.scoring import (
    PATIENT_REVIEW,
    WEIGHTS,
    ClaimCode,
    PatientCode,
    claim_score,
    patient_fields,
    patient_max,
    patient_score,
    payer_similarity,
)

KEY = LinkageKey.derive(b"scoring tests")
BANDS = Bands(KEY)


def person(first: str, last: str, born: date | None, member: str = "", sex: str = "") -> PatientCode:
    dob, digits, year = date_digests(KEY, born)
    return PatientCode(
        dob=dob,
        dob_digits=digits,
        birth_year=year,
        member=keyed(KEY, "member", member),
        sex=keyed(KEY, "sex", sex),
        first=bloom(KEY, first),
        last=bloom(KEY, last),
    )


def test_weights_are_the_log2_likelihood_ratios_worked_by_hand():
    # dob agree: log2(0.95 / (1/29200)) = log2(27740) = 14 + log2(1.693) = 14.76
    assert WEIGHTS["dob"]["agree"] == 14.76
    # dob transposed: log2(0.03 / 0.001) = log2(30) = 4.91; disagree: log2(0.02 / 0.999) = -5.64
    assert (WEIGHTS["dob"]["partial"], WEIGHTS["dob"]["disagree"]) == (4.91, -5.64)
    # member id: log2(0.9 / 0.00001) = log2(90000) = 16.46
    assert WEIGHTS["member_id"]["agree"] == 16.46
    # names (first and last alike): log2(0.85 / 0.005) = log2(170) = 7.41; partial log2(0.10 / 0.02) = 2.32
    assert (WEIGHTS["first_name"]["agree"], WEIGHTS["last_name"]["agree"]) == (7.41, 7.41)
    assert WEIGHTS["last_name"]["partial"] == 2.32
    # sex: log2(0.98 / 0.5) = 0.97
    assert WEIGHTS["sex"]["agree"] == 0.97


def test_identical_full_records_score_the_sum_of_agreements():
    a = person("MARGARET", "OKONKWO", date(1961, 4, 9), "W123456789", "F")
    # 14.76 + 16.46 + 0.97 + 7.41 + 7.41 = 47.01
    assert patient_score(a, a) == 47.01 == patient_max(a)


def test_swapped_name_order_scores_as_the_straight_order():
    a = person("MARGARET", "OKONKWO", date(1961, 4, 9))
    swapped = person("OKONKWO", "MARGARET", date(1961, 4, 9))
    assert patient_score(a, swapped) == patient_score(a, a) == 29.58  # 14.76 + 7.41 + 7.41


def test_transposed_birth_date_is_partial_and_above_review():
    a = person("MARGARET", "OKONKWO", date(1961, 4, 9))
    b = person("MARGARET", "OKONKWO", date(1961, 9, 4))  # 19610409 -> 19610904: two digit pairs moved, same digits
    levels = {f.field: f.level for f in patient_fields(a, b)}
    assert levels["dob"] == "partial" and levels["member_id"] == "missing"
    assert patient_score(a, b) == 19.73  # 4.91 + 7.41 + 7.41
    assert patient_score(a, b) >= PATIENT_REVIEW


def test_same_name_other_birth_date_and_same_birth_date_other_names_stay_below_review():
    a = person("JOHN", "SMITH", date(1970, 1, 2))
    assert patient_score(a, person("JOHN", "SMITH", date(1982, 6, 30))) == 9.18  # 7.41 + 7.41 - 5.64
    assert patient_score(a, person("PRIYA", "RAMANATHAN", date(1970, 1, 2))) < PATIENT_REVIEW


names = st.sampled_from(["", "ANNA", "ANA", "JOHN", "JON", "SMITH", "SMYTH", "LEE"])
days = st.sampled_from([None, date(1980, 1, 2), date(1980, 2, 1), date(1990, 5, 5)])
members = st.sampled_from(["", "M1", "M2"])
sexes = st.sampled_from(["", "F", "M"])
people = st.builds(person, names, names, days, members, sexes)


@given(people, people)
def test_patient_score_is_symmetric_and_never_above_either_maximum(a: PatientCode, b: PatientCode):
    assert patient_score(a, b) == patient_score(b, a)
    assert patient_score(a, b) <= min(patient_max(a), patient_max(b)) + 1e-9


@given(people)
def test_identical_records_score_their_maximum(a: PatientCode):
    assert patient_score(a, a) == patient_max(a)


claims = st.builds(
    ClaimCode,
    claim_key=st.sampled_from(["A1", "1", "B2"]),
    payer_claim_number=st.sampled_from(["", "P9", "A1"]),
    identity=st.sampled_from([None, 1, 2]),
    service_from=st.sampled_from([None, "d1", "d2"]),
    service_to=st.sampled_from([None, "d1", "d3"]),
    total_charge=st.sampled_from([None, Decimal("100.00"), Decimal("99.99")]),
    payer=st.sampled_from(["", "AETNA", "CIGNA"]),
)


@given(claims, claims, st.sampled_from([None, True, False]))
def test_claim_score_is_symmetric_and_within_zero_one(a: ClaimCode, b: ClaimCode, same: bool | None):
    assert claim_score(a, b, same_patient=same) == claim_score(b, a, same_patient=same)
    assert 0 <= claim_score(a, b, same_patient=same) <= 1


def test_the_same_claim_under_a_padded_key_scores_by_hand():
    a = ClaimCode("1234", "", 7, "d1", "d2", Decimal("250.00"), "AETNA")
    b = ClaimCode("1234", "", 8, "d1", "d2", Decimal("250.00"), "AETNA")  # keys already normalized
    assert claim_score(a, b, same_patient=True) == 1.0
    # other key, no patient: 0.15 + 0.10 + 0.20 + 0.10 = 0.55, under the 0.6 review threshold
    c = ClaimCode("9999", "", None, "d1", "d2", Decimal("250.00"), "AETNA")
    assert claim_score(a, c, same_patient=None) == 0.55


@given(st.text(alphabet="ABC XYZ", max_size=20), st.text(alphabet="ABC XYZ", max_size=20))
def test_payer_similarity_is_symmetric_and_one_on_identity(a: str, b: str):
    assert payer_similarity(a, b) == payer_similarity(b, a)
    if a:
        assert payer_similarity(a, a) == 1.0


def test_a_payer_that_is_a_subset_of_another_is_not_the_same():
    # token_set 100 (subset), token_sort 2*5/(5+19) = 41.67 -> (100 + 41.67) / 200 = 0.7083
    assert payer_similarity("AETNA", "AETNA BETTER HEALTH") == 0.7083


def test_pairs_come_only_from_shared_blocks_with_a_new_member():
    blocks = {"a": [1, 2, 3], "b": [3, 4], "c": [5, 6]}
    assert pairs_from_blocks(blocks, new={3}) == {(1, 3), (2, 3), (3, 4)}
    assert pairs_from_blocks(blocks, new={6}) == {(5, 6)}
    assert pairs_from_blocks({"big": list(range(MAX_BLOCK + 1))}, new={0}) == set()


def test_block_keys_of_a_swapped_order_and_of_one_birth_date_are_shared():
    a = person("MARGARET", "OKONKWO", date(1961, 4, 9))
    swapped = person("OKONKWO", "MARGARET", date(1961, 4, 9))
    assert patient_block_keys(a, BANDS) == patient_block_keys(swapped, BANDS)
    other_name = person("PRIYA", "RAMANATHAN", date(1961, 4, 9))
    shared = patient_block_keys(a, BANDS) & patient_block_keys(other_name, BANDS)
    assert shared == {f"d{a.dob}"}


def test_claim_block_keys_share_a_normalized_key_or_the_date_and_charge():
    a = claim_block_keys(ClaimCode("1234", "", None, "d1", None, Decimal("10.00")), KEY)
    b = claim_block_keys(ClaimCode("X9", "1234", None, "d7", None, Decimal("11.00")), KEY)
    c = claim_block_keys(ClaimCode("Z1", "", None, "d1", None, Decimal("10.00")), KEY)
    assert len(a & b) == 1 and len(a & c) == 1 and not (b & c)
