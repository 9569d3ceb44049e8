"""Any batch: one answer per call, in call order, and tRPC's batch status (common status, else 207)."""

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
calls = st.lists(
    st.one_of(
        st.tuples(st.just("ok"), texts),
        st.tuples(st.just("fail"), st.sampled_from(sorted(ERROR_CODES))),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=calls, use_async=st.booleans())
def test_batch_answers_in_order_with_trpc_status(probe_http, batch, use_async):
    raise_path = "probe.raiseAsync" if use_async else "probe.raise"
    paths = ["probe.echo" if kind == "ok" else raise_path for kind, _ in batch]
    inputs = {str(i): ({"text": arg} if kind == "ok" else {"code": arg}) for i, (kind, arg) in enumerate(batch)}
    r = probe_http.get(f"/api/rpc/{','.join(paths)}?batch=1&input={urllib.parse.quote(json.dumps(inputs))}")

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
