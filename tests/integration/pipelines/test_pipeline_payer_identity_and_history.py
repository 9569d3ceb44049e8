"""Payer identity, COB chains, re-deliveries, overturns, recoupments and corrected underpayments:
hand-written 835s (tests/fixtures/x12/hand, see its README) through upload -> confirm -> the pipeline
-> the procedures, on SQLite and PostgreSQL operational databases, with the DuckDB marts and the same
dbt project built on PostgreSQL held to the same numbers.

Every expected figure below is written by hand from the segments of the files; nothing here is
computed by the project's code, the generator or the seeds.
"""

from __future__ import annotations

import shutil
from datetime import UTC, date, datetime
from decimal import Decimal

import polars as pl
import pytest
from sqlalchemy import text

from tests.support.hand_world import HAND, HandWorld, before_shared_run

pytestmark = pytest.mark.slow

D = Decimal
# Upload order. The same-day pair is uploaded 302 first so that neither the batch order nor the upload
# order gives the right answer; and the file of ISA13 000000302 has the smaller SHA-256 (43e412f9...
# vs fa0303cb...), so the old "payment date, then file hash" order read the payment before the denial.
FILES = (
    "cob_medicare_primary.835",
    "cob_medigap_secondary.835",
    "wrong_payer_denial.835",
    "right_payer_payment.835",
    "commercial_march.835",
    "commercial_april.835",
    "underpayment_original.835",
    "underpayment_corrected.835",
    "same_day_icn_000000302.835",
    "same_day_icn_000000301.835",
    "redelivered_envelope_1.835",
    "redelivered_envelope_2.835",
)
# The tenant's aliases: the Medigap's id GAP01 is the canonical payer "HAND MEDIGAP PLAN F"; the
# wrong payer (filed as CLP06=12, which says commercial) is a Medicaid managed-care plan.
ALIASES = (
    ("payer_id", "GAP01", "HAND MEDIGAP PLAN F", "GAP01", None),
    ("payer_name", "hand wrong payer", "HAND WRONG PAYER", None, "medicaid"),
)


# Every mart query the module reads ({client}: the tenant's client id), run on DuckDB and PostgreSQL.
SQL = {
    "claims": """
        select claim_key, payer_key, payer_id, payer_class, last_payer_key, payer_count, remittance_events,
               paid_amount, patient_responsibility, initially_denied, overturned, recovered_amount,
               claim_outcome, currently_denied, current_denied_amount
        from fct_claim_reconciliation where client_id = {client} order by claim_key""",
    "payer_monthly": """
        select payer_key, adjudication_month, claims_adjudicated, denied_claims, overturned_claims,
               recovered_amount, paid_amount
        from fct_payer_monthly where client_id = {client} order by payer_key""",
    "dim_payers": "select payer_key, payer_id, payer_class from dim_payers where client_id = {client} order by payer_key",
    "und_lines": """
        select payment_date, is_reversal, is_current_adjudication, allowed_amount, expected_allowed_amount,
               allowed_variance
        from fct_service_lines where client_id = {client} and claim_key = 'UND-1'
        order by payment_date, is_reversal""",
    "und_claim": """
        select allowed_amount, expected_allowed_amount, allowed_variance
        from fct_claim_reconciliation where client_id = {client} and claim_key = 'UND-1'""",
    "ord_events": """
        select event_sequence, claim_status_code, paid_amount from fct_remittance_claims
        where client_id = {client} and claim_key = 'ORD-1' order by event_sequence""",
    "red_remittances": """
        select trace_number, check_amount, claim_payments, claims_paid_amount from fct_remittances
        where client_id = {client} and trace_number = 'RDTRACE01'""",
    "red_claims": """
        select count(*), sum(paid_amount) from fct_remittance_claims
        where client_id = {client} and claim_key = 'RED-1'""",
    "debit_remittance": """
        select check_amount, credit_debit, claims_paid_amount, claim_payments from fct_remittances
        where client_id = {client} and trace_number = 'COMTRACE04'""",
    "red_adjustments": """
        select count(*), sum(amount) from fct_claim_adjustments where client_id = {client} and claim_key = 'RED-1'""",
}


@before_shared_run
def world_setup(hand_world: HandWorld):
    tenant = hand_world.tenant
    with hand_world.services.database.engine.begin() as conn:
        for kind, alias, key, payer_id, payer_class in ALIASES:
            conn.execute(
                text(
                    "insert into payer_aliases (organization_id, client_id, alias_kind, alias, canonical_payer_key,"
                    " canonical_payer_id, payer_class, created_at)"
                    " values (:o, :c, :k, :a, :key, :id, :cls, :t)"
                ),
                {
                    "o": tenant.organization_id,
                    "c": tenant.client_id,
                    "k": kind,
                    "a": alias,
                    "key": key,
                    "id": payer_id,
                    "cls": payer_class,
                    "t": datetime.now(UTC),
                },
            )
    batches = dict(zip(FILES, hand_world.post(*FILES), strict=True))
    # The re-delivery also arrives through the folder (a scheduled drop of the payer's mailbox):
    # the ledger refused it on upload, the marts must still count the remittance once.
    drop = hand_world.data_dir / "drop" / f"client_{tenant.client_id}"
    drop.mkdir(parents=True, exist_ok=True)
    shutil.copy(HAND / "redelivered_envelope_2.835", drop / "redelivered_envelope_2.835")
    return tenant, batches


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, (tenant, batches) = shared_hand_world.of(world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    client = int(tenant.client_id)
    results = {name: [hand_world.marts(sql.format(client=client))] for name, sql in SQL.items()}
    if hand_world.admin_url:  # one PostgreSQL build of the same dbt project for the whole module
        with hand_world.marts_on_postgres() as pg:
            for name, sql in SQL.items():
                results[name].append([tuple(r) for r in pg.execute(sql.format(client=client)).fetchall()])
    return hand_world, batches, results


def _both(world, name: str) -> list[list[tuple]]:
    """The rows of SQL[name] on the DuckDB snapshot and, on the postgres variant, on PostgreSQL."""
    return world[2][name]


def _entries(world, claim_key: str) -> list[tuple]:
    hw = world[0]
    rows = hw.pages("ingestion.listFinancialEntries", {"claimKey": claim_key})
    return sorted((r["entryType"], r["component"], D(r["amount"]), r["paymentDate"]) for r in rows)


def test_batches_post_and_the_redelivery_is_refused(world):
    batches = world[1]
    statuses = {name: b["status"] for name, b in batches.items()}
    assert statuses.pop("redelivered_envelope_2.835") == "duplicate_remittance"
    assert set(statuses.values()) == {"confirmed"}


def test_ledger_rows(world):
    # Re-delivered remittance: posted once.
    assert _entries(world, "RED-1") == [
        ("patient_responsibility", "cas", D("10.00"), "2026-03-12"),
        ("payment", "paid", D("50.00"), "2026-03-12"),
    ]
    # Paid 100, reversed, re-adjudicated as denied (CLP02=4 paying 0 posts no payment; CO-50 is a denial).
    assert _entries(world, "RCP-1") == [
        ("denial", "cas", D("100.00"), "2026-04-06"),
        ("payment", "paid", D("100.00"), "2026-03-04"),
        ("reversal", "paid", D("-100.00"), "2026-04-06"),
    ]
    # Paid 70 and reversed: the payment and its reversal.
    assert _entries(world, "RVO-1") == [
        ("payment", "paid", D("70.00"), "2026-03-04"),
        ("reversal", "paid", D("-70.00"), "2026-04-06"),
    ]
    # Paid 80 with a line denied CO-50 80, reversed (paid and CAS), corrected to 160.
    assert _entries(world, "OVT-1") == [
        ("denial", "cas", D("80.00"), "2026-03-04"),
        ("payment", "paid", D("80.00"), "2026-03-04"),
        ("payment", "paid", D("160.00"), "2026-04-06"),
        ("reversal", "cas", D("-80.00"), "2026-04-06"),
        ("reversal", "paid", D("-80.00"), "2026-04-06"),
    ]


CLAIMS = [
    # Medicare primary (CLP02=19, PR-2 20, MA18) then the Medigap secondary paying the 20: balance 0.
    ("COB-1", "HAND MEDICARE", "MCR01", "medicare", "HAND MEDIGAP PLAN F", 2, 2,
     D("100.00"), D("0.00"), False, False, D("0.00"), "paid", False, D("0.00")),
    # Same-day pair: the denial (ISA13 301) comes before the payment (ISA13 302): overturned, 90 recovered.
    ("ORD-1", "HAND COMMERCIAL", "COM01", "commercial", "HAND COMMERCIAL", 1, 2,
     D("90.00"), D("0.00"), True, True, D("90.00"), "overturned", False, D("0.00")),
    # Paid 80 with a line denied, reversed, corrected to 160: recovered is the increment, 80.
    ("OVT-1", "HAND COMMERCIAL", "COM01", "commercial", "HAND COMMERCIAL", 1, 3,
     D("160.00"), D("0.00"), True, True, D("80.00"), "overturned", False, D("0.00")),
    # Paid 100, reversed, re-adjudicated denied: denied now, 100 denied, nothing paid.
    ("RCP-1", "HAND COMMERCIAL", "COM01", "commercial", "HAND COMMERCIAL", 1, 3,
     D("0.00"), D("0.00"), False, False, D("0.00"), "denied", True, D("100.00")),
    # One remittance in two envelopes: one event.
    ("RED-1", "HAND COMMERCIAL", "COM01", "commercial", "HAND COMMERCIAL", 1, 1,
     D("50.00"), D("10.00"), False, False, D("0.00"), "paid", False, D("0.00")),
    # Paid 70, then only reversed (no new decision yet): the payer took the money back, denied now.
    ("RVO-1", "HAND COMMERCIAL", "COM01", "commercial", "HAND COMMERCIAL", 1, 2,
     D("0.00"), D("0.00"), False, False, D("0.00"), "denied", True, D("70.00")),
    # Underpaid (allowed 80 vs 92), reversed and corrected to 92.
    ("UND-1", "FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99", "J99", "medicare",
     "FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99", 1, 3,
     D("92.00"), D("0.00"), False, False, D("0.00"), "paid", False, D("0.00")),
    # Denied CO-109 by the wrong payer, paid by the right one: an initial denial, not an overturn.
    ("WP-1", "HAND WRONG PAYER", "WRG01", "medicaid", "HAND RIGHT PAYER", 2, 2,
     D("120.00"), D("30.00"), True, False, D("0.00"), "paid", False, D("0.00")),
]  # fmt: skip


def test_claim_reconciliation(world):
    for rows in _both(world, "claims"):
        assert rows == CLAIMS


def test_payer_monthly_counts_each_payer_of_a_chain(world):
    march = date(2026, 3, 1)
    expected = [
        ("FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99", march, 1, 0, 0, D("0.00"), D("92.00")),
        # OVT-1, RCP-1, RVO-1, ORD-1, RED-1: two initial denials, both overturned (80 + 90),
        # paid 160 + 0 + 0 + 90 + 50
        ("HAND COMMERCIAL", march, 5, 2, 2, D("170.00"), D("300.00")),
        ("HAND MEDICARE", march, 1, 0, 0, D("0.00"), D("80.00")),
        ("HAND MEDIGAP PLAN F", march, 1, 0, 0, D("0.00"), D("20.00")),
        ("HAND RIGHT PAYER", march, 1, 0, 0, D("0.00"), D("120.00")),
        ("HAND WRONG PAYER", march, 1, 1, 0, D("0.00"), D("0.00")),
    ]
    for rows in _both(world, "payer_monthly"):
        assert rows == expected


def test_payer_dimension_ids_and_classes(world):
    expected = [
        ("FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99", "J99", "medicare"),
        ("HAND COMMERCIAL", "COM01", "commercial"),
        ("HAND MEDICARE", "MCR01", "medicare"),
        ("HAND MEDIGAP PLAN F", "GAP01", "commercial"),
        ("HAND RIGHT PAYER", "RGT01", "commercial"),
        ("HAND WRONG PAYER", "WRG01", "medicaid"),
    ]
    for rows in _both(world, "dim_payers"):
        assert rows == expected


def test_corrected_underpayment_is_priced_on_the_correction_only(world):
    expected = [
        (date(2026, 3, 5), False, False, D("80.00"), None, None),
        (date(2026, 4, 7), False, True, D("92.00"), D("92.00"), D("0.00")),
        (date(2026, 4, 7), True, False, D("-80.00"), None, None),
    ]
    for rows in _both(world, "und_lines"):
        assert rows == expected
    for rows in _both(world, "und_claim"):
        assert rows == [(D("92.00"), D("92.00"), D("0.00"))]
    answer = world[0].rpc.query("paymentIntegrity.underpayments", {}).data
    assert [i["claimKey"] for i in answer["items"]] == []
    assert D(answer["totalVariance"]) == D("0.00")


def test_same_day_remittances_are_ordered_by_interchange_control_number(world):
    for rows in _both(world, "ord_events"):
        assert rows == [(1, "4", D("0.00")), (2, "1", D("90.00"))]


def test_redelivered_remittance_counts_once_in_the_marts(world):
    # both envelopes are in the raw layer (the upload's refused batch is not; the folder copy is)
    raw = world[0].data_dir / "warehouse" / "raw" / "remittances"
    traces = pl.concat([pl.read_parquet(f) for f in raw.glob("*.parquet") if not f.name.startswith("_")])
    assert traces.filter(pl.col("trace_number") == "RDTRACE01")["interchange_control_number"].sort().to_list() == [
        "000000401",
        "000000402",
    ]
    for rows in _both(world, "red_remittances"):
        assert rows == [("RDTRACE01", D("50.00"), 1, D("50.00"))]
    for rows in _both(world, "red_claims"):
        assert rows == [(1, D("50.00"))]
    for rows in _both(world, "red_adjustments"):
        assert rows == [(1, D("10.00"))]


def test_debit_remittance_is_negative_and_ties_to_its_claims(world):
    # commercial_april.835: BPR03=D, BPR02 90.00; its CLP04s are -80 + 160 - 100 + 0 - 70 = -90.00
    for rows in _both(world, "debit_remittance"):
        assert rows == [(D("-90.00"), "D", D("-90.00"), 5)]


def test_recoupments_are_the_only_open_receivables(world):
    # RCP-1: paid, reversed, re-adjudicated denied (CO-50 100); RVO-1: paid 70 then reversed only.
    # The wrong-payer denial (WP-1) and the overturns are closed.
    hw = world[0]
    queue = hw.pages("arOperations.followUpQueue")
    assert [(i["claimKey"], i["reason"], D(i["openAmount"])) for i in queue] == [
        ("RCP-1", "denied", D("100.00")),
        ("RVO-1", "denied", D("70.00")),
    ]
    aging = hw.rpc.query("arOperations.aging", {}).data
    assert (aging["openClaims"], D(aging["openAmount"])) == (2, D("170.00"))


def test_a_recoupment_opens_the_receivable_on_its_date(world):
    # commercial_march.835 (paid 2026-03-04) paid RCP-1 100 and RVO-1 70; commercial_april.835
    # (2026-04-06) took both back, RCP-1 re-adjudicated denied. At the end of March neither was open;
    # at the end of April both are, for 100 and 70 (opened on the recoupment date).
    hw = world[0]

    def open_recoupments(as_of: str) -> list[tuple[str, D]]:
        queue = hw.pages("arOperations.followUpQueue", {"asOf": as_of})
        return sorted((i["claimKey"], D(i["openAmount"])) for i in queue if i["claimKey"] in ("RCP-1", "RVO-1"))

    assert open_recoupments("2026-03-31") == []
    assert open_recoupments("2026-04-30") == [("RCP-1", D("100.00")), ("RVO-1", D("70.00"))]
    recouped = hw.marts(
        "select sum(amount) from ("
        " select current_denied_amount as amount from fct_claim_reconciliation"
        " where claim_key in ('RCP-1', 'RVO-1') and not initially_denied and currently_denied"
        " and last_payment_date = date '2026-04-06')"
    )
    assert recouped == [(D("170.00"),)]
