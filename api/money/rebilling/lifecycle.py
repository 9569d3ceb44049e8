"""The rebill lifecycle: draft -> ready -> submitted -> accepted | rejected (pure)."""

from __future__ import annotations

from api.core.lifecycle import machine

REBILL = machine(
    "rebill",
    {
        "draft": {"ready"},
        "ready": {"submitted", "draft"},
        "submitted": {"accepted", "rejected"},
        "accepted": set(),
        "rejected": set(),
    },
)
