"""The outbound message lifecycle (pure, no I/O).

queued -> sent -> delivered, or failed: refused at submission (queued -> failed) or undeliverable
after the transport accepted it (sent -> failed). delivered and failed are final; a new attempt is
a new message.
"""

from __future__ import annotations

from api.core.lifecycle import machine

MESSAGE = machine(
    "message",
    {
        "queued": {"sent", "failed"},
        "sent": {"delivered", "failed"},
        "delivered": set(),
        "failed": set(),
    },
)

FINAL_STATES = frozenset(state for state in MESSAGE.states if not MESSAGE.allowed(state))
