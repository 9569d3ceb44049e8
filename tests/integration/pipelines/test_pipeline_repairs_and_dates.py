"""Repaired rows are what the marts read, and dates a mart needs a month of are never null.

A row repaired with ingestion.repairImportRow before confirming reaches the raw layer (and so every
mart) with its repaired values, not as the landing file has it:

- `missing_clp01.835`: one claim without CLP01 (the patient control number), billed 120.00, paid
  90.00, CO-45 30.00, trace HANDTRACER90. Its row is invalid until repaired to `HAND-R01`.
- `deposits_typo_amount.csv`: two bank deposits; the second's amount is `9O.00` (a letter O), invalid
  until repaired to 90.00. The first (230.00, HANDTRACE230) pays `balanced_230.835`.

The payment date falls back BPR16 -> DTM*405 -> the day the file was received (issue 13: a denied
claim without a payment date left `fct_roi_monthly.month` null and stopped every tenant's snapshot):

- `no_bpr16_dtm405.835`: BPR16 empty, DTM*405 2026-10-28; HAND-D01 billed 100.00, paid 0, CO-50 100.00.
- `no_payment_date.835`: neither BPR16 nor DTM*405; HAND-D02 billed 60.00, paid 0, CO-50 60.00: its
  payment date is the day its batch was uploaded (the batch's createdAt).

Expected figures are written by hand from those rows, on DuckDB and on PostgreSQL.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from decimal import Decimal

import pytest

from tests.support.denial_cases import HandCase, replace_cases
from tests.support.hand_world import HandWorld, before_shared_run
from tests.support.paths import TESTS_DIR

pytestmark = pytest.mark.slow

CSV_HAND = TESTS_DIR / "fixtures" / "csv" / "hand"


def _repair_and_confirm(world, batch: dict, fields: dict[str, str]) -> dict:
    invalid = world.rpc.query("ingestion.listImportRows", {"batchId": batch["id"], "status": "invalid"}).data
    assert len(invalid["items"]) == 1, invalid
    repaired = world.rpc.mutation("ingestion.repairImportRow", {"rowId": invalid["items"][0]["id"], "fields": fields})
    assert repaired.data["status"] == "repaired", repaired.data
    world.confirm(batch)
    return world.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data


@before_shared_run
def world_setup(hand_world: HandWorld) -> None:
    assert hand_world.post("balanced_230.835")[0]["status"] == "confirmed"
    era = hand_world.upload("missing_clp01.835")
    assert _repair_and_confirm(hand_world, era, {"patient_control_number": "HAND-R01"})["status"] == "confirmed"
    deposits = hand_world.upload("deposits_typo_amount.csv", folder=CSV_HAND, procedure="ingestion.uploadCsv")
    assert _repair_and_confirm(hand_world, deposits, {"amount": "90.00"})["status"] == "confirmed"
    dated = hand_world.post("no_bpr16_dtm405.835", "no_payment_date.835")
    assert [b["status"] for b in dated] == ["confirmed", "confirmed"]
    # ROI counts denial work by a person only (issue 24): both denials' cases were worked by the user
    user_id = hand_world.rpc.query("auth.session").data["userId"]
    replace_cases(
        hand_world,
        [
            HandCase(
                name,
                claim,
                "2026-10-29",
                "in_appeal",
                "2026-10-30",
                amount,
                mover_user_id=user_id,
                moves=[("open", "in_appeal", "2026-10-30")],
            )
            for name, claim, amount in (("D1", "HAND-D01", "100.00"), ("D2", "HAND-D02", "60.00"))
        ],
    )


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


CLAIM = (
    "select claim_key, billed_amount, paid_amount from fct_remittance_claims where client_id = {p} "
    "and claim_key not in ('HAND-D01', 'HAND-D02') order by claim_key"
)
DEPOSITS = (
    "select trace_number, deposit_amount, deposit_variance from fct_bank_deposits "
    "where client_id = {p} and deposit_key is not null order by trace_number"
)
EXPECTED_CLAIMS = [
    ("HAND-001", Decimal("200.00"), Decimal("150.00")),
    ("HAND-002", Decimal("100.00"), Decimal("80.00")),
    ("HAND-R01", Decimal("120.00"), Decimal("90.00")),  # the repaired CLP01
]
EXPECTED_DEPOSITS = [
    ("HANDTRACE230", Decimal("230.00"), Decimal("0.00")),
    ("HANDTRACER90", Decimal("90.00"), Decimal("0.00")),  # the repaired amount, matching the 835's 90.00
]


DATES = (
    "select claim_key, payment_date from fct_remittance_claims where client_id = {p} "
    "and claim_key in ('HAND-D01', 'HAND-D02') order by claim_key"
)
ROI = "select month, denials_worked from fct_roi_monthly where client_id = {p} order by month"


def _received_day(world) -> date:
    """The day the no-date file was uploaded, as the batch records it (UTC)."""
    return date.fromisoformat(world.batches["no_payment_date.835"]["createdAt"][:10])


def _expected_dates(world) -> tuple[list[tuple], list[tuple]]:
    received = _received_day(world)
    claims = [("HAND-D01", date(2026, 10, 28)), ("HAND-D02", received)]
    # one denial worked in each payment month (HAND-D01 in 2026-10, HAND-D02 in the upload month)
    months = Counter([date(2026, 10, 1), received.replace(day=1)])
    return claims, sorted(months.items())


def test_payment_dates_fall_back_to_dtm405_then_the_received_day(world):
    claims, _ = _expected_dates(world)
    assert world.marts(DATES.format(p="?"), [world.tenant.client_id]) == claims


def test_roi_months_are_never_null(world):
    _, months = _expected_dates(world)
    assert world.marts(ROI.format(p="?"), [world.tenant.client_id]) == months


def test_a_repaired_835_claim_reaches_the_marts(world):
    assert world.marts(CLAIM.format(p="?"), [world.tenant.client_id]) == EXPECTED_CLAIMS


def test_a_repaired_csv_deposit_reaches_the_marts(world):
    assert world.marts(DEPOSITS.format(p="?"), [world.tenant.client_id]) == EXPECTED_DEPOSITS


def test_postgres_marts_read_the_same_repairs(world):
    if not world.admin_url:
        pytest.skip("the PostgreSQL warehouse is built on the postgres variant")
    with world.marts_on_postgres() as pg:
        assert pg.execute(CLAIM.format(p="%s"), [world.tenant.client_id]).fetchall() == EXPECTED_CLAIMS
        assert pg.execute(DEPOSITS.format(p="%s"), [world.tenant.client_id]).fetchall() == EXPECTED_DEPOSITS
        claims, months = _expected_dates(world)
        assert pg.execute(DATES.format(p="%s"), [world.tenant.client_id]).fetchall() == claims
        assert pg.execute(ROI.format(p="%s"), [world.tenant.client_id]).fetchall() == months
