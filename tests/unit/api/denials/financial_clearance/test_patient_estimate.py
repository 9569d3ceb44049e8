"""The patient's estimate against cases worked out by hand, and its invariants."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.financial_clearance.estimate import Benefits, estimate

D = Decimal
ZERO = D("0.00")


def test_deductible_then_coinsurance_then_copay_by_hand():
    # allowed 1,000.00; 300.00 of deductible still to meet -> 300.00; 20 % of the remaining 700.00 = 140.00;
    # copay 25.00: patient 465.00, plan 535.00; out-of-pocket still to meet 2,000.00 does not bind.
    found = estimate(D("1000.00"), Benefits(D("300"), D("0.20"), D("25"), D("2000")))
    assert (found.deductible, found.coinsurance, found.copay) == (D("300.00"), D("140.00"), D("25.00"))
    assert (found.patient, found.plan, found.capped_by_out_of_pocket, found.complete) == (
        D("465.00"),
        D("535.00"),
        False,
        True,
    )


def test_the_out_of_pocket_maximum_caps_the_patient_by_hand():
    # same service, only 400.00 of out-of-pocket left: the patient pays 400.00, the plan 600.00
    found = estimate(D("1000.00"), Benefits(D("300"), D("0.20"), D("25"), D("400")))
    assert (found.patient, found.plan, found.capped_by_out_of_pocket) == (D("400.00"), D("600.00"), True)


def test_a_deductible_larger_than_the_service_takes_all_of_it():
    # allowed 120.00 under a 1,500.00 deductible: the patient pays 120.00, nothing is left for coinsurance or copay
    found = estimate(D("120.00"), Benefits(D("1500"), D("0.20"), D("25"), None))
    assert (found.deductible, found.coinsurance, found.copay, found.patient, found.plan) == (
        D("120.00"),
        D("0.00"),
        D("0.00"),
        D("120.00"),
        D("0.00"),
    )
    assert not found.complete and found.missing == ("out_of_pocket_remaining",)


def test_unanswered_benefits_make_a_floor_not_a_guess():
    found = estimate(D("200.00"), Benefits())
    assert (found.patient, found.plan, found.complete) == (D("0.00"), D("200.00"), False)
    assert found.missing == ("deductible_remaining", "coinsurance", "copay", "out_of_pocket_remaining")


@pytest.mark.parametrize(
    ("allowed", "benefits"),
    [
        (D("-1"), Benefits()),
        (D("NaN"), Benefits()),
        (D("10"), Benefits(coinsurance=D("1.5"))),
        (D("10"), Benefits(copay=D("-5"))),
    ],
)
def test_impossible_amounts_are_refused(allowed, benefits):
    with pytest.raises(ValueError):
        estimate(allowed, benefits)


money = st.decimals(min_value=0, max_value=100_000, places=2)
maybe = st.none() | money


@given(money, maybe, st.none() | st.decimals(min_value=0, max_value=1, places=2), maybe, maybe)
def test_the_shares_add_up_and_stay_within_the_allowed_amount(allowed, deductible, coinsurance, copay, oop):
    found = estimate(allowed, Benefits(deductible, coinsurance, copay, oop))
    assert found.patient + found.plan == found.allowed
    assert ZERO <= found.patient <= found.allowed
    if oop is not None:
        assert found.patient <= oop
    if not found.capped_by_out_of_pocket:
        assert found.patient == found.deductible + found.coinsurance + found.copay
