"""Body limits: refused before the body is buffered whole, whether the size is declared or chunked."""

from __future__ import annotations

import json

import pytest

from tests.integration.api.rpc.conftest import PROBE_BODY_LIMIT

JSON = {"content-type": "application/json"}


def _chunked(body: bytes, size: int = 4096):
    # A generator body has no Content-Length, so the client sends it with Transfer-Encoding: chunked.
    for start in range(0, len(body), size):
        yield body[start : start + size]


def _login_of_size(total: int) -> bytes:
    head, tail = b'{"email":"a@b.c","password":"', b'"}'
    return head + b"x" * (total - len(head) - len(tail)) + tail


def _assert_too_large(r, path: str, limit: int) -> None:
    assert r.status_code == 413, r.text[:300]
    assert r.json() == {
        "error": {
            "message": f"The request body exceeds the limit of {limit} bytes for this procedure",
            "code": -32013,
            "data": {"code": "PAYLOAD_TOO_LARGE", "httpStatus": 413, "path": path},
        }
    }


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_body_above_the_default_limit_is_payload_too_large(http, settings, chunked):
    limit = settings.rpc_max_body_bytes
    body = _login_of_size(limit + 1)
    content = _chunked(body) if chunked else body
    r = http.post("/api/rpc/auth.login", content=content, headers=JSON)
    assert ("content-length" in r.request.headers) is not chunked
    _assert_too_large(r, "auth.login", limit)


def test_body_at_the_default_limit_is_accepted(http, settings):
    r = http.post("/api/rpc/auth.login", content=_login_of_size(settings.rpc_max_body_bytes), headers=JSON)
    # Past the size check: the answer is about the content (the password is over its 1024 characters).
    assert r.status_code == 400, r.text[:300]
    assert [i["path"] for i in r.json()["error"]["data"]["issues"]] == ["password"]


def test_a_lying_content_length_does_not_bypass_the_stream_limit(probe_http):
    # Declared small, actually large: the streamed byte count is what counts.
    body = json.dumps({"text": "x" * (PROBE_BODY_LIMIT * 2)}).encode()

    def stream():
        yield body

    r = probe_http.post("/api/rpc/probe.small", content=stream(), headers={**JSON, "content-length": "10"})
    _assert_too_large(r, "probe.small", PROBE_BODY_LIMIT)


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_procedure_limit_of_its_own_applies(probe_http, chunked):
    body = json.dumps({"text": "x" * PROBE_BODY_LIMIT}).encode()
    r = probe_http.post("/api/rpc/probe.small", content=_chunked(body, 64) if chunked else body, headers=JSON)
    _assert_too_large(r, "probe.small", PROBE_BODY_LIMIT)


def test_under_a_procedure_limit_the_call_runs(probe_http):
    r = probe_http.post("/api/rpc/probe.small", json={"text": "short"})
    assert r.json() == {"result": {"data": {"text": "short", "count": 1}}}
