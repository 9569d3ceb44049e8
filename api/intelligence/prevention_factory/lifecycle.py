"""The prevention work item lifecycle: open -> in_progress | cancelled; in_progress -> done | cancelled
| open (back to the queue, e.g. the owner changes); done and cancelled are final."""

from __future__ import annotations

from api.core.lifecycle import machine

WORK_ITEM = machine(
    "prevention work item",
    {
        "open": {"in_progress", "cancelled"},
        "in_progress": {"done", "cancelled", "open"},
        "done": set(),
        "cancelled": set(),
    },
)
STATES = ("open", "in_progress", "done", "cancelled")
