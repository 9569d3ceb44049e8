"""The built-in recovery actions: well-formed, in the reference vocabulary, efforts explained."""

from __future__ import annotations

import csv
from decimal import Decimal

from api.intelligence.action_taxonomy import catalogue
from tests.support.paths import REPO

SEED = REPO / "dbt_project" / "seeds" / "reference" / "denial_categories.csv"


def test_the_categories_are_the_reference_seeds():
    with SEED.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert set(catalogue.CATEGORIES) == {r["category"] for r in rows}
    assert set(catalogue.DENIAL_CATEGORIES) == {r["category"] for r in rows if r["is_denial"] == "Y"}


def test_the_nine_built_ins_are_well_formed():
    keys = [b.key for b in catalogue.BUILT_INS]
    assert keys == [
        "appeal-level-1",
        "appeal-level-2",
        "external-review",
        "corrected-claim",
        "reopening",
        "peer-to-peer",
        "payer-call",
        "patient-billing",
        "write-off",
    ]
    for b in catalogue.BUILT_INS:
        assert catalogue.check_key(b.key) is None
        assert b.kind in catalogue.KINDS
        assert b.applies_to and set(b.applies_to) <= set(catalogue.CATEGORIES)
        assert b.effort_hours > 0
        # every effort is either cited or openly an assumption
        assert b.effort_rationale.startswith(catalogue.ASSUMPTION)


def test_which_actions_apply_where():
    applies = {b.key for b in catalogue.BUILT_INS if "medical_necessity" in b.applies_to}
    assert applies == {"appeal-level-1", "appeal-level-2", "external-review", "peer-to-peer", "payer-call", "write-off"}
    assert {b.key for b in catalogue.BUILT_INS if "patient_responsibility" in b.applies_to} == {
        "patient-billing",
        "write-off",
    }


def test_effort_cost_is_hours_times_the_hourly_cost():
    assert Decimal("40.00") == catalogue.COST_PER_HOUR
    assert catalogue.effort_cost(Decimal("1.5")) == Decimal("60.00")  # 1.5 x 40
    assert catalogue.effort_cost(Decimal("0.25"), Decimal("33.33")) == Decimal("8.33")  # 8.3325 -> 8.33


def test_keys_are_hyphenated_slugs():
    assert catalogue.check_key("appeal-level-1") is None
    for bad in ("", "Appeal", "appeal_level", "-x", "x-", "a--b", "x" * 41):
        assert catalogue.check_key(bad) is not None
