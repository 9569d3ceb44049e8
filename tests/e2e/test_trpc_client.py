"""The real `@trpc/client` (npm, unmodified) against the live server.

`node/trpc_e2e.mjs` performs the calls a tRPC app makes and prints what it saw;
this test asserts every value, so a wire incompatibility (envelope, batching,
status codes, error data) fails here exactly as it would fail in a browser.
"""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from tests.e2e.conftest import need_tool

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def run_node_script(node_dir: Path, script: str, *args: str) -> dict:
    """Run a script of tests/e2e/node and return its JSON summary; fail with its stderr otherwise."""
    done = subprocess.run([need_tool("node"), script, *args], cwd=node_dir, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"node {script} exited {done.returncode}:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def summary(live_server, node_client_dir) -> dict:
    return run_node_script(
        node_client_dir, "trpc_e2e.mjs", live_server.base_url, live_server.admin_email, live_server.admin_password
    )


def test_query_without_input(summary):
    assert summary["ping"]["pong"] is True
    assert datetime.fromisoformat(summary["ping"]["time"].replace("Z", "+00:00")).tzinfo is not None


def test_login_mutation_returns_a_session_token(summary, live_server):
    login = summary["login"]
    assert login["tokenPrefix"] == "dps_"
    assert isinstance(login["userId"], int)
    assert datetime.fromisoformat(login["expiresAt"].replace("Z", "+00:00")) > datetime.now().astimezone()
    # httpBatchLink sends even a single mutation as a POST batch of one.
    assert login["request"] == {"method": "POST", "path": "/api/rpc/auth.login", "status": 200}


def test_authenticated_queries_see_the_bootstrap_admin(summary, live_server):
    session = summary["session"]
    assert session["email"] == live_server.admin_email
    assert session["userId"] == summary["login"]["userId"]
    assert session["method"] == "session"
    assert session["isPlatformAdmin"] is True
    assert {"organizationName": "Demo Health System", "role": "admin"}.items() <= session["memberships"][0].items()

    security = summary["securityContext"]
    assert security["email"] == live_server.admin_email
    assert security["authMethod"] == "session"
    assert security["organizationName"] == "Demo Health System"
    assert security["clientName"] == "Demo General Hospital"
    assert security["roles"] == ["admin"]
    assert {"read", "write", "manage"} <= set(security["permissions"])


def test_parallel_queries_travel_as_one_http_request(summary, live_server):
    batch = summary["batch"]
    assert len(batch["requests"]) == 1, batch["requests"]
    request = batch["requests"][0]
    assert request["method"] == "GET"
    assert request["status"] == 200
    assert request["path"].removeprefix("/api/rpc/").split(",") == [
        "system.version",
        "auth.session",
        "organizations.listClients",
        "securityContext.current",
    ]
    assert batch["version"]["api"] == "trpc-v11"
    assert batch["sessionEmail"] == live_server.admin_email
    client_id = summary["securityContext"]["clientId"]
    assert batch["securityClientId"] == client_id
    assert client_id in batch["clientIds"]


def test_a_batch_with_one_failure_is_207_and_each_call_settles_on_its_own(summary):
    mixed = summary["mixedBatch"]
    assert [r["status"] for r in mixed["requests"]] == [207]
    ok, failed = mixed["outcomes"]
    assert ok == {"ok": True}
    assert (failed["code"], failed["httpStatus"], failed["jsonRpcCode"], failed["path"]) == (
        "NOT_FOUND",
        404,
        -32004,
        "nothing.here",
    )


def test_mutation_with_input_adds_a_client(summary):
    added = summary["addClient"]
    assert added["result"]["name"] == added["requestedName"]
    assert added["result"]["organizationId"] == summary["securityContext"]["organizationId"]
    assert added["result"]["status"] == "active"
    assert added["requestedName"] in summary["clientsAfter"]


def test_unknown_procedure_is_not_found(summary):
    err = summary["errors"]["unknownProcedure"]
    assert (err["code"], err["httpStatus"], err["jsonRpcCode"], err["path"]) == (
        "NOT_FOUND",
        404,
        -32004,
        "claims.doesNotExist",
    )
    assert "claims.doesNotExist" in err["message"]


def test_invalid_input_is_bad_request_naming_the_field(summary):
    err = summary["errors"]["invalidInput"]
    assert (err["code"], err["httpStatus"], err["jsonRpcCode"], err["path"]) == (
        "BAD_REQUEST",
        400,
        -32600,
        "organizations.addClient",
    )
    assert "'name'" in err["message"]
    assert [issue["path"] for issue in err["issues"]] == ["name"]


@pytest.mark.parametrize("case", ["unauthenticated", "badToken", "wrongPassword"])
def test_authentication_failures_are_unauthorized(summary, case):
    err = summary["errors"][case]
    assert (err["code"], err["httpStatus"], err["jsonRpcCode"]) == ("UNAUTHORIZED", 401, -32001)
    assert err["message"]


def test_no_error_leaks_server_internals(summary, live_server):
    errors = [*summary["errors"].values(), summary["mixedBatch"]["outcomes"][1]]
    for err in errors:
        for marker in ("Traceback", 'File "', ".py", live_server.admin_password):
            assert marker not in err["message"], (marker, err)
