"""arOperations shows each open claim's denial case, on the hand-written KPI world (tests/fixtures/x12/hand/kpi_*,
see test_hand_kpis.py) with cases written by hand into the operational database, on SQLite and PostgreSQL.

Open at the horizon (2025-11-20): KPI-006 (awaiting remittance 250, 02-20), KPI-007 (denied 100, 10-03).
KPI-003 (partially denied 50 on 2025-02-10) was finally written off on 2025-08-09 (its appeal window
closed): no longer receivable, not in the queue nor the aging (issue 24). The cases:
- K1 KPI-007: lost on 11-30, not closed, owner A (decided, the older one);
- K2 KPI-007: in_appeal, owner B (still worked: shown rather than K1);
- K3 KPI-003: closed (and its claim written off);
- K4 KPI-002: triaged (the claim was overturned: not in the queue at all).
"""

from __future__ import annotations

import pytest

from tests.conftest import make_user
from tests.support.denial_cases import HandCase, replace_cases
from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

FILES_837 = ("kpi_claims_jan.837", "kpi_claims_mar.837")
FILES_835 = (
    "kpi_era_feb.835",
    "kpi_era_apr.835",
    "kpi_era_may_payer_b.835",
    "kpi_era_jun.835",
    "kpi_era_jul_cob_and_corrected.835",
    "kpi_era_nov.835",
)
AS_OF = "2025-11-20"


@before_shared_run
def ar_world_setup(hand_world: HandWorld) -> None:
    hand_world.post(*FILES_837, procedure="ingestion.uploadUniversal")
    assert [b["status"] for b in hand_world.post(*FILES_835)] == ["confirmed"] * 6


@pytest.fixture(scope="module")
def ar_world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(ar_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    owner_a, _, _ = make_user(hand_world.services)
    owner_b, _, _ = make_user(hand_world.services)
    ids = replace_cases(
        hand_world,
        [
            HandCase(
                "K1",
                "KPI-007",
                "2025-11-21",
                "lost",
                "2025-11-30",
                "100.00",
                written_off="100.00",
                owner_user_id=owner_a,
                moves=[("open", "in_appeal", "2025-11-22"), ("in_appeal", "lost", "2025-11-30")],
            ),
            HandCase(
                "K2",
                "KPI-007",
                "2025-11-22",
                "in_appeal",
                "2025-11-23",
                "100.00",
                owner_user_id=owner_b,
                moves=[("open", "in_appeal", "2025-11-23")],
            ),
            HandCase("K3", "KPI-003", "2025-02-12", "closed", "2025-09-10", "50.00", closed="2025-09-10"),
            HandCase("K4", "KPI-002", "2025-02-12", "triaged", "2025-02-13", "500.00", owner_user_id=owner_a),
        ],
    )
    return hand_world, ids, owner_b


def test_the_queue_shows_the_open_case_of_each_claim(ar_world):
    world, ids, owner_b = ar_world
    queue = {i["claimKey"]: i for i in world.pages("arOperations.followUpQueue", {"asOf": AS_OF})}
    assert set(queue) == {"KPI-006", "KPI-007"}
    denied = queue["KPI-007"]
    assert (denied["reason"], denied["caseId"], denied["caseState"], denied["caseOwnerUserId"]) == (
        "denied",
        ids["K2"],  # the case still worked wins over the lost one
        "in_appeal",
        owner_b,
    )
    item = queue["KPI-006"]  # no case
    assert (item["caseId"], item["caseState"], item["caseOwnerUserId"]) == (None, None, None)


def test_aging_counts_the_open_claims_with_an_open_case(ar_world):
    world, _, _ = ar_world
    aging = world.rpc.query("arOperations.aging", {"asOf": AS_OF}).data
    assert (aging["openClaims"], aging["openClaimsWithCase"]) == (2, 1)
    buckets = {b["bucket"]: (b["claims"], b["claimsWithOpenCase"]) for b in aging["buckets"]}
    # KPI-007 is 48 days past its statement end; KPI-006 (273 days) is 120+; KPI-003 was written off.
    assert buckets == {"0-30": (0, 0), "31-60": (1, 1), "61-90": (0, 0), "91-120": (0, 0), "120+": (1, 0)}
