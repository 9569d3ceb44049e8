"""What a recordable appeal decision is (pure rules)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.cases.lifecycle import CASE
from api.denials.outcomes import rules

D = Decimal


@pytest.mark.parametrize(
    ("decision", "amount", "remaining"),
    [
        ("won", "1250.00", "1250.00"),
        ("won", "0.00", "10.00"),
        ("partially_won", "400.00", "1250.00"),
        ("lost", "0", "10.00"),
        ("withdrawn", "0", "10.00"),
    ],
)
def test_consistent_amounts_pass(decision, amount, remaining):
    rules.check_amount(decision, D(amount), D(remaining))


@pytest.mark.parametrize(
    ("decision", "amount", "remaining", "says"),
    [
        ("won", "-0.01", "10.00", "negative"),
        ("lost", "0.01", "10.00", "must be 0"),
        ("withdrawn", "5.00", "10.00", "must be 0"),
        ("won", "10.01", "10.00", "10.00 still at stake"),
        ("partially_won", "10.00", "10.00", "partial win"),
    ],
)
def test_inconsistent_amounts_name_the_field(decision, amount, remaining, says):
    with pytest.raises(InvalidInput, match="'amountRecovered'") as err:
        rules.check_amount(decision, D(amount), D(remaining))
    assert says in err.value.message


@pytest.mark.parametrize("state", sorted(CASE.states - rules.RECORDABLE_STATES))
def test_only_cases_in_appeal_take_a_decision(state):
    with pytest.raises(PreconditionFailed, match=f"'{state}'"):
        rules.check_state(state)


@pytest.mark.parametrize("state", sorted(rules.RECORDABLE_STATES))
@pytest.mark.parametrize("decision", rules.DECISIONS)
def test_every_decision_is_a_legal_move_of_the_case_lifecycle(state, decision):
    target = rules.case_state_after(decision, state)
    assert target == state or transition(CASE, state, target) == target


def test_decision_dates_are_not_in_the_future():
    rules.check_decided_on(date(2026, 11, 24), date(2026, 11, 23))  # a day of skew
    with pytest.raises(InvalidInput, match="'decidedOn'"):
        rules.check_decided_on(date(2026, 11, 25), date(2026, 11, 23))
