"""outcomes.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from api.denials.cases.models import CaseEvent, DenialCase
from api.platform.audit.models import AuditEvent
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import collect_pages


def today():
    # read when a test runs, not at import: a suite that crosses midnight UTC must not shift the dates
    return datetime.now(UTC).date()


REFERENCE = "APL-REF-778812"


def _record(member, case_id, **fields):
    payload = {"caseId": case_id, "decision": "won", "decidedOn": today().isoformat(), **fields}
    return member.rpc.mutation("outcomes.record", payload)


def _case(services, member, **values):
    return make_case(services, member.organization_id, member.client_id, **{"state": "in_appeal", **values})


def _case_row(services, case_id):
    with services.database.transaction() as db:
        case = db.get(DenialCase, case_id)
        assert case is not None
        events = db.scalars(select(CaseEvent).where(CaseEvent.case_id == case_id).order_by(CaseEvent.id)).all()
        return case.state, case.recovered_amount, [(e.kind, e.from_state, e.to_state, e.details) for e in events]


def test_a_win_moves_the_case_adds_the_money_and_appends_an_event(services, make_member):
    member = make_member(role="specialist")
    case_id = _case(services, member, amount_at_stake=Decimal("1250.00"), state="awaiting_payer")
    out = _record(member, case_id, amountRecovered="1000.00", level=2, payerReference=REFERENCE).data
    assert (out["decision"], out["level"], out["amountRecovered"]) == ("won", 2, "1000.00")
    assert (out["caseStateBefore"], out["caseStateAfter"], out["caseRecoveredAmount"]) == (
        "awaiting_payer",
        "won",
        "1000.00",
    )
    assert out["recordedByUserId"] == member.user_id and out["payerReference"] == REFERENCE
    state, recovered, events = _case_row(services, case_id)
    assert (state, recovered) == ("won", Decimal("1000.00"))
    assert [(k, f, t) for k, f, t, _ in events] == [("appeal_outcome", "awaiting_payer", "won")]
    assert events[0][3]["outcomeId"] == out["id"] and REFERENCE not in str(events[0][3])
    assert member.rpc.query("outcomes.get", {"id": out["id"]}).data == {
        k: v for k, v in out.items() if k != "caseRecoveredAmount"
    }


def test_partial_win_then_a_second_level_adds_up_to_the_amount_at_stake(services, make_member):
    member = make_member()
    case_id = _case(services, member, amount_at_stake=Decimal("1250.00"))
    assert _record(member, case_id, decision="partially_won", amountRecovered="400.00").data["caseStateAfter"] == (
        "partially_won"
    )
    with services.database.transaction() as db:  # reopened for a second-level appeal (cases.transition)
        db.get(DenialCase, case_id).state = "in_appeal"
    too_much = _record(member, case_id, level=2, amountRecovered="850.01")
    assert too_much.code == "BAD_REQUEST" and "850.00 still at stake" in too_much.error["message"]
    assert _record(member, case_id, level=2, amountRecovered="850.00").data["caseRecoveredAmount"] == "1250.00"
    assert _case_row(services, case_id)[:2] == ("won", Decimal("1250.00"))


def test_a_loss_and_a_withdrawal_recover_nothing(services, make_member):
    member = make_member()
    lost = _case(services, member)
    assert _record(member, lost, decision="lost").data["caseStateAfter"] == "lost"
    withdrawn = _case(services, member, state="awaiting_payer")
    out = _record(member, withdrawn, decision="withdrawn").data
    assert (out["caseStateAfter"], out["amountRecovered"]) == ("in_appeal", "0.00")
    assert _case_row(services, withdrawn)[:2] == ("in_appeal", Decimal("0.00"))


@pytest.mark.parametrize("state", ["open", "triaged", "won", "closed"])
def test_a_case_not_in_appeal_is_precondition_failed_naming_its_state(services, make_member, state):
    member = make_member()
    case_id = _case(services, member, state=state)
    refused = _record(member, case_id, amountRecovered="10.00")
    assert refused.code == "PRECONDITION_FAILED" and f"'{state}'" in refused.error["message"]
    assert _case_row(services, case_id)[2] == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"amountRecovered": "-1.00"}, "amountRecovered"),
        ({"decision": "lost", "amountRecovered": "5.00"}, "amountRecovered"),
        ({"decision": "withdrawn", "amountRecovered": "5.00"}, "amountRecovered"),
        ({"decision": "partially_won", "amountRecovered": "1250.00"}, "amountRecovered"),
        ({"amountRecovered": "1250.01"}, "amountRecovered"),
        ({"amountRecovered": "1.001"}, "amountRecovered"),
        ({"decision": "overturned"}, "decision"),
        ({"decidedOn": (today() + timedelta(days=3)).isoformat()}, "decidedOn"),
        ({"level": 0}, "level"),
        ({"payerReference": "a\nb"}, "payerReference"),
    ],
)
def test_bad_input_is_bad_request_naming_the_field(services, make_member, change, field):
    member = make_member()
    case_id = _case(services, member)
    result = _record(member, case_id, **change)
    assert result.code == "BAD_REQUEST", result.body
    assert f"'{field}'" in result.error["message"] or any(field in i["path"] for i in result.error["data"]["issues"])
    assert _case_row(services, case_id)[:2] == ("in_appeal", Decimal("0.00"))


def test_unknown_and_other_tenants_cases_and_outcomes_are_not_found(services, make_member):
    a, b = make_member(), make_member()
    b_case = _case(services, b)
    assert _record(a, b_case).code == "NOT_FOUND"
    assert _record(a, 2**62).code == "NOT_FOUND"
    b_outcome = _record(b, b_case, amountRecovered="5.00").data
    assert a.rpc.query("outcomes.get", {"id": b_outcome["id"]}).code == "NOT_FOUND"
    assert a.rpc.query("outcomes.list", {}).data["items"] == []
    crossing = a.rpc.as_(a.token, b.client_id)
    assert crossing.query("outcomes.list", {}).code in ("FORBIDDEN", "NOT_FOUND")
    assert crossing.mutation("outcomes.record", {}).code in ("FORBIDDEN", "NOT_FOUND")


def test_list_filters_and_pages(services, make_member):
    member = make_member()
    first = _record(member, _case(services, member, payer="ACME HEALTH"), amountRecovered="5.00").data
    second = _record(
        member, _case(services, member), decision="lost", decidedOn=(today() - timedelta(days=9)).isoformat()
    ).data
    third = _record(member, _case(services, member, payer="ACME HEALTH"), decision="lost").data

    def ids(**filters):
        return [i["id"] for i in collect_pages(member.rpc, "outcomes.list", filters, limit=1)]

    assert ids() == [third["id"], second["id"], first["id"]]
    assert ids(decision="lost") == [third["id"], second["id"]]
    assert ids(payer="ACME HEALTH") == [third["id"], first["id"]]
    assert ids(caseId=second["caseId"]) == [second["id"]]
    assert ids(decidedTo=(today() - timedelta(days=1)).isoformat()) == [second["id"]]
    assert ids(decidedFrom=today().isoformat()) == [third["id"], first["id"]]
    reversed_range = member.rpc.query("outcomes.list", {"decidedFrom": "2026-03-02", "decidedTo": "2026-03-01"})
    assert reversed_range.code == "BAD_REQUEST"


def test_read_only_roles_cannot_record(services, make_member):
    auditor = make_member(role="auditor")
    assert _record(auditor, _case(services, auditor)).code == "FORBIDDEN"


def test_the_payer_reference_and_claim_key_never_reach_the_audit_log(services, make_member):
    member = make_member()
    case_id = _case(services, member, claim_key="PCN-SECRET-991")
    out = _record(member, case_id, amountRecovered="10.00", payerReference=REFERENCE).data
    with services.database.transaction() as db:
        events = db.scalars(select(AuditEvent).where(AuditEvent.procedure == "outcomes.record")).all()
    mine = [e for e in events if e.target_id == str(out["id"])]
    assert mine and all(REFERENCE not in str(vars(e)) and "PCN-SECRET-991" not in str(vars(e)) for e in mine)
