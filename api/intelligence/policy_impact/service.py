"""policyImpact on the operational DB: a proposed payer policy change assessed through the owners'
published services, nothing written. An appeal limit: the client's working cases of the scope
(``deadlines.working_case_ids``) with their first appeal deadline recomputed by the deadline engine with
the proposed rule added (``deadlines.appeal_moves``). An authorization requirement: the payer's claim lines
of the code or range (parsed by ``prior_authorization.parse_code_range``) over the last months
(``claims.payer_lines``) and whether an approved authorization covers each today
(``prior_authorization.covering_authorizations``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session

from api.denials.claims import service as claims
from api.denials.deadlines import service as deadlines
from api.denials.prior_authorization import service as prior_authorization
from api.intelligence.policy_impact import impact


def today(db: Session) -> date:
    return deadlines.client_today(db)


@dataclass(frozen=True, slots=True)
class Moves:
    checked: int
    truncated: bool
    moved: list[deadlines.AppealMove]


def appeal_limit(
    db: Session,
    *,
    payer_id: str | None,
    payer_type: str | None,
    days: int,
    effective_from: date,
    max_cases: int,
) -> Moves:
    """The working cases of the scope whose first appeal deadline the proposed limit moves."""
    ids = deadlines.working_case_ids(db, None if payer_id is None else [payer_id])
    proposed = impact.proposed_limits(
        deadlines.client_rules(db), payer_type=payer_type, payer_id=payer_id, days=days, effective_from=effective_from
    )
    found = deadlines.appeal_moves(db, ids[:max_cases], proposed)
    if payer_type is not None:
        found = [m for m in found if m.payer_type == payer_type]
    moved = [m for m in found if m.after is not None and m.after != m.before]
    moved.sort(key=lambda m: (m.after or date.max, m.case_id))
    return Moves(len(found), len(ids) > max_cases, moved)


@dataclass(frozen=True, slots=True)
class History:
    codes: str
    months: list[impact.Month]
    lines: int
    truncated: bool


def authorization(
    db: Session, *, payer_id: str, procedure_codes: str, months: int, as_of: date, max_lines: int
) -> History:
    """The payer's claim lines of the code or range served in the `months` up to `as_of`, per month."""
    codes = prior_authorization.parse_code_range(procedure_codes, "change.procedureCodes")
    window = impact.months_back(as_of, months)
    read = claims.payer_lines(db, payer_id=payer_id, first=window[0], last=as_of, limit=max_lines + 1)
    matching = []
    for line in read[:max_lines]:
        code = prior_authorization.line_code(line.procedure_code)
        if code is not None and codes.contains(code):
            matching.append((line, code))
    served = [
        prior_authorization.ServedLine(
            line.claim_id, line.line_number, code, line.units, line.served_from, line.served_to
        )
        for line, code in matching
    ]
    covered = prior_authorization.covering_authorizations(db, served)
    lines = [
        impact.Served(
            line.claim_id, line.served_from, line.charge, covered.get((line.claim_id, line.line_number)) is not None
        )
        for line, _ in matching
    ]
    return History(str(codes), impact.monthly(lines, window), len(lines), len(read) > max_lines)
