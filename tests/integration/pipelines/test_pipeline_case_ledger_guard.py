"""The guard that keeps the denial cases and the money together (issue 24): `fct_case_ledger_differences`
and the Dagster asset check `case_ledger_agrees`, through upload -> confirm -> cases -> pipeline ->
`operationalObservability.caseLedgerDifferences`, on a PostgreSQL operational database (production's).

Files (tests/fixtures/x12/hand/README.md, "The guard of the cases"), payer HAND GUARD PAYER (REF*2U GRD01):
- guard_denials.835 (2026-03-03): GRD-1 CO-16 300 denied in full (never paid), GRD-2 CO-50 500 denied,
  GRD-3 paid 200 (CO-45 50, no case), GRD-4 CO-50 1,000 denied.
- guard_overturn.835 (2026-04-07): GRD-2 reversed and paid 500 (an overturn); GRD-4 reversed and paid
  700 with CO-50 300 (a partial win).

The tests run in file order on one world: the March file alone (every case agrees), one case's money
altered in the operational database (the check turns red and lists exactly that case, the publish goes
on, nobody is quarantined), then the April file (per the case truth model, docs in /work/notes/truth.md
and the guard's yml: the overturn and the partial win update the March cases, still zero differences).
Every expected figure is written by hand from the segments.

PostgreSQL only: the module rebuilds the pipeline four times, and what it holds to account is the marts'
and the cases' money, which the backend does not change (the cases reach the warehouse through the same
`operational_extract` code on both). The case intake and the extract of the cases are held to hand-written
figures on SQLite too, by the shared hand world's modules (tests/integration/api/denials/cases,
tests/integration/api/intelligence/analytics/test_hand_case_kpis.py, ar_operations/test_hand_open_cases.py).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from sqlalchemy import create_engine, text

from pipelines.runner import RunSummary, run_pipeline
from pipelines.warehouse.case_ledger import read_guard
from pipelines.warehouse.snapshot import open_published
from tests.support.hand_world import HandWorld
from tests.support.paths import TESTS_DIR

pytestmark = [pytest.mark.slow, pytest.mark.parametrize("hand_world", ["postgres"], indirect=True)]

D = Decimal
CHECK = "marts/fct_case_ledger_differences:case_ledger_agrees"
CSV_HAND = TESTS_DIR / "fixtures" / "csv" / "hand"
CSV = "ingestion.uploadCsv"
DIFFERENCES = """
    select difference_kind, case_id, ledger_amount, case_amount
    from fct_case_ledger_differences where client_id = ? order by difference_kind, case_id"""


def rebuild(world: HandWorld) -> RunSummary:
    """The whole pipeline (raw, extract, dbt build and tests, checks, publish), as operations.runPipeline runs it."""
    summary = run_pipeline(world.data_dir, world.settings.database_url)
    assert summary.success, summary.errors
    assert summary.published_snapshot is not None
    return summary


def cases(world: HandWorld) -> dict[str, list[tuple[int, Decimal, Decimal]]]:
    """claim key -> [(case id, amount at stake, recovered)] of the tenant's cases, oldest first."""
    engine = create_engine(world.settings.database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "select claim_key, id, amount_at_stake, recovered_amount from denial_cases "
                    "where client_id = :client order by claim_key, id"
                ),
                {"client": world.tenant.client_id},
            ).all()
    finally:
        engine.dispose()
    out: dict[str, list[tuple[int, Decimal, Decimal]]] = {}
    for claim, case_id, at_stake, recovered in rows:
        out.setdefault(str(claim), []).append((int(str(case_id)), D(str(at_stake)), D(str(recovered))))
    return out


def states(world: HandWorld, claim_key: str) -> list[str]:
    engine = create_engine(world.settings.database_url)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("select state from denial_cases where client_id = :client and claim_key = :claim order by id"),
                {"client": world.tenant.client_id, "claim": claim_key},
            ).all()
            return [str(row[0]) for row in found]
    finally:
        engine.dispose()


def set_case_money(world: HandWorld, case_id: int, column: str, amount: str) -> None:
    engine = create_engine(world.settings.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(f"update denial_cases set {column} = :amount where id = :id"), {"amount": amount, "id": case_id}
            )
    finally:
        engine.dispose()


def differences(world: HandWorld) -> list[tuple]:
    return world.marts(DIFFERENCES, [world.tenant.client_id])


@pytest.fixture(scope="module")
def world(hand_world):
    assert [b["status"] for b in hand_world.post("guard_denials.835")] == ["confirmed"]
    return {"world": hand_world, "march": rebuild(hand_world)}


def test_the_march_cases_agree_with_the_marts(world):
    w, march = world["world"], world["march"]
    # one case per denied claim x payer, as the March file opened them; GRD-3 (paid, CO-45) has none
    found = {claim: [(at_stake, recovered) for _, at_stake, recovered in rows] for claim, rows in cases(w).items()}
    assert found == {
        "GRD-1": [(D("300.00"), D("0.00"))],
        "GRD-2": [(D("500.00"), D("0.00"))],
        "GRD-4": [(D("1000.00"), D("0.00"))],
    }
    assert differences(w) == []
    assert march.check_results[CHECK] is True
    answer = w.rpc.query("operationalObservability.caseLedgerDifferences").data
    assert (answer["differences"], answer["items"], answer["nextCursor"]) == (0, [], None)
    assert answer["snapshot"]["builtAt"]


def test_a_case_whose_money_is_altered_turns_the_check_red_and_is_listed(world):
    w = world["world"]
    ((grd1, _, _),) = cases(w)["GRD-1"]
    set_case_money(w, grd1, "amount_at_stake", "350.00")
    try:
        altered = rebuild(w)
    finally:
        set_case_money(w, grd1, "amount_at_stake", "300.00")
    # red, and exactly that case: the marts' 300.00 against the case's 350.00
    assert altered.check_results[CHECK] is False
    assert differences(w) == [("at_stake_differs", grd1, D("300.00"), D("350.00"))]
    answer = w.rpc.query("operationalObservability.caseLedgerDifferences", {"limit": 10}).data
    assert answer["differences"] == 1
    (item,) = answer["items"]
    assert (item["differenceKind"], item["caseId"], item["claimKey"]) == ("at_stake_differs", grd1, "GRD-1")
    assert (item["ledgerAtStake"], item["caseAtStake"], item["ledgerAmount"], item["caseAmount"]) == (
        "300.00",
        "350.00",
        "300.00",
        "350.00",
    )
    only_recovery = w.rpc.query("operationalObservability.caseLedgerDifferences", {"kind": "recovered_differs"}).data
    assert (only_recovery["differences"], only_recovery["items"]) == (0, [])
    # the check's metadata names the case id and a digest, never the claim key
    with open_published(w.data_dir) as snap:
        guard = read_guard(snap.connection)
    assert guard.differences == 1 and guard.by_kind == {"at_stake_differs": 1}
    (first,) = guard.first
    assert (first["case_id"], first["ledger_amount"], first["case_amount"]) == (grd1, "300.00", "350.00")
    assert len(first["claim_payer_digest"]) == 16
    assert "GRD-1" not in json.dumps(guard.first)
    # a warning, not a contract: the tenant's new numbers are published, nobody is quarantined
    held = w.rpc.query("operationalObservability.quarantines").data
    assert held["quarantined"] is False and held["items"] == []
    if w.admin_url is not None:
        # the same dbt project built on PostgreSQL from this run's raw layer and extract (the altered case)
        with w.marts_on_postgres() as pg:
            rows = pg.execute(
                "select difference_kind, case_id, ledger_amount, case_amount from fct_case_ledger_differences "
                "where client_id = %s",
                [w.tenant.client_id],
            ).fetchall()
        assert rows == [("at_stake_differs", grd1, D("300.00"), D("350.00"))]


def april(world) -> RunSummary:
    """guard_overturn.835 and the hospital's worklist (contradicted_denials_worklist.csv, a claim of its own)
    posted and the pipeline rebuilt, once for the tests that follow."""
    if "april" not in world:
        w = world["world"]
        assert [b["status"] for b in w.post("guard_overturn.835")] == ["confirmed"]
        worklist = w.post("contradicted_denials_worklist.csv", folder=CSV_HAND, procedure=CSV)
        assert [b["status"] for b in worklist] == ["confirmed"]
        world["april"] = rebuild(w)
    return world["april"]


def grd_cases(world: HandWorld) -> dict[str, list[tuple[Decimal, Decimal]]]:
    """(amount at stake, recovered) of the GRD claims' cases (the worklist's EPX-1 is the last test's)."""
    return {
        claim: [(at_stake, recovered) for _, at_stake, recovered in rows]
        for claim, rows in cases(world).items()
        if claim.startswith("GRD-")
    }


def test_the_overturn_recovers_the_march_case_and_agrees(world):
    """GRD-2's case recovers 500.00 of 500.00 (500 paid since the denial - 0 paid at it), one case, and the
    guard names no difference on the claim."""
    w = world["world"]
    april(world)
    assert [(at_stake, recovered) for _, at_stake, recovered in cases(w)["GRD-2"]] == [(D("500.00"), D("500.00"))]
    on_grd2 = w.marts(
        "select count(*) from fct_case_ledger_differences where client_id = ? and claim_key = 'GRD-2'",
        [w.tenant.client_id],
    )
    assert on_grd2 == [(0,)]


def test_the_partial_win_updates_the_same_case_and_everything_agrees(world):
    """Per the case truth model: GRD-4's SAME case recovers 700.00 of 1,000.00 (a partial win: paid 700
    with CO-50 300 after a 1,000 denial; no second case), and the guard finds no difference at all.
    Needs the case intake that follows the truth model: today's intake opens a second case for the CO-50
    300 and leaves the first at 0 recovered (the guard lists it as recovered_differs, 700.00 vs 0.00)."""
    w = world["world"]
    summary = april(world)
    assert grd_cases(w) == {
        "GRD-1": [(D("300.00"), D("0.00"))],
        "GRD-2": [(D("500.00"), D("500.00"))],
        "GRD-4": [(D("1000.00"), D("700.00"))],
    }
    assert differences(w) == []
    assert summary.check_results[CHECK] is True


def test_a_worklist_case_alone_and_then_contradicted_by_the_835_is_no_difference(world):
    """tests/fixtures/csv/hand/contradicted_denials_worklist.csv: EPX-1 denied CO-16 180.00 by "Hand Episode
    Payer" in the hospital's worklist; a case opens from it. Alone, the claim has no 835 in the marts: a
    tabular-only claim is outside the guard. Then episode_contradicted.835 (HEP01, 2026-03-09): the payer
    paid EPX-1 150.00 with CO-45 30.00, no denial; the intake closes the worklist's case with no decision,
    and a case closed with no decision is no denial anywhere: still no difference."""
    w = world["world"]
    alone = april(world)  # the worklist was posted with April's file
    assert [(at_stake, recovered) for _, at_stake, recovered in cases(w)["EPX-1"]] == [(D("180.00"), D("0.00"))]
    assert differences(w) == []
    assert alone.check_results[CHECK] is True
    assert [b["status"] for b in w.post("episode_contradicted.835")] == ["confirmed"]
    contradicted = rebuild(w)
    assert states(w, "EPX-1") == ["closed"]
    assert differences(w) == []
    assert contradicted.check_results[CHECK] is True
