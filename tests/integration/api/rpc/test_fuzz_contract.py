"""Fuzz every procedure of `system.contract`: no input, however broken, gets a 5xx or a non-tRPC answer.

The procedures come from the contract over the wire, so a new procedure is fuzzed without being
listed here. For each one the inputs are derived from its own JSON Schema and then broken: wrong
types, missing and unknown fields, extreme numbers and strings, deep nesting, malformed JSON and the
wrong HTTP method. Queries also get a schema-derived minimal input (reads have no side effects);
mutations only get inputs that carry an unknown field or a wrong method, which the procedure must
refuse before doing anything, so the fuzz never changes the shared database.

Every answer must be below 500 and, when it is an error, a tRPC envelope: `error.message` (text) and
`error.data.code` (a tRPC code name) with `httpStatus` equal to the HTTP status.

Which database answers: every broken variant carries an unknown field, so the input is refused by its
schema (`extra="forbid"`, every field still validated) before the procedure touches the database; only a
query's minimal, empty and null inputs reach the procedure. The whole sweep runs on SQLite; on PostgreSQL,
the variants that reach the procedure (the rest would repeat the same validation on another database, and
the sweep is the suite's longest test: about 20,000 calls per database with 300 procedures).
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.slow

TRPC_CODES = {
    "PARSE_ERROR",
    "BAD_REQUEST",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "NOT_FOUND",
    "METHOD_NOT_SUPPORTED",
    "TIMEOUT",
    "CONFLICT",
    "PRECONDITION_FAILED",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "UNPROCESSABLE_CONTENT",
    "TOO_MANY_REQUESTS",
    "CLIENT_CLOSED_REQUEST",
}
EXTREME_NUMBERS: tuple[Any, ...] = (2**63, -(2**63) - 1, 10**40, 1e308, -1e308, 0.5, -1)
EXTREME_STRINGS = (
    "",
    " " * 3,
    "\u0000nul",
    "' OR 1=1 --",
    "../../../etc/passwd",
    "\uffff\u202e",
    "1970-13-45",
    # ids written as text (a payload reference, a cursor): beyond 64 bits, at the edge, negative (issue 23)
    str(2**64),
    str(2**63),
    "-1",
)
WRONG_TYPES: tuple[Any, ...] = (None, True, 12345, "text", [], {}, [{"a": 1}], {"nested": {"deeper": [1, 2]}})
DEEP_NESTING_LEVELS = 5_000


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    if "anyOf" in schema:
        non_null = [s for s in schema["anyOf"] if s.get("type") != "null"]
        if non_null:
            return _resolve(non_null[0], defs)
    return schema


def _minimal(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> Any:
    """A small value of the schema's shape (valid where the schema is simple; never large)."""
    schema = _resolve(schema, defs)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: _minimal(props[name], defs, depth + 1) for name in schema.get("required", []) if depth < 6}
    if kind == "array":
        return []
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    if kind == "string":
        return "a" * max(2, schema.get("minLength", 2))
    return None


def _variants(proc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    schema = proc["inputSchema"] or {}
    defs = schema.get("$defs", {})
    root = _resolve(schema, defs)
    props = root.get("properties", {})
    base = _minimal(schema, defs)
    base = base if isinstance(base, dict) else {}
    unknown = {"zzFuzzUnknownField": 1}
    if proc["kind"] == "query":
        yield "minimal", base
        yield "empty", {}
        yield "null", None
    yield "unknown field", {**base, **unknown}
    for name, prop in props.items():
        kind = _resolve(prop, defs).get("type")
        for value in WRONG_TYPES:
            yield f"{name}: wrong type {type(value).__name__}", {**base, name: value, **unknown}
        if kind in ("integer", "number"):
            for number in EXTREME_NUMBERS:
                yield f"{name}: {number!r:.20}", {**base, name: number, **unknown}
        if kind == "string":
            # a query's input travels in the URL (clients cap it near 64 KiB): its long string is shorter
            long_text = "x" * (20_000 if proc["kind"] == "query" else 200_000)
            for text in (*EXTREME_STRINGS, long_text):
                yield f"{name}: string {len(text)} chars", {**base, name: text, **unknown}
    yield "not an object", ["a", 1]


def _assert_envelope(proc: str, what: str, response) -> None:
    assert response.status_code < 500, (proc, what, response.status_code, response.text[:300])
    try:
        body = response.json()
    except ValueError:
        pytest.fail(f"{proc} / {what}: not JSON: {response.text[:200]!r}")
    if response.status_code >= 400 and isinstance(body, dict):
        error = body.get("error")
        assert isinstance(error, dict), (proc, what, body)
        assert isinstance(error.get("message"), str) and error["message"], (proc, what, body)
        assert error["data"]["code"] in TRPC_CODES, (proc, what, body)
        assert error["data"]["httpStatus"] == response.status_code, (proc, what, body)


def _send(http, headers, proc: dict[str, Any], input: Any):
    path = f"/api/rpc/{proc['name']}"
    if proc["kind"] == "query":
        url = path if input is None else f"{path}?input={urllib.parse.quote(json.dumps(input))}"
        return http.get(url, headers=headers)
    return http.post(path, headers={**headers, "content-type": "application/json"}, content=json.dumps(input))


@pytest.fixture
def fuzz_target(make_member):
    member = make_member(platform_admin=True)
    contract = member.rpc.query("system.contract").data["procedures"]
    assert len(contract) >= 60  # the fuzz reaches every procedure of the router
    return member, contract


REACHING_THE_PROCEDURE = ("minimal", "empty", "null")


def test_schema_derived_and_broken_inputs_never_answer_5xx(http, fuzz_target, backend):
    member, contract = fuzz_target
    headers = member.rpc.headers()
    calls = 0
    for proc in contract:
        for what, input in _variants(proc):
            if backend == "postgres" and what not in REACHING_THE_PROCEDURE:
                continue  # refused by its schema before any database work: swept on SQLite (module docstring)
            _assert_envelope(proc["name"], what, _send(http, headers, proc, input))
            calls += 1
    assert calls > (100 if backend == "postgres" else 1_000)
    # the caller is still signed in (no fuzz input logged it out or broke the session)
    assert member.rpc.query("auth.session").status == 200


# Bodies that are not JSON, too deep, or sent with the wrong method are refused before any procedure
# runs, whatever the database: one database is enough.
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_malformed_bodies_deep_nesting_and_wrong_methods_never_answer_5xx(http, fuzz_target):
    member, contract = fuzz_target
    headers = member.rpc.headers()
    deep = "[" * DEEP_NESTING_LEVELS + "]" * DEEP_NESTING_LEVELS
    deep_object = '{"a":' * DEEP_NESTING_LEVELS + "1" + "}" * DEEP_NESTING_LEVELS
    for proc in contract:
        path = f"/api/rpc/{proc['name']}"
        if proc["kind"] == "query":
            shallower = '{"a":' * 2_000 + "1" + "}" * 2_000  # percent-encoded, it must fit in a URL
            for raw in ('{"a":', "%%%", deep, shallower, "\ud800"):
                response = http.get(
                    f"{path}?input={urllib.parse.quote(raw, safe='', errors='surrogatepass')}", headers=headers
                )
                _assert_envelope(proc["name"], f"raw input {raw[:10]!r}", response)
            wrong = [
                http.post(path, headers=headers, content=b"{}"),
                http.put(path, headers=headers),
                http.delete(path, headers=headers),
            ]
        else:
            for raw in (b'{"a":', b"\xff\xfe\x00", deep.encode(), deep_object.encode(), b"null" * 1000):
                response = http.post(path, headers={**headers, "content-type": "application/json"}, content=raw)
                _assert_envelope(proc["name"], f"raw body {raw[:10]!r}", response)
            wrong = [
                http.get(path, headers=headers),
                http.put(path, headers=headers),
                http.delete(path, headers=headers),
            ]
        for response in wrong:
            _assert_envelope(proc["name"], "wrong method", response)
            assert response.status_code in (400, 405, 413, 415), (proc["name"], response.status_code)
    assert member.rpc.query("auth.session").status == 200
