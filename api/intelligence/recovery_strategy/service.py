"""recoveryStrategy: a manager's strategy per payer x denial category. Functions take the tenant-scoped
Session and plain values; they never commit (the executor commits the call with its audit event)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.intelligence.action_taxonomy import catalogue
from api.intelligence.action_taxonomy import service as taxonomy
from api.intelligence.recovery_strategy.models import RecoveryStrategy


def payer_key_of(payer: str) -> str:
    """The marts' payer key of a payer name (``upper(trim(payer_name))`` in the staging models)."""
    return payer.strip().upper()


def find(db: Session, payer_key: str, category: str) -> RecoveryStrategy | None:
    """The strategy set for the payer key x category, or None."""
    return db.scalar(
        select(RecoveryStrategy).where(
            RecoveryStrategy.payer_key == payer_key_of(payer_key), RecoveryStrategy.category == category
        )
    )


def set_strategy(
    db: Session, payer_key: str, category: str, action_key: str, note: str | None, *, user_id: int
) -> tuple[RecoveryStrategy, dict[str, str | None] | None]:
    """Set (or replace) the strategy of a payer key x category: (the row, what it was before or None).
    The action must be an active action of the client's taxonomy."""
    if category not in catalogue.CATEGORIES:
        raise InvalidInput(f"Invalid input: 'category' must be one of {', '.join(catalogue.CATEGORIES)}")
    action = taxonomy.find(db, action_key)
    if action is None:
        raise InvalidInput(f"Invalid input: 'actionKey' {action_key!r} is not an action; see actionTaxonomy.list")
    if not action.active:
        raise PreconditionFailed(f"Action '{action_key}' is inactive; activate it with actionTaxonomy.upsert first")
    if not action.applies(category):
        raise InvalidInput(f"Invalid input: action '{action_key}' does not apply to the category '{category}'")
    row = find(db, payer_key, category)
    before = None if row is None else {"action_key": row.action_key, "note": row.note}
    if row is None:
        row = RecoveryStrategy(payer_key=payer_key_of(payer_key), category=category)
        db.add(row)
    row.action_key = action_key
    row.note = note
    row.updated_by = user_id
    db.flush()
    return row, before
