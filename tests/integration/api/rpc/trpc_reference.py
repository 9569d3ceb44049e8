"""tRPC v11's error code tables, copied from @trpc/server 11.25.2 (the version tests/e2e/node locks).

Sources: `packages/server/src/unstable-core-do-not-import/rpc/codes.ts`
(`TRPC_ERROR_CODES_BY_KEY`) and `.../http/getHTTPStatusCode.ts`
(`JSONRPC2_TO_HTTP_CODE`). test_rpc_error_codes.py checks this copy against the
installed package whenever tests/e2e/node/node_modules is present, so the copy
cannot drift silently when the lock is upgraded.
"""

from __future__ import annotations

TRPC_VERSION = "11.25.2"

TRPC_ERROR_CODES_BY_KEY: dict[str, int] = {
    "PARSE_ERROR": -32700,
    "BAD_REQUEST": -32600,
    "INTERNAL_SERVER_ERROR": -32603,
    "NOT_IMPLEMENTED": -32603,
    "BAD_GATEWAY": -32603,
    "SERVICE_UNAVAILABLE": -32603,
    "GATEWAY_TIMEOUT": -32603,
    "UNAUTHORIZED": -32001,
    "PAYMENT_REQUIRED": -32002,
    "FORBIDDEN": -32003,
    "NOT_FOUND": -32004,
    "METHOD_NOT_SUPPORTED": -32005,
    "TIMEOUT": -32008,
    "CONFLICT": -32009,
    "PRECONDITION_FAILED": -32012,
    "PAYLOAD_TOO_LARGE": -32013,
    "UNSUPPORTED_MEDIA_TYPE": -32015,
    "UNPROCESSABLE_CONTENT": -32022,
    "PRECONDITION_REQUIRED": -32028,
    "TOO_MANY_REQUESTS": -32029,
    "CLIENT_CLOSED_REQUEST": -32099,
}

JSONRPC2_TO_HTTP_CODE: dict[str, int] = {
    "PARSE_ERROR": 400,
    "BAD_REQUEST": 400,
    "UNAUTHORIZED": 401,
    "PAYMENT_REQUIRED": 402,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "METHOD_NOT_SUPPORTED": 405,
    "TIMEOUT": 408,
    "CONFLICT": 409,
    "PRECONDITION_FAILED": 412,
    "PAYLOAD_TOO_LARGE": 413,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "UNPROCESSABLE_CONTENT": 422,
    "PRECONDITION_REQUIRED": 428,
    "TOO_MANY_REQUESTS": 429,
    "CLIENT_CLOSED_REQUEST": 499,
    "INTERNAL_SERVER_ERROR": 500,
    "NOT_IMPLEMENTED": 501,
    "BAD_GATEWAY": 502,
    "SERVICE_UNAVAILABLE": 503,
    "GATEWAY_TIMEOUT": 504,
}


def batch_http_status(statuses: list[int]) -> int:
    """tRPC's `getHTTPStatusCode` for a batch: the common status, or 207 when they differ."""
    return statuses[0] if len(set(statuses)) == 1 else 207
