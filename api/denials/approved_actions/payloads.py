"""Who can tell an action's payload digest now: one checker per action kind, subscribed by the
composition root (`api/app.py`) to `Services.payload_checkers` (a `Keyed` hook limited to `KINDS`), so
the namespaces that own payloads (drafts, appeal packets) are not imported here and import nothing
from here.

A checker (`api.core.services.PayloadChecker`) takes the tenant-scoped session and the action's
`payload_ref` and answers what the payload is now (`PayloadFacts`: its SHA-256, the case it belongs to, who wrote or assembled it), or
None when it is gone (missing in this client, discarded, of the wrong kind, a malformed reference).
An action is requested only for a kind with a checker, only on the case its payload belongs to (a
$1 case may not carry a $50,000 case's packet: issue 23), and runs only while the checker still
answers the digest and the case it was approved with.
"""

from __future__ import annotations

#: Action kinds (the `kind` of approvedActions.request).
KINDS: tuple[str, ...] = ("submit_appeal_packet", "send_corrected_claim", "portal_message")


def other_case_message(payload_ref: str, description: str, payload_case_id: int, action_case_id: int) -> str:
    """Why a payload may not be carried by an action of another case: both references, ids only (the
    reference passed the input's pattern; no claim key, payer or content)."""
    return (
        f"payloadRef '{payload_ref}' is {description} of case {payload_case_id}, not of case {action_case_id} "
        "(caseId): an action carries only its own case's payload, whose amount sets the approvers; "
        f"request it on case {payload_case_id}"
    )
