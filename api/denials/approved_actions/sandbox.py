"""The sandbox target: a recorded fake clearinghouse / payer portal inside the platform (pure).

Given the action kind and the payload's SHA-256 it answers the way a clearinghouse or a payer
portal would: an acknowledgement with a tracking number derived from the digest (the same payload
always gets the same number), or a rejection when the target is ``sandbox-reject``. It never sees
the payload itself, only its digest, and never leaves the process.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

TARGETS: tuple[str, ...] = ("sandbox-clearinghouse", "sandbox-payer-portal", "sandbox-reject")
REJECTING = "sandbox-reject"
#: Where each kind goes when no target is named.
DEFAULT_TARGET = {
    "submit_appeal_packet": "sandbox-payer-portal",
    "send_corrected_claim": "sandbox-clearinghouse",
    "portal_message": "sandbox-payer-portal",
}
_PREFIX = {"submit_appeal_packet": "APL", "send_corrected_claim": "CCL", "portal_message": "MSG"}


@dataclass(frozen=True)
class SandboxAnswer:
    accepted: bool
    tracking_number: str | None
    response: dict[str, Any]


def tracking_number(kind: str, payload_digest: str) -> str:
    """SBX-<kind prefix>-<12 hex of SHA-256(kind:digest)>, upper case: stable for one payload."""
    mark = hashlib.sha256(f"{kind}:{payload_digest}".encode()).hexdigest()[:12].upper()
    return f"SBX-{_PREFIX.get(kind, 'ACT')}-{mark}"


def submit(kind: str, payload_digest: str, target: str) -> SandboxAnswer:
    """The sandbox's answer to one submission (deterministic)."""
    if target not in TARGETS:
        return SandboxAnswer(False, None, {"accepted": False, "code": "SBX-UNKNOWN-TARGET", "sandbox": True})
    if target == REJECTING:
        return SandboxAnswer(
            False,
            None,
            {"accepted": False, "code": "SBX-REJECTED", "reason": "refused by the sandbox target", "sandbox": True},
        )
    number = tracking_number(kind, payload_digest)
    return SandboxAnswer(
        True,
        number,
        {
            "accepted": True,
            "code": "SBX-ACK",
            "trackingNumber": number,
            "payloadDigest": payload_digest,
            "target": target,
            "sandbox": True,
        },
    )
