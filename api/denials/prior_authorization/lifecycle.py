"""The authorization request's lifecycle (pure): one table of moves.

requested -> pending (the payer acknowledged it, a case number) -> approved (number, units, valid from/to)
| denied (reason); a request may be decided at once (requested -> approved / denied); a denial may be
reconsidered (denied -> pending: a peer-to-peer or a resubmission with more records); anything not
final may be withdrawn (the service was cancelled or rescheduled). ``expired`` is not stored: an
approval past its valid-to date is answered ``expired`` at read (``coverage.py`` decides, from the
dates, which services it still covers), so no sweep has to run for it to be true.
"""

from __future__ import annotations

from api.core.lifecycle import machine

AUTHORIZATION = machine(
    "prior authorization",
    {
        "requested": {"pending", "approved", "denied", "withdrawn"},
        "pending": {"approved", "denied", "withdrawn"},
        "approved": {"withdrawn"},
        "denied": {"pending", "withdrawn"},
        "withdrawn": set(),
    },
)
