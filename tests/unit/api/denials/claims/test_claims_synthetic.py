"""Synthetic claims from a seed and the synthetic 835 (parsed by the real X12 parser)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from api.core.errors import InvalidInput
from api.denials.claims import synthetic
from pipelines.ingest.x12 import parse_x12


def _remit(lines: tuple[str, ...], claim_id: int = 42) -> synthetic.RemitClaim:
    remit_lines = tuple(
        synthetic.RemitLine("99213", ("25",) if i == 0 else (), Decimal(1), Decimal(c), date(2025, 2, 3))
        for i, c in enumerate(lines)
    )
    total = sum((Decimal(c) for c in lines), Decimal("0.00"))
    return synthetic.RemitClaim(claim_id, "SYN1-00001", "SYNTHETIC HEALTH PLAN", "SYNHP1", "CI", total, remit_lines)


def test_the_same_seed_gives_the_same_claims_and_another_seed_others():
    a, b, c = synthetic.generate(7, 5), synthetic.generate(7, 5), synthetic.generate(8, 5)
    assert a == b
    assert a != c
    assert [x.claim_key for x in a] == [f"SYN7-0000{i}" for i in range(1, 6)]
    for claim in a:
        assert 1 <= len(claim.lines) <= 3
        assert claim.total_charge == sum(line.charge for line in claim.lines)
        assert claim.statement_from <= claim.statement_to
        assert all(claim.statement_from <= line.service_date <= claim.statement_to for line in claim.lines)


def test_allocation_pays_lines_in_order():
    assert synthetic.allocate([Decimal("100.00"), Decimal("50.00")], Decimal("120.00")) == [
        Decimal("100.00"),
        Decimal("20.00"),
    ]
    assert synthetic.allocate([Decimal("10.00")], Decimal("0.00")) == [Decimal("0.00")]


def test_response_defaults_and_refusals():
    total = Decimal("150.00")
    assert synthetic.plan_response(total, "paid", None, None, None) == synthetic.Response(
        "paid", Decimal("150.00"), "CO", "45"
    )
    assert synthetic.plan_response(total, "partially_paid", None, None, None).paid == Decimal("75.00")
    assert synthetic.plan_response(total, "denied", None, "PR", "27") == synthetic.Response(
        "denied", Decimal("0.00"), "PR", "27"
    )
    with pytest.raises(InvalidInput, match="paidAmount"):
        synthetic.plan_response(total, "denied", Decimal("1.00"), None, None)
    with pytest.raises(InvalidInput, match="paidAmount"):
        synthetic.plan_response(total, "paid", Decimal("150.01"), None, None)
    with pytest.raises(InvalidInput, match="paidAmount"):
        synthetic.plan_response(total, "partially_paid", Decimal("150.00"), None, None)


def _parse(text: str):
    result = parse_x12(text.encode(), source="synthetic.835")
    assert result.kind == "835"
    return result.tables


def test_a_partial_payment_835_balances_and_parses_strictly():
    remit = _remit(("100.00", "50.00"))
    response = synthetic.plan_response(remit.total_charge, "partially_paid", Decimal("120.00"), None, None)
    text = synthetic.build_835(remit, response, sequence=3, payment_date=date(2025, 3, 1))
    segments = [s for s in text.split("~\n") if s]
    assert segments[0].startswith("ISA*") and len(segments[0]) == 105  # fixed-width ISA (without its terminator)
    assert segments[0].endswith("*0*T*:")  # ISA15: test data
    # ST03 names the implementation guide, as 5010 requires (the corpus generator's writer writes it).
    st = segments.index("ST*835*0001*005010X221A1")
    se = next(i for i, s in enumerate(segments) if s.startswith("SE*"))
    assert segments[se] == f"SE*{se - st + 1}*0001"
    assert "BPR*I*120.00*C*ACH" in text and "TRN*1*SYN42R3*1512345678" in text
    tables = _parse(text)
    claim = tables["remittance_claims"].row(0, named=True)
    assert (claim["patient_control_number"], claim["claim_status_code"]) == ("SYN1-00001", "1")
    assert (claim["total_charge"], claim["paid_amount"]) == (Decimal("150.00"), Decimal("120.00"))
    adjustments = tables["remittance_adjustments"].select("group_code", "carc", "amount").rows()
    assert adjustments == [("CO", "50", Decimal("30.00"))]  # only the second line is short: 50 - 20
    lines = tables["remittance_service_lines"].select("charge_amount", "paid_amount").rows()
    assert lines == [(Decimal("100.00"), Decimal("100.00")), (Decimal("50.00"), Decimal("20.00"))]


def test_a_denial_835_pays_nothing_and_denies_every_line():
    remit = _remit(("80.00", "40.00"))
    response = synthetic.plan_response(remit.total_charge, "denied", None, None, None)
    text = synthetic.build_835(remit, response, sequence=1, payment_date=date(2025, 3, 1))
    assert "BPR*H*0.00*C*NON************20250301~" in text  # no payment: handling code H, method NON
    tables = _parse(text)
    claim = tables["remittance_claims"].row(0, named=True)
    assert (claim["claim_status_code"], claim["paid_amount"]) == ("4", Decimal("0.00"))
    assert tables["remittance_adjustments"].select("carc", "amount").rows() == [
        ("50", Decimal("80.00")),
        ("50", Decimal("40.00")),
    ]
    assert tables["remittances"].row(0, named=True)["total_paid"] == Decimal("0.00")


def test_a_claim_without_lines_gets_a_claim_level_adjustment_and_patient_share():
    remit = synthetic.RemitClaim(5, "SYN1-00002", "PAYER*WITH~SEPARATORS", None, None, Decimal("90.00"), ())
    response = synthetic.plan_response(remit.total_charge, "paid", Decimal("60.00"), "PR", "2")
    text = synthetic.build_835(remit, response, sequence=1, payment_date=date(2025, 3, 1))
    assert "N1*PR*PAYER WITH SEPARATORS~" in text
    tables = _parse(text)
    claim = tables["remittance_claims"].row(0, named=True)
    assert claim["patient_responsibility"] == Decimal("30.00")
    assert tables["remittance_adjustments"].select("group_code", "carc", "amount", "level").rows() == [
        ("PR", "2", Decimal("30.00"), "claim")
    ]
