"""payerIntelligence.denialReasons credits a denial to the payer that made it (issue 24), on two hand-written
835s (tests/fixtures/x12/hand/cob_denial_*.835, README "Payer identity, COB ..."), on SQLite and PostgreSQL
operational databases, with the PostgreSQL dbt build of fct_payer_denials_monthly held to the same numbers.

- HAND PRIMARY PAYER (id PRI01), 2026-03-02: COBD-1 CLP02=1 billed 100, paid 80, PR-2 20 (no denial);
  COBD-2 CLP02=4 billed 200, CO-50 200 (a denial of the primary).
- HAND SECONDARY PAYER (REF*2U SEC01), 2026-03-16: COBD-1 CLP02=2 (X12 835 TR3: processed as secondary),
  billed 100, paid 0, OA-23 80 (the prior payer's adjudication), CO-27 20 (coverage terminated: a denial).

By hand, per payer that decided: the primary adjudicated 2 claims and denied 1 (COBD-2, CO-50, 200.00);
the secondary adjudicated 1 claim and denied it (COBD-1, CO-27, 20.00). Grouped by each claim's first
payer, the secondary's denial was lost (COBD-1's first decision, the primary's, paid).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

PRIMARY, SECONDARY = "HAND PRIMARY PAYER", "HAND SECONDARY PAYER"
D = Decimal

# (payer, category, CARC, denied claims, denied amount, overturned, recovered, payer's claims, denial rate)
EXPECTED = [
    (PRIMARY, "medical_necessity", "50", 1, D("200.00"), 0, D("0.00"), 2, 0.5),
    (SECONDARY, "eligibility", "27", 1, D("20.00"), 0, D("0.00"), 1, 1.0),
]
MART_SQL = """
    select payer_key, cast(adjudication_month as varchar), denial_category, carc, denied_claims, denied_amount,
           payer_claims_adjudicated
    from fct_payer_denials_monthly where client_id = {client} order by payer_key"""
EXPECTED_MART = [
    (PRIMARY, "2026-03-01", "medical_necessity", "50", 1, D("200.00"), 2),
    (SECONDARY, "2026-03-01", "eligibility", "27", 1, D("20.00"), 1),
]


@before_shared_run
def cob_world_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post("cob_denial_primary.835", "cob_denial_secondary.835")
    assert [b["status"] for b in batches] == ["confirmed"] * 2, batches


@pytest.fixture(scope="module")
def cob_world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(cob_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def _reasons(items):
    return [
        (
            i["payerKey"],
            i["denialCategory"],
            i["carc"],
            i["deniedClaims"],
            D(i["deniedAmount"]),
            i["overturnedClaims"],
            D(i["recoveredAmount"]),
            i["payerClaimsAdjudicated"],
            i["denialRate"],
        )
        for i in items
    ]


def test_a_secondary_payers_denial_counts_under_the_secondary(cob_world):
    assert _reasons(cob_world.pages("payerIntelligence.denialReasons", {})) == EXPECTED
    only = cob_world.pages("payerIntelligence.denialReasons", {"payer": SECONDARY.lower()})
    assert _reasons(only) == EXPECTED[1:]
    march = cob_world.pages("payerIntelligence.denialReasons", {"fromMonth": "2026-03", "toMonth": "2026-03"})
    assert _reasons(march) == EXPECTED
    assert cob_world.pages("payerIntelligence.denialReasons", {"fromMonth": "2026-04"}) == []


def test_the_reasons_agree_with_the_payer_scorecard(cob_world):
    # one implementation: the scorecard's denied claims per payer are the same claim x payer rows
    score = {
        s["payerKey"]: (s["claimsAdjudicated"], s["deniedClaims"])
        for s in cob_world.pages("payerIntelligence.scorecard")
    }
    assert score == {PRIMARY: (2, 1), SECONDARY: (1, 1)}


def test_the_mart_holds_the_same_rows_on_duckdb_and_postgresql(cob_world):
    rows = cob_world.marts(MART_SQL.format(client="?"), [cob_world.tenant.client_id])
    assert rows == EXPECTED_MART
    if cob_world.admin_url:
        with cob_world.marts_on_postgres() as pg:
            got = pg.execute(MART_SQL.format(client="%s"), [cob_world.tenant.client_id]).fetchall()
        assert [(r[0], str(r[1]), *r[2:]) for r in got] == EXPECTED_MART
