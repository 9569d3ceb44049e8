"""Signing key sets: generation, validation, publication without private members, rotation, file safety."""

from __future__ import annotations

import json
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from api.infra.signing import keyset
from api.infra.signing.service import SigningKeys, SigningKeysUnavailable

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def private_members_anywhere(value) -> set[str]:
    """Recursive scan: every private JWK member name found at any depth."""
    found: set[str] = set()
    if isinstance(value, dict):
        found |= keyset.PRIVATE_MEMBERS & set(value)
        for child in value.values():
            found |= private_members_anywhere(child)
    elif isinstance(value, list):
        for child in value:
            found |= private_members_anywhere(child)
    return found


@pytest.fixture(scope="module")
def pair():
    return keyset.generate_pair(NOW)


def test_generated_pair_is_es384_p384_and_rs384_3072(pair):
    es, rs = pair
    assert (es["alg"], es["kty"], es["crv"], es["use"]) == ("ES384", "EC", "P-384", "sig")
    assert (rs["alg"], rs["kty"], rs["use"]) == ("RS384", "RSA", "sig")
    assert keyset.import_private(rs).raw_value.key_size == 3072
    # kid is the RFC 7638 thumbprint of the key
    assert es["kid"] == keyset.import_private(es).thumbprint()
    assert keyset.validate({"keys": pair}) == pair


def test_public_jwks_holds_only_public_members(pair):
    jwks = keyset.public_jwks(pair, NOW)
    assert private_members_anywhere(jwks) == set()
    for key in jwks["keys"]:
        assert set(key) <= set(keyset.PUBLIC_MEMBERS)
        assert {"kid", "alg", "use", "kty"} <= set(key)


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda d: d.update(keys="x"), "JSON object"),
        (lambda d: d["keys"].clear(), "no keys"),
        (lambda d: d["keys"][0].update(alg="HS256"), "keys[0]: alg"),
        (lambda d: d["keys"][0].pop("d"), "keys[0]: the private key is missing"),
        (lambda d: d["keys"][1].update(kid=None), "keys[1]: kid"),
        (lambda d: d["keys"][1].update(kid=d["keys"][0]["kid"]), "appears twice"),
        (lambda d: d["keys"][0].update(x="AAAA"), "keys[0]: not a valid ES384 key"),
        (lambda d: d["keys"][0].update(retire_at="tomorrow"), "retire_at"),
        (lambda d: d["keys"][1].update(sign_from="2026-01-01T00:00:00"), "keys[1]: sign_from"),
        (lambda d: d["keys"][0].update(crv="P-256"), "keys[0]: ES384 needs kty EC on curve P-384"),
    ],
)
def test_validate_names_the_bad_entry_without_key_material(pair, mutate, needle):
    doc = json.loads(json.dumps({"keys": pair}))
    mutate(doc)
    with pytest.raises(keyset.KeySetError) as info:
        keyset.validate(doc)
    assert needle in str(info.value)
    assert pair[0]["d"] not in str(info.value)


def kids(entries) -> set[str]:
    return {k["kid"] for k in entries}


def published_at(entries, when) -> set[str]:
    return kids(keyset.public_jwks(entries, when)["keys"])


def signer_at(entries, when, alg="ES384") -> str:
    return keyset.signing_entry(entries, alg, when)["kid"]


def test_rotation_publishes_the_next_keys_a_day_before_they_sign(pair):
    """Times written by hand: rotation at 12:00 on 1 Jan, publish ahead 24 h, retire after 7 days."""
    new = keyset.generate_pair(NOW)
    rotated = keyset.rotate(pair, NOW, timedelta(days=7), new, publish_ahead=timedelta(hours=24))
    old_es, new_es = pair[0]["kid"], new[0]["kid"]
    # At once: both generations published, the old key still signs.
    assert published_at(rotated, NOW) == kids(pair) | kids(new)
    assert signer_at(rotated, NOW) == old_es
    assert signer_at(rotated, datetime(2026, 1, 2, 11, 59, 59, tzinfo=UTC)) == old_es
    # From 12:00 on 2 Jan the new key signs (and was published a full day before).
    assert signer_at(rotated, datetime(2026, 1, 2, 12, 0, tzinfo=UTC)) == new_es
    assert signer_at(rotated, datetime(2026, 1, 2, 12, 0, tzinfo=UTC), "RS384") == new[1]["kid"]
    # The old keys stay published 7 days after they stopped signing: until 12:00 on 9 Jan.
    assert published_at(rotated, datetime(2026, 1, 9, 11, 59, 59, tzinfo=UTC)) >= kids(pair)
    assert not published_at(rotated, datetime(2026, 1, 9, 12, 0, tzinfo=UTC)) & kids(pair)


def test_a_rotation_under_way_refuses_another_until_its_keys_sign(pair):
    rotated = keyset.rotate(pair, NOW, timedelta(days=7), keyset.generate_pair(NOW), publish_ahead=timedelta(hours=24))
    with pytest.raises(keyset.RotationPending) as info:
        keyset.rotate(rotated, NOW + timedelta(hours=23), timedelta(days=7), keyset.generate_pair(NOW))
    assert info.value.signs_from == datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    # Once the next keys sign, the following rotation goes ahead and leaves the first generation
    # retiring on its own schedule (9 Jan), not moved by the second rotation.
    later = datetime(2026, 1, 3, tzinfo=UTC)
    third = keyset.generate_pair(later)
    again = keyset.rotate(rotated, later, timedelta(days=7), third, publish_ahead=timedelta(hours=24))
    assert [e["retire_at"] for e in again if e["kid"] in kids(pair)] == ["2026-01-09T12:00:00+00:00"] * 2
    assert signer_at(again, later) not in kids(third)


def test_emergency_rotation_signs_at_once_and_unpublishes_every_other_key(pair):
    pending = keyset.rotate(pair, NOW, timedelta(days=7), keyset.generate_pair(NOW), publish_ahead=timedelta(hours=24))
    fresh = keyset.generate_pair(NOW)
    rotated = keyset.rotate(pending, NOW, timedelta(days=7), fresh, emergency=True)
    assert published_at(rotated, NOW) == kids(fresh)
    assert signer_at(rotated, NOW) == fresh[0]["kid"]


def test_rotation_prunes_keys_past_their_retirement(pair):
    window = timedelta(days=7)
    rotated = keyset.rotate(pair, NOW, window, keyset.generate_pair(NOW))
    later = NOW + window + timedelta(seconds=1)
    assert not kids(pair) & published_at(rotated, later)
    again = keyset.rotate(rotated, later, window, keyset.generate_pair(later))
    assert not kids(pair) & kids(again)
    assert keyset.signing_entry(again, "ES384", later)["created_at"] == keyset._iso(later)


def test_a_set_with_no_key_signing_yet_cannot_sign(pair):
    future = [dict(e, sign_from="2026-02-01T00:00:00+00:00") for e in pair]
    assert keyset.validate({"keys": future}) == future
    with pytest.raises(keyset.KeySetError, match="no published ES384 key"):
        keyset.signing_entry(future, "ES384", NOW)


def test_default_key_file_is_generated_once_with_mode_0600(tmp_path):
    path = tmp_path / "keys" / "smart.json"
    keys = SigningKeys(path, generate_if_missing=True, retire_after=timedelta(days=7))
    first = keys.published().jwks
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first["keys"]) == 2
    assert SigningKeys(path, generate_if_missing=True, retire_after=timedelta(days=7)).published().jwks == first


@pytest.mark.parametrize("content", [None, b"{not json", b'{"keys": []}', "dir"])
def test_explicit_key_file_problems_raise_unavailable_and_are_never_fixed_silently(tmp_path, content):
    path = tmp_path / "smart.json"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    keys = SigningKeys(path, generate_if_missing=False, retire_after=timedelta(days=7))
    with pytest.raises(SigningKeysUnavailable) as info:
        keys.published()
    assert str(path) in str(info.value)
    with pytest.raises(SigningKeysUnavailable):
        keys.rotate()
    assert content is not None or not path.exists()


def test_client_assertion_verifies_against_the_published_set(tmp_path):
    keys = SigningKeys(tmp_path / "k.json", generate_if_missing=True, retire_after=timedelta(days=7))
    token = keys.sign_client_assertion({"iss": "platform", "sub": "platform", "aud": "https://ehr.example/token"})
    published = KeySet.import_key_set(keys.published().jwks)
    claims = jwt.decode(token, published, algorithms=["ES384"]).claims
    assert claims["aud"] == "https://ehr.example/token"


def test_concurrent_rotations_from_several_instances_lose_no_key(tmp_path):
    """Three instances (as three processes would) rotate at once while a reader keeps reading."""
    path = tmp_path / "k.json"
    instances = [SigningKeys(path, generate_if_missing=True, retire_after=timedelta(days=7)) for _ in range(3)]
    instances[0].ensure()
    stop = threading.Event()
    torn: list[Exception] = []

    def reader():
        while not stop.is_set():
            try:
                keyset.validate(json.loads(path.read_bytes()))
            except Exception as exc:  # noqa: BLE001 - any torn read fails the test
                torn.append(exc)
            stop.wait(0.01)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(lambda k: k.rotate(), instances))
    finally:
        stop.set()
        thread.join()
    assert torn == []
    final = json.loads(path.read_bytes())["keys"]
    assert len(final) == 2 + 3 * 2
    assert len({k["kid"] for k in final}) == 8
    assert not list(tmp_path.glob(".k.json.*.tmp"))
