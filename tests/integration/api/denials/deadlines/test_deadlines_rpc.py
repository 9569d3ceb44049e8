"""deadlines.* over RPC on SQLite and PostgreSQL, with cases written through the ORM."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select

from api.denials.cases.models import DenialCase
from api.denials.deadlines.models import CaseDeadline
from api.denials.deadlines.service import schedule_case
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.scheduled_cases import make_case

D = date
JAN_10 = D(2024, 1, 10)


def _today() -> date:
    return datetime.now(UTC).date()


def test_for_case_lists_hand_computed_deadlines(make_member, services):
    m = make_member()
    # remittance 2024-01-02 -> received 01-07 -> redetermination due 2024-05-06;
    # service 2023-03-01 + 365 -> timely filing 2024-02-29
    case_id = make_case(services, m, remittance_date=D(2024, 1, 2), service_date=D(2023, 3, 1), as_of=JAN_10)
    out = m.rpc.query("deadlines.forCase", {"caseId": case_id, "asOf": "2024-01-10"}).data
    assert out["appealDueOn"] == "2024-05-06"
    assert [(d["level"], d["dueOn"], d["status"]) for d in out["items"]] == [
        ("timely_filing", "2024-02-29", "open"),
        ("redetermination", "2024-05-06", "open"),
    ]
    redetermination = out["items"][1]
    assert redetermination["basis"] == "receipt_of_initial_determination"
    assert redetermination["basisDate"] == "2024-01-02"
    assert redetermination["limitDays"] == 120
    assert redetermination["ruleReference"] == "payer_appeal_limits/medicare/*/redetermination"
    assert redetermination["businessDays"] is False
    # Jan 10 -> May 6: 21 + 29 + 31 + 30 + 6
    assert redetermination["daysLeft"] == 117
    # the same case read later: both dates passed
    later = m.rpc.query("deadlines.forCase", {"caseId": case_id, "asOf": "2024-06-01"}).data
    assert [d["status"] for d in later["items"]] == ["missed", "missed"]


def test_schedule_case_is_idempotent_and_refreshes_status(make_member, services):
    m = make_member()
    case_id = make_case(services, m, remittance_date=D(2024, 1, 2), service_date=D(2023, 3, 1), as_of=JAN_10)
    with services.database.transaction() as db:
        set_scope(db, TenantScope(m.organization_id, m.client_id))
        case = db.scalar(select(DenialCase).where(DenialCase.id == case_id))
        first = [(r.id, r.level, r.due_on) for r in schedule_case(db, case, as_of=JAN_10)]
        assert not db.dirty and not db.new
        again = [(r.id, r.level, r.due_on) for r in schedule_case(db, case, as_of=JAN_10)]
        assert first == again
        # months later both are missed; the missed appeal still counts as the case's deadline
        rows = schedule_case(db, case, as_of=D(2024, 6, 1))
        assert {r.level: r.status for r in rows} == {"timely_filing": "missed", "redetermination": "missed"}
        assert case.appeal_due_on == D(2024, 5, 6)
        # the appeal went to the payer: the appeal deadline is met, no deadline is left for the case
        case.state = "awaiting_payer"
        rows = schedule_case(db, case, as_of=D(2024, 6, 1))
        assert {r.level: r.status for r in rows}["redetermination"] == "met"
        assert case.appeal_due_on is None


def test_schedule_case_follows_a_payer_class_change(make_member, services):
    m = make_member()
    case_id = make_case(services, m, remittance_date=D(2024, 1, 2), as_of=JAN_10)
    with services.database.transaction() as db:
        set_scope(db, TenantScope(m.organization_id, m.client_id))
        case = db.scalar(select(DenialCase).where(DenialCase.id == case_id))
        case.payer_class = "medicaid"
        rows = schedule_case(db, case, as_of=JAN_10)
        # 2024-01-02 + 60 = 2024-03-02
        assert [(r.level, r.due_on) for r in rows] == [("first_level_appeal", D(2024, 3, 2))]
        assert db.scalar(select(CaseDeadline.id).where(CaseDeadline.level == "redetermination")) is None


def test_upcoming_filters_and_paginates(make_member, services):
    m = make_member()
    other_owner = make_member()
    # commercial 2023-08-01 + 180 = 2024-01-28; medicaid 2023-12-01 + 60 = 2024-01-30
    a = make_case(
        services, m, payer_class="commercial", payer="Acme Health", remittance_date=D(2023, 8, 1), as_of=JAN_10
    )
    c = make_case(
        services,
        m,
        payer_class="medicaid",
        payer="State Medicaid",
        remittance_date=D(2023, 12, 1),
        owner_user_id=m.user_id,
        as_of=JAN_10,
    )
    make_case(services, m, remittance_date=D(2024, 1, 2), as_of=JAN_10)  # due 2024-05-06: outside 30 days
    make_case(services, m, payer_class="commercial", remittance_date=D(2023, 8, 1), state="won", as_of=JAN_10)
    make_case(services, other_owner, payer_class="commercial", remittance_date=D(2023, 8, 1), as_of=JAN_10)

    query = {"asOf": "2024-01-10", "withinDays": 30, "limit": 1}
    first = m.rpc.query("deadlines.upcoming", query).data
    assert [(i["caseId"], i["dueOn"], i["level"]) for i in first["items"]] == [(a, "2024-01-28", "first_level_appeal")]
    assert first["items"][0]["daysLeft"] == 18 and first["items"][0]["payer"] == "Acme Health"
    second = m.rpc.query("deadlines.upcoming", {**query, "cursor": first["nextCursor"]}).data
    assert [(i["caseId"], i["dueOn"]) for i in second["items"]] == [(c, "2024-01-30")]
    assert second["nextCursor"] is None

    assert [
        i["caseId"] for i in m.rpc.query("deadlines.upcoming", {**query, "ownerUserId": m.user_id}).data["items"]
    ] == [c]
    by_payer = m.rpc.query("deadlines.upcoming", {**query, "payer": "Acme Health", "limit": 50}).data["items"]
    assert [i["caseId"] for i in by_payer] == [a]
    # on 2024-02-01 both are past: listed only when overdue ones are asked for, as missed
    feb = {"asOf": "2024-02-01", "withinDays": 7}
    assert m.rpc.query("deadlines.upcoming", feb).data["items"] == []
    overdue = m.rpc.query("deadlines.upcoming", {**feb, "includeOverdue": True}).data["items"]
    assert [(i["caseId"], i["status"], i["daysLeft"]) for i in overdue] == [(a, "missed", -4), (c, "missed", -2)]


def test_upcoming_refuses_a_foreign_cursor_and_dates_off_the_calendar(make_member):
    m = make_member()
    r = m.rpc.query("deadlines.upcoming", {"cursor": "not-a-cursor"})
    assert r.code == "BAD_REQUEST"
    assert m.rpc.query("deadlines.upcoming", {"asOf": "9999-12-31", "withinDays": 3650}).code == "BAD_REQUEST"
    assert m.rpc.query("deadlineRisk.summary", {"asOf": "0001-01-01"}).code == "BAD_REQUEST"


def test_override_moves_the_date_and_is_audited(make_member, services):
    m = make_member()
    case_id = make_case(services, m, remittance_date=_today() - timedelta(days=10))
    before = m.rpc.query("deadlines.forCase", {"caseId": case_id}).data
    computed = before["items"][0]["computedDueOn"]
    new_due = (_today() + timedelta(days=200)).isoformat()
    out = m.rpc.mutation(
        "deadlines.override",
        {"caseId": case_id, "level": "redetermination", "dueOn": new_due, "reason": "MAC granted good cause"},
    ).data
    assert (out["dueOn"], out["computedDueOn"], out["overriddenDueOn"]) == (new_due, computed, new_due)
    assert out["overrideReason"] == "MAC granted good cause" and out["overriddenBy"] == m.user_id
    assert m.rpc.query("deadlines.forCase", {"caseId": case_id}).data["appealDueOn"] == new_due
    events = m.rpc.query("audit.list", {"procedure": "deadlines.override"}).data["items"]
    assert len(events) == 1
    assert (events[0]["targetType"], events[0]["targetId"]) == ("case_deadline", str(out["id"]))
    assert events[0]["beforeDigest"] and events[0]["afterDigest"]
    # an override survives re-scheduling
    with services.database.transaction() as db:
        set_scope(db, TenantScope(m.organization_id, m.client_id))
        case = db.scalar(select(DenialCase).where(DenialCase.id == case_id))
        rows = schedule_case(db, case)
        assert [r.due_on.isoformat() for r in rows if r.level == "redetermination"] == [new_due]


def test_override_bad_input(make_member, services):
    m = make_member()
    case_id = make_case(services, m, remittance_date=_today() - timedelta(days=10))
    ok = {"caseId": case_id, "level": "redetermination", "dueOn": (_today() + timedelta(days=5)).isoformat()}
    assert m.rpc.mutation("deadlines.override", ok).code == "BAD_REQUEST"  # no reason
    assert m.rpc.mutation("deadlines.override", {**ok, "reason": "   "}).code == "BAD_REQUEST"
    past = {**ok, "reason": "r", "dueOn": (_today() - timedelta(days=1)).isoformat()}
    r = m.rpc.mutation("deadlines.override", past)
    assert r.code == "BAD_REQUEST" and "dueOn" in r.error["message"]
    assert m.rpc.mutation("deadlines.override", {**ok, "reason": "r", "caseId": 10**12}).code == "NOT_FOUND"
    r = m.rpc.mutation("deadlines.override", {**ok, "reason": "r", "level": "judicial_review"})
    assert r.code == "NOT_FOUND"
    assert m.rpc.query("deadlines.forCase", {"caseId": 10**12}).code == "NOT_FOUND"


def test_override_needs_approve_permission(make_member, services):
    specialist = make_member(role="specialist")
    case_id = make_case(services, specialist, remittance_date=_today() - timedelta(days=10))
    body = {
        "caseId": case_id,
        "level": "redetermination",
        "dueOn": (_today() + timedelta(days=5)).isoformat(),
        "reason": "contract",
    }
    assert specialist.rpc.mutation("deadlines.override", body).code == "FORBIDDEN"
    assert specialist.rpc.query("deadlines.forCase", {"caseId": case_id}).data["items"]


def test_a_met_deadline_cannot_be_overridden(make_member, services):
    m = make_member()
    case_id = make_case(services, m, remittance_date=_today() - timedelta(days=10), state="awaiting_payer")
    body = {
        "caseId": case_id,
        "level": "redetermination",
        "dueOn": (_today() + timedelta(days=5)).isoformat(),
        "reason": "r",
    }
    assert m.rpc.mutation("deadlines.override", body).code == "PRECONDITION_FAILED"


def test_other_tenants_cases_are_not_found(make_member, services):
    owner, stranger = make_member(), make_member()
    case_id = make_case(services, owner, remittance_date=_today() - timedelta(days=10))
    assert stranger.rpc.query("deadlines.forCase", {"caseId": case_id}).code == "NOT_FOUND"
    body = {
        "caseId": case_id,
        "level": "redetermination",
        "dueOn": (_today() + timedelta(days=5)).isoformat(),
        "reason": "r",
    }
    assert stranger.rpc.mutation("deadlines.override", body).code == "NOT_FOUND"
    assert stranger.rpc.query("deadlines.upcoming", {"withinDays": 3650, "includeOverdue": True}).data["items"] == []
