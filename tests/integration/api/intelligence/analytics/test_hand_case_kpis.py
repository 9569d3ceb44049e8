"""Denial-case KPIs of fct_kpis_monthly on the hand-written KPI world (tests/fixtures/x12/hand/kpi_*, the
same files as test_hand_kpis.py; data horizon 2025-11-20) plus denial cases written by hand into the
operational database, through extract -> dbt -> analytics.kpis, on SQLite and PostgreSQL operational
databases (and the PostgreSQL dbt build held to the same numbers). Every expected figure is written by hand.

The remittance rule already writes off KPI-003 (denied 02-10, CO-16 50, never paid, appeal window closed).

The cases (opened / moves / state now; money):
- C1 KPI-002: opened 02-12; in_appeal 02-20, won 04-16, closed 05-02 (closed now: its decision is in the
  history); recovered 450.
- C2 KPI-003: opened 02-12; written_off 09-10 (state now); written off 50 - a claim the remittance rule
  already writes off: counted in case_written_off_amount, not again in the final write-off.
- C3 KPI-007: opened 11-21; lost 12-05 (state now, after the horizon's month); written off 100 - a claim the
  remittance rule writes off too since issue 24 (its appeal window closed on 2026-05-19, before the build
  date): counted once, by the remittance rule, in November.
- C4 KPI-004: opened 04-20; in_appeal 04-25, partially_won 05-15 (state now); recovered 250, written off 50
  (partially won: not a final write-off).
- C5 KPI-009: opened 06-20; in_appeal 06-25 (state now: worked, no decision).
- C6 KPI-008: opened 06-17; lost 07-01, reopened to in_appeal 07-20 (state now): the decision was undone.
- C7 KPI-001: opened 03-03; closed 03-30 without any decision in its history.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

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
D = Decimal

CASES = [
    HandCase(
        "C1",
        "KPI-002",
        "2025-02-12",
        "closed",
        "2025-05-02",
        "500.00",
        recovered="450.00",
        closed="2025-05-02",
        moves=[
            ("open", "in_appeal", "2025-02-20"),
            ("in_appeal", "won", "2025-04-16"),
            ("won", "closed", "2025-05-02"),
        ],
    ),
    HandCase(
        "C2",
        "KPI-003",
        "2025-02-12",
        "written_off",
        "2025-09-10",
        "50.00",
        written_off="50.00",
        moves=[("open", "written_off", "2025-09-10")],
    ),
    HandCase(
        "C3",
        "KPI-007",
        "2025-11-21",
        "lost",
        "2025-12-05",
        "100.00",
        written_off="100.00",
        moves=[("open", "in_appeal", "2025-11-25"), ("in_appeal", "lost", "2025-12-05")],
    ),
    HandCase(
        "C4",
        "KPI-004",
        "2025-04-20",
        "partially_won",
        "2025-05-15",
        "300.00",
        recovered="250.00",
        written_off="50.00",
        moves=[("open", "in_appeal", "2025-04-25"), ("in_appeal", "partially_won", "2025-05-15")],
    ),
    HandCase(
        "C5", "KPI-009", "2025-06-20", "in_appeal", "2025-06-25", "200.00", moves=[("open", "in_appeal", "2025-06-25")]
    ),
    HandCase(
        "C6",
        "KPI-008",
        "2025-06-17",
        "in_appeal",
        "2025-07-20",
        "500.00",
        moves=[
            ("open", "in_appeal", "2025-06-20"),
            ("in_appeal", "lost", "2025-07-01"),
            ("lost", "in_appeal", "2025-07-20"),
        ],
    ),
    HandCase("C7", "KPI-001", "2025-03-03", "closed", "2025-03-30", "0.00", closed="2025-03-30"),
]

ZERO = {
    "cases_opened": 0,
    "cases_closed": 0,
    "cases_decided": 0,
    "cases_won": 0,
    "cases_partially_won": 0,
    "cases_lost": 0,
    "cases_written_off": 0,
    "case_win_rate": None,  # nothing decided: unknown, never 0
    "case_recovered_amount": D("0.00"),
    "case_written_off_amount": D("0.00"),
    "case_final_write_off_amount": D("0.00"),
}
# fct_kpis_monthly by hand, per month (every month not listed is ZERO for the case columns).
MONTHS = {
    "2025-02-01": {
        **ZERO,
        "cases_opened": 2,  # C1, C2
        # the remittance rule's KPI-003, unchanged: its case C2 adds nothing (counted once)
        "final_write_off_claims": 1,
        "final_denial_write_off_amount": D("50.00"),
        "final_denial_write_off_pct": 50 / 1550,
    },
    "2025-03-01": {**ZERO, "cases_opened": 1, "cases_closed": 1},  # C7: closed without a decision
    "2025-04-01": {
        **ZERO,
        "cases_opened": 1,  # C4
        "cases_decided": 1,
        "cases_won": 1,  # C1, closed since: its decision from the history, in the month of the decision
        "case_win_rate": 1.0,
        "case_recovered_amount": D("450.00"),
        "final_denial_write_off_amount": D("0.00"),
    },
    "2025-05-01": {
        **ZERO,
        "cases_closed": 1,  # C1
        "cases_decided": 1,
        "cases_partially_won": 1,  # C4
        "case_win_rate": 1.0,
        "case_recovered_amount": D("250.00"),
        "case_written_off_amount": D("0.00"),  # a partial win writes nothing off finally
        "final_denial_write_off_amount": D("0.00"),
    },
    "2025-06-01": {**ZERO, "cases_opened": 2},  # C5, C6
    "2025-07-01": {**ZERO},  # C6 was lost on 07-01 and reopened on 07-20: no decision stands
    "2025-09-01": {
        **ZERO,
        "cases_decided": 1,
        "cases_written_off": 1,  # C2
        "case_win_rate": 0.0,
        "case_written_off_amount": D("50.00"),
        "case_final_write_off_amount": D("0.00"),  # KPI-003 is the remittance rule's already
        "final_write_off_claims": 0,
        "final_denial_write_off_amount": D("0.00"),
        "final_denial_write_off_pct": None,  # nothing adjudicated in September
    },
    "2025-11-01": {
        **ZERO,
        "cases_opened": 1,  # C3
        "final_write_off_claims": 1,  # KPI-007 by the remittance rule (window closed before the build date)
        "final_denial_write_off_amount": D("100.00"),
        # unchanged by the cases: KPI-006 250 + KPI-007 100 (KPI-003 written off on 08-09 left A/R)
        "ar_amount": D("350.00"),
    },
    # After the horizon's month: a row only because C3 was decided in it; its balances are unknown.
    "2025-12-01": {
        **ZERO,
        "cases_decided": 1,
        "cases_lost": 1,
        "case_win_rate": 0.0,
        "case_written_off_amount": D("100.00"),
        "case_final_write_off_amount": D("0.00"),  # KPI-007 is the remittance rule's (November)
        "final_write_off_claims": 0,
        "final_denial_write_off_amount": D("0.00"),
        "final_denial_write_off_pct": None,
        "claims_adjudicated": 0,
        "ar_amount": None,
        "aged_ar_amount": None,
        "aged_ar_over_90_pct": None,
        "days_in_ar": None,
        "dnfb_amount": None,
        "is_mature": False,
    },
}
COLUMNS = sorted({c for m in MONTHS.values() for c in m})
SQL = f"select month, {', '.join(COLUMNS)} from fct_kpis_monthly where client_id = {{client}} order by month"


@before_shared_run
def case_world_setup(hand_world: HandWorld) -> None:
    hand_world.post(*FILES_837, procedure="ingestion.uploadUniversal")
    batches = hand_world.post(*FILES_835)
    assert [b["status"] for b in batches] == ["confirmed"] * 6
    replace_cases(hand_world, CASES)


@pytest.fixture(scope="module")
def case_world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(case_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def _rows(fetch) -> dict[str, dict]:
    return {str(r[0]): dict(zip(COLUMNS, r[1:], strict=True)) for r in fetch}


def _assert_months(rows: dict[str, dict]) -> None:
    # January (the first balance) to December (the month of C3's decision, after the horizon's November).
    assert sorted(rows) == [f"2025-{m:02d}-01" for m in range(1, 13)]
    for month, row in rows.items():
        expected = MONTHS.get(month, ZERO)
        for column, value in expected.items():
            got = row[column]
            if value is None or isinstance(value, bool | int | Decimal):
                assert got == value, (month, column, got, value)
            else:
                assert got == pytest.approx(value, abs=1e-6), (month, column, got, value)


def test_the_mart_counts_each_case_in_its_month(case_world):
    _assert_months(_rows(case_world.marts(SQL.format(client="?"), [case_world.tenant.client_id])))
    if case_world.admin_url:
        with case_world.marts_on_postgres() as pg:
            _assert_months(_rows(pg.execute(SQL.format(client=case_world.tenant.client_id)).fetchall()))


def test_kpis_serve_the_case_figures_and_the_combined_write_off(case_world):
    k = case_world.rpc.query("analytics.kpis", {}).data["kpis"]
    assert (k["casesOpened"], k["casesClosed"], k["casesDecided"]) == (7, 2, 4)
    assert (k["casesWon"], k["casesPartiallyWon"], k["casesLost"], k["casesWrittenOff"]) == (1, 1, 1, 1)
    assert k["caseWinRate"] == 0.5  # (1 + 1) / 4
    assert D(k["caseRecoveredAmount"]) == D("700.00")  # 450 + 250
    assert D(k["caseWrittenOffAmount"]) == D("150.00")  # C2 50 + C3 100
    # KPI-003 and KPI-007 are the remittance rule's: their cases add nothing
    assert D(k["caseFinalWriteOffAmount"]) == D("0.00")
    assert (k["finalWriteOffClaims"], D(k["finalDenialWriteOffAmount"])) == (2, D("150.00"))  # 50 + 100
    # The balances come from November, the last month that has them, not from December.
    assert (k["balancesMonth"], D(k["arAmount"])) == ("2025-11", D("350.00"))


def test_a_range_of_months_without_decisions_has_a_null_win_rate(case_world):
    k = case_world.rpc.query("analytics.kpis", {"fromMonth": "2025-06", "toMonth": "2025-07"}).data["kpis"]
    assert (k["casesOpened"], k["casesDecided"], k["caseWinRate"]) == (2, 0, None)
    points = case_world.rpc.query(
        "analytics.trend", {"metric": "case_win_rate", "fromMonth": "2025-04", "toMonth": "2025-05"}
    ).data["points"]
    assert [(p["month"], p["value"], p["numerator"], p["denominator"]) for p in points] == [
        ("2025-04", 1.0, 1.0, 1.0),
        ("2025-05", 1.0, 1.0, 1.0),
    ]
