"""A batch may not repeat a call (same procedure, same input): the whole batch is BAD_REQUEST before
any call runs. The same procedure with different inputs, as tRPC's httpBatchLink sends it, still
runs (issue 23, finding 9)."""

from __future__ import annotations

import json
import urllib.parse

import pytest

JSON = {"content-type": "application/json"}


def q(value) -> str:
    return urllib.parse.quote(json.dumps(value))


def test_the_same_procedure_with_different_inputs_runs(make_member):
    member = make_member()
    inputs = {"0": {"limit": 5}, "1": {"limit": 6}}
    r = member.rpc.http.get(f"/api/rpc/cases.list,cases.list?batch=1&input={q(inputs)}", headers=member.rpc.headers())
    assert r.status_code == 200, r.text
    assert [set(e["result"]["data"]) for e in r.json()] == [{"items", "nextCursor"}] * 2


def test_a_repeated_mutation_is_refused_and_nothing_runs(make_member):
    member = make_member()
    before = member.rpc.query("organizations.listClients").data
    body = {"0": {"name": "Repeat Clinic"}, "1": {"name": "Other Clinic"}, "2": {"name": "Repeat Clinic"}}
    r = member.rpc.http.post(
        "/api/rpc/organizations.addClient,organizations.addClient,organizations.addClient?batch=1",
        content=json.dumps(body),
        headers={**member.rpc.headers(), **JSON},
    )
    assert r.status_code == 400
    envelopes = r.json()
    assert [e["error"]["data"]["code"] for e in envelopes] == ["BAD_REQUEST"] * 3
    message = envelopes[0]["error"]["message"]
    assert message == "Call 2 repeats call 0 (organizations.addClient with the same input); send it once"
    assert "Repeat Clinic" not in r.text  # the input is never echoed
    assert member.rpc.query("organizations.listClients").data == before


@pytest.mark.parametrize(
    "inputs",
    [
        {"0": {"text": "a", "count": 2}, "1": {"count": 2, "text": "a"}},  # keys in another order
        {"0": {"text": "a"}, "1": {"text": "b"}, "2": {"text": "a"}},
    ],
)
def test_the_same_input_in_any_spelling_is_a_repeat(probe_http, inputs):
    paths = ",".join(["probe.echo"] * len(inputs))
    r = probe_http.get(f"/api/rpc/{paths}?batch=1&input={q(inputs)}")
    assert r.status_code == 400
    assert "repeats call" in r.json()[0]["error"]["message"]


@pytest.mark.parametrize("second", [None, {}, "absent"])
def test_every_spelling_of_no_input_is_the_same_call(http, second):
    inputs = {} if second == "absent" else {"1": second}
    r = http.get(f"/api/rpc/system.version,system.version?batch=1&input={q(inputs)}")
    assert r.status_code == 400
    assert r.json()[1]["error"]["message"] == "Call 1 repeats call 0 (system.version with the same input); send it once"


def test_a_procedure_taking_input_reads_absent_as_empty(probe_http):
    # probe.raise takes an object: absent and {} are the same (invalid) input, sent once is enough.
    r = probe_http.get(f"/api/rpc/probe.raise,probe.raise?batch=1&input={q({'1': {}})}")
    assert r.status_code == 400 and "repeats call 0" in r.json()[0]["error"]["message"]


def test_a_single_call_and_distinct_calls_are_untouched(http):
    assert http.get("/api/rpc/system.ping").status_code == 200
    r = http.get("/api/rpc/system.ping,system.version?batch=1")
    assert r.status_code == 200 and len(r.json()) == 2
