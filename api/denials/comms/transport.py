"""Transports: what carries a rendered message to the payer, behind one small interface.

Only the sandbox exists. It is a recorded fake inside the platform: it never leaves the process,
and answers the way a fax gateway or payer portal would (a reference, then a delivery report), so
the whole flow can be exercised end to end. A real transport is a class with `submit` registered
under its name in `TRANSPORTS` (configuration, not code in the service); until one is, asking for
anything but the sandbox is PRECONDITION_FAILED.

The sandbox is deterministic (pure): the same request gives the same answer. Reserved recipients
exercise the failure paths:

- portal id ``sandbox-reject``: refused at submission (queued -> failed);
- fax number ``0000000000`` or an address containing ``UNDELIVERABLE``: accepted, then not
  delivered (queued -> sent -> failed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from api.core.errors import PreconditionFailed

SANDBOX = "sandbox"
SANDBOX_REJECTED_RECIPIENTS = frozenset({"sandbox-reject"})
SANDBOX_UNDELIVERABLE_RECIPIENTS = frozenset({"0000000000", "+0000000000"})
SANDBOX_UNDELIVERABLE_MARKER = "UNDELIVERABLE"


@dataclass(frozen=True)
class OutboundRequest:
    """What a transport is given. The body travels as the rendered bytes; what is recorded of the
    request (`recorded()`) holds their digest and size, never the text."""

    message_id: int
    channel: str
    recipient: str
    content: bytes
    content_digest: str

    def recorded(self, transport: str) -> dict[str, Any]:
        return {
            "transport": transport,
            "messageId": self.message_id,
            "channel": self.channel,
            "recipient": self.recipient,
            "contentDigest": self.content_digest,
            "contentBytes": len(self.content),
        }


@dataclass(frozen=True)
class StatusReport:
    """One move the transport reports: the target status and a short reason (no message content)."""

    status: str  # sent | delivered | failed
    detail: str


@dataclass(frozen=True)
class TransportResult:
    reference: str | None  # the transport's id for the message (None when refused outright)
    reports: tuple[StatusReport, ...]
    response: dict[str, Any]  # recorded as received


class Transport(Protocol):
    name: str

    def submit(self, request: OutboundRequest) -> TransportResult: ...


class SandboxTransport:
    """The recorded fake: accepts, then reports delivered (or the reserved failures above)."""

    name = SANDBOX

    def submit(self, request: OutboundRequest) -> TransportResult:
        if request.recipient in SANDBOX_REJECTED_RECIPIENTS:
            return TransportResult(
                reference=None,
                reports=(StatusReport("failed", "rejected by the sandbox: recipient refused at submission"),),
                response={"accepted": False, "code": "SBX-REJECTED", "sandbox": True},
            )
        reference = f"SBX-{request.message_id}-{request.content_digest[:12]}"
        delivered = not (
            request.recipient in SANDBOX_UNDELIVERABLE_RECIPIENTS
            or SANDBOX_UNDELIVERABLE_MARKER in request.recipient.upper()
        )
        final = (
            StatusReport("delivered", "delivery confirmed by the sandbox")
            if delivered
            else StatusReport("failed", "not delivered: the sandbox recipient is undeliverable")
        )
        return TransportResult(
            reference=reference,
            reports=(StatusReport("sent", "accepted by the sandbox"), final),
            response={
                "accepted": True,
                "reference": reference,
                "code": "SBX-DELIVERED" if delivered else "SBX-UNDELIVERABLE",
                "contentDigest": request.content_digest,
                "sandbox": True,
            },
        )


TRANSPORTS: Mapping[str, Transport] = {SANDBOX: SandboxTransport()}


def transport_for(name: str, transports: Mapping[str, Transport] = TRANSPORTS) -> Transport:
    """The configured transport called `name`; PRECONDITION_FAILED when none is."""
    found = transports.get(name)
    if found is None:
        raise PreconditionFailed("no live transport is configured; only sandbox")
    return found
