"""The onboarding request lifecycle and its separation-of-duties rule (pure, no I/O).

submitted -> in_review (openReview) -> approved | rejected (decide) -> provisioned (provision) -> live.
A review can be put on hold and resumed; a request can be withdrawn until it is provisioned; a live
client can be suspended and brought back. rejected and withdrawn are final.

`decide` and `provision` do work beyond the move (the decision's author, the new client), so the moves
into approved, rejected and provisioned are theirs alone; transitionLifecycle makes every other move.
"""

from __future__ import annotations

from api.core.errors import Forbidden, InvalidInput
from api.core.lifecycle import machine, transition

ONBOARDING = machine(
    "onboarding request",
    {
        "submitted": {"in_review", "withdrawn"},
        "in_review": {"approved", "rejected", "on_hold", "withdrawn"},
        "on_hold": {"in_review", "withdrawn"},
        "approved": {"provisioned", "withdrawn"},
        "rejected": set(),
        "withdrawn": set(),
        "provisioned": {"live"},
        "live": {"suspended"},
        "suspended": {"live"},
    },
)

INITIAL_STATE = "submitted"
DECISIONS = frozenset({"approved", "rejected"})
# Moves only the named procedure makes (it does more than change the state).
DEDICATED_TARGETS: dict[str, str] = {
    "approved": "hospitalOnboarding.decide",
    "rejected": "hospitalOnboarding.decide",
    "provisioned": "hospitalOnboarding.provision",
}
FINAL_STATES = frozenset(state for state in ONBOARDING.states if not ONBOARDING.allowed(state))


def generic_move(current: str, target: str) -> str:
    """A transitionLifecycle move: any declared move except those `decide` and `provision` make."""
    if target in DEDICATED_TARGETS:
        raise InvalidInput(f"Invalid input: 'to' cannot be '{target}' here; use {DEDICATED_TARGETS[target]}")
    return transition(ONBOARDING, current, target)


def decision_move(current: str, decision: str) -> str:
    """The move `decide` makes: in_review -> approved | rejected."""
    if decision not in DECISIONS:
        raise InvalidInput(f"Invalid input: 'decision' must be one of {', '.join(sorted(DECISIONS))}")
    return transition(ONBOARDING, current, decision)


def check_decider(submitted_by_user_id: int, decider_user_id: int) -> None:
    """Separation of duties: nobody decides the onboarding request they submitted."""
    if submitted_by_user_id == decider_user_id:
        raise Forbidden("You submitted this onboarding request; another administrator must decide it")
