"""The integration and run lifecycles (pure, no I/O).

An integration: draft -> validated (a passing `validate`) -> approved (another member) -> active <->
suspended -> retired. A changed configuration (`upsert`) sends it back to draft from any live state,
which voids its approval. draft, validated and approved may be retired (abandoned) too.

A run: running -> succeeded | failed (recorded) | cancelled.
"""

from __future__ import annotations

from api.core.lifecycle import machine

INTEGRATION = machine(
    "integration",
    {
        "draft": {"validated", "retired"},
        "validated": {"validated", "approved", "draft", "retired"},
        "approved": {"active", "draft", "retired"},
        "active": {"suspended", "draft"},
        "suspended": {"active", "draft", "retired"},
        "retired": set(),
    },
)

#: Moves `integrationControl.transition` makes (the others have their own procedure).
TRANSITION_MOVES = frozenset({("active", "suspended"), ("suspended", "active")}) | frozenset(
    (state, "retired") for state in ("draft", "validated", "approved", "suspended")
)

RUN = machine(
    "integration run",
    {"running": {"succeeded", "failed", "cancelled"}, "succeeded": set(), "failed": set(), "cancelled": set()},
)
