"""Every error code of the API is tRPC's: same JSON-RPC number, same HTTP status, on the wire too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.parse

import pytest

from api.rpc.errors import ERROR_CODES, RpcError, error_envelope
from tests.integration.api.rpc.trpc_reference import JSONRPC2_TO_HTTP_CODE, TRPC_ERROR_CODES_BY_KEY, TRPC_VERSION
from tests.support.paths import NODE_DIR


def _input(value) -> str:
    return urllib.parse.quote(json.dumps(value))


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_each_code_uses_trpc_numbers(code):
    assert code in TRPC_ERROR_CODES_BY_KEY, f"{code} is not a tRPC v11 error code"
    assert ERROR_CODES[code] == (TRPC_ERROR_CODES_BY_KEY[code], JSONRPC2_TO_HTTP_CODE[code])
    err = RpcError(code, "x")
    assert (err.json_rpc_code, err.http_status) == ERROR_CODES[code]


def test_unknown_codes_are_refused_at_raise_time():
    with pytest.raises(ValueError, match="NOT_A_CODE"):
        RpcError("NOT_A_CODE", "x")


def test_envelope_has_trpc_default_error_shape():
    envelope = error_envelope(RpcError("CONFLICT", "Claim 7 changed meanwhile"), "claims.update")
    assert envelope == {
        "error": {
            "message": "Claim 7 changed meanwhile",
            "code": -32009,
            "data": {"code": "CONFLICT", "httpStatus": 409, "path": "claims.update"},
        }
    }


def test_reference_table_matches_the_installed_trpc_package():
    """The copied tables equal the ones in the locked @trpc/server (skipped when it is not installed)."""
    package = NODE_DIR / "node_modules" / "@trpc" / "server" / "package.json"
    node = shutil.which("node")
    if node is None or not package.exists():
        if os.environ.get("CI"):  # `make test` installs it; in CI its absence is a failure, not a skip
            pytest.fail("tests/e2e/node/node_modules is not installed; `make test` runs `npm ci` first")
        pytest.skip("tests/e2e/node/node_modules is not installed (run `npm ci --prefix tests/e2e/node`)")
    assert json.loads(package.read_text())["version"] == TRPC_VERSION
    script = (
        "import('@trpc/server/unstable-core-do-not-import').then(m => console.log(JSON.stringify("
        "{byKey: m.TRPC_ERROR_CODES_BY_KEY, http: m.JSONRPC2_TO_HTTP_CODE})))"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], cwd=NODE_DIR, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    real = json.loads(done.stdout)
    assert real["byKey"] == TRPC_ERROR_CODES_BY_KEY
    assert real["http"] == JSONRPC2_TO_HTTP_CODE


@pytest.mark.parametrize("path", ["probe.raise", "probe.raiseAsync"])
@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_each_code_reaches_the_wire_with_its_status(probe_http, path, code):
    r = probe_http.get(f"/api/rpc/{path}?input={_input({'code': code})}")
    assert r.status_code == JSONRPC2_TO_HTTP_CODE[code]
    assert r.json() == {
        "error": {
            "message": f"probe failure {code}",
            "code": TRPC_ERROR_CODES_BY_KEY[code],
            "data": {"code": code, "httpStatus": JSONRPC2_TO_HTTP_CODE[code], "path": path},
        }
    }


def test_api_knows_every_trpc_code():
    assert set(ERROR_CODES) == set(TRPC_ERROR_CODES_BY_KEY)
