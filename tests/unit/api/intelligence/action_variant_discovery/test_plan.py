"""Arms, incumbent, look and the share of alpha, worked out by hand."""

from __future__ import annotations

import pytest

from api.intelligence.action_variant_discovery.plan import (
    Outcome,
    arms_by_payer,
    comparison_alpha,
    incumbent_of,
    look_of,
    pairs,
)

A, B, C = ("auth.first_level", "1"), ("auth.first_level", "2"), ("auth.first_level", "3")


def test_arms_keep_recording_order_per_payer_and_variant():
    rows = [Outcome("ACME", A, True), Outcome("BOLT", A, False), Outcome("ACME", A, False), Outcome("ACME", B, True)]
    assert arms_by_payer(rows) == {"ACME": {A: [True, False], B: [True]}, "BOLT": {A: [False]}}


def test_incumbent_is_the_most_used_ties_to_the_smallest_key_and_version():
    assert incumbent_of({A: [True], B: [False, False]}) == B  # 2 appeals beat 1, whatever the successes
    assert incumbent_of({B: [True, True], A: [False, False]}) == A  # 2 = 2: ("auth.first_level", "1") first


def test_pairs_only_for_payers_with_two_variants_challengers_by_use():
    rows = (
        [Outcome("ACME", A, True)] * 3
        + [Outcome("ACME", C, False)] * 1
        + [Outcome("ACME", B, True)] * 2
        + [Outcome("BOLT", A, True)] * 5  # one variant: nothing to compare
    )
    found = pairs(rows)
    assert [(p.payer, p.incumbent, p.challenger) for p in found] == [("ACME", A, B), ("ACME", A, C)]
    assert found[0].incumbent_outcomes == (True, True, True) and found[0].challenger_outcomes == (True, True)


@pytest.mark.parametrize(
    ("n_incumbent", "n_challenger", "expected"),
    [
        (100, 29, 0),  # 29 // 30 = 0: not tested yet
        (100, 30, 1),  # 30 // 30 = 1
        (61, 95, 2),  # smaller arm 61 // 30 = 2
        (400, 400, 10),  # 400 // 30 = 13, capped at max_looks 10
    ],
)
def test_look_is_completed_blocks_of_the_smaller_arm_capped(n_incumbent, n_challenger, expected):
    assert look_of(n_incumbent, n_challenger, min_per_arm=30, max_looks=10) == expected


def test_look_refuses_an_empty_design():
    with pytest.raises(ValueError):
        look_of(10, 10, min_per_arm=0, max_looks=10)


def test_bonferroni_share_of_alpha():
    assert comparison_alpha(0.05, 4) == pytest.approx(0.0125)  # 0.05 / 4
    assert comparison_alpha(0.05, 0) == 0.05  # no comparison: nothing to share
