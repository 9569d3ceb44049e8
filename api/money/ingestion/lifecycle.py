"""The lifecycles of the ingestion domain, one table each."""

from __future__ import annotations

from api.core.lifecycle import machine

# parsed: every included row valid; needs_review: some included row invalid; held: the money does
# not balance (a transaction or a claim), so only a confirm that acknowledges it with a reason posts;
# duplicate_remittance: every remittance of the file was already posted by another batch (final,
# nothing to post); parsing: a big upload stored and waiting for the job queue to parse it. A reprocess re-parses and may land in any of parsed/needs_review/held/failed.
_REPARSED = {"parsed", "needs_review", "held", "failed", "duplicate_remittance"}
IMPORT_BATCH = machine(
    "import batch",
    {
        "parsing": _REPARSED,
        "parsed": _REPARSED | {"parsing", "confirmed", "discarded"},
        "needs_review": _REPARSED | {"parsing", "discarded"},
        "held": _REPARSED | {"parsing", "confirmed", "discarded"},
        "failed": _REPARSED | {"parsing", "discarded"},
        "confirmed": set(),
        "discarded": set(),
        "duplicate_remittance": {"discarded"},
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
