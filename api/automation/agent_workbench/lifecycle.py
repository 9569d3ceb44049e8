"""What a person's review does to an AI execution (pure, no I/O).

queued -> accepted (applied by a person) or rejected (nothing applied). An execution the policy applied
or refused, and one already reviewed, is final: it is never reviewed (again).
"""

from __future__ import annotations

from api.core.lifecycle import machine

EXECUTION_REVIEW = machine(
    "AI execution",
    {
        "queued": {"accepted", "rejected"},
        "accepted": set(),
        "rejected": set(),
        "applied": set(),
        "refused": set(),
    },
)
