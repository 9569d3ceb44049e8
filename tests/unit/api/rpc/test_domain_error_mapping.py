"""The one mapping of domain errors to tRPC codes (api/rpc/errors.py), checked against a table written here."""

from __future__ import annotations

import inspect
import os

import pytest

from api.core import errors
from api.rpc.errors import error_envelope, to_rpc_error

EXPECTED = {
    errors.InvalidInput: ("BAD_REQUEST", -32600, 400),
    errors.Unauthenticated: ("UNAUTHORIZED", -32001, 401),
    errors.Forbidden: ("FORBIDDEN", -32003, 403),
    errors.NotFound: ("NOT_FOUND", -32004, 404),
    errors.Conflict: ("CONFLICT", -32009, 409),
    errors.PreconditionFailed: ("PRECONDITION_FAILED", -32012, 412),
    errors.RateLimited: ("TOO_MANY_REQUESTS", -32029, 429),
    errors.Unavailable: ("SERVICE_UNAVAILABLE", -32603, 503),
}


def test_every_domain_error_class_is_in_the_table():
    # A new error class in api.core.errors must be mapped (and added here) before code can raise it.
    declared = {
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.DomainError) and cls is not errors.DomainError
    }
    assert declared == set(EXPECTED)


@pytest.mark.parametrize(("cls", "expected"), list(EXPECTED.items()), ids=lambda v: getattr(v, "__name__", ""))
def test_each_domain_error_has_its_trpc_code(cls, expected):
    err = to_rpc_error(cls("Claim 12 was not found", details={"currentState": "open"}))
    assert (err.code, err.json_rpc_code, err.http_status) == expected
    envelope = error_envelope(err, "claims.get")["error"]
    assert envelope["message"] == "Claim 12 was not found"
    assert envelope["data"]["currentState"] == "open"
    assert envelope["data"]["path"] == "claims.get"


def test_a_subclass_takes_its_parents_code():
    class StaleVersion(errors.Conflict):
        pass

    assert to_rpc_error(StaleVersion("the draft changed since you read it")).code == "CONFLICT"


def test_the_unmapped_base_is_refused_not_guessed():
    with pytest.raises(TypeError, match="no mapped domain error"):
        to_rpc_error(errors.DomainError("raised without a kind"))


def test_a_full_disk_quota_or_file_size_limit_is_service_unavailable_with_a_retry() -> None:
    import errno

    from api.rpc.errors import STORAGE_FULL_RETRY_S, storage_full

    for number in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        err = storage_full(OSError(number, os.strerror(number)))
        assert err is not None
        assert (err.code, err.http_status, err.retry_after) == ("SERVICE_UNAVAILABLE", 503, STORAGE_FULL_RETRY_S)
        assert "nothing was saved" in err.message
    assert storage_full(OSError(errno.EACCES, "Permission denied")) is None
    assert storage_full(ValueError("no")) is None


def test_the_databases_own_disk_full_errors_are_recognised_through_sqlalchemys_wrapper() -> None:
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from api.rpc.errors import storage_full

    sqlite_full = sqlite3.OperationalError("database or disk is full")
    sqlite_full.sqlite_errorcode = sqlite3.SQLITE_FULL  # what sqlite3 sets on the error it raises
    sqlite_full.sqlite_errorname = "SQLITE_FULL"
    assert storage_full(OperationalError("INSERT ...", {}, sqlite_full)) is not None

    class PgDiskFull(Exception):
        sqlstate = "53100"  # PostgreSQL disk_full (Appendix A, class 53: insufficient resources)

    assert storage_full(OperationalError("INSERT ...", {}, PgDiskFull())) is not None
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorname = "SQLITE_BUSY"
    assert storage_full(OperationalError("INSERT ...", {}, locked)) is None


def test_the_database_going_away_is_service_unavailable_and_other_database_errors_are_not() -> None:
    import sqlite3

    import psycopg
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from api.rpc.errors import DATABASE_RETRY_S, database_unavailable

    class AdminShutdown(psycopg.OperationalError):
        sqlstate = "57P01"  # terminating connection due to administrator command

    class ConnectionFailure(psycopg.OperationalError):
        sqlstate = "08006"

    class UndefinedTable(psycopg.errors.ProgrammingError):
        sqlstate = "42P01"

    for orig in (AdminShutdown(), ConnectionFailure(), psycopg.OperationalError("connection refused")):
        err = database_unavailable(OperationalError("SELECT 1", {}, orig))
        assert err is not None and (err.code, err.retry_after) == ("SERVICE_UNAVAILABLE", DATABASE_RETRY_S)
    invalidated = OperationalError("SELECT 1", {}, Exception("gone"), connection_invalidated=True)
    assert database_unavailable(invalidated) is not None
    assert database_unavailable(ProgrammingError("SELECT x", {}, UndefinedTable())) is None
    assert (
        database_unavailable(OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked"))) is None
    )
    assert database_unavailable(OSError("no")) is None
