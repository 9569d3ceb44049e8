"""The lifecycles of the ingestion domain, one table each."""

from __future__ import annotations

from api.core.lifecycle import machine

# parsed: every included row valid; needs_review: some included row invalid.
# A reprocess re-parses and may land in any of parsed/needs_review/failed.
IMPORT_BATCH = machine(
    "import batch",
    {
        "parsed": {"needs_review", "parsed", "confirmed", "discarded", "failed"},
        "needs_review": {"parsed", "needs_review", "discarded", "failed"},
        "failed": {"parsed", "needs_review", "failed", "discarded"},
        "confirmed": set(),
        "discarded": set(),
    },
)

RECONCILIATION_EXCEPTION = machine(
    "reconciliation exception",
    {
        "open": {"resolved"},
        "resolved": set(),
    },
)

ENTRY_REVIEW = machine(
    "financial entry review",
    {
        "unreviewed": {"accepted", "flagged"},
        "flagged": {"accepted", "flagged"},
        "accepted": {"flagged"},
    },
)
