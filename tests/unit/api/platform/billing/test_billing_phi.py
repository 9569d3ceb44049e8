"""PHI detection in billing payloads: named fields in any spelling, SSN-shaped values, no false alarms."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from api.platform.billing.phi import find_phi, is_phi_key, looks_like_ssn

PHI_NAMES = [
    "patient",
    "patient_name",
    "member_id",
    "subscriber_id",
    "dob",
    "date_of_birth",
    "birth_date",
    "ssn",
    "social_security",
    "diagnosis",
    "icd10",
    "mrn",
]
SAFE_KEYS = [
    "plan",
    "status",
    "amount_due",
    "currency",
    "period_start",
    "period_end",
    "organization_id",
    "current_period_end",
    "id",
    "interval",
    "quantity",
    "class_name",
    "description",
    "address_line",
]


def spelling(name: str, style: int) -> str:
    words = name.split("_")
    return [
        "_".join(words),
        "-".join(words).upper(),
        words[0] + "".join(w.title() for w in words[1:]),
        "".join(w.title() for w in words),
        " ".join(words),
        ".".join(words),
    ][style]


@given(name=st.sampled_from(PHI_NAMES), style=st.integers(0, 5))
def test_property_phi_names_are_found_in_any_spelling(name, style):
    assert is_phi_key(spelling(name, style))


@given(name=st.sampled_from(PHI_NAMES), depth=st.integers(0, 4), style=st.integers(0, 5))
def test_property_phi_keys_are_found_at_any_depth_and_the_value_is_never_reported(name, depth, style):
    doc: object = {spelling(name, style): "Jane Q Roe"}
    for level in range(depth):
        doc = {f"level{level}": [doc]} if level % 2 else {f"level{level}": doc}
    findings = find_phi({"data": doc})
    assert findings and all("Jane" not in f.path for f in findings)


@given(
    a=st.integers(0, 999),
    b=st.integers(0, 99),
    c=st.integers(0, 9999),
    sep=st.sampled_from(["-", " "]),
    prefix=st.text(alphabet="abc :", max_size=10),
)
def test_property_ssn_shaped_values_are_found(a, b, c, sep, prefix):
    value = f"{prefix}{a:03d}{sep}{b:02d}{sep}{c:04d}"
    assert looks_like_ssn(value)
    findings = find_phi({"data": {"note": value}})
    assert [f.path for f in findings] == ["$.data.note"]
    assert value not in json.dumps([f.path for f in findings])


def test_an_ssn_used_as_a_key_is_redacted_in_the_path():
    findings = find_phi({"data": {"123-45-6789": "x"}})
    assert [f.path for f in findings] == ["$.data.[redacted]"]
    assert findings[0].key is None


safe_values = st.one_of(
    st.integers(),
    st.booleans(),
    st.none(),
    st.text(alphabet="abcdefxyz_.", max_size=12),
    st.sampled_from(["1250.00", "usd", "active", "in_1234", "12345678", "2024-01-31"]),
)
safe_docs = st.recursive(
    safe_values,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.sampled_from(SAFE_KEYS), children, max_size=4)
    ),
    max_leaves=20,
)


@given(doc=safe_docs)
def test_property_ordinary_billing_payloads_raise_no_alarm(doc):
    assert find_phi(doc) == []


def test_words_that_merely_contain_short_codes_are_not_phi():
    for key in ("class_name", "address", "dobbin_count", "mrna_vendor", "lessons"):
        assert not is_phi_key(key), key


def test_a_bare_nine_digit_string_counts_but_longer_ids_do_not():
    assert looks_like_ssn("123456789")
    assert not looks_like_ssn("1234567890")
    assert not looks_like_ssn("in_123456789")
