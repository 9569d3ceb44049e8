"""The Billing-Signature scheme: known vectors, tolerance edges, rotation, and Hypothesis properties."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.platform.billing.signature import (
    SignatureError,
    compute_signature,
    parse_header,
    parse_secrets,
    sign,
    verify,
)

NOW = 1_750_000_000
secret_text = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=","), min_size=1, max_size=40
)


def test_signature_is_hmac_sha256_of_timestamp_dot_body():
    expected = hmac.new(b"whsec_x", b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
    assert compute_signature("whsec_x", 1700000000, b'{"a":1}') == expected


def test_valid_header_returns_the_timestamp():
    body = b'{"id":"evt_1"}'
    assert verify(sign(body, ["s1"], NOW), body, ["s1"], now=NOW, tolerance=300) == NOW


@pytest.mark.parametrize("skew", [-300, 300, 0])
def test_timestamp_at_the_tolerance_edge_is_accepted(skew):
    body = b"{}"
    assert verify(sign(body, ["s"], NOW + skew), body, ["s"], now=NOW, tolerance=300) == NOW + skew


@pytest.mark.parametrize("skew", [-301, 301, -86_400])
def test_timestamp_outside_tolerance_is_refused_both_ways(skew):
    body = b"{}"
    with pytest.raises(SignatureError) as info:
        verify(sign(body, ["s"], NOW + skew), body, ["s"], now=NOW, tolerance=300)
    assert info.value.reason == "timestamp_out_of_tolerance"


def test_any_configured_secret_may_match():
    body = b"{}"
    header = sign(body, ["new-secret"], NOW)
    assert verify(header, body, ["old-secret", "new-secret"], now=NOW, tolerance=300) == NOW


def test_any_of_several_v1_values_may_match():
    body = b"{}"
    good = compute_signature("s", NOW, body)
    header = f"t={NOW},v1={'0' * 64},v1={good},v0=ignored"
    assert verify(header, body, ["s"], now=NOW, tolerance=300) == NOW


@pytest.mark.parametrize(
    "header,reason",
    [
        (None, "missing_signature"),
        ("", "missing_signature"),
        ("v1=abc", "malformed_signature"),
        ("t=123", "malformed_signature"),
        ("t=abc,v1=00", "malformed_signature"),
        ("t=1,t=2,v1=00", "malformed_signature"),
        ("garbage", "malformed_signature"),
        ("t=１２３,v1=00", "malformed_signature"),
    ],
)
def test_malformed_headers_are_refused_with_a_reason(header, reason):
    with pytest.raises(SignatureError) as info:
        parse_header(header)
    assert info.value.reason == reason


def test_verify_refuses_to_run_without_secrets():
    with pytest.raises(ValueError):
        verify(sign(b"{}", ["s"], NOW), b"{}", [], now=NOW, tolerance=300)


def test_parse_secrets_splits_and_drops_blanks():
    assert parse_secrets(" a , b,,c ") == ["a", "b", "c"]
    assert parse_secrets(None) == []
    assert parse_secrets(" , ") == []


@given(body=st.binary(max_size=2_000), secret=secret_text, skew=st.integers(-300, 300))
def test_property_signed_bodies_verify(body, secret, skew):
    assert verify(sign(body, [secret], NOW + skew), body, [secret], now=NOW, tolerance=300) == NOW + skew


@given(body=st.binary(min_size=1, max_size=500), secret=secret_text, data=st.data())
def test_property_any_single_byte_change_breaks_the_signature(body, secret, data):
    header = sign(body, [secret], NOW)
    i = data.draw(st.integers(0, len(body) - 1))
    flip = data.draw(st.integers(1, 255))
    tampered = body[:i] + bytes([body[i] ^ flip]) + body[i + 1 :]
    with pytest.raises(SignatureError) as info:
        verify(header, tampered, [secret], now=NOW, tolerance=300)
    assert info.value.reason == "signature_mismatch"


@given(body=st.binary(max_size=200), signer=secret_text, verifier=secret_text)
def test_property_a_different_secret_never_verifies(body, signer, verifier):
    if signer == verifier:
        return
    with pytest.raises(SignatureError):
        verify(sign(body, [signer], NOW), body, [verifier], now=NOW, tolerance=300)


@given(header=st.text(max_size=300))
def test_property_parse_header_never_fails_with_anything_but_signature_error(header):
    try:
        parsed = parse_header(header)
    except SignatureError:
        return
    assert parsed.signatures and parsed.timestamp >= 0
