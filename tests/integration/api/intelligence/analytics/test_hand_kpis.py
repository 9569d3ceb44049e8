"""The HFMA KPIs on hand-written 837s and 835s (tests/fixtures/x12/hand/kpi_*, README "KPIs"), through
upload -> confirm -> pipeline -> analytics.kpis / analytics.trend / arOperations.aging, on SQLite and
PostgreSQL operational databases, with the PostgreSQL dbt build of fct_kpis_monthly held to the same
numbers. Every expected figure is written by hand from the segments (numerator, denominator, value).

The world (payer A = KPI PAYER A, payer B = KPI PAYER B; data horizon = last payment 2025-11-20; the final
denial write-off horizon is the build date, the run's day, after 2026-05-19):
- 837 BHT04 2025-01-25: KPI-001 1000.00 (stmt to 01-10), KPI-002 500.00 (01-20), KPI-003 400.00 (01-18),
  KPI-004 300.00 (01-22). 837 BHT04 2025-03-05: KPI-006 250.00 (stmt to 02-20), never adjudicated.
- 835 A 2025-02-10: KPI-001 paid 700, CO-45 200, PR-2 100 (clean); KPI-002 CLP02=4 CO-50 500 (hard);
  KPI-003 paid 250, CO-45 50, CO-16 50 (soft, partial), PR-2 50.
- 835 A 2025-04-15: KPI-002 paid 450, CO-45 50 (appeal overturn, same payer); KPI-004 CLP02=4 CO-109 300 (soft).
- 835 B 2025-05-12: KPI-004 paid 250, CO-45 20, PR-2 30 (another payer paid: money recovered, not an overturn).
- 835 A 2025-06-16 (BPR02 0): KPI-008 CLP02=4 CO-50 500 (stmt to 06-03); KPI-009 CLP02=4 CO-16 200 (06-04).
- 835 A 2025-07-14: KPI-008 CLP02=2 paid 400 (processed as secondary: a COB adjudication, not an overturn);
  KPI-009 paid 180 with CLP09=7 (the corrected claim paid, not an appeal won).
- 835 A 2025-11-20: KPI-005 paid 150, CO-45 50 (stmt to 10-05); KPI-007 CLP02=4 CO-50 100 (stmt to 10-03).
No collection cost is recorded (cost to collect is null) and no case is worked by a person (the overturn
rate credits none of the payers' reprocessing). Net A/R values the charges awaiting their first remittance
net of the contractual rate to date (issue 24).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.denial_cases import replace_cases
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
D = Decimal

# fct_kpis_monthly by hand, per month: (column, expected). Rates are written as numerator / denominator.
FEB = {
    "claims_adjudicated": 3,
    "billed_amount": D("1900.00"),  # 1000 + 500 + 400
    "paid_amount": D("1400.00"),  # 700 + 450 (KPI-002 in April) + 250
    "net_patient_revenue": D("1550.00"),  # 1400 paid + 100 + 50 patient responsibility
    "contractual_amount": D("300.00"),  # CO-45: 200 + 50 (KPI-002 in April) + 50
    "initially_denied_claims": 2,  # KPI-002, KPI-003
    "initially_denied_charges": D("900.00"),  # 500 + 400
    "initial_denial_rate": 2 / 3,
    "initial_denial_rate_dollars": 900 / 1900,
    "first_pass_yield": 1 / 3,
    "clean_claim_rate": None,
    "final_write_off_claims": 1,  # KPI-003: denied 02-10 + 180 days = 08-09 <= 11-20, never paid later
    "final_denial_write_off_amount": D("50.00"),  # its CO-16
    "final_denial_write_off_pct": 50 / 1550,
    "overturned_claims": 1,
    "appeal_overturned_claims": 1,  # KPI-002 paid by the same payer A
    "worked_overturned_claims": 0,  # nobody worked KPI-002's case before payer A paid it
    "overturn_rate": 0.0,
    "is_mature": True,
    "net_collection_rate": 1400 / (1900 - 300 - 150),  # patient liability 100 + 50 out of the denominator
    "cost_to_collect_amount": None,  # no cost recorded
    "cost_to_collect": None,
    "ar_amount": D("850.00"),  # at 02-28: KPI-002 denied 500 + KPI-003 denied 50 + KPI-004 awaiting 300
    "aged_ar_amount": D("0.00"),
    "aged_ar_over_90_pct": 0.0,
    # Net days in A/R over the average daily revenue of the month and the ones before it (January, 31
    # days: no revenue; February, 28 days: 1550). Net A/R: KPI-004's 300 awaiting less the contractual
    # rate to date 300 / 1900.
    "net_ar_amount": D("802.63"),  # 850 - 300 x 300 / 1900
    "trailing_days": 59,
    "trailing_net_patient_revenue": D("1550.00"),
    "days_in_ar": (850 - 300 * 300 / 1900) / (1550 / 59),
    "dnfb_amount": D("250.00"),  # KPI-006 discharged 02-20, billed 03-05
    "discharged_billed_charges": D("250.00"),
    "trailing_discharged_charges": D("2450.00"),  # January's four claims 2200 + KPI-006 250
    "days_in_dnfb": 250 / (2450 / 59),
}
# Nothing adjudicated in March: every cohort rate is null, the balances still stand.
MAR = {
    "claims_adjudicated": 0,
    "initial_denial_rate": None,
    "initial_denial_rate_dollars": None,
    "first_pass_yield": None,
    "final_denial_write_off_pct": None,
    "overturn_rate": None,
    "net_collection_rate": None,
    "cost_to_collect": None,
    # The balances still have a basis: January to March, 90 days, 1550 of revenue; 550 awaiting
    # (KPI-004 300, KPI-006 250) less the contractual rate to date 300 / 1900.
    "days_in_ar": (1100 - 550 * 300 / 1900) / (1550 / 90),
    "ar_amount": D("1100.00"),  # 500 (KPI-002 denied until 04-15) + 50 + 300 (KPI-004 awaiting) + 250 (KPI-006)
    "aged_ar_amount": D("0.00"),  # the oldest statement end (01-18) is 72 days old at 03-31
    "aged_ar_over_90_pct": 0.0,
    "dnfb_amount": D("0.00"),  # KPI-006 was billed on 03-05
    "days_in_dnfb": 0.0,
}
APR = {
    "claims_adjudicated": 1,  # KPI-004
    "net_patient_revenue": D("280.00"),  # payer B: 250 + 30
    "contractual_amount": D("20.00"),  # payer B's CO-45; payer A's CO-109 is a denial
    "initial_denial_rate": 1.0,
    "first_pass_yield": 0.0,
    "overturned_claims": 1,  # payer B paid it: money recovered ...
    "appeal_overturned_claims": 0,  # ... but no appeal was won from payer A
    "overturn_rate": 0.0,
    "final_denial_write_off_amount": D("0.00"),
    "final_denial_write_off_pct": 0.0,
    "net_collection_rate": 250 / (300 - 20 - 30),  # payer B's PR-2 30 out of the denominator
    "cost_to_collect_amount": None,
    "cost_to_collect": None,
    "ar_amount": D("600.00"),  # at 04-30: KPI-004 denied 300 + KPI-003 50 + KPI-006 250
    "aged_ar_amount": D("350.00"),  # KPI-004 (01-22 + 91 = 04-23) 300 + KPI-003 (04-19) 50
    "aged_ar_over_90_pct": 350 / 600,
    # February to April; KPI-006's 250 awaiting less the contractual rate to date (300 + 20) / (1900 + 300)
    "days_in_ar": (600 - 250 * 320 / 2200) / ((1550 + 0 + 280) / (28 + 31 + 30)),
}
NOV = {
    "claims_adjudicated": 2,  # KPI-005, KPI-007
    "initial_denial_rate": 1 / 2,
    "initial_denial_rate_dollars": 100 / 300,
    # KPI-007 (denied 2025-11-20): its appeal window closed on 2026-05-19, before the build date (before
    # issue 24 the horizon was the data's last payment, 2025-11-20: 0)
    "final_denial_write_off_amount": D("100.00"),
    "overturn_rate": 0.0,
    "is_mature": False,  # 11-30 + 90 days is after the horizon 11-20
    "net_collection_rate": 150 / (300 - 50),
    "cost_to_collect_amount": None,
    # KPI-006 250 + KPI-007 100; KPI-003's 50 left A/R when written off on 08-09 (02-10 + 180 days)
    "ar_amount": D("350.00"),
    "aged_ar_amount": D("250.00"),  # KPI-006 (KPI-007 is 58 days old)
    # September to November: only November has revenue; KPI-006's 250 awaiting less the contractual rate
    # to date (300 + 20 + 120 + 50) / (1900 + 300 + 700 + 300)
    "days_in_ar": (350 - 250 * 490 / 3200) / (150 / (30 + 31 + 30)),
}
JUN = {
    "claims_adjudicated": 2,  # KPI-008, KPI-009
    "initially_denied_claims": 2,
    "initially_denied_charges": D("700.00"),
    "overturned_claims": 2,  # both paid in July ...
    "appeal_overturned_claims": 0,  # ... as a COB adjudication (CLP02=2) and as a corrected claim (CLP09=7)
    "overturn_rate": 0.0,
    "is_mature": True,
    "final_write_off_claims": 0,
    "net_collection_rate": 580 / (700 - 120),  # 400 + 180 over 700 - CO-45 (100 + 20)
}
MONTHS = {"2025-02-01": FEB, "2025-03-01": MAR, "2025-04-01": APR, "2025-06-01": JUN, "2025-11-01": NOV}


@before_shared_run
def kpi_files(world: HandWorld) -> list[dict]:
    world.post(*FILES_837, procedure="ingestion.uploadUniversal")
    batches = world.post(*FILES_835)
    # The confirms opened denial cases today; the remittance KPIs by hand are measured without case work
    # (whose months run to today, past this world's 2025 horizon). Case KPIs: test_hand_case_kpis.py.
    replace_cases(world, [])
    return batches


@pytest.fixture(scope="module")
def kpi_world(shared_hand_world) -> HandWorld:
    world, batches = shared_hand_world.of(kpi_files)
    assert [b["status"] for b in batches] == ["confirmed"] * 6
    run = world.run_pipeline()
    assert run["status"] == "succeeded", run
    return world


def _assert_month(row: dict, expected: dict, month: str) -> None:
    for column, value in expected.items():
        got = row[column]
        if value is None or isinstance(value, bool | int | Decimal):
            assert got == value, (month, column, got, value)
        else:
            assert got == pytest.approx(value, abs=1e-6), (month, column, got, value)


def _rows(fetch, columns: list[str]) -> dict[str, dict]:
    return {str(r[0]): dict(zip(columns, r[1:], strict=True)) for r in fetch}


COLUMNS = sorted({c for m in MONTHS.values() for c in m})
SQL = f"select month, {', '.join(COLUMNS)} from fct_kpis_monthly where client_id = {{client}} order by month"


def test_the_mart_holds_each_kpi_by_hand(kpi_world):
    rows = _rows(kpi_world.marts(SQL.format(client="?"), [kpi_world.tenant.client_id]), COLUMNS)
    # Every month from the first opened balance (January) to the horizon (November) is a row: KPI-007 would
    # only turn 90 days old in January 2026, after the horizon.
    assert len(rows) == 11
    for month, expected in MONTHS.items():
        _assert_month(rows[month], expected, month)
    if kpi_world.admin_url:
        with kpi_world.marts_on_postgres() as pg:
            on_pg = _rows(pg.execute(SQL.format(client=kpi_world.tenant.client_id)).fetchall(), COLUMNS)
        for month, expected in MONTHS.items():
            _assert_month(on_pg[month], expected, month)


def test_kpis_over_one_month(kpi_world):
    data = kpi_world.rpc.query("analytics.kpis", {"fromMonth": "2025-02", "toMonth": "2025-02"}).data
    k = data["kpis"]
    assert data["dataAsOf"] == "2025-11-20"
    assert (k["claimsAdjudicated"], k["initiallyDeniedClaims"]) == (3, 2)
    assert k["initialDenialRate"] == pytest.approx(2 / 3, abs=1e-6)
    assert (D(k["initiallyDeniedCharges"]), D(k["billedAmount"])) == (D("900.00"), D("1900.00"))
    assert k["initialDenialRateDollars"] == pytest.approx(900 / 1900, abs=1e-6)
    assert (k["cleanClaims"], k["firstPassYield"]) == (1, pytest.approx(1 / 3, abs=1e-6))
    assert k["cleanClaimRate"] is None
    assert "277CA" in k["cleanClaimRateUnavailable"]
    assert (D(k["finalDenialWriteOffAmount"]), D(k["netPatientRevenue"])) == (D("50.00"), D("1550.00"))
    assert k["finalDenialWriteOffPct"] == pytest.approx(50 / 1550, abs=1e-6)
    assert (k["appealOverturnedClaims"], k["workedOverturnedClaims"], k["overturnRate"]) == (1, 0, 0.0)
    assert k["immatureMonths"] == 0
    assert k["netCollectionRate"] == pytest.approx(1400 / 1450, abs=1e-6)
    assert (k["costToCollectAmount"], k["costToCollect"]) == (None, None)
    assert (k["balancesMonth"], D(k["arAmount"]), D(k["agedArAmount"])) == ("2025-02", D("850.00"), D("0.00"))
    assert D(k["netArAmount"]) == D("802.63")
    assert k["daysInAr"] == pytest.approx(802.63 * 28 / 1550, abs=1e-6)
    assert (D(k["dnfbAmount"]), k["daysInDnfb"]) == (D("250.00"), pytest.approx(28.0, abs=1e-6))


def test_kpis_of_a_month_with_nothing_adjudicated_are_null(kpi_world):
    k = kpi_world.rpc.query("analytics.kpis", {"fromMonth": "2025-03", "toMonth": "2025-03"}).data["kpis"]
    assert k["claimsAdjudicated"] == 0
    for rate in (
        "initialDenialRate",
        "initialDenialRateDollars",
        "firstPassYield",
        "cleanClaimRate",
        "finalDenialWriteOffPct",
        "overturnRate",
        "netCollectionRate",
        "costToCollect",
        "daysInAr",  # over the range: March alone has no revenue
        "daysInDnfb",  # over the range: nothing discharged in March
    ):
        assert k[rate] is None, rate
    assert (D(k["arAmount"]), k["agedArOver90Pct"], D(k["dnfbAmount"])) == (D("1100.00"), 0.0, D("0.00"))
    points = kpi_world.rpc.query(
        "analytics.trend", {"metric": "initial_denial_rate", "fromMonth": "2025-03", "toMonth": "2025-03"}
    ).data["points"]
    assert points == [{"month": "2025-03", "value": None, "numerator": 0.0, "denominator": 0.0, "isMature": True}]


def test_overturn_rate_excludes_other_payers_cob_and_corrected_claims_and_flags_immature_months(kpi_world):
    k = kpi_world.rpc.query("analytics.kpis", {}).data["kpis"]
    # 6 initial denials (KPI-002, -003, -004, -007, -008, -009); 4 paid later by anyone (KPI-002, -004,
    # -008, -009), 1 appeal won from the same payer (KPI-002).
    assert (k["initiallyDeniedClaims"], k["overturnedClaims"], k["appealOverturnedClaims"]) == (6, 4, 1)
    # nobody worked a case: the payer's reprocessing is not credited to denial work (issue 24)
    assert (k["workedOverturnedClaims"], k["overturnRate"]) == (0, 0.0)
    # August to November end less than 90 days before the horizon (2025-11-20).
    assert k["immatureMonths"] == 4
    trend = kpi_world.rpc.query(
        "analytics.trend", {"metric": "overturn_rate", "fromMonth": "2025-04", "toMonth": "2025-11"}
    ).data["points"]
    by_month = {p["month"]: p for p in trend}
    assert (by_month["2025-04"]["numerator"], by_month["2025-04"]["denominator"]) == (0.0, 1.0)
    assert by_month["2025-04"]["value"] == 0.0
    assert [m for m, p in by_month.items() if not p["isMature"]] == ["2025-08", "2025-09", "2025-10", "2025-11"]


def test_aging_as_of_rebuilds_the_state_at_that_date(kpi_world):
    rpc = kpi_world.rpc
    march = rpc.query("arOperations.aging", {"asOf": "2025-03-31"}).data
    # KPI-002 was overturned on 04-15 and KPI-004 first adjudicated on 04-15: both open at 03-31.
    assert (march["openClaims"], D(march["openAmount"])) == (4, D("1100.00"))
    buckets = {b["bucket"]: (b["claims"], D(b["openAmount"])) for b in march["buckets"]}
    # 61-90: KPI-002 500 (70 days), KPI-003 50 (72), KPI-004 300 (68); 31-60: KPI-006 250 (39 days).
    assert buckets["61-90"] == (3, D("850.00"))
    assert buckets["31-60"] == (1, D("250.00"))
    queue = kpi_world.pages("arOperations.followUpQueue", {"asOf": "2025-03-31"})
    reasons = {i["claimKey"]: (i["reason"], D(i["openAmount"])) for i in queue}
    assert reasons == {
        "KPI-002": ("denied", D("500.00")),
        "KPI-003": ("partially_denied", D("50.00")),
        "KPI-004": ("awaiting_remittance", D("300.00")),
        "KPI-006": ("awaiting_remittance", D("250.00")),
    }
    april = rpc.query("arOperations.aging", {"asOf": "2025-04-20"}).data
    # KPI-002 closed by its overturn; KPI-004 now denied by payer A (open 300 until payer B pays on 05-12).
    assert (april["openClaims"], D(april["openAmount"])) == (3, D("600.00"))
    today = rpc.query("arOperations.aging", {}).data
    # Today (the build date): KPI-006 250 only. KPI-003's 50 was written off on 2025-08-09 and KPI-007's 100
    # on 2026-05-19 (denial + 180 days, never paid later): no longer receivable (before issue 24: 3, 400.00).
    assert (today["openClaims"], D(today["openAmount"])) == (1, D("250.00"))


def test_a_written_off_denial_leaves_aging_on_its_write_off_date(kpi_world):
    rpc = kpi_world.rpc

    def open_at(day: str) -> tuple[int, Decimal]:
        aging = rpc.query("arOperations.aging", {"asOf": day}).data
        return aging["openClaims"], D(aging["openAmount"])

    # KPI-003 denied 50 on 2025-02-10, never paid later: its appeal window closes 2025-08-09 (+180 days).
    assert open_at("2025-08-08") == (2, D("300.00"))  # KPI-003 50 + KPI-006 250 (awaiting)
    assert open_at("2025-08-09") == (1, D("250.00"))  # KPI-006 alone
    # At a month end the aging is fct_kpis_monthly's A/R (one write-off rule): November 350 = KPI-006 250 +
    # KPI-007 100 (denied 11-20, written off only on 2026-05-19).
    assert open_at("2025-11-30") == (2, NOV["ar_amount"])
    queue = kpi_world.pages("arOperations.followUpQueue", {"asOf": "2025-11-20"})
    assert {i["claimKey"] for i in queue} == {"KPI-006", "KPI-007"}
    # not open in the current snapshot: nothing to follow up
    me = rpc.query("auth.session").data["userId"]
    refused = rpc.mutation("arOperations.assignFollowUp", {"claimKey": "KPI-003", "assigneeUserId": me})
    assert refused.code == "PRECONDITION_FAILED"


# fct_denial_cells_monthly by hand: each claim x payer once, in the month of that payer's first decision.
# KPI-001..004 have an 837 (kpi_claims_jan.837: NM1*85 NPI 1234567893, one SV2*0450*HC:99284 line each:
# procedure 99284 is AMA CPT E/M 99202-99499 -> evaluation_management); KPI-005/007/008/009 have none ->
# unknown. CLP06 13 (Point of Service) is commercial (seed claim_filing_indicator_payer_classes).
# Later decisions of the same payer (KPI-002 paid in April, KPI-008/009 in July) add no cell. Payer B's file
# carries the same TRN03 (1512345678) and no N104 / REF*2U, so by the payer-identity rule
# (int_remittances_identified) its KPI-004 payment is a later decision of payer A's history: no cell, as
# fct_payer_monthly has no May row.
NPI, EM = "1234567893", "evaluation_management"
DENIAL_CELLS = {
    # (month, payer, service line, facility, category, carc): (claims, denied, billed)
    ("2025-02-01", "KPI PAYER A", EM, NPI, "none", "NONE"): (1, D("0.00"), D("1000.00")),  # KPI-001 clean
    ("2025-02-01", "KPI PAYER A", EM, NPI, "medical_necessity", "50"): (1, D("500.00"), D("500.00")),  # KPI-002
    ("2025-02-01", "KPI PAYER A", EM, NPI, "missing_information", "16"): (1, D("50.00"), D("400.00")),  # KPI-003
    ("2025-04-01", "KPI PAYER A", EM, NPI, "eligibility", "109"): (1, D("300.00"), D("300.00")),  # KPI-004 by A
    ("2025-06-01", "KPI PAYER A", "unknown", "unknown", "medical_necessity", "50"): (1, D("500.00"), D("500.00")),
    ("2025-06-01", "KPI PAYER A", "unknown", "unknown", "missing_information", "16"): (1, D("200.00"), D("200.00")),
    ("2025-11-01", "KPI PAYER A", "unknown", "unknown", "none", "NONE"): (1, D("0.00"), D("200.00")),  # KPI-005
    ("2025-11-01", "KPI PAYER A", "unknown", "unknown", "medical_necessity", "50"): (1, D("100.00"), D("100.00")),
}
CELLS_SQL = (
    "select cast(adjudication_month as varchar), payer_key, service_line, facility, denial_category, carc, claims, "
    "denied_amount, billed_amount, payer_class from fct_denial_cells_monthly where client_id = {client}"
)


def test_denial_cells_by_hand(kpi_world):
    rows = kpi_world.marts(CELLS_SQL.format(client="?"), [kpi_world.tenant.client_id])
    assert {r[:6]: r[6:9] for r in rows} == DENIAL_CELLS
    assert {r[9] for r in rows} == {"commercial"}
    # February's payer A cells add up to its claims adjudicated: 1 + 1 + 1 = 3 (fct_kpis_monthly FEB)
    assert sum(r[6] for r in rows if r[0] == "2025-02-01") == FEB["claims_adjudicated"]
    if kpi_world.admin_url:
        with kpi_world.marts_on_postgres() as pg:
            on_pg = pg.execute(CELLS_SQL.format(client=kpi_world.tenant.client_id)).fetchall()
        assert sorted(tuple(r) for r in on_pg) == sorted(tuple(r) for r in rows)
