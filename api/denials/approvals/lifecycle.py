"""The approval lifecycle (pure, no I/O).

pending -> approved (enough distinct approvers), rejected (one rejection), withdrawn (by the
requester), expired (past `expires_at`) or void (the subject changed or was discarded);
approved -> used (the approved action ran), withdrawn, expired or void. Everything else is final.
"""

from __future__ import annotations

from api.core.lifecycle import machine

APPROVAL = machine(
    "approval",
    {
        "pending": {"approved", "rejected", "withdrawn", "expired", "void"},
        "approved": {"used", "withdrawn", "expired", "void"},
        "rejected": set(),
        "withdrawn": set(),
        "expired": set(),
        "void": set(),
        "used": set(),
    },
)

#: States in which an approval still counts for something (and can lapse by time or change).
OPEN_STATES = frozenset({"pending", "approved"})
FINAL_STATES = frozenset(state for state in APPROVAL.states if not APPROVAL.allowed(state))
