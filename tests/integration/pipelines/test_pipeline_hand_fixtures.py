"""The hand-written classification 835s (tests/fixtures/x12/hand) through the product path: uploaded
and confirmed over the wire, the pipeline run by `operations.runPipeline`, on a SQLite and on a
PostgreSQL operational database (in a tenant of `shared_hand_world`), read from the DuckDB marts and, on the PostgreSQL
variant, from the same dbt project built on PostgreSQL.

Expected figures are written by hand from the segments of each file; neither the generator nor the
seeds decide them. The same files also feed the Python classifier here, so the marts and the ledger
are checked to give every adjustment the same category (RARCs unsorted, at claim and line level).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from api.money.ingestion.posting import RowView, plan_entries
from api.money.ingestion.records import rows_from_835
from pipelines.ingest.classify import classify_frame
from pipelines.ingest.x12 import parse_x12_file
from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

HAND = Path(__file__).resolve().parents[2] / "fixtures" / "x12" / "hand"
# The classification situations (the folder also holds the holds/re-delivery fixtures, which are
# deliberately broken or repeat one remittance: they are the ingestion tests' business).
CLASSIFICATION_FILES = (
    "unknown_carc.835",
    "zero_and_negative.835",
    "all_lines_denied_status1.835",
    "predetermination.835",
    "reversal.835",
    "rarc_order_and_co59.835",
)


@before_shared_run
def classification(world: HandWorld) -> list[dict]:
    return world.post(*CLASSIFICATION_FILES)


@pytest.fixture(scope="module")
def posted(shared_hand_world) -> HandWorld:
    world, batches = shared_hand_world.of(classification)
    assert [b["status"] for b in batches] == ["confirmed"] * len(CLASSIFICATION_FILES)
    run = world.run_pipeline()
    assert run["status"] == "succeeded", run
    return world


def _query(world: HandWorld, sql: str) -> list[tuple]:
    return world.marts(sql)


def test_claim_denial_figures(posted):
    rows = {
        (r[0], r[1]): r[2:]
        for r in _query(
            posted,
            "select claim_key, claim_status_code, is_denied, is_fully_denied, denied_amount from fct_remittance_claims",
        )
    }
    assert rows[("UNK-1", "1")] == (False, False, Decimal("0.00"))
    assert rows[("ZERO-1", "1")] == (False, False, Decimal("0.00"))
    assert rows[("NEG-1", "1")] == (False, False, Decimal("0.00"))
    assert rows[("ALLDEN-1", "1")] == (True, True, Decimal("200.00"))
    assert rows[("PRED-1", "25")] == (False, False, Decimal("0.00"))
    assert rows[("REV-2", "22")] == (False, False, Decimal("0.00"))
    assert rows[("RARC-1", "1")] == (True, False, Decimal("220.00"))
    assert rows[("MPR-1", "1")] == (False, False, Decimal("0.00"))


def test_adjustment_classification(posted):
    rows = _query(
        posted,
        "select claim_key, line_index, carc, amount, denial_category, is_denial, classification_basis "
        "from fct_claim_adjustments where claim_key in ('UNK-1', 'NEG-1', 'ZERO-1', 'RARC-1', 'MPR-1', 'REV-2')",
    )
    got = {(r[0], r[1], r[2]): r[3:] for r in rows}
    assert got[("UNK-1", None, "ZZ9")] == (Decimal("10.00"), "unclassified", False, "unknown_carc")
    assert got[("ZERO-1", None, "97")][2] is False
    assert got[("NEG-1", None, "94")] == (Decimal("-30.00"), "contractual", False, "carc_table")
    assert got[("RARC-1", None, "16")] == (Decimal("20.00"), "registration", True, "rarc_hint:N382")
    assert got[("RARC-1", 0, "16")] == (Decimal("50.00"), "registration", True, "rarc_hint:N382")
    assert got[("RARC-1", 1, "16")] == (Decimal("150.00"), "registration", True, "rarc_hint:N382")
    assert got[("MPR-1", None, "59")] == (Decimal("40.00"), "contractual", False, "carc_table")
    assert got[("REV-2", None, "50")][2] is False


def test_predetermination_is_not_an_adjudication(posted):
    keys = {r[0] for r in _query(posted, "select claim_key from fct_claim_reconciliation")}
    assert "PRED-1" not in keys


def test_marts_and_classifier_agree_on_unsorted_rarcs(posted):
    rows = _query(
        posted,
        "select group_code, carc, rarc_codes, denial_category, classification_basis from fct_claim_adjustments",
    )
    frame = pl.DataFrame(
        {
            "group_code": [r[0] for r in rows],
            "carc": [r[1] for r in rows],
            "rarcs": [r[2] or "" for r in rows],
            "sql_category": [r[3] for r in rows],
            "sql_basis": [r[4] for r in rows],
        }
    )
    python = classify_frame(frame, rarcs_column="rarcs")
    assert python["denial_category"].to_list() == python["sql_category"].to_list()
    assert python["classification_basis"].to_list() == python["sql_basis"].to_list()


def test_ledger_and_marts_give_every_adjustment_the_same_category(posted):
    """Both sides from the same files, each with its own RARC ordering (records.py vs the SQL model)."""
    ledger = []
    for path in (HAND / name for name in CLASSIFICATION_FILES):
        rows = rows_from_835(parse_x12_file(path).tables)
        views = [RowView(i, r.row_number, r.entity, r.data, r.parent_row_number) for i, r in enumerate(rows, 1)]
        ledger += [
            (p.claim_key, p.carc, p.amount, p.denial_category, p.is_denial)
            for p in plan_entries(views)
            if p.component == "cas"
        ]
    marts = _query(posted, "select claim_key, carc, amount, denial_category, is_denial from fct_claim_adjustments")
    assert sorted(ledger) == sorted(marts)
    assert len(ledger) == 15  # 2 + 2 + 2 + 1 + 4 + 4 CAS triplets in the six files
    # the ledger the confirms actually posted holds the same categories
    posted_ledger = [e for e in posted.pages("ingestion.listFinancialEntries") if e["component"] == "cas"]
    assert sorted((e["carc"], e["amount"], e["denialCategory"]) for e in posted_ledger) == sorted(
        (carc, f"{amount:.2f}", category) for _, carc, amount, category, _ in marts
    )


HAND_CHECKED = (
    "select claim_key, claim_status_code, is_denied, is_fully_denied, denied_amount from fct_remittance_claims",
    "select claim_key, line_index, carc, amount, denial_category, is_denial, classification_basis "
    "from fct_claim_adjustments",
    "select claim_key from fct_claim_reconciliation",
)


def test_postgres_marts_give_the_same_hand_checked_rows(posted):
    """The rows the tests above hold to hand-written values, from the dbt build on PostgreSQL."""
    if posted.admin_url is None:
        pytest.skip("the PostgreSQL build runs on the postgres variant of the hand world")
    with posted.marts_on_postgres() as pg:
        for sql in HAND_CHECKED:
            on_postgres = sorted((tuple(r) for r in pg.execute(sql).fetchall()), key=repr)
            assert on_postgres == sorted(posted.marts(sql), key=repr), sql
