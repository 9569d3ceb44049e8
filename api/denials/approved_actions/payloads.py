"""Who can tell an action's payload digest now: one checker per action kind, registered by the
composition root (`api/app.py`), so the namespaces that own payloads (drafts, appeal packets) are
not imported here and import nothing from here.

A checker takes the tenant-scoped session and the action's `payload_ref` and answers what the
payload is now (`PayloadFacts`: its SHA-256, the case it belongs to, who wrote or assembled it), or
None when it is gone (missing in this client, discarded, of the wrong kind, a malformed reference).
An action is requested only for a kind with a checker, only on the case its payload belongs to (a
$1 case may not carry a $50,000 case's packet: issue 23), and runs only while the checker still
answers the digest and the case it was approved with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from sqlalchemy.orm import Session

#: Action kinds (the `kind` of approvedActions.request).
KINDS: tuple[str, ...] = ("submit_appeal_packet", "send_corrected_claim", "portal_message")


class PayloadFacts(Protocol):
    """What a checker answers about a payload as it is now. Each owner (drafts, appeal packets)
    answers its own frozen dataclass of this shape, so it imports nothing from here."""

    @property
    def digest(self) -> str:
        """SHA-256 (lowercase hex) of the payload's content now."""

    @property
    def case_id(self) -> int:
        """The denial case the payload belongs to: the only case an action may carry it on."""

    @property
    def description(self) -> str:
        """The payload named by ids only (e.g. "appeal packet 12"), for messages; never content."""

    @property
    def authors(self) -> Mapping[int, str]:
        """user id -> what that person did to the payload ("assembled appeal packet 12"): none of them
        may approve an action carrying it (separation of duties)."""


PayloadChecker = Callable[[Session, str], PayloadFacts | None]


def other_case_message(payload_ref: str, description: str, payload_case_id: int, action_case_id: int) -> str:
    """Why a payload may not be carried by an action of another case: both references, ids only (the
    reference passed the input's pattern; no claim key, payer or content)."""
    return (
        f"payloadRef '{payload_ref}' is {description} of case {payload_case_id}, not of case {action_case_id} "
        "(caseId): an action carries only its own case's payload, whose amount sets the approvers; "
        f"request it on case {payload_case_id}"
    )


PAYLOAD_CHECKERS: dict[str, PayloadChecker] = {}


def register_payload_checker(kind: str, fn: PayloadChecker) -> None:
    """Register the checker of one action kind. Registering the same function again is a no-op (the
    composition root may build services more than once); a second, different checker for a kind is
    refused, as is a kind that is not an action kind."""
    if kind not in KINDS:
        raise ValueError(f"'{kind}' is not an action kind; kinds: {', '.join(KINDS)}")
    existing = PAYLOAD_CHECKERS.get(kind)
    if existing is not None and existing is not fn:
        raise ValueError(f"a payload checker for '{kind}' is already registered")
    PAYLOAD_CHECKERS[kind] = fn


def checker_for(kind: str) -> PayloadChecker | None:
    return PAYLOAD_CHECKERS.get(kind)
