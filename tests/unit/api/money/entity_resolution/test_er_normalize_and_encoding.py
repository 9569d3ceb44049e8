"""Normalization and keyed encodings of entity resolution: hand-written expected values."""

from __future__ import annotations

import hashlib
import hmac
from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from api.money.entity_resolution import normalize
from api.money.entity_resolution.encoding import (
    BITS,
    HASHES,
    LinkageKey,
    bigrams,
    bloom,
    date_digests,
    dice,
    from_hex,
    keyed,
    to_hex,
)

KEY = LinkageKey.derive(b"test deployment secret")


def test_payer_names_lose_legal_forms_and_punctuation_and_expand_abbreviations():
    assert normalize.payer_name("Aetna, Inc.") == "AETNA"
    assert normalize.payer_name("  The Cigna   Corporation ") == "CIGNA"
    assert normalize.payer_name("BCBS of Texas") == "BLUE CROSS BLUE SHIELD TEXAS"
    assert normalize.payer_name("United Healthcare") == "UNITEDHEALTHCARE"
    assert normalize.payer_name("UHC") == "UNITEDHEALTHCARE"
    assert normalize.payer_name("Humana Medicare Advantage HMO") == "HUMANA MEDICARE ADVANTAGE HMO"  # plan words kept


def test_person_fields():
    assert normalize.person_name("O'Brien-Smith") == "OBRIENSMITH"
    assert normalize.person_name("José") == "JOSE"
    assert normalize.person_name(None) == ""
    assert normalize.split_full_name("Smith, John A") == ("JOHN", "SMITH")
    assert normalize.split_full_name("John A Smith") == ("JOHN", "SMITH")
    assert normalize.split_full_name("Cher") == ("", "CHER")
    assert normalize.member_id("abc-123 45") == "ABC12345"
    assert (normalize.sex("f"), normalize.sex("M"), normalize.sex("U"), normalize.sex(None)) == ("F", "M", "", "")
    assert normalize.birth_date("19850312") == date(1985, 3, 12)
    assert normalize.birth_date("1985-03-12") == date(1985, 3, 12)
    assert normalize.birth_date("1985-02-30") is None
    assert normalize.birth_date("yesterday") is None


def test_claim_keys_drop_padding_and_separators():
    assert normalize.claim_key("  00012-34 ") == "1234"
    assert normalize.claim_key("acc-000777") == "ACC000777"  # only leading zeros of the whole key
    assert normalize.claim_key(None) == ""


def test_the_exact_digest_is_hmac_sha256_of_field_and_value_under_the_derived_key():
    # the construction written out independently: derived key, message "<field>\x1f<value>"
    exact = hmac.new(b"test deployment secret", b"entity-resolution/v1/exact", hashlib.sha256).digest()
    assert keyed(KEY, "dob", "19850312") == hmac.new(exact, b"dob\x1f19850312", hashlib.sha256).hexdigest()
    assert keyed(KEY, "dob", "") is None
    assert keyed(KEY, "member", "19850312") != keyed(KEY, "dob", "19850312")  # the field is in the message
    other = LinkageKey.derive(b"another deployment")
    assert keyed(other, "dob", "19850312") != keyed(KEY, "dob", "19850312")


def test_transposed_birth_date_digits_share_only_the_sorted_digits_and_year():
    exact, digits, year = date_digests(KEY, date(1985, 3, 12))
    t_exact, t_digits, t_year = date_digests(KEY, date(1985, 3, 21))
    assert exact != t_exact and digits == t_digits and year == t_year
    assert date_digests(KEY, None) == (None, None, None)


def test_bigrams_are_padded_with_one_blank():
    assert bigrams("SMITH") == {" S", "SM", "MI", "IT", "TH", "H "}
    assert bigrams("") == set()


def test_dice_on_hand_filters():
    # 0b1110 and 0b0111: 3 bits each, 2 in common -> 2*2 / (3+3)
    assert dice(0b1110, 0b0111) == 4 / 6
    assert dice(0b1, 0b1) == 1.0
    assert dice(0, 0b1) == 0.0


def test_bloom_sets_at_most_k_bits_per_bigram_and_round_trips_as_hex():
    bits = bloom(KEY, "SMITH")
    assert 0 < bits.bit_count() <= 6 * HASHES and bits < 1 << BITS
    assert bloom(KEY, "SMITH") == bits  # deterministic under one key
    assert bloom(LinkageKey.derive(b"another deployment"), "SMITH") != bits
    text = to_hex(bits)
    assert text is not None and len(text) == BITS // 4 and from_hex(text) == bits
    assert bloom(KEY, "") == 0 and to_hex(0) is None


def test_a_typo_keeps_most_of_the_dice_and_another_name_loses_it():
    assert dice(bloom(KEY, "JOHNSON"), bloom(KEY, "JONSON")) > 0.7
    assert dice(bloom(KEY, "JOHNSON"), bloom(KEY, "MARTINEZ")) < 0.3


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", max_size=30), st.text(alphabet="ABCDEFGHIJ", max_size=30))
def test_dice_is_symmetric_and_bounded(a: str, b: str):
    fa, fb = bloom(KEY, a), bloom(KEY, b)
    assert dice(fa, fb) == dice(fb, fa)
    assert 0.0 <= dice(fa, fb) <= 1.0
    if a:
        assert dice(fa, fa) == 1.0


@given(st.text(max_size=300))
def test_normalizers_never_fail_and_payer_names_are_idempotent(text: str):
    once = normalize.payer_name(text)
    assert normalize.payer_name(once) == once
    assert normalize.person_name(text).isalpha() or normalize.person_name(text) == ""
    normalize.split_full_name(text)
    normalize.birth_date(text)
    assert normalize.claim_key(text) == normalize.claim_key(normalize.claim_key(text))
