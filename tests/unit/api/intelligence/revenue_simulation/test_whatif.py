"""The what-if effects (whatif.py) on rows written by hand, and their properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.revenue_simulation import whatif

R = whatif.Row


def rows() -> list[whatif.Row]:
    # A: 100 denied for authorization, all of it matching; nothing back.
    # B: 300 denied for authorization, overturned 90 days later: 300 back (paid 300).
    # C: 200 denied medical necessity (matches nothing), overturned after 20 days: 200 back.
    # D: paid 500, not denied.
    return [
        R("P", paid=0, denied=100, recovered=0, overturned=False, category="authorization", matched=100),
        R(
            "P",
            paid=300,
            denied=300,
            recovered=300,
            overturned=True,
            category="authorization",
            matched=300,
            days_to_recovery=90,
        ),
        R("P", paid=200, denied=200, recovered=200, overturned=True, category="medical_necessity", days_to_recovery=20),
        R("Q", paid=500, denied=0, recovered=0, overturned=False, category=None),
    ]


def effect(scenario: whatif.Scenario, given_rows: list[whatif.Row] | None = None) -> float:
    cols = whatif.columns(rows() if given_rows is None else given_rows)
    return whatif.effect_of(cols, scenario)(np.ones(cols.size))


def test_baseline_is_what_was_paid():
    assert whatif.baseline(whatif.columns(rows())) == 1000.0


def test_prevention_pays_the_unrecovered_matching_denials():
    # A: 0.5 x 100 x (1 - 0/100) = 50; B: 0.5 x 300 x (1 - 300/300) = 0; C, D: nothing matched
    assert effect(whatif.Prevention(0.5)) == 50.0
    assert effect(whatif.Prevention(1.0)) == 100.0


def test_a_partly_recovered_denial_is_prevented_pro_rata():
    row = R("P", paid=40, denied=100, recovered=40, overturned=True, category="coding", matched=50)
    # 1 x min(50, 100) x (1 - 40/100) = 30
    assert effect(whatif.Prevention(1.0), [row]) == pytest.approx(30.0)


def test_appealing_the_cell_recovers_its_rate_less_the_cost():
    # cell P x authorization: A (lost), B (won): p = 1/2; A appealed: 0.5 x 100 - 60 = -10
    assert effect(whatif.Strategy("p", "authorization", "appeal", 60.0)) == pytest.approx(-10.0)
    # write off: B's 300 forgone, its appeal cost saved: 60 - 300 = -240
    assert effect(whatif.Strategy("P", "authorization", "write_off", 60.0)) == pytest.approx(-240.0)
    assert effect(whatif.Strategy("P", "coding", "appeal", 60.0)) == 0.0  # an empty cell


def test_a_shorter_appeal_limit_loses_the_late_overturns():
    assert effect(whatif.Rule("P", 30)) == -300.0  # B came back after 90 days; C after 20
    assert effect(whatif.Rule("P", 10)) == -500.0
    assert effect(whatif.Rule("P", 90)) == 0.0  # decided on day 90: within a 90-day limit
    assert effect(whatif.Rule("Q", 1)) == 0.0


def test_a_share_outside_0_1_is_refused():
    with pytest.raises(ValueError, match="between 0 and 1"):
        effect(whatif.Prevention(1.5))


money = st.floats(min_value=0, max_value=1e6, allow_nan=False)


@st.composite
def history(draw: st.DrawFn) -> list[whatif.Row]:
    out = []
    for _ in range(draw(st.integers(min_value=0, max_value=12))):
        denied = draw(money)
        recovered = draw(st.floats(min_value=0, max_value=denied)) if denied else 0.0
        out.append(
            R(
                draw(st.sampled_from(["P", "Q"])),
                paid=draw(money),
                denied=denied,
                recovered=recovered,
                overturned=recovered > 0,
                category=draw(st.sampled_from(["coding", "authorization", None])),
                matched=draw(money),
                days_to_recovery=draw(st.integers(min_value=0, max_value=400)) if recovered > 0 else None,
            )
        )
    return out


@given(history())
def test_nothing_prevented_changes_nothing(found):
    assert effect(whatif.Prevention(0.0), found) == 0.0


@given(history(), st.floats(min_value=0, max_value=1), st.floats(min_value=0, max_value=1))
def test_prevention_is_monotone_in_the_share_and_never_exceeds_the_denials(found, a, b):
    low, high = sorted((a, b))
    assert 0.0 <= effect(whatif.Prevention(low), found) <= effect(whatif.Prevention(high), found)
    assert effect(whatif.Prevention(1.0), found) <= sum(r.denied for r in found) + 1e-6


@given(history(), st.integers(min_value=1, max_value=400), st.integers(min_value=1, max_value=400))
def test_a_shorter_limit_never_loses_less(found, a, b):
    short, long = sorted((a, b))
    assert effect(whatif.Rule("P", short), found) <= effect(whatif.Rule("P", long), found) <= 0.0
