"""The intervention lifecycle: planned -> active -> completed, abandoned from planned or active.

A planned intervention may be abandoned before it starts; it cannot be completed without having run.
"""

from __future__ import annotations

from api.core.lifecycle import machine

INTERVENTION = machine(
    "intervention",
    {
        "planned": {"active", "abandoned"},
        "active": {"completed", "abandoned"},
        "completed": set(),
        "abandoned": set(),
    },
)
