"""The draft lifecycle (pure, no I/O).

editing -> in_approval (an approval is requested on the current version) -> approved (granted) or
back to editing (rejected, withdrawn, expired or voided); an approved draft goes back to editing when
its approval is withdrawn or expires. Any state but discarded -> discarded (final).

A draft is LOCKED while an approval on it is pending or granted: a new version would no longer be
what was approved, so `drafts.update` is refused naming the state. To change an approved draft the
author withdraws the approval first (`approvals.withdraw`), or an approver rejects a pending one.
"""

from __future__ import annotations

from datetime import datetime

from api.core.lifecycle import machine

DRAFT = machine(
    "draft",
    {
        "editing": {"in_approval", "discarded"},
        "in_approval": {"approved", "editing", "discarded"},
        "approved": {"editing", "discarded"},
        "discarded": set(),
    },
)

KINDS: tuple[str, ...] = ("appeal_letter", "corrected_claim", "note")
LOCKED_STATES = frozenset({"in_approval", "approved"})


def effective_state(state: str, locked_until: datetime | None, now: datetime) -> str:
    """The state as of `now`: a lock whose approval has expired no longer holds (the draft is editing)."""
    if state in LOCKED_STATES and locked_until is not None and locked_until <= now:
        return "editing"
    return state


def lock_message(state: str) -> str:
    """Why a locked draft cannot be edited, and what to do (no content)."""
    if state == "in_approval":
        return (
            "The draft is 'in_approval': an approval on it is pending, so it cannot be edited; "
            "withdraw the approval (approvals.withdraw) or have it rejected first"
        )
    return (
        f"The draft is '{state}': a new version would void its approval, so it cannot be edited; "
        "withdraw the approval (approvals.withdraw) first"
    )
