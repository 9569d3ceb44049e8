"""The approved-action lifecycle (pure, no I/O).

pending_approval -> approved | rejected | expired | void (its approval was withdrawn, or the
payload changed); approved -> executed | failed (the target refused) | expired | void. An action
runs at most once: executed and failed are final, like every state but the first two.

The action follows its approval: `state_for_approval` maps the approval's state (as of now) to the
action's, and approvedActions writes it back whenever it reads the action in a mutation.
"""

from __future__ import annotations

from api.core.lifecycle import machine

ACTION = machine(
    "approved action",
    {
        "pending_approval": {"approved", "rejected", "expired", "void"},
        "approved": {"executed", "failed", "expired", "void"},
        "rejected": set(),
        "expired": set(),
        "void": set(),
        "executed": set(),
        "failed": set(),
    },
)

OPEN_STATES = frozenset({"pending_approval", "approved"})
RAN_STATES = frozenset({"executed", "failed"})

_FROM_APPROVAL = {
    "pending": "pending_approval",
    "approved": "approved",
    "rejected": "rejected",
    "expired": "expired",
    "withdrawn": "void",
    "void": "void",
}


def state_for_approval(action_state: str, approval_state: str) -> str:
    """The action's state given its approval's: it only ever moves forward (an action that ran, or is
    closed, stays as it is)."""
    target = _FROM_APPROVAL.get(approval_state, action_state)
    return target if ACTION.can(action_state, target) else action_state
