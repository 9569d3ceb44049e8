"""Explicit lifecycles: one table of allowed moves per lifecycle, one way to move.

Pure code (no database): a `StateMachine` names its states and the moves
between them; `transition` either returns the target or raises the
PRECONDITION_FAILED error that names the current state and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from api.core.errors import InvalidInput, PreconditionFailed


@dataclass(frozen=True)
class StateMachine:
    """A named lifecycle: `moves[state]` is the set of states reachable in one step."""

    name: str
    moves: Mapping[str, frozenset[str]]

    def __post_init__(self) -> None:
        unknown = {t for targets in self.moves.values() for t in targets} - set(self.moves)
        if unknown:
            raise ValueError(f"{self.name}: moves lead to undeclared state(s) {sorted(unknown)}")

    @property
    def states(self) -> frozenset[str]:
        return frozenset(self.moves)

    def allowed(self, current: str) -> frozenset[str]:
        """States reachable from `current` in one move (empty for terminal states)."""
        return self.moves.get(current, frozenset())

    def can(self, current: str, target: str) -> bool:
        return target in self.allowed(current)


def machine(name: str, moves: Mapping[str, set[str] | frozenset[str] | tuple[str, ...]]) -> StateMachine:
    """Build a StateMachine from a plain dict of state -> allowed targets."""
    return StateMachine(name, {state: frozenset(targets) for state, targets in moves.items()})


def transition(machine: StateMachine, current: str, target: str) -> str:
    """Return `target` if `current -> target` is an allowed move; else PRECONDITION_FAILED."""
    if target not in machine.states:
        raise InvalidInput(f"'{target}' is not a {machine.name} state; states: {', '.join(sorted(machine.states))}")
    if current not in machine.states:
        raise PreconditionFailed(f"The {machine.name} is in an unknown state '{current}'")
    if not machine.can(current, target):
        allowed = sorted(machine.allowed(current))
        options = f"allowed moves: {', '.join(allowed)}" if allowed else f"'{current}' is final"
        raise PreconditionFailed(
            f"The {machine.name} is '{current}' and cannot move to '{target}' ({options})",
            details={"currentState": current, "allowedMoves": allowed},
        )
    return target
