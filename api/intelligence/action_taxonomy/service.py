"""actionTaxonomy: the built-in actions plus the client's own. Functions take the tenant-scoped Session
and plain values; they never commit (the executor commits the call with its audit event).

A built-in key cannot be redefined by a client (CONFLICT): the built-ins mean the same thing for every
client, so strategies and rankings that name them compare across clients. A client that works an action
with another effort adds its own action under another key (e.g. ``appeal-level-1-short``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput
from api.intelligence.action_taxonomy import catalogue
from api.intelligence.action_taxonomy.models import RecoveryAction

#: A client's own actions, at most: the whole vocabulary is read at once by the ranking.
MAX_CLIENT_ACTIONS = 200


@dataclass(frozen=True)
class Action:
    """One action of the caller's vocabulary."""

    key: str
    label: str
    kind: str
    effort_hours: Decimal
    applies_to: tuple[str, ...]
    active: bool
    built_in: bool
    effort_rationale: str | None  # a built-in's reason for its effort; a client's own: None

    def applies(self, category: str | None) -> bool:
        return (category or "other") in self.applies_to


@dataclass(frozen=True)
class ActionChange:
    key: str
    label: str
    kind: str
    effort_hours: Decimal
    applies_to: tuple[str, ...]
    active: bool = True


def _built_in(b: catalogue.BuiltIn) -> Action:
    return Action(b.key, b.label, b.kind, b.effort_hours, b.applies_to, True, True, b.effort_rationale)


def _own(row: RecoveryAction) -> Action:
    return Action(row.key, row.label, row.kind, row.effort_hours, tuple(row.applies_to), row.active, False, None)


def vocabulary(db: Session) -> list[Action]:
    """Every action of the caller's client (built-ins first, then its own by key), inactive ones included."""
    own = db.scalars(select(RecoveryAction).order_by(RecoveryAction.key)).all()
    return [*(_built_in(b) for b in catalogue.BUILT_INS), *(_own(r) for r in own)]


def find(db: Session, key: str) -> Action | None:
    """The action named `key` (built-in or the client's own, active or not), or None."""
    if key in catalogue.BY_KEY:
        return _built_in(catalogue.BY_KEY[key])
    row = db.scalar(select(RecoveryAction).where(RecoveryAction.key == key))
    return None if row is None else _own(row)


def listed(
    db: Session, *, kind: str | None = None, category: str | None = None, include_inactive: bool = False
) -> list[Action]:
    """The vocabulary filtered by kind and by a category it applies to, ordered by key."""
    found = [
        a
        for a in vocabulary(db)
        if (include_inactive or a.active)
        and (kind is None or a.kind == kind)
        and (category is None or category in a.applies_to)
    ]
    return sorted(found, key=lambda a: a.key)


def _check(change: ActionChange) -> None:
    problem = catalogue.check_key(change.key)
    if problem:
        raise InvalidInput(f"Invalid input: 'key': {problem}")
    if change.kind not in catalogue.KINDS:
        raise InvalidInput(f"Invalid input: 'kind' must be one of {', '.join(catalogue.KINDS)}")
    unknown = sorted(set(change.applies_to) - set(catalogue.CATEGORIES))
    if unknown:
        raise InvalidInput(f"Invalid input: 'appliesTo' names unknown denial categories: {', '.join(unknown)}")
    if not change.applies_to:
        raise InvalidInput("Invalid input: 'appliesTo' needs at least one denial category")


def upsert(db: Session, change: ActionChange, *, user_id: int) -> tuple[Action, bool]:
    """Create or update the client's own action `change.key`; (the action, whether it was created).
    A built-in key is a CONFLICT (built-ins are the same for every client)."""
    _check(change)
    if change.key in catalogue.BY_KEY:
        raise Conflict(
            f"'{change.key}' is a built-in action and cannot be redefined; add your own action under another key"
        )
    row = db.scalar(select(RecoveryAction).where(RecoveryAction.key == change.key))
    created = row is None
    if row is None:
        if (db.scalar(select(func.count()).select_from(RecoveryAction)) or 0) >= MAX_CLIENT_ACTIONS:
            raise Conflict(f"A client has at most {MAX_CLIENT_ACTIONS} own actions; deactivate or reuse one")
        row = RecoveryAction(key=change.key)
        db.add(row)
    row.label = change.label
    row.kind = change.kind
    row.effort_hours = change.effort_hours
    row.applies_to = sorted(set(change.applies_to))
    row.active = change.active
    row.updated_by = user_id
    db.flush()
    return _own(row), created


def applicable(actions: Sequence[Action], category: str | None) -> list[Action]:
    """The active actions that apply to a denial category (a case without one counts as 'other')."""
    return [a for a in actions if a.active and a.applies(category)]
