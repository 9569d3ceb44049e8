"""revenueInvalidation.list and .summary on a hand-written 835 (tests/fixtures/x12/hand/revenue_invalidation.835,
README "Revenue invalidated") through the real pipeline build (the shared hand world), plus cases decided by
hand over the wire, on SQLite and PostgreSQL operational databases.

By hand, payer HAND INVALIDATION PAYER, denials paid on 2025-03-03: the appeal window (180 days) closed on
2025-08-30, long before the build date (the day the shared world runs), so the remittance rule writes off
INV-1 400.00 (CO-50: appeal_window_closed), INV-2 250.00 (CO-29: timely_filing_missed) and INV-3 150.00
(CO-96, non-covered under group CO: non_covered); INV-4 was paid and INV-6 was overturned on 2025-04-07
(reversed and paid 200.00): neither is written off.
Cases, decided today: INV-1's own case written off by hand (400.00: the claim the remittance rule already
writes off, so it adds nothing); a manual case MINV-1 for 500.00 (CARC 50) appealed and lost at level 2
(appeal_lost, 500.00); a manual case MINV-2 for 90.00 (CARC 16) written off by hand with a reason
(written_off, 90.00, the reason as its note).
So 5 items, 1,390.00: 2025-08 three for 800.00, this month two for 590.00; one per reason.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

PAYER = "HAND INVALIDATION PAYER"
D = Decimal
NOTE = "balance below the cost of an appeal"


@before_shared_run
def invalidation_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post("revenue_invalidation.835")
    assert [b["status"] for b in batches] == ["confirmed"], batches


def _open(rpc, claim_key: str, amount: str, carc: str) -> int:
    body = {"claimKey": claim_key, "payer": PAYER, "amountAtStake": amount, "carc": carc}
    return rpc.mutation("cases.open", body).data["case"]["id"]


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(invalidation_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    rpc = hand_world.rpc
    [inv1] = [c for c in hand_world.pages("cases.list") if c["claimKey"] == "INV-1"]
    rpc.mutation("cases.transition", {"id": inv1["id"], "to": "written_off", "reason": "payer will not move"}).data
    lost = _open(rpc, "MINV-1", "500.00", "50")
    for state in ("triaged", "in_appeal"):
        rpc.mutation("cases.transition", {"id": lost, "to": state}).data
    today = datetime.now(UTC).date().isoformat()
    rpc.mutation("outcomes.record", {"caseId": lost, "decision": "lost", "decidedOn": today, "level": 2}).data
    small = _open(rpc, "MINV-2", "90.00", "16")
    rpc.mutation("cases.transition", {"id": small, "to": "written_off", "reason": NOTE}).data
    return hand_world


def test_every_invalidated_amount_once_with_its_reason(world):
    items = world.pages("revenueInvalidation.list")
    got = {(i["claimKey"], i["source"], i["reason"], D(i["amount"])) for i in items}
    assert got == {
        ("INV-1", "remittance", "appeal_window_closed", D("400.00")),
        ("INV-2", "remittance", "timely_filing_missed", D("250.00")),
        ("INV-3", "remittance", "non_covered", D("150.00")),
        ("MINV-1", "case", "appeal_lost", D("500.00")),
        ("MINV-2", "case", "written_off", D("90.00")),
    }
    by_key = {i["claimKey"]: i for i in items}
    assert {by_key[k]["on"] for k in ("INV-1", "INV-2", "INV-3")} == {"2025-08-30"}
    assert by_key["MINV-2"]["note"] == NOTE and by_key["MINV-1"]["note"] is None
    assert by_key["INV-2"]["carc"] == "29" and by_key["INV-1"]["caseId"] is None
    assert all(i["payerKey"] == PAYER for i in items)
    assert [i["on"] for i in items] == sorted((i["on"] for i in items), reverse=True)  # newest first
    first = world.rpc.query("revenueInvalidation.list", {"limit": 2}).data
    assert len(first["items"]) == 2 and first["nextCursor"] and first["snapshot"]["builtAt"]


def test_the_summary(world):
    answer = world.rpc.query("revenueInvalidation.summary", {}).data
    assert (answer["total"]["items"], D(answer["total"]["amount"])) == (5, D("1390.00"))
    assert {r["reason"]: (r["items"], D(r["amount"])) for r in answer["byReason"]} == {
        "appeal_window_closed": (1, D("400.00")),
        "appeal_lost": (1, D("500.00")),
        "timely_filing_missed": (1, D("250.00")),
        "non_covered": (1, D("150.00")),
        "written_off": (1, D("90.00")),
    }
    assert [(p["payerKey"], p["items"], D(p["amount"])) for p in answer["byPayer"]] == [(PAYER, 5, D("1390.00"))]
    this_month = datetime.now(UTC).strftime("%Y-%m")
    assert [(m["month"], m["items"], D(m["amount"])) for m in answer["byMonth"]] == [
        ("2025-08", 3, D("800.00")),
        (this_month, 2, D("590.00")),
    ]
    assert answer["snapshot"]["builtAt"] and "remittance rule" in answer["sources"]


def test_filters(world):
    aug = world.rpc.query("revenueInvalidation.summary", {"fromMonth": "2025-08", "toMonth": "2025-08"}).data
    assert (aug["total"]["items"], D(aug["total"]["amount"])) == (3, D("800.00"))
    [non_covered] = world.rpc.query("revenueInvalidation.list", {"reason": "non_covered"}).data["items"]
    assert non_covered["claimKey"] == "INV-3"
    assert world.rpc.query("revenueInvalidation.list", {"payer": "nobody"}).data["items"] == []
    assert len(world.rpc.query("revenueInvalidation.list", {"payer": PAYER.lower()}).data["items"]) == 5
    before = world.rpc.query("revenueInvalidation.summary", {"toMonth": "2025-07"}).data
    assert before["total"]["items"] == 0 and before["byMonth"] == []


def test_another_tenant_sees_none_of_it(world):
    other = world.as_tenant(world.add_tenant("Invalidation other"))
    assert other.rpc.query("revenueInvalidation.list", {}).data["items"] == []
    assert other.rpc.query("revenueInvalidation.summary", {}).data["total"]["items"] == 0


def test_bad_input_is_refused(world):
    for body, words in (
        ({"reason": "bad_luck"}, "reason"),
        ({"fromMonth": "2026-05", "toMonth": "2026-01"}, "fromMonth must not be after toMonth"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"limit": 100000}, "limit"),
    ):
        refused = world.rpc.query("revenueInvalidation.list", body)
        assert refused.code == "BAD_REQUEST" and words in refused.body["error"]["message"], refused.body
