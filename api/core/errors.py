"""The domain's error vocabulary: what went wrong, in words a person can act on.

Services and domain code raise these; they know nothing of the wire. The RPC
layer maps each class to its tRPC code in exactly one place
(`api/rpc/errors.py`, `DOMAIN_ERROR_CODES`). Messages are shown to people: say
what to fix, and never echo PHI.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """Base of every error a caller can act on."""

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details or {}


class InvalidInput(DomainError):
    """The input is well-formed but not acceptable (a value, a file, a combination)."""


class Unauthenticated(DomainError):
    """No caller, or a token that does not identify one."""


class Forbidden(DomainError):
    """The caller is known but may not do this here."""


class NotFound(DomainError):
    """The thing does not exist in the caller's tenant (or at all: the two are not told apart)."""


class Conflict(DomainError):
    """The change clashes with an existing record (a duplicate, a concurrent change)."""


class PreconditionFailed(DomainError):
    """The thing is not in a state that allows this (a lifecycle move, an unconfirmed batch)."""


class RateLimited(DomainError):
    """Too many attempts or a busy resource; retry later (after `retry_after` seconds when known)."""

    def __init__(self, message: str, *, retry_after: int | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message, details=details)
        self.retry_after = retry_after


class Unavailable(DomainError):
    """A dependency of this call is not available right now (a snapshot not yet published)."""


def not_found(what: str, ident: object) -> NotFound:
    """The standard message for a record missing from the caller's client."""
    return NotFound(f"{what} {ident} was not found in this client")
