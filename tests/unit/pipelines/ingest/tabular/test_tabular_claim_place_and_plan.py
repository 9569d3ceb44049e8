"""A claims export's optional place-of-service and plan columns, under the names billing systems give them."""

from __future__ import annotations

import pytest

from pipelines.ingest.tabular import read_tabular


@pytest.mark.parametrize(
    ("pos_header", "plan_header"),
    [
        ("POS", "Plan Code"),
        ("Place of Service", "Plan"),
        ("Place of Service Code", "Plan ID"),
        ("POS Code", "Plan Name"),
        ("place_of_service", "plan"),  # the canonical names themselves
    ],
)
def test_place_of_service_and_plan_columns_are_read_by_their_aliases(pos_header, plan_header):
    data = (
        f"Account Number,Service Date,Billed Amount,CPT,{pos_header},{plan_header}\n"
        "A1,03/05/2026,500.00,70551,11,gold-ppo-7\n"
        "A1,03/06/2026,600.00,70551,22,\n"
    ).encode()
    result = read_tabular(data, filename="claims.csv")
    assert result.entity == "claim"
    rows = result.rows
    assert rows["place_of_service"].to_list() == ["11", "22"]
    assert rows["plan"].to_list() == ["gold-ppo-7", None]  # text: the intake upper-cases it
    assert rows["row_status"].to_list() == ["valid", "valid"]


def test_an_export_without_them_still_reads():
    data = b"Account Number,Service Date,Billed Amount\nA1,03/05/2026,500.00\n"
    result = read_tabular(data, filename="claims.csv")
    assert result.entity == "claim"
    assert result.rows["row_status"].to_list() == ["valid"]
