"""The worklist: scoring cases, reading the queue, explaining a rank, snoozing. Never commits.

Each working case stores its rank (`DenialCase.overturn_probability`, `expected_recovery`,
`priority_score`, `priority_due_on`; see `priority.py` for why one stored key orders every day) so the
queue is an index scan on (client_id, priority_score) plus LIMIT. Scores are written when a decision
is recorded (`rescore_after_outcome`: every working case of the decided case's category, whose
probabilities the new outcome moves) and by `rescore` (a whole client, or chosen cases). A case not
scored yet (opened since) is scored on the fly by the queue and `why`, which are reads and persist
nothing, so a new case is ranked correctly from its first minute.

Which estimate ranks a case: the client's outcome model (outcomeLearning, asked through the services'
``success_probability`` port, so denials never imports intelligence) where the client's LATEST trained
version beat the Beta-binomial prior on held-out data; the Beta-binomial (``estimate.py``) otherwise.
The source is STORED with the score (``DenialCase.overturn_model_version``: the version, None for the
Beta-binomial), not recomputed when read: the stored probability came from one of them, and a model
trained since must not relabel a rank it did not give. Training a version queues a full rescore
(outcomeLearning.train), so the stored ranks follow within a job run. The model's age feature runs to
the UTC day of the scoring, the day ``outcomeLearning.predict`` counts to.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Table,
    and_,
    bindparam,
    cast,
    column,
    func,
    or_,
    select,
    update,
    values,
)
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.services import OverturnFeatures, SuccessProbability
from api.denials.cases import service as cases_service
from api.denials.cases.lifecycle import WORKING_STATES
from api.denials.cases.models import DenialCase
from api.denials.deadlines.facts import client_today
from api.denials.human_attention import priority
from api.denials.human_attention.estimate import Counts, Estimate, OverturnModel, fit
from api.denials.human_attention.history import history_prior
from api.denials.outcomes import service as outcomes
from api.denials.outcomes.models import AppealOutcome
from api.infra.db.base import utcnow
from api.infra.db.tenant_filter import get_scope
from api.infra.jobs.queue import enqueue_for_client
from api.money.ingestion import service as ingestion
from pipelines.ingest.money import quantize

WORKING = tuple(sorted(WORKING_STATES))
MAX_SNOOZE = timedelta(days=90)
CASE_EVENT_SNOOZED = "snoozed"
# What scoring reads of a case: one narrow row, not the ORM entity (a client may have 100k cases).
_SCORE_COLUMNS = (
    DenialCase.id,
    DenialCase.payer,
    DenialCase.denial_category,
    DenialCase.carc,
    DenialCase.amount_at_stake,
    DenialCase.recovered_amount,
    DenialCase.appeal_due_on,
    DenialCase.remittance_date,
    DenialCase.created_at,
    DenialCase.payer_class,
    DenialCase.service_date,
    DenialCase.rarcs,
)
#: The highest appeal level the outcome model is asked about (``outcomeLearning.predict`` caps the same).
MAX_APPEAL_LEVEL = 9


# What the queue reads of a case: the page's columns, not the ORM entity (loading 50 full entities
# cost more than the index scan itself).
_QUEUE_COLUMNS = (
    *_SCORE_COLUMNS,
    DenialCase.state,
    DenialCase.owner_user_id,
    DenialCase.overturn_probability,
    DenialCase.expected_recovery,
    DenialCase.priority_score,
    DenialCase.priority_due_on,
    DenialCase.overturn_model_version,
)


@dataclass(frozen=True)
class Scored:
    probability: float
    expected_recovery: Decimal
    key: float
    due: date
    due_assumed: bool
    model_version: int | None = None  # the outcome model's version that gave `probability`; None: Beta-binomial


@dataclass(frozen=True)
class QueueFilters:
    owners: tuple[int, ...] | None = None  # None: the whole client
    payer: str | None = None
    category: str | None = None
    state: str | None = None
    min_amount: Decimal | None = None


def fit_model(db: Session) -> OverturnModel:
    """The overturn model of the selected client: each payer x category prior seeded by the payer's
    remittance history (one aggregate query, ``history.py``), updated by every decision recorded so far
    (one more). Called once per scoring batch, never per case."""
    counts = {cell: Counts(n, k) for cell, (n, k) in outcomes.overturn_counts(db).items()}
    return fit(counts, history_prior(db))


def estimate_for(model: OverturnModel, payer: str, category: str | None, carc: str | None) -> Estimate:
    return model.estimate(payer, category or "", carc or "")


def at_stake(amount: Decimal, recovered: Decimal) -> Decimal:
    """What is still to recover: an earlier partial win counts against the amount at stake."""
    return max(amount - recovered, Decimal("0"))


def score(model: OverturnModel, row: Any, learned: float | None = None, version: int | None = None) -> Scored:
    """Rank one case (an ORM case or a row of `_SCORE_COLUMNS`) by the outcome model's probability
    `learned` (of model `version`) when given, else by the Beta-binomial estimate."""
    p = learned if learned is not None else estimate_for(model, row.payer, row.denial_category, row.carc).mean
    due, assumed = priority.deadline(row.appeal_due_on, row.remittance_date, row.created_at.date())
    amount = at_stake(row.amount_at_stake, row.recovered_amount)
    key = priority.priority_key(amount, p, row.denial_category, due)
    return Scored(p, quantize(amount * Decimal(repr(p))), key, due, assumed, version if learned is not None else None)


def _last_levels(db: Session, case_ids: Sequence[int]) -> dict[int, int]:
    """The highest appeal level decided on each case (withdrawn included, like ``outcomes.last_level``):
    one grouped query over the client's outcomes for a big batch, by id chunks for a few cases."""
    stmt = select(AppealOutcome.case_id, func.max(AppealOutcome.level)).group_by(AppealOutcome.case_id)
    if len(case_ids) > _IDS_CHUNK:
        return {int(c): int(lv) for c, lv in db.execute(stmt)}
    return {int(c): int(lv) for c, lv in db.execute(stmt.where(AppealOutcome.case_id.in_(list(case_ids))))}


def features_of(row: Any, last_level: int) -> OverturnFeatures:
    """What the outcome model reads of a case (an ORM case or a row of `_SCORE_COLUMNS`) for its next
    appeal: the level after the highest decided (capped at ``MAX_APPEAL_LEVEL``), the age from the
    remittance (else service, else opening) date, as ``outcomeLearning.predict`` builds them."""
    return OverturnFeatures(
        payer=row.payer,
        payer_class=row.payer_class,
        category=row.denial_category,
        carc=row.carc,
        rarcs=tuple(row.rarcs or ()),
        amount_at_stake=row.amount_at_stake,
        start=row.remittance_date or row.service_date or row.created_at.date(),
        appeal_level=min(last_level + 1, MAX_APPEAL_LEVEL),
    )


def score_all(db: Session, model: OverturnModel, rows: Sequence[Any], ask: SuccessProbability | None) -> list[Scored]:
    """Rank many cases: by the outcome model where `ask` (the services' ``success_probability``) answers
    for the client, by the Beta-binomial otherwise. An empty question first (one query: is there a
    version that beat the prior?) spares reading the cases' appeal levels when there is none; then one
    call for the whole batch."""
    if not rows or ask is None:
        return [score(model, r) for r in rows]
    today = utcnow().date()
    if ask(db, [], today) is None:
        return [score(model, r) for r in rows]
    levels = _last_levels(db, [r.id for r in rows])
    answer = ask(db, [features_of(r, levels.get(r.id, 0)) for r in rows], today)
    if answer is None or len(answer.probabilities) != len(rows):
        return [score(model, r) for r in rows]
    return [score(model, r, p, answer.version) for r, p in zip(rows, answer.probabilities, strict=True)]


# Rows per UPDATE ... FROM (VALUES ...) on PostgreSQL: one round trip per chunk instead of one per row
# (executemany there costs about a millisecond a row). SQLite has no column list on a VALUES alias, and
# its executemany is in-process and fast, so it gets that.
_UPDATE_CHUNK = 2000
_SCORE_TARGETS = (
    "overturn_probability",
    "expected_recovery",
    "priority_score",
    "priority_due_on",
    "overturn_model_version",
)


def _write_scores(db: Session, client_id: int, params: list[dict[str, Any]]) -> None:
    table = DenialCase.__table__
    assert isinstance(table, Table)
    now = utcnow()
    # The ids come from a tenant-filtered select and the client is in the WHERE clause.
    options = {"skip_tenant_scope": True}
    if db.get_bind().dialect.name == "sqlite":
        stmt = (
            update(table)
            .where(table.c.id == bindparam("b_id"), table.c.client_id == client_id)
            .values({**{name: bindparam(f"v_{name}") for name in _SCORE_TARGETS}, "priority_scored_at": now})
        )
        rows = [{"b_id": r["b_id"], **{f"v_{n}": r[n] for n in _SCORE_TARGETS}} for r in params]
        db.execute(stmt.execution_options(**options), rows)
        return
    for start in range(0, len(params), _UPDATE_CHUNK):
        chunk = params[start : start + _UPDATE_CHUNK]
        scores = values(
            column("b_id", BigInteger),
            *(column(name, table.c[name].type) for name in _SCORE_TARGETS),
            name="scores",
        ).data([(r["b_id"], *(r[n] for n in _SCORE_TARGETS)) for r in chunk])
        stmt = (
            update(table)
            .where(table.c.id == scores.c.b_id, table.c.client_id == client_id)
            # cast: a chunk whose versions are all NULL gives PostgreSQL a text column
            .values(
                {
                    **{name: cast(scores.c[name], table.c[name].type) for name in _SCORE_TARGETS},
                    "priority_scored_at": now,
                }
            )
        )
        db.execute(stmt.execution_options(**options))


def rescore(db: Session, *conditions: ColumnElement[bool], ask: SuccessProbability | None = None) -> int:
    """Recompute and store the rank of the client's working cases that meet `conditions` (all of them
        when none are given), and give one to any such case that never had one, whatever its state: the
        queue looks for unscored cases through the (client_id, priority_score) index, so decided cases left
        NULL there would be read on every call. `ask`: the services' ``success_probability`` (None: rank by
    the Beta-binomial only). Returns how many were written."""
    scope = get_scope(db)
    if scope is None or scope.client_id is None:
        raise RuntimeError("rescoring needs a client scope")
    model = fit_model(db)
    due = or_(DenialCase.state.in_(WORKING), DenialCase.priority_score.is_(None))
    rows = db.execute(select(*_SCORE_COLUMNS).where(due, *conditions)).all()
    params = []
    for row, s in zip(rows, score_all(db, model, rows, ask), strict=True):
        params.append(
            {
                "b_id": row.id,
                "overturn_probability": s.probability,
                "expected_recovery": s.expected_recovery,
                "priority_score": s.key,
                "priority_due_on": s.due,
                "overturn_model_version": s.model_version,
            }
        )
    if params:
        _write_scores(db, scope.client_id, params)
    return len(params)


def score_opened(db: Session, case_ids: Sequence[int], *, ask: SuccessProbability | None = None) -> None:
    """Rank newly opened cases (a ``Services.case_opened`` listener, after their deadlines are set;
    api/app.py passes the services' ``success_probability`` as `ask`)."""
    if case_ids:
        rescore(db, DenialCase.id.in_(list(case_ids)), ask=ask)


def rescore_after_outcome(db: Session, case_id: int, *, ask: SuccessProbability | None = None) -> None:
    """A decision on `case_id` moved the rates of its category (and, slightly, the global one): rescore
    the category's working cases. Other categories move by one decision in the global rate only; a
    full `rescore` brings them along."""
    case = db.scalar(select(DenialCase).where(DenialCase.id == case_id))
    if case is None:
        return
    if case.denial_category is None:
        rescore(db, DenialCase.denial_category.is_(None), ask=ask)
    else:
        rescore(db, DenialCase.denial_category == case.denial_category, ask=ask)


RESCORE_JOB_KIND = "humanAttention.rescore"
#: past this many payers a queued rescore covers the client's every working case (payload stays small)
MAX_RESCORE_PAYERS = 100


def posted_payers(db: Session, batch_id: int) -> list[str]:
    """The payers (upper-cased, trimmed) whose remittance history a confirmed batch moved."""
    return ingestion.batch_payers(db, batch_id)


def rescore_after_posting(db: Session, batch_id: int) -> None:
    """A confirmed batch changed its payers' remittance history (new denials, later payments): queue the
    rescoring of those payers' working cases (a ``Services.batch_posted`` listener, after the case intake).

    Deferred to the ``humanAttention.rescore`` job, coalesced per client: fitting the overturn model reads
    the client's whole remittance history, too slow to do inside every confirm's write transaction (and
    ten confirms in a row need one refit, not ten). Until it runs the queue shows the previous ranks,
    and cases opened by the batch are ranked by ``score_opened`` already. Other payers move only through
    the client's overall rate; a full `rescore` brings them along."""
    payers = posted_payers(db, batch_id)
    scope = get_scope(db)
    if payers and scope is not None and scope.client_id is not None:
        enqueue_for_client(db, RESCORE_JOB_KIND, "payers", payers, max_listed=MAX_RESCORE_PAYERS)


def rescore_payers(db: Session, payers: Sequence[str] | None, *, ask: SuccessProbability | None = None) -> int:
    """Rescore the working cases of ``payers`` (upper-cased names; None: every case of the client)."""
    if payers is None:
        return rescore(db, ask=ask)
    return rescore(db, func.upper(func.trim(DenialCase.payer)).in_(list(payers)), ask=ask)


# -- the queue ------------------------------------------------------------------------------------


def encode_cursor(key: float, case_id: int) -> str:
    raw = struct.pack(">dq", key, case_id)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> tuple[float, int] | None:
    if cursor is None:
        return None
    try:
        key, case_id = struct.unpack(">dq", base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, struct.error):
        raise InvalidInput("Invalid input: 'cursor' is not a cursor returned by this queue") from None
    return float(key), int(case_id)


def _eligible(filters: QueueFilters, now: datetime) -> list[ColumnElement[bool]]:
    """In the queue: working, not on hold, not snoozed, and the filters."""
    states = (filters.state,) if filters.state is not None else WORKING
    conditions: list[ColumnElement[bool]] = [
        DenialCase.state.in_(states),
        DenialCase.on_hold.is_(False),
        or_(DenialCase.snoozed_until.is_(None), DenialCase.snoozed_until <= now),
    ]
    if filters.owners is not None:
        conditions.append(DenialCase.owner_user_id.in_(filters.owners))
    if filters.payer is not None:
        conditions.append(DenialCase.payer == filters.payer)
    if filters.category is not None:
        conditions.append(DenialCase.denial_category == filters.category)
    if filters.min_amount is not None:
        conditions.append(DenialCase.amount_at_stake >= filters.min_amount)
    return conditions


@dataclass(frozen=True)
class Ranked:
    case: Any  # a DenialCase or a row of _QUEUE_COLUMNS
    key: float
    probability: float
    expected_recovery: Decimal
    due: date
    due_assumed: bool
    model_version: int | None = None  # None: the Beta-binomial gave `probability`


def _after(cursor: tuple[float, int] | None, key: float, case_id: int) -> bool:
    return cursor is None or (key, case_id) < cursor


# Ids per statement when the unscored cases' rows are read (under every database's bound-parameter limit).
_IDS_CHUNK = 1000
# Built once: the probe below runs on every queue call (like api/platform/auth/resolve.py's statements).
_UNSCORED_IDS = (
    select(DenialCase.id)
    .where(DenialCase.client_id == bindparam("client_id"), DenialCase.priority_score.is_(None))
    .execution_options(skip_tenant_scope=True)
)


def _unscored_ids(db: Session) -> list[int]:
    """The selected client's cases without a stored rank: normally none (`score_opened` ranks a case as it
    opens), so this runs on every queue call and must cost one index seek. Only the client id and the
    NULL rank are in the WHERE, both key columns of ix_denial_cases_client_priority, which then covers the
    query: SQLite picks that index whatever the order of the indexes in its schema and without
    sqlite_stat1. With the eligibility conditions (state IN ..., the tenant's organization_id) in the
    same statement SQLite without statistics ties it with ix_denial_cases_client_state and
    ix_denial_cases_organization_id and takes whichever comes first in the schema, an order migration 0022
    leaves to Python's hash seed (batch mode recreates the table), and then reads every working case
    (issue 24: 150 ms a call at 100k cases).
    The client id names one organization's client, so it alone is the tenant filter here."""
    scope = get_scope(db)
    if scope is None or scope.client_id is None:
        raise RuntimeError("the queue needs a client scope")
    return list(db.scalars(_UNSCORED_IDS, {"client_id": scope.client_id}))


def _unscored(
    db: Session, conditions: Sequence[ColumnElement[bool]], today: date, ask: SuccessProbability | None
) -> list[Ranked]:
    """Eligible cases without a stored rank (opened since the last scoring), ranked now."""
    ids = _unscored_ids(db)
    if not ids:
        return []
    cases: list[Any] = []
    for start in range(0, len(ids), _IDS_CHUNK):
        chunk = ids[start : start + _IDS_CHUNK]
        cases += db.execute(select(*_QUEUE_COLUMNS).where(DenialCase.id.in_(chunk), *conditions)).all()
    if not cases:
        return []
    model = fit_model(db)
    ranked = []
    for case, s in zip(cases, score_all(db, model, cases, ask), strict=True):
        if s.due >= today:
            ranked.append(_ranked(case, s))
    return ranked


def _ranked(case: Any, s: Scored) -> Ranked:
    return Ranked(case, s.key, s.probability, s.expected_recovery, s.due, s.due_assumed, s.model_version)


def _stored(case: Any) -> Ranked:
    assert case.priority_score is not None and case.priority_due_on is not None
    assert case.overturn_probability is not None and case.expected_recovery is not None
    return Ranked(
        case,
        case.priority_score,
        case.overturn_probability,
        case.expected_recovery,
        case.priority_due_on,
        case.appeal_due_on is None,
        case.overturn_model_version,
    )


@dataclass(frozen=True)
class Page:
    items: list[Ranked]
    next_cursor: str | None
    today: date  # the client's day the page was ranked on (days left count from it)


def queue(
    db: Session,
    filters: QueueFilters,
    *,
    limit: int,
    cursor: str | None,
    now: datetime | None = None,
    ask: SuccessProbability | None = None,
) -> Page:
    """One page of the worklist, highest score first (ties: newest case first). "Today" is the client's
    day (its time zone, the same ``client_today`` as its deadlines): a deadline is a date where the
    hospital is, so a case due on the hospital's today still has 0 days left, not -1."""
    after = decode_cursor(cursor)
    now = now or utcnow()
    today = client_today(db, now)
    conditions = _eligible(filters, now)
    stmt = select(*_QUEUE_COLUMNS).where(
        DenialCase.priority_score.is_not(None), DenialCase.priority_due_on >= today, *conditions
    )
    if after is not None:
        key, case_id = after
        stmt = stmt.where(
            or_(DenialCase.priority_score < key, and_(DenialCase.priority_score == key, DenialCase.id < case_id))
        )
    stmt = stmt.order_by(DenialCase.priority_score.desc(), DenialCase.id.desc()).limit(limit + 1)
    ranked = [_stored(c) for c in db.execute(stmt)]
    fresh = [r for r in _unscored(db, conditions, today, ask) if _after(after, r.key, r.case.id)]
    page = sorted(ranked + fresh, key=lambda r: (r.key, r.case.id), reverse=True)[: limit + 1]
    more = len(page) > limit
    page = page[:limit]
    return Page(page, encode_cursor(page[-1].key, page[-1].case.id) if more and page else None, today)


# -- why ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Explanation:
    ranked: Ranked
    estimate: Estimate
    today: date
    in_queue: bool
    not_in_queue_because: list[str]
    position: int | None
    queue_length: int


def _why_not(case: DenialCase, due: date, now: datetime, today: date) -> list[str]:
    reasons = []
    if case.state not in WORKING_STATES:
        reasons.append(f"the case is '{case.state}', not a working state")
    if case.on_hold:
        reasons.append("the case is on hold")
    if case.snoozed_until is not None and case.snoozed_until > now:
        reasons.append(f"the case is snoozed until {case.snoozed_until.isoformat()}")
    if due < today:
        reasons.append(f"its appeal deadline {due.isoformat()} has passed")
    return reasons


def _count_ahead(
    db: Session,
    conditions: Sequence[ColumnElement[bool]],
    ranked: Ranked,
    today: date,
    ask: SuccessProbability | None,
) -> int:
    ahead = or_(
        DenialCase.priority_score > ranked.key,
        and_(DenialCase.priority_score == ranked.key, DenialCase.id > ranked.case.id),
    )
    stored = db.scalar(
        select(func.count()).select_from(DenialCase).where(DenialCase.priority_due_on >= today, ahead, *conditions)
    )
    fresh = sum(1 for r in _unscored(db, conditions, today, ask) if (r.key, r.case.id) > (ranked.key, ranked.case.id))
    return int(stored or 0) + fresh


def _queue_length(
    db: Session, conditions: Sequence[ColumnElement[bool]], today: date, ask: SuccessProbability | None
) -> int:
    stored = db.scalar(
        select(func.count())
        .select_from(DenialCase)
        .where(DenialCase.priority_score.is_not(None), DenialCase.priority_due_on >= today, *conditions)
    )
    return int(stored or 0) + len(_unscored(db, conditions, today, ask))


def why(db: Session, case_id: int, now: datetime | None = None, ask: SuccessProbability | None = None) -> Explanation:
    """A case's rank explained: its numbers, where its probability came from, and its position in the
    client's whole queue (no filters), on the client's day like the queue."""
    case = cases_service.get_case(db, case_id)
    now = now or utcnow()
    today = client_today(db, now)
    model = fit_model(db)
    est = estimate_for(model, case.payer, case.denial_category, case.carc)
    if case.priority_score is not None and case.state in WORKING_STATES:
        ranked = _stored(case)
    else:
        ranked = _ranked(case, score_all(db, model, [case], ask)[0])
    reasons = _why_not(case, ranked.due, now, today)
    conditions = _eligible(QueueFilters(), now)
    position = None if reasons else 1 + _count_ahead(db, conditions, ranked, today, ask)
    length = _queue_length(db, conditions, today, ask)
    return Explanation(ranked, est, today, not reasons, reasons, position, length)


# -- snooze ---------------------------------------------------------------------------------------


def snooze(db: Session, case_id: int, until: datetime, reason: str, *, user_id: int) -> tuple[DenialCase, Any]:
    """Hide a working case from the queue until `until` (in the future, at most `MAX_SNOOZE` ahead);
    its history gets a `snoozed` event with the reason. Returns the case and its previous snooze."""
    now = utcnow()
    until = until.astimezone(UTC)
    if until <= now:
        raise InvalidInput("Invalid input: 'until' must be in the future")
    if until > now + MAX_SNOOZE:
        raise InvalidInput(f"Invalid input: 'until' must be at most {MAX_SNOOZE.days} days ahead")
    case = cases_service.get_case(db, case_id)
    if case.state not in WORKING_STATES:
        raise PreconditionFailed(
            f"The case is '{case.state}': only a case in a working state can be snoozed",
            details={"currentState": case.state},
        )
    before = case.snoozed_until
    case.snoozed_until = until
    cases_service.add_event(
        db,
        case,
        CASE_EVENT_SNOOZED,
        actor_user_id=user_id,
        reason=reason,
        from_state=case.state,
        to_state=case.state,
        details={"until": until.isoformat(), "previousUntil": before.isoformat() if before else None},
    )
    db.flush()
    return case, before


# -- what the procedures answer -------------------------------------------------------------------


def _numbers(r: Ranked, today: date) -> dict[str, Any]:
    days_left = (r.due - today).days
    return {
        "case_id": r.case.id,
        "rank_key": r.key,
        "score": priority.score_on(r.key, today),
        "amount_at_stake": r.case.amount_at_stake,
        "expected_recovery": r.expected_recovery,
        "effort_hours": priority.effort_hours(r.case.denial_category),
        "due_on": r.due,
        "deadline_assumed": r.due_assumed,
        "days_left": days_left,
        "urgency": priority.urgency(days_left),
        "probability_source": "prior" if r.model_version is None else "model",
        "model_version": r.model_version,
    }


def queue_item(r: Ranked, today: date) -> dict[str, Any]:
    c = r.case
    return {
        **_numbers(r, today),
        "payer": c.payer,
        "denial_category": c.denial_category,
        "carc": c.carc,
        "state": c.state,
        "owner_user_id": c.owner_user_id,
        "overturn_probability": r.probability,
    }


def _level(fit_: Any) -> dict[str, Any]:
    low, high = fit_.interval()
    return {
        "level": fit_.level,
        "n": fit_.n,
        "k": fit_.k,
        "prior_strength": fit_.prior_strength,
        "mean": fit_.mean,
        "low": low,
        "high": high,
    }


def evidence(estimate: Estimate) -> str:
    """Which evidence the probability used, in words: the payer's remittance history (when the ledger
    holds any denial) and the recorded outcomes of the case's payer x category."""
    seed = estimate.seed
    if seed is None:
        basis = estimate.basis
        return f"learnt at the {basis.level} level from {basis.k} overturns in {basis.n} decided appeals"
    recorded = estimate.outcomes
    return f"from {seed.describe()}; {recorded} recorded outcome{'' if recorded == 1 else 's'}"


def _words(e: Explanation, numbers: dict[str, Any], low: float, high: float) -> list[str]:
    r = e.ranked
    deadline = "assumed (no appeal deadline on the case)" if r.due_assumed else "the case's appeal deadline"
    words = [
        f"{numbers['amount_at_stake']:.2f} is at stake"
        + (f" ({r.case.recovered_amount:.2f} already recovered)" if r.case.recovered_amount else "")
        + ".",
        _probability_words(e, low, high),
        f"Expected recovery {r.expected_recovery:.2f}; about {numbers['effort_hours']:g} hours of work for a"
        f" {r.case.denial_category or 'unclassified'} denial.",
        f"Due {r.due.isoformat()} ({deadline}): {numbers['days_left']} days left, deadline discount"
        f" {numbers['urgency']:.3f}.",
        f"Score {numbers['score']:.2f} (expected recovery per hour x discount).",
    ]
    if e.position is not None:
        words.append(f"Position {e.position} of {e.queue_length} in the client's queue.")
    else:
        words.append("Not in the queue: " + "; ".join(e.not_in_queue_because) + ".")
    return words


def _probability_words(e: Explanation, low: float, high: float) -> str:
    r = e.ranked
    beta_binomial = f"(95 % interval {low:.3f}-{high:.3f}), {evidence(e.estimate)}"
    if r.model_version is None:
        return f"The payer overturns such denials with probability {r.probability:.3f} {beta_binomial}."
    return (
        f"The client's outcome model version {r.model_version}, which beat the payer x category prior on"
        f" held-out outcomes, gives the next appeal a probability of success of {r.probability:.3f}"
        f" (outcomeLearning.predict explains it); the Beta-binomial estimate is {e.estimate.mean:.3f}"
        f" {beta_binomial}."
    )


def why_view(e: Explanation) -> dict[str, Any]:
    numbers = _numbers(e.ranked, e.today)
    low, high = e.estimate.interval()
    basis = e.estimate.basis
    probability = {
        "used": e.ranked.probability,
        "mean": e.estimate.mean,
        "low": low,
        "high": high,
        "basis_level": basis.level,
        "basis_n": basis.n,
        "basis_k": basis.k,
        "levels": [_level(f) for f in e.estimate.levels],
    }
    return {
        **numbers,
        "as_of": e.today,
        "in_queue": e.in_queue,
        "not_in_queue_because": e.not_in_queue_because,
        "position": e.position,
        "queue_length": e.queue_length,
        "recovered_amount": e.ranked.case.recovered_amount,
        "probability": probability,
        "explanation": _words(e, numbers, low, high),
    }
