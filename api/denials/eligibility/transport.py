"""Transports: what carries a 270 to the payer and brings its 271 back, behind one small interface.

Only the sandbox exists (`pipelines/synthetic/eligibility_payer.py`, a payer inside the platform that never
leaves the process and answers from its roster of sandbox members). The transport is chosen by the
setting `ELIGIBILITY_TRANSPORT` (default `sandbox`); a real clearinghouse connection is a class with
`exchange` registered under its name in `TRANSPORTS`; until one is, any other name is PRECONDITION_FAILED.
A transport that cannot deliver raises `TransportFailed` (the check is stored with status `error`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from api.core.errors import PreconditionFailed
from pipelines.ingest.x12.errors import X12ParseError
from pipelines.synthetic import eligibility_payer

SANDBOX = "sandbox"


class TransportFailed(Exception):
    """The 270 did not get a 271 back; the message says why without quoting either."""


class Transport(Protocol):
    name: str

    def exchange(self, request: bytes, *, now: datetime) -> bytes: ...


class SandboxTransport:
    """The sandbox payer, called in process. A 270 it cannot read fails the exchange, as a payer's 999
    rejection would."""

    name = SANDBOX

    def exchange(self, request: bytes, *, now: datetime) -> bytes:
        try:
            return eligibility_payer.respond(request, now=now)
        except X12ParseError as exc:
            raise TransportFailed(f"the sandbox payer refused the 270: {exc.detail}") from None


TRANSPORTS: Mapping[str, Transport] = {SANDBOX: SandboxTransport()}


def transport_for(name: str, transports: Mapping[str, Transport] = TRANSPORTS) -> Transport:
    """The configured transport called `name`; PRECONDITION_FAILED when none is."""
    found = transports.get(name)
    if found is None:
        raise PreconditionFailed("no eligibility transport is configured under ELIGIBILITY_TRANSPORT; only sandbox")
    return found
