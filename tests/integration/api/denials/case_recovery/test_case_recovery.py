"""caseRecovery.* over the real wire: the plan with its money, recoveries recorded by hand (never
negative, never beyond the stake), ledger recoveries added to them, and totals by payer, category,
owner and month of the event that recorded them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.integration.api.denials.conftest import by_claim, open_case, post


def test_recording_by_hand_increments_recovered_and_refuses_more_than_the_stake(member):
    case = open_case(member.rpc, amount="100.00")
    plan = member.rpc.mutation(
        "caseRecovery.recordRecovery", {"id": case["id"], "amount": "40.00", "source": "patient", "reference": "CHK-1"}
    ).data
    assert (plan["recoveredAmount"], plan["recoveredByHand"], plan["recoveredFromLedger"]) == ("40.00", "40.00", "0.00")
    assert plan["remaining"] == "60.00"
    assert [(r["kind"], r["amount"], r["source"], r["reference"]) for r in plan["recoveries"]] == [
        ("recovery", "40.00", "patient", "CHK-1")
    ]
    over = member.rpc.mutation("caseRecovery.recordRecovery", {"id": case["id"], "amount": "60.01", "source": "other"})
    assert over.code == "BAD_REQUEST"
    assert "above the amount at stake 100.00" in over.error["message"] and "at most 60.00 more" in over.error["message"]
    for amount in ("-5.00", "0"):
        negative = member.rpc.mutation(
            "caseRecovery.recordRecovery", {"id": case["id"], "amount": amount, "source": "other"}
        )
        assert negative.code == "BAD_REQUEST"
    assert member.rpc.query("cases.get", {"id": case["id"]}).data["case"]["recoveredAmount"] == "40.00"


def test_the_plan_is_set_and_read_back(member):
    case = open_case(member.rpc, amount="100.00")
    empty = member.rpc.query("caseRecovery.plan", {"id": case["id"]}).data
    assert empty["plan"]["strategy"] is None and empty["remaining"] == "100.00"
    set_ = member.rpc.mutation(
        "caseRecovery.setPlan",
        {
            "id": case["id"],
            "strategy": "appeal",
            "expectedRecovery": "90.00",
            "nextStep": "send records",
            "nextStepDue": "2026-06-01",
        },
    ).data
    assert (set_["plan"]["strategy"], set_["plan"]["expectedRecovery"], set_["plan"]["setBy"]) == (
        "appeal",
        "90.00",
        member.user_id,
    )
    too_much = member.rpc.mutation(
        "caseRecovery.setPlan", {"id": case["id"], "strategy": "appeal", "expectedRecovery": "100.01"}
    )
    assert too_much.code == "BAD_REQUEST"
    assert member.rpc.query("caseRecovery.plan", {"id": 999_999_999}).code == "NOT_FOUND"


def test_a_ledger_recovery_adds_to_what_was_recorded_by_hand(member):
    post(member.rpc, "commercial_march.835")
    case = by_claim(member.rpc)["OVT-1"]  # 80.00 at stake, 80.00 paid before
    member.rpc.mutation("caseRecovery.recordRecovery", {"id": case["id"], "amount": "20.00", "source": "patient"}).data
    post(member.rpc, "commercial_april.835")  # the payer pays 80.00 more: 80 + 20 is capped at the stake
    plan = member.rpc.query("caseRecovery.plan", {"id": case["id"]}).data
    assert (plan["state"], plan["recoveredAmount"], plan["recoveredByHand"], plan["recoveredFromLedger"]) == (
        "won",
        "80.00",
        "20.00",
        "60.00",
    )
    assert [(r["kind"], r["amount"], r["source"]) for r in plan["recoveries"]] == [
        ("recovery", "20.00", "patient"),
        ("ledger_update", "60.00", "ledger"),
    ]


def test_recovered_totals_group_by_payer_category_owner_and_month(member):
    post(member.rpc, "commercial_march.835")
    ovt = by_claim(member.rpc)["OVT-1"]
    member.rpc.mutation("cases.assign", {"id": ovt["id"], "ownerUserId": member.user_id}).data
    manual = open_case(member.rpc, "TOT-1", "50.00", carc="197")
    member.rpc.mutation("caseRecovery.recordRecovery", {"id": manual["id"], "amount": "15.00", "source": "other"}).data
    member.rpc.mutation("caseRecovery.recordRecovery", {"id": manual["id"], "amount": "5.00", "source": "other"}).data
    post(member.rpc, "commercial_april.835")
    month = datetime.now(UTC).strftime("%Y-%m")
    totals = member.rpc.query("caseRecovery.recoveredTotals", {}).data
    assert totals["total"] == "100.00"  # 80.00 from the ledger on OVT-1 + 15.00 + 5.00 by hand
    assert sorted(
        (r["payer"], r["category"], r["ownerUserId"], r["month"], r["recovered"], r["cases"]) for r in totals["rows"]
    ) == [
        ("HAND COMMERCIAL", "medical_necessity", member.user_id, month, "80.00", 1),
        ("HAND MANUAL PAYER", "authorization", None, month, "20.00", 1),
    ]
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    later = member.rpc.query("caseRecovery.recoveredTotals", {"fromDate": tomorrow}).data
    assert later["total"] == "0.00" and later["rows"] == []
    backwards = member.rpc.query("caseRecovery.recoveredTotals", {"fromDate": tomorrow, "toDate": "2020-01-01"})
    assert backwards.code == "BAD_REQUEST"
