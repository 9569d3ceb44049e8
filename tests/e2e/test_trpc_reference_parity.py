"""Same raw request to the API and to a real @trpc/server 11: same status, same error code, same shape.

Where the API deliberately differs, the difference is listed in KNOWN_DIFFERENCES with
both answers, and asserted exactly: if either side changes, this test says so.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.conftest import free_port, need_tool

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Case:
    method: str
    path: str  # after /api/rpc/, query string included
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = (("content-type", "application/json"),)


def _oversized(limit: int) -> bytes:
    return b'{"email":"a@b.c","password":"' + b"x" * limit + b'"}'


CASES: dict[str, Case] = {
    "query without input": Case("GET", "system.ping", headers=()),
    "mutation by GET": Case("GET", "auth.login", headers=()),
    "query by POST": Case("POST", "system.ping", b"{}"),
    "unknown procedure": Case("GET", "nope.nothing", headers=()),
    "unknown procedure by POST": Case("POST", "nope.nothing", b"{}"),
    "wrong input type": Case("POST", "auth.login", b'{"email": 5, "password": "x"}'),
    "input not an object": Case("POST", "auth.login", b"[1]"),
    "unauthenticated query": Case("GET", "auth.session", headers=()),
    "malformed JSON": Case("POST", "auth.login", b"{bad"),
    "batch, mixed statuses": Case("GET", "system.ping,nope.nothing?batch=1", headers=()),
    "batch, all unauthorized": Case("GET", "auth.session,auth.listApiKeys?batch=1", headers=()),
    "batch, all fine": Case("GET", "system.ping,system.version?batch=1", headers=()),
    "batch repeating a call": Case("GET", "system.ping,system.ping?batch=1", headers=()),
    "batch POST, input not keyed by index": Case("POST", "auth.login?batch=1", b"[1]"),
    "body above the limit": Case("POST", "auth.login", None),  # body filled in with the server's limit
    "octet-stream to a JSON mutation": Case(
        "POST", "auth.login", b"abc", (("content-type", "application/octet-stream"),)
    ),
}

# name -> (API answer, tRPC answer), each as `summary()` gives it.
KNOWN_DIFFERENCES: dict[str, tuple[tuple, tuple]] = {
    # tRPC wraps the JSON.parse failure of its lazy input reader as BAD_REQUEST; the API names it
    # PARSE_ERROR (-32700), same HTTP status, which @trpc/client handles identically.
    "malformed JSON": ((400, "PARSE_ERROR", "object"), (400, "BAD_REQUEST", "object")),
    # tRPC hands the stream to the input parser (which then fails validation); the API refuses
    # file bodies outright for procedures that are not uploads.
    "octet-stream to a JSON mutation": ((415, "UNSUPPORTED_MEDIA_TYPE", "object"), (400, "BAD_REQUEST", "object")),
    # tRPC runs the same call as often as a batch names it; the API refuses a batch that repeats a call
    # (same procedure, same input) as a whole, before any call runs (issue 23).
    "batch repeating a call": ((400, ("BAD_REQUEST", "BAD_REQUEST"), "array"), (200, ("ok", "ok"), "array")),
}


def summary(response: httpx.Response) -> tuple:
    """(status, error code or "ok" — per call for batches, shape of the body)."""
    body = response.json()
    items = body if isinstance(body, list) else [body]
    codes = [item["error"]["data"]["code"] if "error" in item else "ok" for item in items]
    return (
        response.status_code,
        codes[0] if len(codes) == 1 else tuple(codes),
        ("array" if isinstance(body, list) else "object"),
    )


@pytest.fixture(scope="module")
def reference_url(node_client_dir, live_server) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [need_tool("node"), "reference_server.mjs", str(port), str(live_server.max_body_bytes)],
        cwd=node_client_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/api/rpc/system.ping", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
                pytest.fail(f"the reference tRPC server did not start:\n{out[-2000:]}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _send(base: str, case: Case, limit: int) -> httpx.Response:
    body = _oversized(limit) if case.body is None and case.method == "POST" else case.body
    return httpx.request(
        case.method, f"{base}/api/rpc/{case.path}", content=body, headers=dict(case.headers), timeout=30
    )


@pytest.mark.parametrize("name", list(CASES))
def test_api_answers_like_trpc(name, live_server, reference_url):
    case = CASES[name]
    ours = summary(_send(live_server.base_url, case, live_server.max_body_bytes))
    theirs = summary(_send(reference_url, case, live_server.max_body_bytes))
    if name in KNOWN_DIFFERENCES:
        assert (ours, theirs) == KNOWN_DIFFERENCES[name]
    else:
        assert ours == theirs


def test_error_envelopes_have_the_same_keys(live_server, reference_url):
    for case in (CASES["unknown procedure"], CASES["mutation by GET"], CASES["unauthenticated query"]):
        ours = _send(live_server.base_url, case, live_server.max_body_bytes).json()
        theirs = _send(reference_url, case, live_server.max_body_bytes).json()
        assert ours.keys() == theirs.keys() == {"error"}
        assert ours["error"].keys() == theirs["error"].keys()
        assert ours["error"]["data"].keys() == theirs["error"]["data"].keys()
        assert ours["error"]["code"] == theirs["error"]["code"]
