"""Who can tell an action's payload digest now: one checker per action kind, registered by the
composition root (`api/app.py`), so the namespaces that own payloads (drafts, appeal packets) are
not imported here and import nothing from here.

A checker takes the tenant-scoped session and the action's `payload_ref` and answers the SHA-256
(lowercase hex) of the payload as it is now, or None when it is gone (missing in this client,
discarded, of the wrong kind). An action is requested only for a kind with a checker, and runs only
while the checker still answers the digest it was approved with.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

#: Action kinds (the `kind` of approvedActions.request).
KINDS: tuple[str, ...] = ("submit_appeal_packet", "send_corrected_claim", "portal_message")

PayloadChecker = Callable[[Session, str], str | None]

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
