"""Notifications: the inbox procedures and the service other namespaces call (`notify`,
`notify_deadlines`). Functions take a session and plain values and never commit.

`notify` and `notify_deadlines` name the tenant explicitly, so they work on a tenant-scoped session
(a procedure) and on an unscoped one (the daily job, which walks every tenant).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import NotFound
from api.denials.cases.lifecycle import WORKING_STATES
from api.denials.cases.models import DenialCase
from api.denials.deadlines import facts
from api.denials.notifications import rules
from api.denials.notifications.models import Notification, NotificationSubscription
from api.infra.db.base import utcnow
from api.infra.db.lookup import where_given
from api.infra.jobs.models import Job
from api.infra.jobs.queue import enqueue

DEADLINES_JOB_KIND = "notifications.deadlines"
DEFAULT_HORIZON_DAYS = 7
# The daily run: early morning UTC, before the working day in US time zones.
DAILY_RUN_HOUR_UTC = 6


def _subscriptions(db: Session, client_id: int, user_id: int) -> dict[tuple[str, str], bool]:
    rows = db.scalars(
        select(NotificationSubscription).where(
            NotificationSubscription.client_id == client_id, NotificationSubscription.user_id == user_id
        )
    )
    return {(s.kind, s.channel): s.enabled for s in rows}


def notify_assigned(db: Session, case_ids: Sequence[int], owner_user_id: int, by_user_id: int) -> None:
    """Tell the new owner of cases that they are theirs (a ``Services.case_assigned`` listener); nobody
    is told about what they assigned to themselves. One notification per case; no PHI in the title."""
    if owner_user_id == by_user_id:
        return
    for case in db.scalars(select(DenialCase).where(DenialCase.id.in_(list(case_ids)))):
        notify(
            db,
            organization_id=case.organization_id,
            client_id=case.client_id,
            user_id=owner_user_id,
            kind="assigned",
            case_id=case.id,
            title=f"Case {case.id} was assigned to you",
        )


def notify(
    db: Session,
    *,
    organization_id: int,
    client_id: int,
    user_id: int,
    kind: str,
    case_id: int | None,
    title: str,
    dedupe_key: str | None = None,
) -> Notification | None:
    """Create an in-app notification unless the user turned `kind` off; None when not created.

    `title` is shown as is: callers write it from ids, dates and counts, never PHI. With a
    `dedupe_key` the notification is made once per client (an existing one is returned)."""
    if not title or len(title) > 200:
        raise ValueError("a notification title is 1-200 characters")
    if not rules.is_enabled(_subscriptions(db, client_id, user_id), kind):
        return None
    if dedupe_key is not None:
        existing = db.scalar(
            select(Notification).where(Notification.client_id == client_id, Notification.dedupe_key == dedupe_key)
        )
        if existing is not None:
            return existing
    row = Notification(
        organization_id=organization_id,
        client_id=client_id,
        user_id=user_id,
        kind=kind,
        case_id=case_id,
        title=title,
        dedupe_key=dedupe_key,
    )
    if dedupe_key is None:
        db.add(row)
        db.flush()
        return row
    try:
        # A concurrent run may insert the same key between the look-up and here: the savepoint
        # keeps the caller's transaction usable and the other run's row stands.
        with db.begin_nested():
            db.add(row)
            db.flush()
    except IntegrityError:
        return db.scalar(
            select(Notification).where(Notification.client_id == client_id, Notification.dedupe_key == dedupe_key)
        )
    return row


def notify_deadlines(
    db: Session, today: date | None, horizon_days: int = DEFAULT_HORIZON_DAYS, now: datetime | None = None
) -> int:
    """One `deadline_approaching` notification to the owner of every open case whose appeal is due
    between today and today + `horizon_days`; idempotent per case x due date. Returns how many
    notifications it created. `today` pins one day for every client (a backfill); None takes each
    client's own today in its time zone at `now` (a deadline is a date where the hospital is)."""
    if not 0 <= horizon_days <= rules.MAX_HORIZON_DAYS:
        raise ValueError(f"horizon_days must be 0-{rules.MAX_HORIZON_DAYS}")
    todays = facts.client_todays(db, now) if today is None else {}
    earliest = today if today is not None else min(todays.values(), default=None)
    latest = today if today is not None else max(todays.values(), default=None)
    if earliest is None or latest is None:
        return 0
    cases = db.execute(
        select(
            DenialCase.id,
            DenialCase.organization_id,
            DenialCase.client_id,
            DenialCase.owner_user_id,
            DenialCase.appeal_due_on,
        )
        .where(
            DenialCase.state.in_(sorted(WORKING_STATES)),
            DenialCase.owner_user_id.is_not(None),
            DenialCase.appeal_due_on >= earliest,
            DenialCase.appeal_due_on <= latest + timedelta(days=horizon_days),
        )
        .order_by(DenialCase.id)
    ).all()
    created = 0
    for case_id, org_id, client_id, owner_id, due_on in cases:
        # The SQL already selects these; the rule is the definition, and it narrows the types.
        day = today if today is not None else todays.get(client_id)
        if owner_id is None or due_on is None or day is None or not rules.due_within(due_on, day, horizon_days):
            continue
        key = rules.deadline_key(case_id, due_on)
        if db.scalar(
            select(Notification.id).where(Notification.client_id == client_id, Notification.dedupe_key == key)
        ):
            continue
        made = notify(
            db,
            organization_id=org_id,
            client_id=client_id,
            user_id=owner_id,
            kind="deadline_approaching",
            case_id=case_id,
            title=rules.deadline_title(case_id, due_on, day),
            dedupe_key=key,
        )
        created += made is not None
    return created


def next_daily_run(now: datetime) -> datetime:
    """The next DAILY_RUN_HOUR_UTC strictly after `now`."""
    run = now.replace(hour=DAILY_RUN_HOUR_UTC, minute=0, second=0, microsecond=0)
    return run if run > now else run + timedelta(days=1)


def schedule_deadline_run(db: Session, now: datetime, horizon_days: int = DEFAULT_HORIZON_DAYS) -> Job | None:
    """Queue the next daily deadline run unless one is queued already; the job queues its successor."""
    queued = db.scalar(select(Job.id).where(Job.kind == DEADLINES_JOB_KIND, Job.status == "queued"))
    if queued is not None:
        return None
    return enqueue(db, DEADLINES_JOB_KIND, {"horizonDays": horizon_days}, run_after=next_daily_run(now))


# --- the caller's inbox ------------------------------------------------------------------------


def mark_read(db: Session, user_id: int, ids: Sequence[int]) -> list[Notification]:
    """Mark the caller's notifications read (already read ones keep their first read time). An id
    that is not the caller's is NOT_FOUND, whether or not it exists for someone else."""
    wanted = sorted(set(ids))
    rows = {
        n.id: n
        for n in db.scalars(select(Notification).where(Notification.id.in_(wanted), Notification.user_id == user_id))
    }
    missing = [i for i in wanted if i not in rows]
    if missing:
        raise NotFound(f"Notification {missing[0]} was not found")
    now = utcnow()
    for row in rows.values():
        if row.read_at is None:
            row.read_at = now
    db.flush()
    return [rows[i] for i in wanted]


def list_statement(user_id: int, *, unread: bool | None = None, kind: str | None = None) -> Select[Any]:
    """One member's notifications, only unread (True) or only read (False) when given, by kind when
    given; unordered, for paging."""
    stmt = where_given(select(Notification).where(Notification.user_id == user_id), (Notification.kind, kind))
    if unread is not None:
        stmt = stmt.where(Notification.read_at.is_(None) if unread else Notification.read_at.is_not(None))
    return stmt


def unread_count(db: Session, user_id: int) -> int:
    return int(
        db.scalar(
            select(func.count(Notification.id)).where(Notification.user_id == user_id, Notification.read_at.is_(None))
        )
        or 0
    )


def subscribe(
    db: Session, user_id: int, kind: str, channel: str, enabled: bool
) -> tuple[NotificationSubscription, bool | None]:
    """Turn `kind` on or off for the caller; returns the subscription and its previous setting
    (None when the caller had the default)."""
    row = db.scalar(
        select(NotificationSubscription).where(
            NotificationSubscription.user_id == user_id,
            NotificationSubscription.kind == kind,
            NotificationSubscription.channel == channel,
        )
    )
    before = None
    if row is None:
        row = NotificationSubscription(user_id=user_id, kind=kind, channel=channel, enabled=enabled)
        db.add(row)
    else:
        before = row.enabled
        row.enabled = enabled
    row.updated_at = utcnow()
    db.flush()
    return row, before
