"""Issue 9, finding 4: brute force against auth.login, performed over the wire.

Runs on an app with the production throttle defaults (the shared test app raises the per-address
allowance, see tests/conftest.py), each test from its own client address so the state of one test
(kept in the operational database, as in production) never meets another's.
"""

from __future__ import annotations

import hmac
import json
import uuid
from hashlib import sha256

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from api.app import build_services, create_app
from api.core.settings import Settings
from api.platform.audit.digest import canonical_json
from api.platform.audit.models import AuditEvent
from tests.conftest import make_user

FREE_PER_ACCOUNT = Settings().login_free_failures_per_account
FREE_PER_ADDRESS = Settings().login_free_failures_per_address


@pytest.fixture
def guarded(settings):
    """The app with the default throttle, called from a fresh client address."""
    services = build_services(settings.model_copy(update={"login_free_failures_per_address": FREE_PER_ADDRESS}))
    address = f"198.51.100.{uuid.uuid4().int % 250 + 1}-{uuid.uuid4().hex[:6]}"
    with TestClient(create_app(services=services), client=(address, 40000)) as client:
        yield services, client
    services.close()


def _login(client, email, password):
    response = client.post("/api/rpc/auth.login", json={"email": email, "password": password})
    return response


def test_wrong_passwords_are_throttled_with_retry_after(guarded):
    services, client = guarded
    _, email, password = make_user(services)
    statuses = []
    for _ in range(FREE_PER_ACCOUNT + 3):
        statuses.append(_login(client, email, "wrong guess").status_code)
    # The free failures, one more that starts the back-off, then refused without checking the password.
    assert statuses == [401] * (FREE_PER_ACCOUNT + 1) + [429, 429]
    refused = _login(client, email, password)  # even the right password waits
    assert refused.status_code == 429
    body = refused.json()["error"]
    assert body["data"]["code"] == "TOO_MANY_REQUESTS"
    wait = int(refused.headers["Retry-After"])
    assert wait >= 1 and body["data"]["retryAfter"] == wait


def test_guesses_spread_over_accounts_are_throttled_per_address(guarded):
    _services, client = guarded
    statuses = [
        _login(client, f"spray-{i}-{uuid.uuid4().hex[:6]}@example.test", "Winter2026!").status_code
        for i in range(FREE_PER_ADDRESS + 2)
    ]
    assert statuses[: FREE_PER_ADDRESS + 1] == [401] * (FREE_PER_ADDRESS + 1)
    assert statuses[FREE_PER_ADDRESS + 1] == 429
    assert _login(client, "another@example.test", "guess").headers.get("Retry-After")


def test_a_batch_of_guesses_is_refused_before_any_is_checked(guarded):
    services, client = guarded
    _, email, password = make_user(services)
    calls = 10
    paths = ",".join(["auth.login"] * calls)
    body = {str(i): {"email": email, "password": f"guess-{i}"} for i in range(calls)}
    body[str(calls - 1)]["password"] = password
    response = client.post(f"/api/rpc/{paths}?batch=1", json=body)
    assert response.status_code == 400
    envelopes = response.json()
    assert len(envelopes) == calls and all(e["error"]["data"]["code"] == "BAD_REQUEST" for e in envelopes)
    assert "cannot be batched" in envelopes[0]["error"]["message"]
    # Mixed into a batch of harmless calls: still refused as a whole, and nothing was counted.
    mixed = client.post("/api/rpc/system.ping,auth.login?batch=1", json={"1": {"email": email, "password": "x"}})
    assert mixed.status_code == 400
    with services.database.transaction() as db:
        events = db.scalars(select(AuditEvent).where(AuditEvent.target_type == "failed_sign_in")).all()
        assert all(e.input_digest != _email_digest(services, email) for e in events)
    assert _login(client, email, password).status_code == 200
    # A batch of one is a single call (tRPC's httpBatchLink sends every call so): it is allowed.
    alone = client.post("/api/rpc/auth.login?batch=1", json={"0": {"email": email, "password": password}})
    assert alone.status_code == 200 and "token" in alone.json()[0]["result"]["data"]


def test_every_procedure_has_a_maximum_batch_size(guarded):
    services, client = guarded
    limit = services.settings.rpc_max_batch_calls
    paths = ",".join(["system.ping"] * (limit + 1))
    response = client.get(f"/api/rpc/{paths}?batch=1")
    assert response.status_code == 400
    assert f"at most {limit} calls" in response.json()[0]["error"]["message"]
    # Exactly the limit is a batch: every call answered on its own (distinct calls: a repeat is refused).
    paths = ["system.ping", "system.version"] + [f"nope.call{i}" for i in range(limit - 2)]
    answers = client.get(f"/api/rpc/{','.join(paths)}?batch=1").json()
    codes = [a["error"]["data"]["code"] if "error" in a else "ok" for a in answers]
    assert codes == ["ok", "ok"] + ["NOT_FOUND"] * (limit - 2)


def _email_digest(services, email: str) -> str:
    return hmac.new(services.digest_key, canonical_json({"email": email}).encode(), sha256).hexdigest()


def test_failed_sign_ins_are_audited_with_a_keyed_email_digest_only(guarded):
    services, client = guarded
    user_id, email, _ = make_user(services)
    guess = "Summer2026-guess"
    assert _login(client, email, guess).status_code == 401
    with services.database.transaction() as db:
        event = db.scalars(
            select(AuditEvent)
            .where(AuditEvent.procedure == "auth.login", AuditEvent.target_type == "failed_sign_in")
            .where(AuditEvent.target_id == str(user_id))
        ).one()
    assert event.scope == "platform" and event.actor_kind == "anonymous"
    assert event.input_digest == _email_digest(services, email)
    # Neither the password nor an unkeyed digest of the input is recoverable from the row.
    unkeyed = sha256(json.dumps({"email": email, "password": guess}, sort_keys=True).encode()).hexdigest()
    assert guess not in str(vars(event)) and unkeyed not in str(vars(event))
