"""A claim's lineage graph (pure): amounts written by hand; Hypothesis for the cap and the balance."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from api.intelligence.revenue_graph.lineage import (
    MAX_NODES,
    Case,
    ClaimFacts,
    Entry,
    Outcome,
    build,
    remittances,
    serialise,
)

D = Decimal
PAYER = "Hand Payer "
CLAIM = ClaimFacts(1, "K-1", PAYER, D("500.00"), "adjudicated_paid", date(2026, 1, 5), date(2026, 1, 5))
FEB, MAR = date(2026, 2, 2), date(2026, 3, 9)


def _e(id: int, batch: int, row: int | None, kind: str, component: str, amount: str, **extra) -> Entry:
    return Entry(id, batch, row, kind, component, D(amount), PAYER, **extra)


def _ledger() -> list[Entry]:
    """K-1 billed 500.00: denied CO-50 500.00 (batch 10, Feb 2); reversed and paid 450.00 with PR-2 50.00
    (batch 11, Mar 9); a PLB recoupment of 20.00 (batch 12); the 837's charge (never a remittance)."""
    return [
        _e(1, 9, 1, "charge", "charge", "500.00"),
        _e(2, 10, 3, "denial", "cas", "500.00", claim_status_code="4", billed_amount=D("500"), group_code="CO",
           carc="50", is_denial=True, payment_date=FEB, reference="TRACE1"),
        _e(3, 11, 3, "reversal", "paid", "0.00", claim_status_code="22", billed_amount=D("-500"), payment_date=MAR),
        _e(4, 11, 3, "reversal", "cas", "-500.00", claim_status_code="22", billed_amount=D("-500"), group_code="CO",
           carc="50", reverses_entry_id=2, payment_date=MAR),
        _e(5, 11, 6, "payment", "paid", "450.00", claim_status_code="1", billed_amount=D("500"), payment_date=MAR),
        _e(6, 11, 6, "patient_responsibility", "cas", "50.00", claim_status_code="1", billed_amount=D("500"),
           group_code="PR", carc="2", payment_date=MAR),
        _e(7, 12, None, "recoupment", "plb", "-20.00", payment_date=date(2026, 4, 1)),
    ]  # fmt: skip


def _case(**extra) -> Case:
    values = {
        "id": 7,
        "payer": "HAND PAYER",
        "state": "won",
        "event_kind": "denial",
        "amount_at_stake": D("500.00"),
        "recovered_amount": D("450.00"),
        "written_off_amount": D("0.00"),
        "denial_category": "medical_necessity",
        "carc": "50",
        "remittance_date": FEB,
        "source_batch_id": 10,
    }
    return Case(**{**values, **extra})


def test_remittances_group_a_clp_and_follow_reversal_and_correction():
    found = remittances(_ledger())
    assert [(r.kind, r.batch_id, r.billed) for r in found] == [
        ("adjudication", 10, D("500")),
        ("reversal", 11, D("-500")),
        ("correction", 11, D("500")),
        ("recoupment", 12, D("0.00")),
    ]
    assert [dict(r.amounts) for r in found] == [
        {"paid": D("0"), "denied": D("500"), "adjusted": D("0"), "patient_responsibility": D("0")},
        {"paid": D("0"), "denied": D("-500"), "adjusted": D("0"), "patient_responsibility": D("0")},
        {"paid": D("450"), "denied": D("0"), "adjusted": D("0"), "patient_responsibility": D("50")},
        {"paid": D("-20"), "denied": D("0"), "adjusted": D("0"), "patient_responsibility": D("0")},
    ]
    assert found[3].plb and not found[0].plb


def test_an_unlinked_reversal_counts_by_group():
    ledger = [
        _e(1, 10, 1, "reversal", "cas", "-30.00", claim_status_code="22", group_code="PR"),
        _e(2, 10, 1, "reversal", "cas", "-10.00", claim_status_code="22", group_code="CO"),
    ]
    [r] = remittances(ledger)
    assert (r.amounts["patient_responsibility"], r.amounts["adjusted"]) == (D("-30.00"), D("-10.00"))


def test_the_lineage_graph_and_its_totals():
    outcome = Outcome(3, 7, 1, "won", D("0.00"), date(2026, 3, 1))
    found = build(CLAIM, _ledger(), [_case(written_off_amount=D("50.00"))], [outcome])
    nodes, edges = serialise(found.graph)
    assert [(n["id"], n["kind"], n["label"], n["depth"]) for n in nodes] == [
        ("claim:1", "claim", "adjudicated_paid", 0),
        ("remittance:2", "remittance", "adjudication", 1),
        ("remittance:3", "remittance", "reversal", 1),
        ("remittance:5", "remittance", "correction", 1),
        ("payment:5", "payment", "paid", 2),
        ("remittance:7", "remittance", "recoupment", 1),
        ("payment:7", "payment", "paid", 2),
        ("case:7", "case", "denial", 2),
        ("write_off:7", "write_off", "written off", 3),
        ("outcome:3", "outcome", "won", 3),
    ]
    assert nodes[1]["facts"] == {"payer": "HAND PAYER", "status": "4", "batch": "10", "reference": "TRACE1"}
    assert nodes[7]["state"] == "won" and nodes[7]["amounts"]["written_off"] == D("50.00")
    assert sorted((e["source"], e["kind"], e["target"]) for e in edges) == sorted(
        [
            ("claim:1", "adjudicated", "remittance:2"),
            ("claim:1", "adjudicated", "remittance:3"),
            ("claim:1", "adjudicated", "remittance:5"),
            ("claim:1", "adjudicated", "remittance:7"),
            ("remittance:2", "reversed_by", "remittance:3"),
            ("remittance:3", "corrected_by", "remittance:5"),
            ("remittance:5", "paid", "payment:5"),
            ("remittance:7", "paid", "payment:7"),
            ("remittance:2", "opened", "case:7"),
            ("remittance:3", "updated", "case:7"),
            ("remittance:5", "updated", "case:7"),
            ("remittance:7", "updated", "case:7"),
            ("case:7", "written_off", "write_off:7"),
            ("case:7", "decided", "outcome:3"),
        ]
    )
    t = found.totals
    [payer] = t.payers
    # billed 500 - 500 + 500 = 500 = paid (0 + 0 + 450) + denied (500 - 500) + patient 50; the PLB is outside
    assert (payer.billed, payer.paid, payer.denied, payer.patient_responsibility) == (D(500), D(430), D(0), D(50))
    assert payer.balanced and payer.remittances == 4
    assert (t.billed, t.paid, t.at_stake, t.recovered_by_cases, t.written_off, t.open_at_stake) == (
        D("500.00"),
        D("430.00"),
        D("500.00"),
        D("450.00"),
        D("50.00"),
        D("0.00"),
    )
    assert t.reconciles and not found.truncated


def test_a_case_without_its_payers_denial_was_opened_by_hand_and_overspending_does_not_reconcile():
    manual = _case(payer="OTHER PAYER", recovered_amount=D("400"), written_off_amount=D("200"), source_batch_id=None)
    found = build(CLAIM, [], [manual], [])
    assert [(e["source"], e["kind"], e["target"]) for e in serialise(found.graph)[1]] == [
        ("claim:1", "opened_by_hand", "case:7"),
        ("case:7", "written_off", "write_off:7"),
    ]
    assert not found.totals.reconciles


def test_an_unbalanced_payer_is_flagged():
    ledger = [_e(1, 10, 1, "payment", "paid", "80.00", claim_status_code="1", billed_amount=D("100"))]
    [payer] = build(CLAIM, ledger, [], []).totals.payers
    assert not payer.balanced


amount = st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False)


@st.composite
def ledgers(draw) -> list[Entry]:
    """Remitted claims that balance: a CLP's billed amount is its paid plus its CAS amounts."""
    out: list[Entry] = []
    for row in range(draw(st.integers(min_value=0, max_value=60))):
        payer = draw(st.sampled_from(["A", "B", "C"]))
        status = draw(st.sampled_from(["1", "2", "4", "22"]))
        parts = draw(st.lists(st.tuples(st.sampled_from(["denial", "adjustment", "patient_responsibility"]), amount),
                              max_size=3))  # fmt: skip
        paid = draw(amount)
        billed = paid + sum((a for _, a in parts), D(0))
        kind = "reversal" if status == "22" else "payment"
        base = len(out) + 1
        out.append(Entry(base, 1 + row // 5, row, kind, "paid", paid, payer, status, billed))
        for i, (t, a) in enumerate(parts, 1):
            out.append(Entry(base + i, 1 + row // 5, row, "reversal" if status == "22" else t, "cas", a, payer,
                             status, billed, group_code="PR" if t == "patient_responsibility" else "CO"))  # fmt: skip
    return out


@settings(max_examples=150, deadline=None)
@given(ledgers(), st.integers(min_value=1, max_value=MAX_NODES))
def test_balanced_clps_balance_every_payer_and_the_cap_holds(ledger, cap):
    found = build(CLAIM, ledger, [], [], max_nodes=cap)
    assert found.graph.number_of_nodes() <= cap
    assert all(p.balanced for p in found.totals.payers)
    shown = 1 + len(remittances(ledger)) + sum(1 for r in remittances(ledger) if r.amounts["paid"] != 0)
    assert found.truncated == (shown > cap)
    assert found.totals.paid == sum((e.amount for e in ledger if e.component == "paid"), D(0))
