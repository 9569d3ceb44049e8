"""The audit chain hash: any change to any covered field changes the hash."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import SecretStr

from api.platform.audit.digest import GENESIS, canonical_json, chain_hash, chained_fields, digest
from api.platform.audit.service import verify_rows
from api.rpc.schema import Schema

FIELDS = (
    "scope",
    "seq",
    "organization_id",
    "client_id",
    "actor_user_id",
    "actor_kind",
    "procedure",
    "target_type",
    "target_id",
    "input_digest",
    "before_digest",
    "after_digest",
)


def _row(seq: int, prev: str, **values) -> SimpleNamespace:
    row = SimpleNamespace(
        scope="org:1",
        seq=seq,
        organization_id=1,
        client_id=2,
        actor_user_id=3,
        actor_kind="session",
        procedure="claims.create",
        target_type="claim",
        target_id=str(seq),
        input_digest="a" * 64,
        before_digest=None,
        after_digest="b" * 64,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        prev_hash=prev,
    )
    vars(row).update(values)
    row.hash = chain_hash(prev, chained_fields(row))
    return row


def _chain(n: int) -> list[SimpleNamespace]:
    rows, prev = [], GENESIS
    for seq in range(1, n + 1):
        rows.append(_row(seq, prev))
        prev = rows[-1].hash
    return rows


def test_intact_chain_verifies():
    rows = _chain(5)
    assert verify_rows("org:1", rows, rows[-1].hash).valid


@given(index=st.integers(0, 4), field=st.sampled_from(FIELDS), value=st.text(min_size=1, max_size=8))
def test_any_edit_breaks_the_chain(index, field, value):
    rows = _chain(5)
    if getattr(rows[index], field) == value:
        value += "x"
    setattr(rows[index], field, value)
    report = verify_rows("org:1", rows, rows[-1].hash)
    assert not report.valid and report.first_broken_seq == index + 1


def test_truncation_is_detected_through_the_head():
    rows = _chain(5)
    assert not verify_rows("org:1", rows[:4], rows[-1].hash).valid


KEY = b"k" * 32


def test_digest_is_canonical_and_hides_values():
    assert digest({"b": 1, "a": "Jane"}, KEY) == digest({"a": "Jane", "b": 1}, KEY)
    assert "Jane" not in digest({"a": "Jane"}, KEY)
    assert digest(None, KEY) is None
    assert digest(b"raw bytes", KEY) == digest(b"raw bytes", KEY)


def test_digest_is_keyed_and_leaves_secrets_out():
    class LoginLike(Schema):
        email: str
        password: SecretStr

    # Another key, another digest: without the installation key nobody can test a guess.
    assert digest({"a": "Jane"}, KEY) != digest({"a": "Jane"}, b"x" * 32)
    assert digest({"a": "Jane"}, KEY) != hashlib.sha256(canonical_json({"a": "Jane"}).encode()).hexdigest()
    # The password does not enter the digest at all: two passwords, one digest.
    one = digest(LoginLike(email="a@b.c", password=SecretStr("hunter2")), KEY)
    two = digest(LoginLike(email="a@b.c", password=SecretStr("correct horse")), KEY)
    assert one == two
    with pytest.raises(ValueError):
        digest({"a": 1}, b"")
