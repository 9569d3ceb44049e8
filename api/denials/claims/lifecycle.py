"""The claim lifecycle: one declared table of moves (pure, no I/O).

draft -> in_review -> correction_requested -> corrected -> in_review ...; in_review ->
ready_for_submission_preparation -> approved_for_submission_preparation (by someone other than the
requester) -> submitted -> adjudicated_paid / adjudicated_partially_paid / adjudicated_denied -> closed.
A claim can be withdrawn from any state before submission. An adjudicated claim can be adjudicated
again (a payer reprocesses it: a denial overturned, a payment reversed) until it is closed. The
approver can still send a claim that is ready for preparation back for correction.
"""

from __future__ import annotations

from api.core.lifecycle import machine

ADJUDICATED_STATES = frozenset({"adjudicated_paid", "adjudicated_partially_paid", "adjudicated_denied"})
PRE_SUBMISSION_STATES = frozenset(
    {
        "draft",
        "in_review",
        "correction_requested",
        "corrected",
        "ready_for_submission_preparation",
        "approved_for_submission_preparation",
    }
)
FINAL_STATES = frozenset({"closed", "withdrawn"})

CLAIM = machine(
    "claim",
    {
        "draft": {"in_review", "withdrawn"},
        "in_review": {"correction_requested", "ready_for_submission_preparation", "withdrawn"},
        "correction_requested": {"corrected", "withdrawn"},
        "corrected": {"in_review", "withdrawn"},
        "ready_for_submission_preparation": {
            "approved_for_submission_preparation",
            "correction_requested",
            "withdrawn",
        },
        "approved_for_submission_preparation": {"submitted", "withdrawn"},
        "submitted": ADJUDICATED_STATES,
        "adjudicated_paid": {"adjudicated_partially_paid", "adjudicated_denied", "closed"},
        "adjudicated_partially_paid": {"adjudicated_paid", "adjudicated_denied", "closed"},
        "adjudicated_denied": {"adjudicated_paid", "adjudicated_partially_paid", "closed"},
        "closed": set(),
        "withdrawn": set(),
    },
)


def path_to(current: str, target: str, *, avoiding: frozenset[str] = frozenset({"withdrawn"})) -> list[str]:
    """The shortest sequence of declared moves from `current` to `target` (the states entered, in order;
    empty when there is none), never passing through `avoiding`."""
    paths: dict[str, list[str]] = {current: []}
    frontier = [current]
    while frontier:
        following = []
        for state in frontier:
            for nxt in sorted(CLAIM.allowed(state) - avoiding):
                if nxt not in paths:
                    paths[nxt] = [*paths[state], nxt]
                    following.append(nxt)
        if target in paths:
            return paths[target]
        frontier = following
    return []
