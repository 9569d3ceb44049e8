"""The delegated call lifecycle (pure, no I/O).

created -> dialing -> in_call -> completed | failed | cancelled. A call can fail or be cancelled
before it connects (created/dialing -> failed | cancelled). completed, failed and cancelled are final;
another attempt is a new delegation.
"""

from __future__ import annotations

from api.core.lifecycle import machine

DELEGATION = machine(
    "voice delegation",
    {
        "created": {"dialing", "failed", "cancelled"},
        "dialing": {"in_call", "failed", "cancelled"},
        "in_call": {"completed", "failed", "cancelled"},
        "completed": set(),
        "failed": set(),
        "cancelled": set(),
    },
)

FINAL_STATES = frozenset(state for state in DELEGATION.states if not DELEGATION.allowed(state))
#: States in which a transcript turn is accepted (a turn delivered after the outcome still counts).
TURN_STATES = frozenset({"in_call", "completed", "failed"})
