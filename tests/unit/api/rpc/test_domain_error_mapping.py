"""The one mapping of domain errors to tRPC codes (api/rpc/errors.py), checked against a table written here."""

from __future__ import annotations

import inspect

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
