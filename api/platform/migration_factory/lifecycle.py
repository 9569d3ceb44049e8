"""The migration lifecycle (pure, no I/O).

planned (the export read) -> dry_run (the plan computed; it can be computed again) -> committed (final).
"""

from __future__ import annotations

from api.core.lifecycle import machine

MIGRATION = machine(
    "migration",
    {
        "planned": {"dry_run"},
        "dry_run": {"dry_run", "committed"},
        "committed": set(),
    },
)
INITIAL_STATE = "planned"
