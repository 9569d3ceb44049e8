"""Deadlines of denial cases on the operational DB: scheduling, reading, overriding.

``schedule_case`` is what case intake calls after it opens or updates a case: it computes the case's
deadlines from the rules (``rules.py``), stores them (one row per case and level, an override kept),
refreshes their status and sets ``DenialCase.appeal_due_on`` to the earliest appeal deadline not met
(open, or missed: an overdue case must not look as if it had no deadline).
Running it again with nothing changed writes nothing.

Statuses: ``met`` once the case has been submitted to the payer (awaiting_payer or a decision after an
appeal) for an appeal deadline, or once a rebill was submitted for timely filing; ``missed`` when the
date passed while open. A read computes the same from the stored row and the day asked about, so a
deadline does not stay ``open`` just because nothing re-scheduled the case.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeAlias
from zoneinfo import ZoneInfo

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, NotFound, PreconditionFailed
from api.denials.cases import service as cases
from api.denials.cases.lifecycle import WORKING_STATES
from api.denials.cases.models import DenialCase
from api.denials.deadlines import facts as case_facts_module
from api.denials.deadlines import rules
from api.denials.deadlines.models import CaseDeadline, PayerRule
from api.infra.db.lookup import parse_id
from api.infra.jobs.queue import enqueue_for_client

#: case states in which the appeal has gone to the payer: the appeal deadline was met
APPEAL_SUBMITTED_STATES = frozenset({"awaiting_payer", "won", "partially_won", "lost"})


def today() -> date:
    """Today in UTC: for reads without a session (a job's clock). A client's day is ``facts.client_today``."""
    return datetime.now(UTC).date()


def effective_status(row: CaseDeadline, as_of: date) -> str:
    """The status of a stored deadline at ``as_of``: an open one whose date passed is missed."""
    if row.status == "open" and row.due_on < as_of:
        return "missed"
    return row.status


def _status(kind: str, case_state: str, current: str, due_on: date, as_of: date) -> str:
    if current == "met":
        return "met"
    if kind == "appeal" and case_state in APPEAL_SUBMITTED_STATES:
        return "met"
    return "missed" if due_on < as_of else "open"


def _apply(row: CaseDeadline, scheduled: rules.Scheduled) -> None:
    computed = scheduled.deadline
    rule = computed.rule
    row.kind, row.basis, row.basis_date = rule.kind, rule.basis, computed.basis_date
    row.computed_due_on, row.rule_reference, row.limit_days = computed.due_on, rule.reference, rule.days
    row.business_days, row.is_default_rule = rule.business_days, rule.is_default
    row.payer_type, row.assumed, row.rule_source = scheduled.payer_type, scheduled.assumed, scheduled.source[:500]
    row.due_on = row.overridden_due_on or computed.due_on


def _changed(row: CaseDeadline, scheduled: rules.Scheduled) -> bool:
    computed = scheduled.deadline
    return (row.basis_date, row.computed_due_on, row.rule_reference, row.assumed, row.rule_source, row.kind) != (
        computed.basis_date,
        computed.due_on,
        computed.rule.reference,
        scheduled.assumed,
        scheduled.source[:500],
        computed.rule.kind,
    )


def schedule_case(
    db: Session,
    case: DenialCase,
    *,
    as_of: date | None = None,
    facts: rules.CaseFacts | None = None,
    limits: tuple[rules.LimitRule, ...] | None = None,
) -> list[CaseDeadline]:
    """Compute, store and refresh the deadlines of one case; idempotent (no write when nothing changed).

    The rules are the platform defaults and the client's own (``payer_rules``); the facts (payer type,
    filing indicator, through date, soft denial, the export's stated deadline) come from
    ``facts.case_facts``; ``as_of`` defaults to today in the client's time zone.
    A level the rules no longer give (the payer class changed) is removed unless it was overridden:
    an override is a person's decision and stays until a person changes it."""
    as_of = as_of or case_facts_module.client_today(db)
    limits = limits if limits is not None else case_facts_module.client_rules(db)
    facts = facts or case_facts_module.case_facts(db, [case])[case.id]
    _kind, found = rules.case_deadlines(facts, limits)
    computed = {d.level: d for d in found}
    stored = {row.level: row for row in db.scalars(select(CaseDeadline).where(CaseDeadline.case_id == case.id))}
    for level, row in list(stored.items()):
        if level not in computed and row.overridden_due_on is None:
            db.delete(row)
            del stored[level]
    for level, scheduled in computed.items():
        existing = stored.get(level)
        if existing is None:
            added = CaseDeadline(case_id=case.id, level=level, status="open")
            _apply(added, scheduled)
            db.add(added)
            stored[level] = added
        elif _changed(existing, scheduled):
            _apply(existing, scheduled)
    for row in stored.values():
        status = _status(row.kind, case.state, row.status, row.due_on, as_of)
        if status != row.status:
            row.status = status
    _refresh_next_due(case, stored.values(), soft=facts.soft_denial)
    _refresh_assumed(case, stored.values())
    db.flush()
    return sorted(stored.values(), key=lambda r: (r.due_on, r.level))


# --- recomputing after a rule or alias changed: a job after the write commits -------------------

RESCHEDULE_JOB_KIND = "deadlines.reschedule"
RESCHEDULE_CHUNK = 500
#: past this many payer ids a queued job recomputes the client's every working case instead (the
#: payload stays small; the result is the same)
MAX_PAYER_IDS = 100


def working_case_ids(db: Session, payer_ids: Sequence[str] | None) -> list[int]:
    """The working cases a rule or alias may change: the payers' (by payer id, compared upper-cased),
    or every working case of the client for a type-wide rule (``None``)."""
    stmt = select(DenialCase.id).where(DenialCase.state.in_(sorted(WORKING_STATES)))
    if payer_ids is not None:
        wanted = sorted({p.strip().upper() for p in payer_ids})
        stmt = stmt.where(func.upper(func.trim(DenialCase.payer_id)).in_(wanted))
    return list(db.scalars(stmt.order_by(DenialCase.id)))


def request_reschedule(db: Session, payer_id: str | None) -> int:
    """Queue the recomputation of the deadlines a rule or alias of the session client may change (the
    payer's working cases, or all of them for ``None``) and return how many cases that is now.

    A job, not work in this transaction: a type-wide rule touches every working case of the client
    (thousands of rows), and SQLite's one write lock would hold every tenant's writes meanwhile. The job
    row commits with the rule (a rolled-back rule queues nothing) and runs after; a job still queued for
    the client absorbs the request (``enqueue_coalesced``), so ten rule edits recompute once."""
    payer_ids = None if payer_id is None else [payer_id.strip().upper()]
    enqueue_for_client(db, RESCHEDULE_JOB_KIND, "payerIds", payer_ids, max_listed=MAX_PAYER_IDS)
    return len(working_case_ids(db, payer_ids))


def schedule_cases(db: Session, case_ids: Sequence[int]) -> None:
    """Schedule the deadlines of newly opened cases (a ``Services.case_opened`` listener)."""
    if not case_ids:
        return
    cases = list(db.scalars(select(DenialCase).where(DenialCase.id.in_(list(case_ids)))))
    as_of, limits = case_facts_module.client_today(db), case_facts_module.client_rules(db)
    found = case_facts_module.case_facts(db, cases)
    for case in cases:
        schedule_case(db, case, as_of=as_of, facts=found[case.id], limits=limits)


def _refresh_assumed(case: DenialCase, rows: Iterable[CaseDeadline]) -> None:
    assumed = any(row.assumed for row in rows)
    if case.deadline_assumed != assumed:
        case.deadline_assumed = assumed


def _refresh_next_due(case: DenialCase, rows: Iterable[CaseDeadline], *, soft: bool | None = None) -> None:
    """The case's next deadline: its earliest appeal deadline not met; for a soft denial (fix and
    resubmit, no appeal) the corrected claim's timely filing."""
    soft = case.hard_or_soft == "soft" if soft is None else soft
    kind = "timely_filing" if soft else "appeal"
    # a missed deadline still counts: the case stays visible as overdue instead of looking deadline-free
    open_appeals = [r.due_on for r in rows if r.kind == kind and r.status != "met"]
    next_due = min(open_appeals, default=None)
    if case.appeal_due_on != next_due:
        case.appeal_due_on = next_due


def for_case(db: Session, case_id: int) -> tuple[DenialCase, list[CaseDeadline]]:
    case = cases.get_case(db, case_id)
    rows = db.scalars(
        select(CaseDeadline).where(CaseDeadline.case_id == case.id).order_by(CaseDeadline.due_on, CaseDeadline.id)
    )
    return case, list(rows)


def later_level(db: Session, case_id: int, decided_level: str, decision_date: date) -> rules.Scheduled | None:
    """The deadline of the appeal level after ``decided_level`` of a case, from the date of that
    decision's notice: the same facts (``facts.case_facts``: filing indicator, payer alias) and rules
    (the client's, then the platform defaults) as its first level (``rules.later_level_deadline``)."""
    case = cases.get_case(db, case_id)
    facts = case_facts_module.case_facts(db, [case])[case.id]
    return rules.later_level_deadline(facts, decided_level, decision_date, case_facts_module.client_rules(db))


def mark_timely_filing_met(db: Session, case_id: int) -> None:
    """A rebill of the case reached the payer: its timely-filing deadline is met."""
    row = db.scalar(
        select(CaseDeadline).where(CaseDeadline.case_id == case_id, CaseDeadline.level == rules.TIMELY_FILING)
    )
    if row is not None and row.status != "met":
        row.status = "met"


@dataclass(frozen=True, slots=True)
class OverrideResult:
    row: CaseDeadline
    before_due_on: date
    was_overridden: bool


def override(
    db: Session, case_id: int, level: str, new_due_on: date, reason: str, *, user_id: int, as_of: date
) -> OverrideResult:
    """Set a deadline's date by hand (a contracted limit, an extension granted for good cause).

    The new date may be earlier or later than the computed one but never before ``as_of`` (today): a
    deadline set in the past would only hide a miss. A met deadline is final."""
    if not reason.strip():
        raise InvalidInput("Invalid input: 'reason' is required to override a deadline")
    if new_due_on < as_of:
        raise InvalidInput("Invalid input: 'dueOn' cannot be before today")
    case = cases.get_case(db, case_id)
    row = db.scalar(select(CaseDeadline).where(CaseDeadline.case_id == case.id, CaseDeadline.level == level))
    if row is None:
        raise NotFound(f"Denial case {case_id} has no '{level}' deadline")
    if row.status == "met":
        raise PreconditionFailed(f"The '{level}' deadline is met and cannot be overridden")
    before, was_overridden = row.due_on, row.overridden_due_on is not None
    row.overridden_due_on = row.due_on = new_due_on
    row.override_reason, row.overridden_by, row.overridden_at = reason, user_id, datetime.now(UTC)
    row.status = "open"
    stored = list(db.scalars(select(CaseDeadline).where(CaseDeadline.case_id == case.id)))
    _refresh_next_due(case, stored)
    db.flush()
    return OverrideResult(row, before, was_overridden)


# --- upcoming: keyset pagination on (due_on, id), soonest first ---------------------------------


def encode_due_cursor(due_on: date, row_id: int) -> str:
    return base64.urlsafe_b64encode(f"due:{due_on.isoformat()}:{row_id}".encode()).decode().rstrip("=")


def decode_due_cursor(cursor: str | None) -> tuple[date, int] | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, day, row_id = raw.split(":")
        ident = parse_id(row_id)  # bounded: 2^64 would overflow in the database (a 500)
        if kind != "due" or ident is None:
            raise ValueError
        return date.fromisoformat(day), ident
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("Invalid input: 'cursor' is not a cursor returned by this list") from None


@dataclass(frozen=True, slots=True)
class UpcomingFilter:
    as_of: date
    within_days: int
    include_overdue: bool
    owner_user_id: int | None
    payer: str | None
    kind: str | None
    limit: int
    cursor: str | None


def upcoming(db: Session, f: UpcomingFilter) -> tuple[list[tuple[CaseDeadline, DenialCase]], str | None]:
    """Open deadlines of working cases due within ``within_days`` of ``as_of`` (soonest first)."""
    stmt = (
        select(CaseDeadline, DenialCase)
        .join(DenialCase, DenialCase.id == CaseDeadline.case_id)
        .where(
            CaseDeadline.status == "open",
            DenialCase.state.in_(sorted(WORKING_STATES)),
            CaseDeadline.due_on <= f.as_of + timedelta(days=f.within_days),
        )
    )
    if not f.include_overdue:
        stmt = stmt.where(CaseDeadline.due_on >= f.as_of)
    if f.owner_user_id is not None:
        stmt = stmt.where(DenialCase.owner_user_id == f.owner_user_id)
    if f.payer is not None:
        stmt = stmt.where(or_(DenialCase.payer == f.payer, DenialCase.payer_id == f.payer))
    if f.kind is not None:
        stmt = stmt.where(CaseDeadline.kind == f.kind)
    after = decode_due_cursor(f.cursor)
    if after is not None:
        due, row_id = after
        stmt = stmt.where(or_(CaseDeadline.due_on > due, and_(CaseDeadline.due_on == due, CaseDeadline.id > row_id)))
    rows = [(r[0], r[1]) for r in db.execute(stmt.order_by(CaseDeadline.due_on, CaseDeadline.id).limit(f.limit + 1))]
    more = len(rows) > f.limit
    rows = rows[: f.limit]
    cursor = encode_due_cursor(rows[-1][0].due_on, rows[-1][0].id) if more and rows else None
    return rows, cursor


# --- payer rules: the client's rows, written and explained by payerRules (api/intelligence/payer_rules) -----------

#: The client's payer-rule row: other contexts name it here, never through models.
Rule: TypeAlias = PayerRule

# The facts payerRules explains a case's deadlines with (and rebilling checks timely filing with), the
# same the scheduler uses.
client_today = case_facts_module.client_today
client_rules = case_facts_module.client_rules
case_facts = case_facts_module.case_facts
as_limit = case_facts_module.as_limit


def case_with_facts(db: Session, case_id: int) -> tuple[DenialCase, rules.CaseFacts]:
    """The client's case and the stored facts its deadlines are computed from (NOT_FOUND if not the client's)."""
    case = cases.get_case(db, case_id)
    return case, case_facts_module.case_facts(db, [case])[case.id]


def claim_facts(db: Session, *, claim_key: str, payer_id: str | None, service_date: date | None) -> rules.CaseFacts:
    """The facts the deadlines would use for a claim of the client that has no denial case
    (payerApplicability): read exactly as a case's (``facts.case_facts``: the claims table's filing
    indicator, an 837I's through date, the tenant's payer-id alias) from the claim's values; no notice
    date (no denial: no appeal deadline), not soft, no stated deadline."""
    subject = case_facts_module.Subject(id=0, claim_key=claim_key, payer_id=payer_id, service_date=service_date)
    return case_facts_module.subjects_facts(db, [subject])[0]


def facts_of_case(db: Session, case_id: int) -> rules.CaseFacts:
    """The stored facts of the client's case the deadlines are computed from (NOT_FOUND if not the client's)."""
    return case_with_facts(db, case_id)[1]


def list_payer_rules(
    db: Session, *, payer_type: str | None, payer_id: str | None, level: str | None, before_id: int | None, limit: int
) -> list[PayerRule]:
    """The client's payer rules, newest first, at most `limit`, filtered by the values given, with an id
    below `before_id` when given."""
    stmt = select(PayerRule)
    if payer_type is not None:
        stmt = stmt.where(PayerRule.payer_type == payer_type)
    if payer_id is not None:
        stmt = stmt.where(PayerRule.payer_id == payer_id)
    if level is not None:
        stmt = stmt.where(PayerRule.level == level)
    if before_id is not None:
        stmt = stmt.where(PayerRule.id < before_id)
    return list(db.scalars(stmt.order_by(PayerRule.id.desc()).limit(limit)))


def payer_rule_state(row: PayerRule) -> dict[str, Any]:
    """The rule as the audit records it."""
    return {
        "payer_type": row.payer_type,
        "payer_id": row.payer_id,
        "level": row.level,
        "days": row.days,
        "day_count": row.day_count,
        "roll_forward": row.roll_forward,
        "receipt_days": row.receipt_days,
        "effective_from": row.effective_from.isoformat(),
        "source": row.source,
    }


@dataclass(frozen=True, slots=True)
class PayerRuleValues:
    """One client rule as written: its key (payer type, payer id or "*", level, effective date) and terms."""

    payer_type: str
    payer_id: str
    level: str
    effective_from: date
    days: int
    day_count: str
    roll_forward: bool
    receipt_days: int
    basis: str
    source: str


def upsert_payer_rule(db: Session, values: PayerRuleValues, *, user_id: int) -> tuple[PayerRule, dict[str, Any] | None]:
    """Insert or update the client's rule for (payer type, payer id, level, effective date); answers the row
    and its audit state before (None: inserted). Re-scheduling the cases it changes is the caller's."""
    row = db.scalar(
        select(PayerRule).where(
            PayerRule.payer_type == values.payer_type,
            PayerRule.payer_id == values.payer_id,
            PayerRule.level == values.level,
            PayerRule.effective_from == values.effective_from,
        )
    )
    before = payer_rule_state(row) if row is not None else None
    if row is None:
        row = PayerRule(
            payer_type=values.payer_type,
            payer_id=values.payer_id,
            level=values.level,
            effective_from=values.effective_from,
        )
        db.add(row)
    row.days, row.day_count, row.roll_forward = values.days, values.day_count, values.roll_forward
    row.receipt_days, row.basis, row.source, row.updated_by = values.receipt_days, values.basis, values.source, user_id
    db.flush()
    return row, before


def client_zone(db: Session) -> ZoneInfo:
    """The session client's time zone: the calendar its days and weeks are counted in (revenueOperations'
    weeks, revenueInvalidation's days), as the deadlines count theirs (``facts.client_today``)."""
    return case_facts_module.client_zone(db)


@dataclass(frozen=True, slots=True)
class AppealMove:
    """A working case's first appeal deadline under the client's rules and under them plus proposed ones."""

    case_id: int
    payer_id: str | None
    payer_type: str | None
    assumed: bool
    level: str | None
    basis_date: date | None
    before: date | None
    after: date | None


def _first_appeal_of(found: list[rules.Scheduled]) -> rules.Scheduled | None:
    return next((s for s in found if s.deadline.rule.kind == "appeal"), None)


def appeal_moves(db: Session, case_ids: Sequence[int], proposed: Sequence[rules.LimitRule]) -> list[AppealMove]:
    """For each of the client's cases (in id order), its first appeal deadline computed by the engine
    (``rules.case_deadlines``) from its stored facts with the client's rules, and again with `proposed`
    added (a change not stored: policyImpact's what-if). Nothing is written."""
    found = list(db.scalars(select(DenialCase).where(DenialCase.id.in_(list(case_ids))).order_by(DenialCase.id)))
    facts = case_facts_module.case_facts(db, found)
    current = case_facts_module.client_rules(db)
    changed = (*current, *proposed)
    out = []
    for case in found:
        kind, before = rules.case_deadlines(facts[case.id], current)
        after = _first_appeal_of(rules.case_deadlines(facts[case.id], changed)[1])
        first = _first_appeal_of(before)
        shown = after or first
        out.append(
            AppealMove(
                case_id=case.id,
                payer_id=case.payer_id,
                payer_type=kind.payer_type,
                assumed=kind.assumed,
                level=None if shown is None else shown.level,
                basis_date=None if shown is None else shown.deadline.basis_date,
                before=None if first is None else first.deadline.due_on,
                after=None if after is None else after.deadline.due_on,
            )
        )
    return out
