"""system.contract is for signed-in callers and answers precomputed bytes; system.ping and
system.version stay public (issue 23, finding 9: one anonymous batch of the contract x20 answered
14.5 MB, and 4 anonymous clients pushed system.ping to about 3 s)."""

from __future__ import annotations

import orjson

from api.rpc.contract import build_contract
from api.rpc.procedure import rpc as registry

ATTACK = "/api/rpc/" + ",".join(["system.contract"] * 20) + "?batch=1"


def test_an_anonymous_caller_gets_unauthorized(rpc):
    result = rpc.query("system.contract")
    assert (result.status, result.code) == (401, "UNAUTHORIZED")
    assert len(orjson.dumps(result.body)) < 1_000
    assert rpc.as_("dps_" + "A" * 43).query("system.contract").code == "UNAUTHORIZED"


def test_the_anonymous_batch_attack_is_refused_whole_and_answers_little(http):
    r = http.get(ATTACK)
    assert r.status_code == 400
    envelopes = r.json()
    assert len(envelopes) == 20
    assert {e["error"]["data"]["code"] for e in envelopes} == {"BAD_REQUEST"}
    assert envelopes[0]["error"]["message"] == (
        "Call 1 repeats call 0 (system.contract with the same input); send it once"
    )
    assert len(r.content) < 20_000  # 20 short envelopes, not 20 contracts (14.5 MB)


def test_anonymous_in_a_batch_of_distinct_calls_is_unauthorized_per_call(http):
    r = http.get("/api/rpc/system.contract,system.version?batch=1")
    assert r.status_code == 207
    contract, version = r.json()
    assert contract["error"]["data"]["code"] == "UNAUTHORIZED"
    assert version["result"]["data"]["api"] == "trpc-v11"


def test_a_signed_in_caller_gets_the_same_precomputed_bytes_each_time(make_member, services):
    member = make_member(role="analyst")
    first = member.rpc.http.get("/api/rpc/system.contract", headers=member.rpc.headers())
    second = member.rpc.http.get("/api/rpc/system.contract", headers=member.rpc.headers())
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    expected = build_contract(registry, services.settings).model_dump(mode="json", by_alias=True)
    assert first.json() == {"result": {"data": expected}}
    procs = {p["name"]: p for p in expected["procedures"]}
    assert procs["system.contract"]["auth"] == "user"
    assert procs["system.ping"]["auth"] == procs["system.version"]["auth"] == "public"


def test_a_signed_in_repeated_batch_is_refused_before_any_call(make_member):
    member = make_member()
    r = member.rpc.http.get(ATTACK, headers=member.rpc.headers())
    assert r.status_code == 400 and len(r.content) < 20_000
    assert "repeats call 0" in r.json()[0]["error"]["message"]


def test_an_api_key_may_read_the_contract(make_member, rpc):
    member = make_member()
    key = member.rpc.mutation("auth.createApiKey", {"name": "client generator"}).data
    result = rpc.as_(key["key"]).query("system.contract")
    assert result.status == 200 and any(p["name"] == "cases.open" for p in result.data["procedures"])


def test_ping_and_version_stay_public(rpc):
    assert rpc.query("system.ping").data["pong"] is True
    assert rpc.query("system.version").data["api"] == "trpc-v11"
