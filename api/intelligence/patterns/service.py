"""patterns: confirmations of mined patterns. Functions take the tenant-scoped Session and plain values;
they never commit (the executor commits the call with its audit event)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, NotFound
from api.intelligence.patterns.cells import Window
from api.intelligence.patterns.mining import Pattern
from api.intelligence.patterns.models import ConfirmedPattern


def confirmations(db: Session) -> dict[str, ConfirmedPattern]:
    """The client's confirmations by pattern key."""
    return {c.pattern_key: c for c in db.scalars(select(ConfirmedPattern))}


def confirmed(db: Session, pattern_key: str) -> ConfirmedPattern:
    """The client's confirmation of `pattern_key`, or NOT_FOUND."""
    found = db.scalar(select(ConfirmedPattern).where(ConfirmedPattern.pattern_key == pattern_key))
    if found is None:
        raise NotFound(
            "No confirmed pattern of this client has this patternKey; confirm it with patterns.confirm first"
        )
    return found


def confirm(
    db: Session,
    pattern: Pattern,
    window: Window,
    *,
    snapshot_built_at: datetime,
    user_id: int,
    note: str | None,
) -> ConfirmedPattern:
    """Record that a person of the client judged `pattern` (found in `window`) a real root cause; once per
    client and pattern key (CONFLICT after)."""
    if db.scalar(select(ConfirmedPattern.id).where(ConfirmedPattern.pattern_key == pattern.pattern_key)):
        raise Conflict("This pattern is already confirmed for this client")
    cell = pattern.cell
    row = ConfirmedPattern(
        pattern_key=pattern.pattern_key,
        payer_key=cell.payer_key,
        denial_category=cell.category,
        carc=cell.carc,
        service_line=cell.service_line,
        facility=cell.facility,
        from_month=window.first,
        to_month=window.last,
        claims=pattern.claims,
        denied=pattern.denied,
        rate=pattern.rate,
        q_value=pattern.q_value,
        snapshot_built_at=snapshot_built_at,
        confirmed_by=user_id,
        note=note,
    )
    db.add(row)
    db.flush()
    return row
