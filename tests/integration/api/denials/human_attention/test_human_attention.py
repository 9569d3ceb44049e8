"""humanAttention.* over the wire, on SQLite and PostgreSQL, on hand-built cases whose order was worked
out by hand. With no decision recorded every P(overturn) is the uniform prior's 0.5."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from api.denials.cases.models import CaseEvent, DenialCase
from api.denials.human_attention.service import rescore
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.denial_case_rows import add_colleague, make_case
from tests.support.rpc_client import collect_pages


def today():
    # read when a test runs, not at import: a suite that crosses midnight UTC must not shift every deadline
    return datetime.now(UTC).date()


def _day(offset: int):
    return today() + timedelta(days=offset)


def _rescore(services, member) -> int:
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return rescore(db)


def _hand_built(services, member, owner_b: int | None = None):
    """Score = amount x 0.5 / effort hours x exp(-days left / 45), worked by hand:

    E authorization (2.0 h) 5000, no deadline, remitted 170 days ago -> due in 10 (assumed): 1250 x 0.80074 = 1000.92
    B medical_necessity (3.0 h) 6000, due in 30: 1000 x 0.51342 = 513.42
    A coding (1.0 h) 1000, due in 10: 500 x 0.80074 = 400.37
    D duplicate (0.5 h) 300, due today: 300 x 1 = 300.00
    C coding (1.0 h) 2000, due in 90: 1000 x 0.13534 = 135.34
    left out: F past due, G snoozed, H won, I on hold.
    """
    org, client = member.organization_id, member.client_id

    def case(**values):
        return make_case(services, org, client, **values)

    ids = {
        "A": case(denial_category="coding", amount_at_stake=Decimal("1000.00"), appeal_due_on=_day(10)),
        "B": case(
            denial_category="medical_necessity",
            amount_at_stake=Decimal("6000.00"),
            appeal_due_on=_day(30),
            owner_user_id=owner_b,
        ),
        "C": case(
            denial_category="coding", amount_at_stake=Decimal("2000.00"), appeal_due_on=_day(90), state="triaged"
        ),
        "D": case(
            denial_category="duplicate",
            amount_at_stake=Decimal("300.00"),
            appeal_due_on=_day(0),
            owner_user_id=member.user_id,
        ),
        "E": case(
            denial_category="authorization",
            amount_at_stake=Decimal("5000.00"),
            remittance_date=_day(-170),
            state="in_appeal",
            owner_user_id=member.user_id,
        ),
        "F": case(denial_category="coding", amount_at_stake=Decimal("9000.00"), appeal_due_on=_day(-1)),
        "G": case(
            denial_category="coding",
            amount_at_stake=Decimal("9000.00"),
            appeal_due_on=_day(5),
            snoozed_until=datetime.now(UTC) + timedelta(days=5),
        ),
        "H": case(denial_category="coding", amount_at_stake=Decimal("9000.00"), appeal_due_on=_day(5), state="won"),
        "I": case(denial_category="coding", amount_at_stake=Decimal("9000.00"), appeal_due_on=_day(5), on_hold=True),
    }
    return ids


EXPECTED = [("E", 1000.92), ("B", 513.42), ("A", 400.37), ("D", 300.00), ("C", 135.34)]


def _queue(member, **filters):
    return collect_pages(member.rpc, "humanAttention.queue", filters, limit=2)


@pytest.mark.parametrize("scored", [False, True], ids=["scored-on-the-fly", "stored-scores"])
def test_queue_order_and_scores_match_the_hand_computation(services, make_member, scored):
    member = make_member()
    ids = _hand_built(services, member)
    if scored:
        assert _rescore(services, member) == 9  # every case: H (won) had never been scored
    items = _queue(member)
    names = {v: k for k, v in ids.items()}
    assert [(names[i["caseId"]], round(i["score"], 2)) for i in items] == EXPECTED
    e = items[0]
    assert (e["dueOn"], e["deadlineAssumed"], e["daysLeft"]) == (_day(10).isoformat(), True, 10)
    assert (e["overturnProbability"], e["expectedRecovery"], e["effortHours"]) == (0.5, "2500.00", 2.0)
    assert e["urgency"] == pytest.approx(math.exp(-10 / 45))
    assert e["score"] == pytest.approx(5000 * 0.5 / 2.0 * math.exp(-10 / 45), rel=1e-9)


@pytest.mark.parametrize("scored", [False, True], ids=["scored-on-the-fly", "stored-scores"])
def test_queue_scopes_and_filters(services, make_member, rpc, scored):
    member = make_member()
    colleague = add_colleague(services, rpc, member)
    ids = _hand_built(services, member, owner_b=colleague.user_id)
    if scored:
        _rescore(services, member)
    names = {v: k for k, v in ids.items()}

    def order(**filters):
        return [names[i["caseId"]] for i in _queue(member, **filters)]

    assert order(owner="me") == ["E", "D"]
    assert order(owner=colleague.user_id) == ["B"]
    assert [names[i["caseId"]] for i in _queue(colleague, owner="me")] == ["B"]
    assert order(team=[member.user_id, colleague.user_id]) == ["E", "B", "D"]
    assert order(category="coding") == ["A", "C"]
    assert order(state="triaged") == ["C"]
    assert order(minAmount="2000.00") == ["E", "B", "C"]
    assert order(payer="NOBODY") == []
    both = member.rpc.query("humanAttention.queue", {"owner": "me", "team": [member.user_id]})
    assert both.code == "BAD_REQUEST"
    assert member.rpc.query("humanAttention.queue", {"cursor": "garbage"}).code == "BAD_REQUEST"
    assert member.rpc.query("humanAttention.queue", {"state": "won"}).code == "BAD_REQUEST"


def test_why_gives_the_queue_numbers_and_position(services, make_member):
    member = make_member()
    ids = _hand_built(services, member)
    _rescore(services, member)
    items = {i["caseId"]: i for i in _queue(member)}
    why = member.rpc.query("humanAttention.why", {"caseId": ids["A"]}).data
    item = items[ids["A"]]
    for field in ("score", "rankKey", "expectedRecovery", "effortHours", "dueOn", "daysLeft", "urgency"):
        assert why[field] == item[field], field
    assert (why["position"], why["queueLength"], why["inQueue"]) == (3, 5, True)
    p = why["probability"]
    assert (p["used"], p["mean"], p["basisLevel"], p["basisN"], p["basisK"]) == (0.5, 0.5, "global", 0, 0)
    assert p["low"] == pytest.approx(0.025) and p["high"] == pytest.approx(0.975)  # Beta(1, 1)
    assert [lv["level"] for lv in p["levels"]] == ["global", "category", "payer_category", "payer_category_carc"]
    assert any("Position 3 of 5" in w for w in why["explanation"])
    past = member.rpc.query("humanAttention.why", {"caseId": ids["F"]}).data
    assert past["inQueue"] is False and past["position"] is None
    assert any("deadline" in r for r in past["notInQueueBecause"])
    won = member.rpc.query("humanAttention.why", {"caseId": ids["H"]}).data
    assert any("'won'" in r for r in won["notInQueueBecause"])


def test_recorded_outcomes_rescore_the_category(services, make_member):
    """One win on a coding case: global Beta(2, 1); each deeper level's prior is its parent without the
    cell's own outcome, Beta(1, 1), at most that strong (2), so every level's posterior is Beta(2, 1)
    and coding cases move to P = 2/3. Medical necessity is another category: untouched (0.5)."""
    member = make_member()
    ids = _hand_built(services, member)
    assert _rescore(services, member) == 9
    assert _rescore(services, member) == 8  # the working cases (H is scored once, then left alone)
    decided = make_case(
        services, member.organization_id, member.client_id, denial_category="coding", carc="16", state="in_appeal"
    )
    member.rpc.mutation(
        "outcomes.record",
        {"caseId": decided, "decision": "won", "amountRecovered": "100.00", "decidedOn": today().isoformat()},
    ).data
    items = {i["caseId"]: i for i in _queue(member)}
    assert items[ids["A"]]["overturnProbability"] == pytest.approx(2 / 3)
    assert items[ids["A"]]["expectedRecovery"] == "666.67"
    assert items[ids["B"]]["overturnProbability"] == 0.5
    why = member.rpc.query("humanAttention.why", {"caseId": ids["A"]}).data["probability"]
    # same payer (the default), another CARC: the most specific level with data is payer x category
    assert (why["basisLevel"], why["basisN"], why["basisK"]) == ("payer_category", 1, 1)
    assert why["mean"] == pytest.approx(2 / 3) and why["used"] == pytest.approx(2 / 3)


def test_snooze_hides_a_case_until_its_time(services, make_member):
    member = make_member(role="specialist")
    ids = _hand_built(services, member)
    until = datetime.now(UTC) + timedelta(hours=2)
    out = member.rpc.mutation(
        "humanAttention.snooze", {"caseId": ids["E"], "until": until.isoformat(), "reason": "Waiting for records"}
    ).data
    assert out["caseId"] == ids["E"] and out["previousSnoozedUntil"] is None
    assert ids["E"] not in [i["caseId"] for i in _queue(member)]
    why = member.rpc.query("humanAttention.why", {"caseId": ids["E"]}).data
    assert why["inQueue"] is False and any("snoozed" in r for r in why["notInQueueBecause"])
    with services.database.transaction() as db:
        events = db.scalars(select(CaseEvent).where(CaseEvent.case_id == ids["E"])).all()
        assert [(e.kind, e.reason, e.actor_user_id) for e in events] == [
            ("snoozed", "Waiting for records", member.user_id)
        ]
        db.get(DenialCase, ids["E"]).snoozed_until = datetime.now(UTC) - timedelta(seconds=1)  # time passes
    assert _queue(member)[0]["caseId"] == ids["E"]


@pytest.mark.parametrize(
    ("until", "code"),
    [(timedelta(minutes=-5), "BAD_REQUEST"), (timedelta(days=91), "BAD_REQUEST"), (None, "BAD_REQUEST")],
)
def test_snooze_bad_times_are_bad_request(services, make_member, until, code):
    member = make_member()
    case_id = make_case(services, member.organization_id, member.client_id)
    when = (datetime.now(UTC) + until).isoformat() if until is not None else "2099-01-01T00:00:00"  # no zone
    result = member.rpc.mutation("humanAttention.snooze", {"caseId": case_id, "until": when, "reason": "x"})
    assert result.code == code and "until" in str(result.error)


def test_snooze_refuses_decided_unknown_and_other_tenants_cases(services, make_member):
    a, b = make_member(), make_member()
    soon = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    won = make_case(services, a.organization_id, a.client_id, state="won")
    refused = a.rpc.mutation("humanAttention.snooze", {"caseId": won, "until": soon, "reason": "x"})
    assert refused.code == "PRECONDITION_FAILED" and "'won'" in refused.error["message"]
    b_case = make_case(services, b.organization_id, b.client_id)
    assert a.rpc.mutation("humanAttention.snooze", {"caseId": b_case, "until": soon, "reason": "x"}).code == (
        "NOT_FOUND"
    )
    assert a.rpc.mutation("humanAttention.snooze", {"caseId": 2**62, "until": soon, "reason": "x"}).code == (
        "NOT_FOUND"
    )
    assert a.rpc.query("humanAttention.why", {"caseId": b_case}).code == "NOT_FOUND"
    assert b_case not in [i["caseId"] for i in _queue(a)]
    crossing = a.rpc.as_(a.token, b.client_id)
    assert crossing.query("humanAttention.queue", {}).code in ("FORBIDDEN", "NOT_FOUND")
    auditor = make_member(role="auditor")
    mine = make_case(services, auditor.organization_id, auditor.client_id)
    assert auditor.rpc.mutation("humanAttention.snooze", {"caseId": mine, "until": soon, "reason": "x"}).code == (
        "FORBIDDEN"
    )


# 08:00 UTC on 2026-03-02 is 22:00 on 2026-03-01 in Honolulu (UTC-10, no daylight saving time)
HONOLULU_MORNING = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _page_at(services, member, now: datetime) -> tuple[dict[int, dict], str]:
    from api.denials.human_attention import service

    with services.database.transaction(write=False) as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        page = service.queue(db, service.QueueFilters(), limit=10, cursor=None, now=now)
        items = {r.case.id: service.queue_item(r, page.today) for r in page.items}
        return items, page.today.isoformat()


def _set_zone(services, member, zone: str | None) -> None:
    from api.platform.organizations.models import Client

    with services.database.transaction() as db:
        db.scalar(select(Client).where(Client.id == member.client_id)).time_zone = zone


@pytest.mark.parametrize("scored", [False, True], ids=["scored-on-the-fly", "stored-scores"])
def test_days_left_count_on_the_clients_day_not_the_utc_day(services, make_member, scored):
    """Two coding cases (1.0 h, P 0.5) of a Honolulu hospital, asked at 08:00 UTC on 2026-03-02, which is
    still 2026-03-01 there:

    X 1000.00 due 2026-03-01: 0 days left (its due day), 500 x exp(0) = 500.00 -- in the queue
    Y 2000.00 due 2026-03-31: Mar 1 -> Mar 31 = 30 days left, 1000 x exp(-30/45) = 1000 x 0.513417 = 513.42
    On the UTC day (a client without a zone) X is a day past due (left out) and Y has 29 days left:
    1000 x exp(-29/45) = 1000 x e^-0.6 (0.548812) x e^-0.044444 (0.956529) = 1000 x 0.524955 = 524.95."""
    member = make_member()
    org, client = member.organization_id, member.client_id
    x = make_case(
        services,
        org,
        client,
        denial_category="coding",
        amount_at_stake=Decimal("1000.00"),
        appeal_due_on=datetime(2026, 3, 1).date(),
    )
    y = make_case(
        services,
        org,
        client,
        denial_category="coding",
        amount_at_stake=Decimal("2000.00"),
        appeal_due_on=datetime(2026, 3, 31).date(),
    )
    if scored:
        assert _rescore(services, member) == 2
    _set_zone(services, member, "Pacific/Honolulu")
    items, as_of = _page_at(services, member, HONOLULU_MORNING)
    assert as_of == "2026-03-01"
    assert [(i, items[i]["days_left"], round(items[i]["score"], 2)) for i in items] == [
        (y, 30, 513.42),
        (x, 0, 500.00),
    ]
    from api.denials.human_attention import service

    with services.database.transaction(write=False) as db:
        set_scope(db, TenantScope(org, client))
        why = service.why(db, x, now=HONOLULU_MORNING)
    assert (why.today.isoformat(), why.in_queue, why.position, why.queue_length) == ("2026-03-01", True, 2, 2)

    _set_zone(services, member, None)  # the default zone (UTC in tests)
    items, as_of = _page_at(services, member, HONOLULU_MORNING)
    assert as_of == "2026-03-02"
    assert [(i, items[i]["days_left"], round(items[i]["score"], 2)) for i in items] == [(y, 29, 524.95)]
