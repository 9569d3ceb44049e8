"""The operational half of revenueInvalidation: the denial cases decided lost or written off
(cases.service.lost_cases, with the last payer decision from outcomes.service.last_outcomes) as
`reasons.Item`s, dated on the client's calendar (deadlines.service.client_zone). Read only; never commits."""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from api.denials.cases import service as cases
from api.denials.deadlines import service as deadlines
from api.denials.outcomes import service as outcomes
from api.intelligence.revenue_invalidation import reasons


def case_items(db: Session, *, first: date | None, last: date | None, payer: str | None) -> list[reasons.Item]:
    """The client's lost and written-off cases decided in [first, last] (either open), of one payer (upper-case
    key) when given, with something left unrecovered."""
    zone = deadlines.client_zone(db)
    found = [c for c in cases.lost_cases(db) if c.amount_not_recovered > 0]
    last_outcomes = outcomes.last_outcomes(db, [c.case_id for c in found])
    out = []
    for c in found:
        day = c.decided_at.astimezone(zone).date()  # UTC-aware on both databases (UtcDateTime)
        payer_key = c.payer.upper()
        if (first and day < first) or (last and day > last) or (payer and payer_key != payer):
            continue
        outcome = last_outcomes.get(c.case_id)
        reason = reasons.case_reason(
            c.denial_category,
            c.group_code,
            decision=c.decision,
            last_outcome=outcome[0] if outcome else None,
            due_on=c.appeal_due_on,
            decided_on=day,
        )
        note = c.reason if reason == "written_off" else None
        out.append(
            reasons.Item(c.claim_key, payer_key, c.amount_not_recovered, day, reason, "case", c.case_id, c.carc, note)
        )
    return out
