"""Per-caller rate limits of /api/rpc over the real app (both backends): the attack, and who is spared.

The shared app is not rate-limited for the suite (tests/conftest.py); each test plants a real
`RateLimiter` with a small budget and a clock it moves by hand (no sleeping), and the shared services
get their own back afterwards. Budget here: 1 call per second, bursts of 5."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from fastapi.testclient import TestClient

from api.infra.rate_limit.bucket import Budget
from api.infra.rate_limit.limiter import RateLimiter

MESSAGE_1 = (
    "Too many calls: each caller may make 1 calls per second, in bursts of up to 5, and this request asked for "
    "1 call. Wait 1 s (Retry-After) and send it again, or spread the calls out"
)


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(services, monkeypatch) -> Clock:
    """A limiter of 1 call/s, burst 5, on a hand-moved clock, planted in the shared app for this test."""
    moved = Clock()
    monkeypatch.setattr(services, "rate_limiter", RateLimiter(Budget(1.0, 5), max_keys=50, clock=moved))
    return moved


def q(value) -> str:
    return urllib.parse.quote(json.dumps(value))


def assert_throttled(response, *, retry_after: int, path: str) -> None:
    assert response.status_code == 429, response.text
    assert response.headers["retry-after"] == str(retry_after)
    error = response.json()["error"]
    assert error["code"] == -32029  # tRPC v11 TOO_MANY_REQUESTS
    assert error["data"] == {"code": "TOO_MANY_REQUESTS", "httpStatus": 429, "path": path, "retryAfter": retry_after}


def test_a_burst_beyond_the_budget_is_refused_another_token_is_served_and_waiting_lets_it_back(make_member, clock):
    attacker, bystander = make_member(), make_member()  # signed in before the limiter: it starts now
    assert [attacker.rpc.query("cases.list").status for _ in range(5)] == [200] * 5
    refused = attacker.rpc.http.get("/api/rpc/cases.list", headers=attacker.rpc.headers())
    assert_throttled(refused, retry_after=1, path="cases.list")
    assert refused.json()["error"]["message"] == MESSAGE_1
    for _ in range(20):  # hammering on spends nothing and gets nothing
        assert attacker.rpc.query("cases.list").status == 429

    assert bystander.rpc.query("cases.list").status == 200  # another token: its own budget

    clock.now += 1.0  # Retry-After: one call's worth back
    assert attacker.rpc.query("cases.list").status == 200
    assert attacker.rpc.query("cases.list").status == 429


def test_each_call_of_a_batch_counts(make_member, clock):
    member = make_member()
    headers = member.rpc.headers()
    inputs = {str(i): {"limit": 5 + i} for i in range(3)}
    batch = f"/api/rpc/cases.list,cases.list,cases.list?batch=1&input={q(inputs)}"
    assert member.rpc.http.get(batch, headers=headers).status_code == 200  # 5 - 3 = 2 left
    inputs4 = {str(i): {"limit": 5 + i} for i in range(4)}
    refused = member.rpc.http.get(
        f"/api/rpc/cases.list,cases.list,cases.list,cases.list?batch=1&input={q(inputs4)}", headers=headers
    )
    # 4 calls, 2 tokens: 2 short at 1 per second.
    assert refused.status_code == 429 and refused.headers["retry-after"] == "2"
    envelopes = refused.json()
    assert [e["error"]["data"]["code"] for e in envelopes] == ["TOO_MANY_REQUESTS"] * 4
    assert envelopes[0]["error"]["message"].endswith(
        "this request asked for 4 calls (each call of a batch counts). Wait 2 s (Retry-After) and send it again, "
        "or spread the calls out"
    )
    assert member.rpc.query("cases.list").status == 200  # the refused batch spent nothing: 2 tokens still there
    clock.now += 2.0
    assert member.rpc.http.get(batch, headers=headers).status_code == 200  # 1 + 2 = 3


def test_calls_without_a_credential_are_charged_to_the_address(app, http, clock):
    assert [http.get("/api/rpc/system.ping").status_code for _ in range(5)] == [200] * 5
    assert_throttled(http.get("/api/rpc/system.ping"), retry_after=1, path="system.ping")
    # Another address (a TestClient on the same app, no lifespan of its own) has its own budget.
    elsewhere = TestClient(app, client=("198.51.100.7", 40_000))
    assert elsewhere.get("/api/rpc/system.ping").status_code == 200
    # A credential is charged apart from its address: even an invented one is let through to be refused
    # as what it is (UNAUTHORIZED), not as the address's throttling.
    r = http.get("/api/rpc/cases.list", headers={"Authorization": "Bearer not-a-real-token"})
    assert r.status_code == 401


def test_health_jwks_and_the_console_are_not_limited(http, clock):
    for _ in range(6):
        http.get("/api/rpc/system.ping")
    assert http.get("/api/rpc/system.ping").status_code == 429
    for _ in range(10):
        assert http.get("/api/health").status_code in (200, 503)  # its own answer, never 429
        assert http.get("/.well-known/jwks.json").status_code in (200, 503)
        assert http.get("/").status_code == 200


def test_rotating_invented_tokens_is_bounded_by_the_cap(services, http, clock):
    """300 requests, each with a new invented token: each answered UNAUTHORIZED, the table never above 50."""
    sizes = []
    for i in range(300):
        r = http.get("/api/rpc/cases.list", headers={"Authorization": f"Bearer invented-{i:04d}"})
        assert r.status_code == 401
        sizes.append(len(services.rate_limiter))
    assert max(sizes) == 50
