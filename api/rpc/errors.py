"""tRPC's error code table, the wire error type, and the one mapping from domain errors.

Domain code raises `api.core.errors` classes (`NotFound("Claim 12 ...")`) and
never a tRPC code; `to_rpc_error` is the only place that turns them into
`RpcError`s. `RpcError` itself is raised only by the RPC layer (malformed
requests, wrong methods, body limits). Messages are shown to people: say what
to fix, and never echo PHI.
"""

from __future__ import annotations

import errno
from typing import Any

from api.core import errors as domain

# tRPC v11 TRPC_ERROR_CODES_BY_KEY and its HTTP status mapping.
ERROR_CODES: dict[str, tuple[int, int]] = {
    "PARSE_ERROR": (-32700, 400),
    "BAD_REQUEST": (-32600, 400),
    "INTERNAL_SERVER_ERROR": (-32603, 500),
    "NOT_IMPLEMENTED": (-32603, 501),
    "BAD_GATEWAY": (-32603, 502),
    "SERVICE_UNAVAILABLE": (-32603, 503),
    "GATEWAY_TIMEOUT": (-32603, 504),
    "UNAUTHORIZED": (-32001, 401),
    "PAYMENT_REQUIRED": (-32002, 402),
    "FORBIDDEN": (-32003, 403),
    "NOT_FOUND": (-32004, 404),
    "METHOD_NOT_SUPPORTED": (-32005, 405),
    "TIMEOUT": (-32008, 408),
    "CONFLICT": (-32009, 409),
    "PRECONDITION_FAILED": (-32012, 412),
    "PRECONDITION_REQUIRED": (-32028, 428),
    "PAYLOAD_TOO_LARGE": (-32013, 413),
    "UNSUPPORTED_MEDIA_TYPE": (-32015, 415),
    "UNPROCESSABLE_CONTENT": (-32022, 422),
    "TOO_MANY_REQUESTS": (-32029, 429),
    "CLIENT_CLOSED_REQUEST": (-32099, 499),
}


class RpcError(Exception):
    """An error a caller can act on; `code` is a key of ERROR_CODES."""

    def __init__(self, code: str, message: str, *, data: dict[str, Any] | None = None, retry_after: int | None = None):
        if code not in ERROR_CODES:
            raise ValueError(f"unknown tRPC error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data or {}
        # Seconds: served as `data.retryAfter` and, by the HTTP layer, as the Retry-After header.
        self.retry_after = retry_after

    @property
    def json_rpc_code(self) -> int:
        return ERROR_CODES[self.code][0]

    @property
    def http_status(self) -> int:
        return ERROR_CODES[self.code][1]


# The one mapping of the domain's error vocabulary to tRPC codes. Subclasses map
# through their nearest listed base (a new domain error must derive from one).
DOMAIN_ERROR_CODES: dict[type[domain.DomainError], str] = {
    domain.InvalidInput: "BAD_REQUEST",
    domain.Unauthenticated: "UNAUTHORIZED",
    domain.Forbidden: "FORBIDDEN",
    domain.NotFound: "NOT_FOUND",
    domain.Conflict: "CONFLICT",
    domain.PreconditionFailed: "PRECONDITION_FAILED",
    domain.RateLimited: "TOO_MANY_REQUESTS",
    domain.Unavailable: "SERVICE_UNAVAILABLE",
}


# A full disk (or quota, or file-size limit) under DATA_DIR or the database: the call saved nothing (the
# spool and the landing zone write to temporary names first; the database rolls back), so it is answered
# as a service problem the caller can simply repeat, not as a bug.
_STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
STORAGE_FULL_RETRY_S = 60


def storage_full(exc: BaseException) -> RpcError | None:
    """SERVICE_UNAVAILABLE with Retry-After when `exc` says the storage is full, else None. Knows the OS
    error numbers, SQLite's SQLITE_FULL and PostgreSQL's disk_full (SQLSTATE 53100) on a driver error."""
    orig = getattr(exc, "orig", None)  # SQLAlchemy wraps the driver's error
    full = (
        (isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNOS)
        or getattr(orig, "sqlite_errorname", None) == "SQLITE_FULL"
        or getattr(orig, "sqlstate", None) == "53100"
    )
    if not full:
        return None
    return RpcError(
        "SERVICE_UNAVAILABLE",
        "The platform's storage is full, so nothing was saved. Send the same request again once an operator "
        "has freed space.",
        retry_after=STORAGE_FULL_RETRY_S,
    )


# The database went away under a call (restarted, failed over, stopped) or cannot be reached: SQLAlchemy
# marks a broken connection as invalidated (and its pool reconnects on the next checkout); psycopg gives
# SQLSTATE class 08 (connection exception, PostgreSQL Appendix A) or 57P01-57P03 (admin or crash shutdown,
# cannot connect now), or no SQLSTATE at all when no connection could be made.
_SHUTDOWN_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})
DATABASE_RETRY_S = 5


def database_unavailable(exc: BaseException) -> RpcError | None:
    """SERVICE_UNAVAILABLE with Retry-After when `exc` is the database going away or being unreachable."""
    orig = getattr(exc, "orig", None)
    if not getattr(exc, "connection_invalidated", False):
        if orig is None or not hasattr(orig, "sqlstate"):  # only PostgreSQL's driver carries a SQLSTATE
            return None
        state = orig.sqlstate
        gone = state is not None and (state.startswith("08") or state in _SHUTDOWN_SQLSTATES)
        unreachable = state is None and type(orig).__name__ == "OperationalError"
        if not (gone or unreachable):
            return None
    return RpcError(
        "SERVICE_UNAVAILABLE",
        "The database is not reachable right now (it may be restarting), so this call did not complete. Retry in "
        "a few seconds; if it was a change, check whether it took effect before sending it again.",
        retry_after=DATABASE_RETRY_S,
    )


def to_rpc_error(exc: domain.DomainError) -> RpcError:
    """The wire form of a domain error: its code from DOMAIN_ERROR_CODES, its message and details."""
    for cls in type(exc).__mro__:
        code = DOMAIN_ERROR_CODES.get(cls)
        if code is not None:
            retry_after = exc.retry_after if isinstance(exc, domain.RateLimited) else None
            return RpcError(code, exc.message, data=dict(exc.details), retry_after=retry_after)
    raise TypeError(f"{type(exc).__name__} derives from no mapped domain error")


def error_envelope(err: RpcError, path: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {"code": err.code, "httpStatus": err.http_status, "path": path}
    data.update(err.data)
    if err.retry_after is not None:
        data["retryAfter"] = err.retry_after
    return {"error": {"message": err.message, "code": err.json_rpc_code, "data": data}}
