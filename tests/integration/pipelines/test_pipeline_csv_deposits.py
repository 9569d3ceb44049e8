"""The billing-system CSV exports and the bank deposits file reach the raw layer and the deposit
mart with the generator's ground truth: row counts and money totals to the cent."""

from __future__ import annotations

import csv
from decimal import Decimal

import polars as pl
import pytest

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.snapshot import open_published
from tests.integration.pipelines.conftest import CLIENT_ID, ORGANIZATION_ID

pytestmark = pytest.mark.slow


def raw(world, table: str) -> pl.DataFrame:
    return pl.read_parquet(WarehouseLayout.at(world.data_dir).raw_table_dir(table) / "*.parquet")


def csv_rows(world, name: str) -> int:
    with (world.corpus_dir / name).open(newline="") as fh:
        return sum(1 for _ in csv.DictReader(fh))


@pytest.mark.parametrize(
    "table,name",
    [
        ("csv_claims", "claims_export.csv"),
        ("csv_payments", "payments_export.csv"),
        ("csv_denials", "denials_worklist.csv"),
        ("csv_deposits", "deposits.csv"),
    ],
)
def test_every_csv_row_lands_valid_with_its_tenant(pipeline_world, table, name):
    frame = raw(pipeline_world, table)
    assert frame.height == csv_rows(pipeline_world, name) > 0
    assert frame["row_status"].unique().to_list() == ["valid"]
    assert frame["organization_id"].unique().to_list() == [ORGANIZATION_ID]
    assert frame["client_id"].unique().to_list() == [CLIENT_ID]


def test_csv_money_totals_equal_the_ground_truth(pipeline_world):
    truth = pipeline_world.truth
    assert raw(pipeline_world, "csv_claims")["billed_amount"].sum() == Decimal(truth["money"]["total_billed"])
    assert raw(pipeline_world, "csv_payments")["paid_amount"].sum() == Decimal(truth["x12"]["remit_total_paid"])
    deposits = raw(pipeline_world, "csv_deposits")
    assert deposits.height == truth["money"]["deposits"]
    assert deposits["amount"].sum() == Decimal(truth["money"]["deposits_total"])


def test_every_deposit_matches_its_remittance_to_the_cent(pipeline_world):
    truth = pipeline_world.truth
    with open_published(pipeline_world.data_dir) as snap:
        by_status = dict(
            snap.connection.execute(
                "select match_status, count(*) from fct_bank_deposits group by match_status"
            ).fetchall()
        )
        deposits, total, era = snap.connection.execute(
            "select count(deposit_key), sum(deposit_amount), sum(era_amount) from fct_bank_deposits"
        ).fetchone()
    # Every paying 835 reached the bank with its exact amount; nothing is unmatched either way.
    assert by_status == {"matched": truth["money"]["deposits"]}
    assert deposits == truth["money"]["deposits"]
    assert total == era == Decimal(truth["money"]["deposits_total"])
