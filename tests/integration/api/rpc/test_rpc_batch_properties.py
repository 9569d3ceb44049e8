"""Any batch: one answer per call, in call order, and tRPC's batch status (common status, else 207);
any batch that repeats a call: refused as a whole."""

from __future__ import annotations

import json
import urllib.parse

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.rpc.errors import ERROR_CODES
from tests.integration.api.rpc.trpc_reference import JSONRPC2_TO_HTTP_CODE, batch_http_status

# Lone surrogates are not valid JSON text; pydantic strips whitespace from inputs, so the text is stripped too.
texts = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20).map(str.strip).filter(bool)
# A call is either a success echoing its text, or a failure with a given code.
call = st.one_of(
    st.tuples(st.just("ok"), texts),
    st.tuples(st.just("fail"), st.sampled_from(sorted(ERROR_CODES))),
)
# A batch never carries the same call twice (that is refused as a whole, below).
calls = st.lists(call, min_size=1, max_size=6, unique=True)


def _send(probe_http, batch, use_async):
    raise_path = "probe.raiseAsync" if use_async else "probe.raise"
    paths = ["probe.echo" if kind == "ok" else raise_path for kind, _ in batch]
    inputs = {str(i): ({"text": arg} if kind == "ok" else {"code": arg}) for i, (kind, arg) in enumerate(batch)}
    return paths, probe_http.get(f"/api/rpc/{','.join(paths)}?batch=1&input={urllib.parse.quote(json.dumps(inputs))}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=calls, use_async=st.booleans())
def test_batch_answers_in_order_with_trpc_status(probe_http, batch, use_async):
    paths, r = _send(probe_http, batch, use_async)

    body = r.json()
    assert isinstance(body, list) and len(body) == len(batch)
    statuses = []
    for (kind, arg), path, answer in zip(batch, paths, body, strict=True):
        if kind == "ok":
            assert answer == {"result": {"data": {"text": arg, "count": 1}}}
            statuses.append(200)
        else:
            assert answer["error"]["data"] == {"code": arg, "httpStatus": JSONRPC2_TO_HTTP_CODE[arg], "path": path}
            statuses.append(JSONRPC2_TO_HTTP_CODE[arg])
    assert r.status_code == batch_http_status(statuses)


@st.composite
def repeating(draw):
    """A batch of distinct calls with one of them sent again at some later position."""
    distinct = draw(st.lists(call, min_size=1, max_size=5, unique=True))
    repeated = draw(st.integers(0, len(distinct) - 1))
    at = draw(st.integers(repeated + 1, len(distinct)))
    return [*distinct[:at], distinct[repeated], *distinct[at:]], at, repeated


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=repeating(), use_async=st.booleans())
def test_a_batch_that_repeats_a_call_is_refused_whole(probe_http, case, use_async):
    batch, at, repeated = case
    _, r = _send(probe_http, batch, use_async)
    assert r.status_code == 400
    body = r.json()
    assert [answer["error"]["data"]["code"] for answer in body] == ["BAD_REQUEST"] * len(batch)
    assert f"Call {at} repeats call {repeated} " in body[0]["error"]["message"]
