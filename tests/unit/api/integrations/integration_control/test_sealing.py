"""Integration secrets at rest: AES-GCM round trip; the wrong key, another row or a flipped bit fail."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.integrations.integration_control import sealing

KEY = bytes(range(32))
OTHER = bytes(range(1, 33))
SECRETS = {"password": "hunter2-very-secret", "private_key": "-----BEGIN PRIVATE KEY-----\nMII...\n"}


def test_round_trip_and_the_token_holds_no_plaintext():
    token = sealing.seal(KEY, SECRETS, "integration/1/ch/1")
    assert sealing.open_sealed(KEY, token, "integration/1/ch/1") == SECRETS
    assert "hunter2" not in token and "PRIVATE" not in token
    assert token != sealing.seal(KEY, SECRETS, "integration/1/ch/1")  # a fresh nonce each time


def test_the_wrong_key_fails():
    token = sealing.seal(KEY, SECRETS, "a")
    with pytest.raises(sealing.SealError):
        sealing.open_sealed(OTHER, token, "a")


def test_another_row_fails():
    token = sealing.seal(KEY, SECRETS, "integration/1/ch/1")
    with pytest.raises(sealing.SealError):
        sealing.open_sealed(KEY, token, "integration/2/ch/1")


def test_tampering_fails():
    token = sealing.seal(KEY, SECRETS, "a")
    raw = bytearray(base64.urlsafe_b64decode(token.split(".", 1)[1]))
    raw[-1] ^= 1
    with pytest.raises(sealing.SealError):
        sealing.open_sealed(KEY, "v1." + base64.urlsafe_b64encode(bytes(raw)).decode(), "a")
    with pytest.raises(sealing.SealError):
        sealing.open_sealed(KEY, "v0." + token.split(".", 1)[1], "a")


def test_short_keys_are_refused():
    with pytest.raises(ValueError):
        sealing.seal(b"short", SECRETS, "a")


@given(st.dictionaries(st.sampled_from(["password", "private_key", "client_secret"]), st.text(min_size=1)))
def test_any_secrets_round_trip(secrets):
    assert sealing.open_sealed(KEY, sealing.seal(KEY, secrets, "x"), "x") == secrets


def test_fingerprint_is_keyed_and_order_independent():
    a = sealing.fingerprint(KEY, {"a": "1", "b": "2"})
    assert a == sealing.fingerprint(KEY, {"b": "2", "a": "1"})
    assert a != sealing.fingerprint(OTHER, {"a": "1", "b": "2"})
    assert a != sealing.fingerprint(KEY, {"a": "1", "b": "3"})
