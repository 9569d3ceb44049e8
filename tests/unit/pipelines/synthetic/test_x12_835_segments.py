"""The 835 segment writers both the corpus generator and the API's synthetic UAT answer use."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.synthetic.money import to_cents, x12_amount
from pipelines.synthetic.x12_835 import EftAccounts, bpr_segment, cas_segments, clp_segment, svc_segment, trn_segment
from pipelines.synthetic.x12_envelope import isa

EFT = EftAccounts("011000001", "7700P1", "1999", "021000002", "8800T")


def test_bpr_is_no_payment_an_ach_credit_or_a_check():
    assert bpr_segment(0, "20250301", EFT) == "BPR*H*0.00*C*NON************20250301"
    assert bpr_segment(12345, "20250301", EFT) == (
        "BPR*I*123.45*C*ACH*CCP*01*011000001*DA*7700P1*1999**01*021000002*DA*8800T*20250301"
    )
    assert bpr_segment(-5, "20250301", None) == "BPR*C*-0.05*C*CHK************20250301"


def test_clp_leaves_an_absent_patient_share_empty_and_appends_its_tail():
    assert clp_segment("PCN1", "1", 15000, 12000, None, "CI", "CCN1") == "CLP*PCN1*1*150.00*120.00**CI*CCN1"
    assert clp_segment("PCN1", "22", -15000, -12000, 0, "MB", "CCN1", "11", "1", "", "470", "1.2") == (
        "CLP*PCN1*22*-150.00*-120.00*0.00*MB*CCN1*11*1**470*1.2"
    )


def test_svc_trn_and_cas():
    assert svc_segment("HC:99213:25", "100.00", 2000, "", "1") == "SVC*HC:99213:25*100.00*20.00**1"
    assert trn_segment("TRACE1", "1512345678") == "TRN*1*TRACE1*1512345678"
    out: list[str] = []
    sink: list[tuple[str, str, int]] = []
    cas_segments([("CO", "45", 1000), ("PR", "2", 500), ("CO", "253", 10)], -1, out, sink)
    assert out == ["CAS*CO*45*-10.00**253*-0.10", "CAS*PR*2*-5.00"]
    assert sink == [("CO", "45", -1000), ("PR", "2", -500), ("CO", "253", -10)]


def test_isa_is_fixed_width_with_its_usage_indicator():
    production, test = isa("S", "R", 739000, 7), isa("S", "R", 739000, 7, usage="T")
    assert len(production) == len(test) == 105
    assert production.endswith("*0*P*:") and test.endswith("*0*T*:")


@pytest.mark.parametrize(
    ("amount", "cents"), [("120.00", 12000), ("0", 0), ("-0.05", -5), ("1.005", 100), ("1.015", 102)]
)
def test_cents_of_an_amount_round_half_even_and_print_back(amount, cents):
    assert to_cents(Decimal(amount)) == cents
    assert x12_amount(to_cents(Decimal(amount))) == f"{Decimal(amount).quantize(Decimal('0.01')):.2f}".replace(
        "-0.00", "0.00"
    )
