"""The change radar on five hand-written months of one payer (tests/fixtures/x12/hand/radar_month*.835):
20 claims a month, CO-50 denials 4, 4, 4 (the baseline), then 5 (one extra denial: no alert), then 14,
six of which also carry CO-197 (a real jump, and a CARC that is never primary-only: alerts).

Every expected figure below is worked out by hand from the segments; the p-values are the binomial
tails of the conditional test written out with math.comb, not with the project's statistics module.
"""

from math import comb

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

PAYER = "RADAR PAYER"
FILES = [f"radar_month{m}.835" for m in range(1, 6)]


def upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k), X ~ Binomial(n, p), term by term."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


# The three cells tested (3+ baseline months, 20 claims, >= 5 denials with the CARC):
# CO-50 in April: k=5 of n=20 against K=4+4+4=12 of N=60 -> X ~ Bin(17, 20/80)
P_50_APRIL = upper_tail(5, 17, 0.25)  # 0.4261...
# CO-50 in May: k=14 of 20 against K=12+5=17 of N=80 -> X ~ Bin(31, 20/100)
P_50_MAY = upper_tail(14, 31, 0.2)  # 0.001344...
# CO-197 in May: k=6 of 20 against K=0 of N=80 -> X ~ Bin(6, 0.2), P(X >= 6) = 0.2^6
P_197_MAY = 0.2**6
# Benjamini-Hochberg over m=3, ascending: CO-197 May (rank 1), CO-50 May (rank 2), CO-50 April (rank 3)
Q_50_APRIL = P_50_APRIL * 3 / 3
Q_50_MAY = min(P_50_MAY * 3 / 2, Q_50_APRIL)
Q_197_MAY = min(P_197_MAY * 3 / 1, Q_50_MAY)


@before_shared_run
def radar_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post(*FILES)
    assert [b["status"] for b in batches] == ["confirmed"] * 5, batches


@pytest.fixture(scope="module")
def radar(shared_hand_world):
    hand_world, _ = shared_hand_world.of(radar_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


CELLS_SQL = """
    select cast(adjudication_month as varchar), carc, claims_adjudicated, denied_claims, baseline_denied_claims,
           baseline_sample_size, baseline_months, min_denials
    from fct_payer_change_alerts where client_id = {client} and metric = 'carc_denial_rate'
    order by carc, adjudication_month
"""
# (month, CARC, n, k, K, N, baseline months, minimum denials)
EXPECTED_CELLS = [
    ("2026-04-01", "50", 20, 5, 12, 60, 3, 5),
    ("2026-05-01", "50", 20, 14, 17, 80, 4, 5),
    ("2026-05-01", "197", 20, 6, 0, 80, 4, 5),
]


def sort_cells(rows):
    return sorted(rows, key=lambda r: (r[1], r[0]))


def test_the_mart_holds_the_three_tested_cells_with_their_baselines(radar):
    rows = radar.marts(CELLS_SQL.format(client="?"), [radar.tenant.client_id])
    assert sort_cells(rows) == sort_cells(EXPECTED_CELLS)
    if radar.admin_url:
        with radar.marts_on_postgres() as pg:
            got = pg.execute(CELLS_SQL.format(client="%s"), [radar.tenant.client_id]).fetchall()
        assert sort_cells([(str(r[0]), *r[1:]) for r in got]) == sort_cells(EXPECTED_CELLS)


def test_the_jump_alerts_and_one_extra_denial_does_not(radar):
    alerts = radar.pages("payerChangeRadar.alerts", {})
    got = [(a["month"], a["carc"]) for a in alerts]
    # strongest first: CO-197's p-value is the smaller
    assert got == [("2026-05", "197"), ("2026-05", "50")]
    by_carc = {a["carc"]: a for a in alerts}
    co197, co50 = by_carc["197"], by_carc["50"]
    assert co197["pValue"] == pytest.approx(P_197_MAY, rel=1e-9)
    assert co197["qValue"] == pytest.approx(Q_197_MAY, rel=1e-9)
    assert co50["pValue"] == pytest.approx(P_50_MAY, rel=1e-9)
    assert co50["qValue"] == pytest.approx(Q_50_MAY, rel=1e-9)
    assert Q_50_APRIL > 0.05  # the April cell was tested and is not an alert
    assert co50["deniedClaims"] == 14 and co50["baselineDeniedClaims"] == 17 and co50["baselineSampleSize"] == 80
    assert co50["value"] == pytest.approx(14 / 20) and co50["baselineMean"] == pytest.approx(17 / 80)
    assert co197["baselineMean"] == 0 and co197["minDenials"] == 5 and co197["falseDiscoveryRate"] == 0.05
    assert co50["payerKey"] == PAYER and co50["metric"] == "carc_denial_rate"


def test_filters_do_not_change_which_cells_are_alerts(radar):
    spring = radar.pages("payerChangeRadar.alerts", {"fromMonth": "2026-04", "toMonth": "2026-05"})
    assert {(a["month"], a["carc"]) for a in spring} == {("2026-05", "197"), ("2026-05", "50")}
    co50 = radar.pages("payerChangeRadar.alerts", {"payer": PAYER, "metric": "carc_denial_rate"})
    assert [(a["carc"], a["qValue"]) for a in co50] == [
        ("197", pytest.approx(Q_197_MAY)),
        ("50", pytest.approx(Q_50_MAY)),
    ]
    april = radar.pages("payerChangeRadar.alerts", {"fromMonth": "2026-04", "toMonth": "2026-04"})
    assert april == []


def test_only_alerts_can_be_acknowledged(radar):
    cells = dict(
        radar.marts(
            "select carc || '@' || cast(adjudication_month as varchar), alert_key from fct_payer_change_alerts "
            "where client_id = ?",
            [radar.tenant.client_id],
        )
    )
    tested_not_alert = cells["50@2026-04-01"]
    assert radar.rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": tested_not_alert}).code == "NOT_FOUND"
    ack = radar.rpc.mutation("payerChangeRadar.acknowledge", {"alertKey": cells["50@2026-05-01"]})
    assert ack.code is None and ack.data["alertKey"] == cells["50@2026-05-01"]
