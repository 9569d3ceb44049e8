"""The KPIs against their HFMA MAP Key definitions (issue 24, item 7) on hand-written 837s and 835s
(tests/fixtures/x12/hand/kpi_map_*, README "KPIs against the HFMA MAP Keys"), through upload -> confirm ->
recorded costs and cases -> pipeline -> fct_kpis_monthly / fct_kpi_data_findings / fct_roi_monthly /
analytics.kpis, on SQLite and PostgreSQL operational databases (and the PostgreSQL dbt build of the marts
held to the same numbers). Every expected figure is written by hand from the segments.

The world (one payer, MAP PAYER; the build date is the run's day, after every 2025-2026 date here):
- 837 BHT04 2025-03-10: MAP-001 5000.00 (stmt 03-01..03-05); MAP-002 1000.00 (stmt 03-01..03-25: "submitted"
  before its service ended, a data-quality finding: its A/R opens at the statement end, 03-25).
- 835 2025-03-20: MAP-001 CLP02=4, CO-50 3000 + CO-45 2000.
- 835 2025-04-15: MAP-001 reversed (CLP02=22, CO-50 -3000, CO-45 -2000) and paid 2590 (CO-45 1910, PR-2 500);
  MAP-002 paid 800 (CO-45 200); MAP-004 CLP02=4 CO-50 400 (no 837, stmt 04-01), never paid.
- 835 2025-12-10: MAP-005 paid 100 (stmt 12-01); MAP-006 CLP02=4 CO-16 200 (stmt 12-01).
- 835 2026-01-20: MAP-006 paid 180 (CO-45 20).
- 835 2099-07-01: MAP-003 CLP02=4 CO-50 300: future-dated, a finding, never counted.
- Costs recorded for April 2025 with analytics.recordCollectionCost: 100.00 staff + 20.00 vendor.
- Cases: MAP-001's worked by a person on 04-20, after the payer paid it on 04-15 (its overturn is the payer's
  reprocessing, not credited); MAP-006's worked on 12-15, before the payment of 2026-01-20 (credited).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.denial_cases import HandCase, replace_cases
from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

FILES_837 = ("kpi_map_claims.837",)
FILES_835 = (
    "kpi_map_era_mar.835",
    "kpi_map_era_apr.835",
    "kpi_map_era_dec.835",
    "kpi_map_era_jan26.835",
    "kpi_map_era_future.835",
)
D = Decimal

MAR = {
    "claims_adjudicated": 1,  # MAP-001
    "billed_amount": D("5000.00"),
    "paid_amount": D("2590.00"),  # 0 + reversal 0 + 2590
    "patient_responsibility": D("500.00"),
    "net_patient_revenue": D("3090.00"),
    # CO-45 2000 - 2000 (the reversal undoes it) + 1910; the reversal's CO-50 -3000 undoes a denial, it is
    # not contractual (before: 2000 - 2000 - 3000 + 1910 = -1090)
    "contractual_amount": D("1910.00"),
    # 2590 / (5000 - 1910 - 500): payer payments over what the payer owed (before: 2590 / (5000 + 1090))
    "net_collection_rate": 2590 / 2590,
    "initially_denied_claims": 1,
    "appeal_overturned_claims": 1,  # the same payer paid it on 04-15 ...
    "worked_overturned_claims": 0,  # ... but its case was first worked on 04-20, after that payment
    "overturn_rate": 0.0,
    "cost_to_collect_amount": None,  # nothing recorded for March (before: 5 + 118 from the seed)
    "cost_to_collect": None,
    # at 03-31: MAP-001 denied 3000 (03-20 .. 04-15) + MAP-002 awaiting 1000 (from its statement end 03-25)
    "ar_amount": D("4000.00"),
    # net: the 1000 awaiting less the contractual rate to date 1910 / 5000 = 1000 - 382 = 618; + 3000 denied
    "net_ar_amount": D("3618.00"),
    "trailing_days": 31,
    "trailing_net_patient_revenue": D("3090.00"),
    "days_in_ar": 3618 / (3090 / 31),  # HFMA net days in A/R (before: 4000 gross A/R / (3090 / 31))
}
APR = {
    "claims_adjudicated": 2,  # MAP-002, MAP-004
    "billed_amount": D("1400.00"),  # 1000 + 400
    "paid_amount": D("800.00"),
    "net_patient_revenue": D("800.00"),
    "contractual_amount": D("200.00"),
    "net_collection_rate": 800 / (1400 - 200 - 0),
    # MAP-004: denied 04-15, never paid; its 180-day window closed on 10-12, before the build date
    "final_write_off_claims": 1,
    "final_denial_write_off_amount": D("400.00"),
    "final_denial_write_off_pct": 400 / 800,
    "cost_to_collect_amount": D("120.00"),  # 100 staff + 20 vendor, recorded
    "cost_to_collect": 120 / 800,
    "ar_amount": D("400.00"),  # MAP-004 denied
    "net_ar_amount": D("400.00"),
    "days_in_ar": 400 / ((3090 + 800) / (31 + 30)),  # March and April: the tenant's first months
}
SEP = {"ar_amount": D("400.00"), "aged_ar_amount": D("400.00")}  # MAP-004, 91+ days past 04-01 from 07-01
# MAP-004 written off on 10-12: it leaves A/R (before: 400 for ever)
OCT = {"ar_amount": D("0.00"), "aged_ar_amount": D("0.00"), "net_ar_amount": D("0.00")}
DEC = {
    "claims_adjudicated": 2,  # MAP-005, MAP-006
    "billed_amount": D("300.00"),
    "paid_amount": D("280.00"),  # 100 + 180 (MAP-006 in January)
    "contractual_amount": D("20.00"),
    "net_collection_rate": 280 / (300 - 20),
    "initially_denied_claims": 1,
    "worked_overturned_claims": 1,  # MAP-006: worked 12-15, paid 2026-01-20
    "overturn_rate": 1.0,
    "ar_amount": D("200.00"),  # MAP-006 denied 12-10 .. 2026-01-20
    "days_in_ar": 200 / (280 / (31 + 30 + 31)),  # October to December
}
MONTHS = {"2025-03-01": MAR, "2025-04-01": APR, "2025-09-01": SEP, "2025-10-01": OCT, "2025-12-01": DEC}


@before_shared_run
def map_world_setup(hand_world: HandWorld) -> None:
    hand_world.post(*FILES_837, procedure="ingestion.uploadUniversal")
    batches = hand_world.post(*FILES_835)
    assert [b["status"] for b in batches] == ["confirmed"] * 5, batches
    user_id = hand_world.rpc.query("auth.session").data["userId"]
    replace_cases(
        hand_world,
        [
            HandCase(
                "M1",
                "MAP-001",
                "2025-03-21",
                "in_appeal",
                "2025-04-20",
                "3000.00",
                moves=[("open", "in_appeal", "2025-04-20")],
                mover_user_id=user_id,
            ),
            HandCase(
                "M6",
                "MAP-006",
                "2025-12-11",
                "in_appeal",
                "2025-12-15",
                "200.00",
                moves=[("open", "in_appeal", "2025-12-15")],
                mover_user_id=user_id,
            ),
        ],
    )
    for amount, category in (("100.00", "staff"), ("20.00", "vendor")):
        hand_world.rpc.mutation(
            "analytics.recordCollectionCost", {"month": "2025-04", "amount": amount, "category": category}
        )


@pytest.fixture(scope="module")
def map_world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(map_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def _assert_month(row: dict, expected: dict, month: str) -> None:
    for column, value in expected.items():
        got = row[column]
        if value is None or isinstance(value, bool | int | Decimal):
            assert got == value, (month, column, got, value)
        else:
            assert got == pytest.approx(value, abs=1e-6), (month, column, got, value)


COLUMNS = sorted({c for m in MONTHS.values() for c in m} | {"data_as_of"})
SQL = f"select month, {', '.join(COLUMNS)} from fct_kpis_monthly where client_id = {{client}} order by month"


def _rows(fetch) -> dict[str, dict]:
    return {str(r[0]): dict(zip(COLUMNS, r[1:], strict=True)) for r in fetch}


def _assert_world(rows: dict[str, dict]) -> None:
    # March 2025 to the data horizon's month, January 2026: the 2099 remittance moves nothing
    assert sorted(rows) == [f"2025-{m:02d}-01" for m in range(3, 13)] + ["2026-01-01"]
    assert {str(r["data_as_of"]) for r in rows.values()} == {"2026-01-20"}
    for month, expected in MONTHS.items():
        _assert_month(rows[month], expected, month)


def test_the_kpis_follow_the_map_keys(map_world):
    _assert_world(_rows(map_world.marts(SQL.format(client="?"), [map_world.tenant.client_id])))
    if map_world.admin_url:
        with map_world.marts_on_postgres() as pg:
            _assert_world(_rows(pg.execute(SQL.format(client=map_world.tenant.client_id)).fetchall()))


def test_future_dated_remittances_and_early_submissions_are_findings(map_world):
    rows = map_world.marts(
        "select finding, claim_key, cast(finding_date as varchar) from fct_kpi_data_findings where client_id = ?"
        " order by finding",
        [map_world.tenant.client_id],
    )
    assert rows == [
        ("future_dated_remittance", "MAP-003", "2099-07-01"),
        ("submitted_before_service_end", "MAP-002", "2025-03-10"),
    ]


def test_roi_credits_only_work_before_the_payers_decision(map_world):
    rows = map_world.marts(
        "select cast(month as varchar), denials_worked, cost_of_work, claims_recovered, recovered_amount"
        " from fct_roi_monthly where client_id = ? order by month",
        [map_world.tenant.client_id],
    )
    assert rows == [
        # MAP-001 was worked (a hard CO-50: 118.00), but only after the payer paid it: nothing recovered
        ("2025-03-01", 1, D("118.00"), 0, D("0.00")),
        # MAP-006 worked (a soft CO-16: 25.00) on 12-15 ...
        ("2025-12-01", 1, D("25.00"), 0, D("0.00")),
        # ... and paid 180 on 2026-01-20, booked on that payment date. MAP-004 nobody worked: no cost, and
        # April has no row (before: MAP-001's 2590 and MAP-004's 118.00 in April)
        ("2026-01-01", 0, D("0.00"), 1, D("180.00")),
    ]


def test_analytics_kpis_and_the_cost_record(map_world):
    k = map_world.rpc.query("analytics.kpis", {"fromMonth": "2025-04", "toMonth": "2025-04"}).data["kpis"]
    assert (D(k["costToCollectAmount"]), k["costToCollect"]) == (D("120.00"), pytest.approx(0.15, abs=1e-9))
    assert k["netCollectionRate"] == pytest.approx(800 / 1200, abs=1e-6)
    assert (D(k["arAmount"]), D(k["netArAmount"])) == (D("400.00"), D("400.00"))
    assert k["daysInAr"] == pytest.approx(400 * 30 / 800, abs=1e-6)  # April alone: 30 days, 800 revenue
    march = map_world.rpc.query("analytics.kpis", {"fromMonth": "2025-03", "toMonth": "2025-03"}).data["kpis"]
    assert (march["costToCollectAmount"], march["costToCollect"]) == (None, None)
    assert D(march["contractualAmount"]) == D("1910.00")
    assert (march["appealOverturnedClaims"], march["workedOverturnedClaims"], march["overturnRate"]) == (1, 0, 0.0)
    # a third record for April: the month's total is what was recorded, audited
    out = map_world.rpc.mutation(
        "analytics.recordCollectionCost", {"month": "2025-04", "amount": "-20.00", "category": "vendor"}
    ).data
    assert (D(out["amount"]), D(out["monthTotal"])) == (D("-20.00"), D("100.00"))
