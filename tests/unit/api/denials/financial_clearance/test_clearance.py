"""The clearance's rules against cases worked out by hand: which check stands, when it clears, the 271's
figures as benefits, the allowed amounts and the claim's estimate."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from api.denials.financial_clearance.clearance import (
    CheckFact,
    LineAllowed,
    allowed_of,
    benefits_of,
    claim_estimate,
    eligibility_blocker,
    standing_check,
)
from api.denials.financial_clearance.estimate import Benefits

D = Decimal
SERVICE = date(2026, 3, 10)


def _check(check_id, status="active", on=date(2026, 3, 1), begin=date(2026, 1, 1), end=None, reason=None):
    return CheckFact(check_id, status, reason, on, begin, end)


def test_the_latest_answered_check_on_or_before_the_service_stands():
    early, later, same_day_higher_id = _check(1, on=date(2026, 2, 1)), _check(2), _check(3, "inactive")
    after = _check(4, on=date(2026, 3, 11))  # after the service: not in time
    error = _check(5, "error", on=date(2026, 3, 9))  # no answer: counts as none
    assert standing_check(SERVICE, [early, later, same_day_higher_id, after, error]) == same_day_higher_id
    assert standing_check(SERVICE, [after, error]) is None
    assert standing_check(SERVICE, [_check(6, on=SERVICE)]).check_id == 6  # on the day of service is in time


def test_what_blocks_eligibility():
    assert eligibility_blocker(SERVICE, "P1", _check(1)) is None
    assert eligibility_blocker(SERVICE, "P1", _check(1, end=SERVICE)) is None  # plan end inclusive
    assert "no eligibility check with payer P1" in eligibility_blocker(SERVICE, "P1", None).message
    inactive = eligibility_blocker(SERVICE, "P1", _check(7, "inactive", reason="the payer reports it inactive"))
    assert inactive.message == "eligibility check 7 answered inactive: the payer reports it inactive"
    ended = eligibility_blocker(SERVICE, "P1", _check(8, end=date(2026, 3, 9)))
    assert ended.message == "eligibility check 8: the plan ends before the service date"
    later = eligibility_blocker(SERVICE, "P1", _check(9, begin=date(2026, 4, 1)))
    assert later.message == "eligibility check 9: the plan begins after the service date"


def _fig(kind, period, amount=None, percent=None, network="Y", level="IND", types=("30",)):
    return {
        "kind": kind,
        "coverage_level": level,
        "service_types": list(types),
        "time_period": period,
        "amount": amount,
        "percent": percent,
        "in_network": network,
    }


def test_the_271_figures_become_benefits_remaining_amounts_only():
    figures = [
        _fig("deductible", "23", "1500.00"),  # the annual deductible: not what is left of it
        _fig("deductible", "29", "900.00", network="N"),  # out of network: skipped
        _fig("deductible", "29", "700.00", level="FAM"),  # the family's: the individual's is preferred
        _fig("deductible", "29", "600.00"),
        _fig("coinsurance", "27", percent="0.2"),
        _fig("copayment", "27", "25.00", types=("98",)),
        _fig("out_of_pocket", "23", "5000.00"),  # annual only: not answered as remaining
    ]
    assert benefits_of(figures) == Benefits(D("600.00"), D("0.2"), D("25.00"), None)
    assert benefits_of([]) == Benefits()
    # a percentage above 100 % or an unreadable amount is not a benefit
    assert benefits_of([_fig("coinsurance", "27", percent="20"), _fig("copayment", "27", "x")]) == Benefits()


def test_allowed_is_the_contracted_amount_of_the_code_and_units_else_the_charge():
    contracted = {("64612", D("2.000")): D("812.40")}
    found = allowed_of(
        [(1, "64612", D("2"), D("1400.00")), (2, "64612", D("1"), D("700.00")), (3, None, D("1"), D("50.00"))],
        contracted,
    )
    assert [(f.allowed, f.basis) for f in found] == [
        (D("812.40"), "contract"),
        (D("700.00"), "charge_ceiling"),  # 1 unit: the 2-unit price is not this line's
        (D("50.00"), "charge_ceiling"),
    ]


def test_the_claim_estimate_takes_the_deductible_once_by_hand():
    # allowed 812.40 (contract) + 200.00 (charge) = 1,012.40; deductible left 600.00 -> 600.00;
    # 20 % of 412.40 = 82.48; copay 25.00; out of pocket left 2,000.00 does not bind:
    # patient 600.00 + 82.48 + 25.00 = 707.48, plan 1,012.40 - 707.48 = 304.92.
    lines = [
        LineAllowed(1, "64612", D("1400.00"), D("812.40"), "contract"),
        LineAllowed(2, "99213", D("200.00"), D("200.00"), "charge_ceiling"),
    ]
    found = claim_estimate(lines, Benefits(D("600"), D("0.2"), D("25"), D("2000")))
    assert (found.result.allowed, found.result.patient, found.result.plan) == (D("1012.40"), D("707.48"), D("304.92"))
    assert found.notes == [
        "no contracted amount is known for line(s) 2: their charge is used as the allowed amount, a ceiling"
    ]


def test_unanswered_benefits_are_said_a_floor():
    lines = [LineAllowed(1, "99213", D("200.00"), D("150.00"), "contract")]
    found = claim_estimate(lines, Benefits(copay=D("25")))
    # only the copay answered: 25.00, counted as a floor (no deductible, no coinsurance known)
    assert found.result.patient == D("25.00")
    assert found.notes == [
        "the payer did not answer deductible_remaining, coinsurance: counted as 0, so the patient's share is a floor",
        "the payer did not answer the out-of-pocket still to meet: the share is not capped by it",
    ]


dates = st.dates(min_value=date(2025, 1, 1), max_value=date(2027, 12, 31))
facts = st.builds(
    CheckFact,
    st.integers(1, 10_000),
    st.sampled_from(["active", "inactive", "not_found", "rejected", "error"]),
    st.none(),
    dates,
    st.none() | dates,
    st.none() | dates,
)


@given(dates, st.lists(facts, max_size=30))
def test_the_standing_check_is_never_after_the_service_nor_an_error(service, checks):
    found = standing_check(service, checks)
    if found is None:
        assert all(c.status == "error" or c.checked_on > service for c in checks)
    else:
        assert found.checked_on <= service and found.status != "error"
        assert all(
            (c.checked_on, c.check_id) <= (found.checked_on, found.check_id)
            for c in checks
            if c.status != "error" and c.checked_on <= service
        )
