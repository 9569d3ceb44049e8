"""The guard's summary of fct_case_ledger_differences (what the Dagster check shows): counts by kind and
client, the first differences in a stable order, named by case id and digest, never by claim key."""

from __future__ import annotations

import json

import duckdb

from pipelines.warehouse.case_ledger import read_guard

ROWS = [
    # client, kind, case id, claim key, digest, ledger, case
    (17, "recovered_differs", 9, "PHI-CLAIM-9", "aaaaaaaaaaaaaaaa", "700.00", "0.00"),
    (17, "at_stake_differs", 4, "PHI-CLAIM-4", "bbbbbbbbbbbbbbbb", "300.00", "350.00"),
    (17, "missing_case", None, "PHI-CLAIM-5", "cccccccccccccccc", "50.00", None),
    (18, "at_stake_differs", 2, "PHI-CLAIM-2", "dddddddddddddddd", "10.00", "12.00"),
]


def _mart(rows):
    con = duckdb.connect()
    con.execute(
        "create table fct_case_ledger_differences (client_id bigint, difference_kind varchar, case_id bigint, "
        "claim_key varchar, claim_payer_digest varchar, ledger_amount decimal(18, 2), case_amount decimal(18, 2))"
    )
    if rows:
        con.executemany("insert into fct_case_ledger_differences values (?, ?, ?, ?, ?, ?, ?)", rows)
    return con


def test_an_empty_mart_agrees():
    guard = read_guard(_mart([]))
    assert guard.agrees and guard.differences == 0 and guard.by_kind == {} and guard.first == [] and guard.clients == 0


def test_differences_are_counted_by_kind_and_client_and_listed_in_order():
    guard = read_guard(_mart(ROWS))
    assert not guard.agrees
    assert guard.differences == 4
    assert guard.by_kind == {"at_stake_differs": 2, "missing_case": 1, "recovered_differs": 1}
    assert guard.clients == 2
    assert [(d["client_id"], d["difference_kind"], d["case_id"]) for d in guard.first] == [
        (17, "at_stake_differs", 4),
        (17, "missing_case", None),
        (17, "recovered_differs", 9),
        (18, "at_stake_differs", 2),
    ]
    assert guard.first[0] == {
        "client_id": 17,
        "difference_kind": "at_stake_differs",
        "case_id": 4,
        "claim_payer_digest": "bbbbbbbbbbbbbbbb",
        "ledger_amount": "300.00",
        "case_amount": "350.00",
    }


def test_the_first_differences_are_capped_and_never_name_a_claim_key():
    guard = read_guard(_mart(ROWS), first=2)
    assert len(guard.first) == 2 and guard.differences == 4
    assert "PHI-CLAIM" not in json.dumps(guard.first)
