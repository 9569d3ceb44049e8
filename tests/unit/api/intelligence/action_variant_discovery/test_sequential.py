"""The sequential variant comparison against a boundary and z worked out by hand, and by simulation."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.action_variant_discovery.sequential import (
    MAX_LOOKS_CAP,
    VariantArm,
    bonferroni_boundary,
    compare,
)

# --- by hand ------------------------------------------------------------------------------------------
#
# Boundary, 10 looks, alpha 0.05: each look gets 0.05 / 10 = 0.005, two-sided, so z* = Phi^-1(1 - 0.0025)
#   = Phi^-1(0.9975). Normal table: Phi(2.80) = 0.997445, Phi(2.81) = 0.997523; linear interpolation
#   2.80 + 0.01 * (0.9975 - 0.997445) / (0.997523 - 0.997445) = 2.80 + 0.01 * 0.055 / 0.078 = 2.80705.
# One look: A 30 of 50 (0.6), B 20 of 50 (0.4). Pooled rate (30 + 20) / 100 = 0.5;
#   SE = sqrt(0.5 * 0.5 * (1/50 + 1/50)) = sqrt(0.25 * 0.04) = sqrt(0.01) = 0.1; z = (0.6 - 0.4) / 0.1 = 2.0.
#   Two-sided nominal p = 2 * (1 - Phi(2.0)) = 2 * 0.0227501 = 0.0455003.
#   |z| = 2.0 < 2.80705: continue at look 3 of 10. With a single planned look, z* = Phi^-1(0.975) = 1.95996
#   and 2.0 >= 1.95996: A is better.
# Wilson 95%, z = 1.959964, z^2 = 3.841459, n = 50: denominator 1 + 3.841459/50 = 1.0768292;
#   A: centre (0.6 + 3.841459/100) / 1.0768292 = 0.6384146 / 1.0768292 = 0.5928652;
#      half = 1.959964 / 1.0768292 * sqrt(0.6 * 0.4 / 50 + 3.841459 / 10000) = 1.820127 * sqrt(0.0051841459)
#           = 1.820127 * 0.0720010 = 0.1310510  ->  [0.4618142, 0.7239162]
#   B (0.4) mirrors A: [1 - 0.7239162, 1 - 0.4618142] = [0.2760838, 0.5381858]
# Newcombe's hybrid score interval for A - B = 0.2:
#   lower = 0.2 - sqrt((0.6 - 0.4618142)^2 + (0.5381858 - 0.4)^2) = 0.2 - sqrt(2) * 0.1381858
#         = 0.2 - 0.1954243 = 0.0045757
#   upper = 0.2 + sqrt((0.7239162 - 0.6)^2 + (0.4 - 0.2760838)^2) = 0.2 + sqrt(2) * 0.1239162
#         = 0.2 + 0.1752437 = 0.3752437

A = VariantArm("template A", trials=50, successes=30)
B = VariantArm("template B", trials=50, successes=20)


def test_boundary_by_hand():
    assert bonferroni_boundary(10, 0.05) == pytest.approx(2.80705, abs=2e-4)
    assert bonferroni_boundary(1, 0.05) == pytest.approx(1.95996, abs=1e-5)


def test_one_look_by_hand():
    c = compare(A, B, look=3, max_looks=10, alpha=0.05)
    assert c.z == pytest.approx(2.0, rel=1e-12)
    assert c.p_value == pytest.approx(0.0455003, abs=1e-6)
    assert c.boundary == pytest.approx(2.80705, abs=2e-4)
    assert c.alpha_per_look == pytest.approx(0.005)
    assert c.decision == "continue"
    assert (c.rate_a, c.rate_b, c.difference) == pytest.approx((0.6, 0.4, 0.2))
    assert (c.rate_a_low, c.rate_a_high) == pytest.approx((0.4618142, 0.7239162), abs=1e-6)
    assert (c.rate_b_low, c.rate_b_high) == pytest.approx((0.2760838, 0.5381858), abs=1e-6)
    assert (c.difference_low, c.difference_high) == pytest.approx((0.0045757, 0.3752437), abs=1e-6)
    # the interval allowing for ten looks is wider and, like the test, does not exclude zero
    assert c.adjusted_difference_low < 0 < c.adjusted_difference_high
    assert c.adjusted_difference_high > c.difference_high
    assert (c.trials_a, c.successes_a, c.trials_b, c.successes_b) == (50, 30, 50, 20)
    assert "keep collecting" in c.statement and "z = 2.00" in c.statement


def test_the_same_data_decide_when_fewer_looks_were_planned_and_at_the_final_look():
    assert compare(A, B, look=1, max_looks=1).decision == "a_better"
    assert compare(B, A, look=1, max_looks=1).decision == "b_better"
    assert compare(B, A, look=1, max_looks=1).z == pytest.approx(-2.0, rel=1e-12)
    final = compare(A, B, look=10, max_looks=10)
    assert final.decision == "no_difference_at_final_look"
    assert "does not show the variants are equal" in final.statement


def test_identical_all_success_arms_have_no_evidence():
    c = compare(VariantArm("A", 13, 13), VariantArm("B", 20, 20), look=2, max_looks=5)
    assert c.z == 0.0 and c.p_value == 1.0 and c.decision == "continue"
    assert c.rate_a_high == 1.0


@pytest.mark.parametrize(
    ("a", "b", "design", "message"),
    [
        (A, B, {"look": 0}, "look"),
        (A, B, {"look": 11, "max_looks": 10}, "look"),
        (A, B, {"look": 1, "max_looks": 0}, "max_looks"),
        (A, B, {"look": 1, "max_looks": MAX_LOOKS_CAP + 1}, "max_looks"),
        (A, B, {"look": 1, "alpha": 0.0}, "alpha"),
        (A, B, {"look": 1, "alpha": 1.0}, "alpha"),
        (A, B, {"look": 1, "alpha": math.nan}, "alpha"),
        (VariantArm("A", 0, 0), B, {"look": 1}, "trials"),
        (VariantArm("A", 10, 11), B, {"look": 1}, "successes"),
        (VariantArm("A", 10, -1), B, {"look": 1}, "successes"),
        (VariantArm("", 10, 1), B, {"look": 1}, "label"),
        (A, VariantArm("template A", 10, 1), {"look": 1}, "different labels"),
    ],
)
def test_bad_input_is_named(a, b, design, message):
    with pytest.raises(ValueError, match=message):
        compare(a, b, **design)


# --- simulation ---------------------------------------------------------------------------------------
#
# The generator: outcomes arrive in irregular batches (5 to 30 per arm between looks), each a success with
# probability p_a or p_b, drawn from the test's own random.Random.


def _experiment(rng: random.Random, p_a: float, p_b: float, max_looks: int) -> tuple[str, list[float]]:
    trials_a = successes_a = trials_b = successes_b = 0
    zs: list[float] = []
    for look in range(1, max_looks + 1):
        batch_a, batch_b = rng.randint(5, 30), rng.randint(5, 30)
        trials_a += batch_a
        successes_a += sum(rng.random() < p_a for _ in range(batch_a))
        trials_b += batch_b
        successes_b += sum(rng.random() < p_b for _ in range(batch_b))
        c = compare(
            VariantArm("A", trials_a, successes_a),
            VariantArm("B", trials_b, successes_b),
            look=look,
            max_looks=max_looks,
            alpha=0.05,
        )
        zs.append(c.z)
        if c.decision != "continue":
            return c.decision, zs
    raise AssertionError("the final look must decide")


def test_under_the_null_repeated_looks_keep_false_decisions_at_or_below_alpha():
    # 400 experiments of up to 5 looks, equal rates 0.3. Bonferroni bounds the chance that any look
    # crosses by 5 * 0.01 = 0.05. Monte Carlo SE at 0.05 is sqrt(0.05 * 0.95 / 400) = 0.0109; the
    # tolerance 0.03 is ~2.75 SE. The same z statistics read against the naive 1.96 at every look show
    # what the correction prevents (Armitage, McPherson & Rowe 1969: about 14% for five looks).
    rng = random.Random(20260426)
    experiments = 400
    false_decisions = naive_false_decisions = 0
    for _ in range(experiments):
        decision, zs = _experiment(rng, 0.3, 0.3, max_looks=5)
        false_decisions += decision in ("a_better", "b_better")
        naive_false_decisions += any(abs(z) >= 1.959964 for z in zs)
    assert false_decisions / experiments <= 0.05 + 0.03
    assert naive_false_decisions / experiments > 0.08


def test_a_large_true_difference_is_detected():
    # 0.6 against 0.3: by the fifth look each arm has ~90 outcomes, SE ~ sqrt(0.45 * 0.55 * 2 / 90) = 0.074,
    # so the expected z is ~0.3 / 0.074 = 4 against the boundary 2.81.
    rng = random.Random(7)
    decisions = [_experiment(rng, 0.6, 0.3, max_looks=10)[0] for _ in range(30)]
    assert decisions == ["a_better"] * 30
    decisions = [_experiment(rng, 0.2, 0.5, max_looks=10)[0] for _ in range(30)]
    assert decisions == ["b_better"] * 30


# --- invariants ---------------------------------------------------------------------------------------


@st.composite
def _arms_and_design(draw: st.DrawFn) -> tuple[VariantArm, VariantArm, int, int, float]:
    trials_a, trials_b = draw(st.integers(1, 5000)), draw(st.integers(1, 5000))
    a = VariantArm("A", trials_a, draw(st.integers(0, trials_a)))
    b = VariantArm("B", trials_b, draw(st.integers(0, trials_b)))
    max_looks = draw(st.integers(1, MAX_LOOKS_CAP))
    look = draw(st.integers(1, max_looks))
    alpha = draw(st.floats(0.001, 0.5))
    return a, b, look, max_looks, alpha


@given(_arms_and_design())
def test_invariants(case):
    a, b, look, max_looks, alpha = case
    c = compare(a, b, look=look, max_looks=max_looks, alpha=alpha)
    assert c.rate_a_low <= c.rate_a <= c.rate_a_high
    assert c.rate_b_low <= c.rate_b <= c.rate_b_high
    assert c.difference_low <= c.difference <= c.difference_high
    assert c.adjusted_difference_low <= c.difference <= c.adjusted_difference_high
    if c.alpha_per_look <= 0.05:  # a stricter level gives a wider interval
        assert c.adjusted_difference_low <= c.difference_low and c.difference_high <= c.adjusted_difference_high
    assert 0.0 <= c.p_value <= 1.0
    crossed = abs(c.z) >= c.boundary
    if crossed:
        assert c.decision == ("a_better" if c.z > 0 else "b_better")
    else:
        assert c.decision == ("no_difference_at_final_look" if look == max_looks else "continue")
