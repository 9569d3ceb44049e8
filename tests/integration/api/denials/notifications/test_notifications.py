"""notifications.* over the wire and the service other namespaces call, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import func, select

from api.denials.notifications import service
from api.denials.notifications.models import Notification
from api.infra.jobs import queue
from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker
from tests.support.denial_case_rows import add_colleague, make_case
from tests.support.rpc_client import collect_pages


def _notify(services, member, *, user_id=None, kind="assigned", case_id=None, title="You were assigned case 1"):
    with services.database.transaction() as db:
        made = service.notify(
            db,
            organization_id=member.organization_id,
            client_id=member.client_id,
            user_id=user_id or member.user_id,
            kind=kind,
            case_id=case_id,
            title=title,
        )
        return None if made is None else made.id


def _unique_day() -> date:
    # far from any other test's deadline days: the deadline sweep walks every tenant of the database
    return date(2040, 1, 1) + timedelta(days=uuid.uuid4().int % 20_000)


def test_list_shows_only_the_callers_own_with_unread_filter_and_cursor(services, rpc, make_member):
    owner = make_member()
    colleague = add_colleague(services, rpc, owner)
    mine = [_notify(services, owner, title=f"Assigned case {i}") for i in range(3)]
    theirs = _notify(services, owner, user_id=colleague.user_id, title="Assigned case 9")
    items = collect_pages(owner.rpc, "notifications.list", {}, limit=2)
    assert [i["id"] for i in items] == mine[::-1]
    assert colleague.rpc.query("notifications.list", {}).data["items"][0]["id"] == theirs
    owner.rpc.mutation("notifications.markRead", {"ids": [mine[0]]}).data
    unread = owner.rpc.query("notifications.list", {"unread": True}).data
    assert [i["id"] for i in unread["items"]] == [mine[2], mine[1]] and unread["unreadCount"] == 2
    read = owner.rpc.query("notifications.list", {"unread": False}).data["items"]
    assert [i["id"] for i in read] == [mine[0]] and read[0]["readAt"] is not None
    assert owner.rpc.query("notifications.list", {"kind": "mention"}).data["items"] == []


def test_mark_read_keeps_the_first_read_time_and_reports_unread(services, make_member):
    member = make_member(role="auditor")  # read-only members manage their own inbox too
    first, second = _notify(services, member), _notify(services, member)
    once = member.rpc.mutation("notifications.markRead", {"ids": [first]}).data
    assert once["unreadCount"] == 1
    again = member.rpc.mutation("notifications.markRead", {"ids": [first, second]}).data
    assert [i["id"] for i in again["items"]] == [first, second] and again["unreadCount"] == 0
    assert again["items"][0]["readAt"] == once["items"][0]["readAt"]


def test_other_users_notifications_are_not_found_and_nothing_is_marked(services, rpc, make_member):
    owner = make_member()
    colleague = add_colleague(services, rpc, owner)
    mine = _notify(services, owner)
    theirs = _notify(services, owner, user_id=colleague.user_id)
    refused = owner.rpc.mutation("notifications.markRead", {"ids": [mine, theirs]})
    assert refused.code == "NOT_FOUND"
    # the same answer as for an id that does not exist at all
    missing = owner.rpc.mutation("notifications.markRead", {"ids": [2**62]})
    assert (
        missing.code == "NOT_FOUND"
        and missing.error["message"].replace(str(2**62), str(theirs)) == (refused.error["message"])
    )
    assert owner.rpc.query("notifications.list", {"unread": True}).data["unreadCount"] == 1
    assert colleague.rpc.query("notifications.list", {"unread": True}).data["unreadCount"] == 1


def test_other_tenants_notifications_are_invisible_and_crossing_is_refused(services, make_member):
    a, b = make_member(), make_member()
    a_note = _notify(services, a)
    assert b.rpc.query("notifications.list", {}).data["items"] == []
    assert b.rpc.mutation("notifications.markRead", {"ids": [a_note]}).code == "NOT_FOUND"
    crossing = b.rpc.as_(b.token, a.client_id)
    for path in ("notifications.markRead", "notifications.subscribe"):
        assert crossing.mutation(path, {}).code in ("FORBIDDEN", "NOT_FOUND")
    assert crossing.query("notifications.list", {}).code in ("FORBIDDEN", "NOT_FOUND")


def test_bad_input_is_bad_request_naming_the_field(make_member):
    member = make_member()
    cases = [
        ("notifications.markRead", {"ids": []}, "ids"),
        ("notifications.markRead", {"ids": [0]}, "ids"),
        ("notifications.markRead", {"ids": list(range(1, 502))}, "ids"),
        ("notifications.subscribe", {"kind": "birthday", "enabled": False}, "kind"),
        ("notifications.subscribe", {"kind": "assigned", "enabled": False, "channel": "sms"}, "channel"),
        ("notifications.subscribe", {"kind": "assigned"}, "enabled"),
    ]
    for path, payload, field in cases:
        result = member.rpc.mutation(path, payload)
        assert result.code == "BAD_REQUEST", (path, payload, result.body)
        assert field in result.error["message"], (path, payload)
    listed = member.rpc.query("notifications.list", {"kind": "birthday"})
    assert listed.code == "BAD_REQUEST" and "kind" in listed.error["message"]


def test_subscriptions_are_respected_default_on(services, make_member):
    member = make_member(role="analyst")
    assert _notify(services, member, kind="mention") is not None
    off = member.rpc.mutation("notifications.subscribe", {"kind": "mention", "enabled": False}).data
    assert (off["kind"], off["channel"], off["enabled"]) == ("mention", "in_app", False)
    assert _notify(services, member, kind="mention") is None
    assert _notify(services, member, kind="assigned") is not None  # other kinds stay on
    on = member.rpc.mutation("notifications.subscribe", {"kind": "mention", "enabled": True}).data
    assert on["id"] == off["id"] and on["enabled"] is True
    assert _notify(services, member, kind="mention") is not None


def test_notify_deadlines_one_per_open_owned_case_within_the_horizon_idempotently(services, rpc, make_member):
    owner = make_member()
    colleague = add_colleague(services, rpc, owner)
    today = _unique_day()
    org, client = owner.organization_id, owner.client_id

    def case(days, **values):
        return make_case(services, org, client, appeal_due_on=today + timedelta(days=days), **values)

    due_today = case(0, owner_user_id=owner.user_id)
    due_in_7 = case(7, owner_user_id=colleague.user_id, state="in_appeal")
    case(8, owner_user_id=owner.user_id)  # beyond the horizon
    case(-1, owner_user_id=owner.user_id)  # already past
    case(3)  # nobody owns it
    case(3, owner_user_id=owner.user_id, state="won")  # decided
    case(3, owner_user_id=owner.user_id, state="closed")
    with services.database.transaction() as db:
        assert service.notify_deadlines(db, today, 7) == 2
    with services.database.transaction() as db:
        assert service.notify_deadlines(db, today, 7) == 0
        assert service.notify_deadlines(db, today + timedelta(days=1), 6) == 0  # same case x due date
    mine = owner.rpc.query("notifications.list", {"kind": "deadline_approaching"}).data["items"]
    assert [(n["caseId"], n["title"]) for n in mine] == [
        (due_today, f"Appeal deadline for case {due_today} is today ({today.isoformat()})")
    ]
    theirs = colleague.rpc.query("notifications.list", {"kind": "deadline_approaching"}).data["items"]
    assert [n["caseId"] for n in theirs] == [due_in_7]


def test_the_sweep_counts_each_clients_own_today(services, make_member):
    # At 08:00 UTC on day D it is still D-1 in Honolulu (UTC-10): a Honolulu case due D-1 is due today
    # there and is notified; the same due date in a UTC client is past and is not.
    from api.platform.organizations.models import Client

    honolulu, utc = make_member(), make_member()
    day = _unique_day()
    with services.database.transaction() as db:
        db.scalar(select(Client).where(Client.id == honolulu.client_id)).time_zone = "Pacific/Honolulu"
    yesterday = day - timedelta(days=1)
    in_honolulu = make_case(
        services, honolulu.organization_id, honolulu.client_id, owner_user_id=honolulu.user_id, appeal_due_on=yesterday
    )
    make_case(services, utc.organization_id, utc.client_id, owner_user_id=utc.user_id, appeal_due_on=yesterday)
    now = datetime(day.year, day.month, day.day, 8, 0, tzinfo=UTC)
    with services.database.transaction() as db:
        assert service.notify_deadlines(db, None, 0, now) == 1
    mine = honolulu.rpc.query("notifications.list", {"kind": "deadline_approaching"}).data["items"]
    assert [(n["caseId"], n["title"]) for n in mine] == [
        (in_honolulu, f"Appeal deadline for case {in_honolulu} is today ({yesterday.isoformat()})")
    ]
    assert utc.rpc.query("notifications.list", {"kind": "deadline_approaching"}).data["items"] == []


def test_a_moved_deadline_notifies_again_and_a_muted_owner_gets_none(services, make_member):
    owner = make_member()
    today = _unique_day()
    case_id = make_case(
        services, owner.organization_id, owner.client_id, owner_user_id=owner.user_id, appeal_due_on=today
    )
    with services.database.transaction() as db:
        assert service.notify_deadlines(db, today, 0) == 1
    from api.denials.cases.models import DenialCase

    with services.database.transaction() as db:
        db.get(DenialCase, case_id).appeal_due_on = today + timedelta(days=2)
    with services.database.transaction() as db:
        assert service.notify_deadlines(db, today, 7) == 1
    owner.rpc.mutation("notifications.subscribe", {"kind": "deadline_approaching", "enabled": False}).data
    with services.database.transaction() as db:
        db.get(DenialCase, case_id).appeal_due_on = today + timedelta(days=3)
    with services.database.transaction() as db:
        assert service.notify_deadlines(db, today, 7) == 0


def test_the_daily_job_runs_the_sweep_and_the_schedule_is_kept_once(services, make_member):
    owner = make_member()
    today = _unique_day()
    make_case(
        services,
        owner.organization_id,
        owner.client_id,
        owner_user_id=owner.user_id,
        appeal_due_on=today + timedelta(days=2),
    )
    with services.database.transaction() as db:
        job_id = queue.enqueue(db, service.DEADLINES_JOB_KIND, {"today": today.isoformat(), "horizonDays": 3}).id
    worker = Worker(services.database, kinds=[service.DEADLINES_JOB_KIND], worker_id="deadline-test-worker")
    assert worker.run_once()
    with services.database.transaction() as db:
        job = db.get(Job, job_id)
        assert (job.status, job.result) == ("succeeded", {"today": today.isoformat(), "horizonDays": 3, "created": 1})
        assert db.scalar(select(func.count(Notification.id)).where(Notification.user_id == owner.user_id)) == 1
        now = datetime(2031, 5, 4, 7, 30, tzinfo=UTC)
        first = service.schedule_deadline_run(db, now)
        assert first is not None and first.run_after == datetime(2031, 5, 5, 6, 0, tzinfo=UTC)
        assert service.schedule_deadline_run(db, now) is None  # one queued run at a time
        db.delete(first)


def test_a_bad_job_payload_is_a_dead_job_not_a_crash(services):
    with services.database.transaction() as db:
        job_id = queue.enqueue(db, service.DEADLINES_JOB_KIND, {"today": "not a day"}, max_attempts=3).id
    worker = Worker(services.database, kinds=[service.DEADLINES_JOB_KIND], worker_id="deadline-test-worker-2")
    assert worker.run_once()
    with services.database.transaction() as db:
        assert db.get(Job, job_id).status == "dead"
