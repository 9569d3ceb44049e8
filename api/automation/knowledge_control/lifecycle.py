"""The knowledge version lifecycle (pure, no I/O).

pending_approval -> approved (by a person other than its author) or retired (withdrawn before use);
approved -> retired. Retired is final. Which approved version is *active* is computed (`rules.active`):
the highest approved version of its (kind, key); the others approved are superseded.
"""

from __future__ import annotations

from api.core.lifecycle import machine

KNOWLEDGE_VERSION = machine(
    "knowledge version",
    {
        "pending_approval": {"approved", "retired"},
        "approved": {"retired"},
        "retired": set(),
    },
)
