"""Denial classification: seed-driven rules, scalar and frame versions agree."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.classify import (
    CLASSIFICATION_COLUMNS,
    Classification,
    UnknownGroupCodeError,
    classify_adjustment,
    classify_frame,
)
from pipelines.ingest.reference import ReferenceDataError, load_reference

REF = load_reference()
GROUPS = sorted(REF.group_rules)
KNOWN_CARCS = sorted(REF.carcs)
HINTED_RARCS = sorted(REF.rarc_hints)


def test_seeds_load_and_cross_check():
    assert {"CO", "PR", "OA", "PI", "CR"} == set(GROUPS)
    assert len(REF.carcs) >= 200
    assert {"16", "96", "A1", "252"} <= REF.refinable_carcs
    assert set(REF.rarc_hints.values()) <= set(REF.categories)
    assert all(rule.category in REF.categories for rule in REF.carcs.values())
    # deactivated codes are kept: old denials still carry them
    assert {"15", "17", "42", "62"} <= set(REF.carcs)
    limits = {(r["payer_type"], r["level"]): r["days"] for r in REF.appeal_limits.iter_rows(named=True)}
    assert limits[("medicare", "redetermination")] == 120
    assert limits[("medicare", "reconsideration")] == 180
    assert limits[("medicare", "alj_hearing")] == 60
    assert limits[("medicare", "timely_filing")] == 365
    assert limits[("erisa", "internal_appeal")] >= 180


def test_patient_responsibility_is_not_a_denial():
    for carc in ("1", "2", "3"):
        result = classify_adjustment("PR", carc, reference=REF)
        assert result == Classification("patient_responsibility", False, None, None, "group:PR")


def test_contractual_adjustments():
    assert classify_adjustment("CO", "45", reference=REF).category == "contractual"
    assert classify_adjustment("CO", "45", reference=REF).is_denial is False
    assert classify_adjustment("CO", "253", reference=REF).category == "contractual"


def test_denial_from_carc_table():
    result = classify_adjustment("CO", "197", reference=REF)
    assert result == Classification("authorization", True, "hard", "Y", "carc_table")
    assert classify_adjustment(" co ", "29", reference=REF).category == "timely_filing"


def test_cr_reversal_is_not_a_new_denial():
    result = classify_adjustment("CR", "197", reference=REF)
    assert result.is_denial is False and result.category == "authorization" and result.basis == "group:CR"


def test_unknown_carc_is_unclassified_and_never_a_denial():
    # An unknown code is reported (basis unknown_carc), not silently counted as a denial under any group.
    expected = Classification("unclassified", False, None, None, "unknown_carc")
    for group in ("CO", "OA", "PI"):
        assert classify_adjustment(group, "ZZ9", reference=REF) == expected
    assert classify_adjustment("CR", "ZZ9", reference=REF).is_denial is False
    assert classify_adjustment("PR", "ZZ9", reference=REF).category == "patient_responsibility"


def test_rarc_refines_generic_carcs_first_hint_wins():
    result = classify_adjustment("CO", "16", ["N999X", "N382", "MA130"], reference=REF)
    assert result.category == "registration" and result.basis == "rarc_hint:N382"
    assert classify_adjustment("CO", "16", ["MA130"], reference=REF).category == "missing_information"
    assert classify_adjustment("CO", "A1", ["n30"], reference=REF).category == "eligibility"
    assert classify_adjustment("CO", "96", [], reference=REF).category == "non_covered"


def test_rarc_does_not_override_specific_carc():
    assert classify_adjustment("CO", "197", ["N382"], reference=REF).category == "authorization"


def test_unknown_group_is_a_clear_error():
    with pytest.raises(UnknownGroupCodeError, match="'XX'"):
        classify_adjustment("XX", "16", reference=REF)
    with pytest.raises(UnknownGroupCodeError, match=r"\['XX'\]"):
        classify_frame(pl.DataFrame({"group_code": ["CO", "XX"], "carc": ["16", "16"]}), reference=REF)


def test_bad_seed_names_file_and_line(tmp_path):
    for path in REF.seed_dir.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    carcs = tmp_path / "carc_denial_categories.csv"
    carcs.write_text(carcs.read_text() + "ZZ1,Made up,not_a_category,Y,hard,Y,test\n")
    with pytest.raises(ReferenceDataError, match=r"carc_denial_categories.csv line \d+: unknown category"):
        load_reference(tmp_path)


def test_frame_keeps_order_and_columns():
    df = pl.DataFrame(
        {
            "claim": ["a", "b", "c", "d"],
            "group_code": ["PR", "CO", "CO", "OA"],
            "carc": ["1", "16", "ZZ9", "23"],
            "rarcs": [[], ["N382"], None, ["MA130"]],
        }
    )
    out = classify_frame(df, reference=REF)
    assert out.columns == [*df.columns, *CLASSIFICATION_COLUMNS]
    assert out["claim"].to_list() == ["a", "b", "c", "d"]
    assert out["denial_category"].to_list() == [
        "patient_responsibility",
        "registration",
        "unclassified",
        "coordination_of_benefits",
    ]
    assert out["is_denial"].to_list() == [False, True, False, False]


def _as_row(c: Classification) -> tuple:
    return (c.category, c.is_denial, c.hard_or_soft, c.preventable, c.basis)


carc_strategy = st.one_of(st.sampled_from(KNOWN_CARCS), st.text(alphabet="ABZ0123456789", min_size=1, max_size=4))
rarc_strategy = st.lists(st.one_of(st.sampled_from(HINTED_RARCS), st.sampled_from(["N1", "M999", "XX"])), max_size=3)


@settings(max_examples=300, deadline=None)
@given(group=st.sampled_from(GROUPS), carc=carc_strategy, rarcs=rarc_strategy)
def test_every_combination_yields_a_valid_category(group, carc, rarcs):
    result = classify_adjustment(group, carc, rarcs, reference=REF)
    assert result.category in REF.categories
    assert result.hard_or_soft in (None, "hard", "soft")
    if not result.is_denial:
        assert result.hard_or_soft is None and result.preventable is None


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(GROUPS), carc_strategy, rarc_strategy), min_size=1, max_size=40))
def test_frame_and_scalar_agree(rows):
    df = pl.DataFrame(
        {"group_code": [r[0] for r in rows], "carc": [r[1] for r in rows], "rarcs": [r[2] for r in rows]},
        schema={"group_code": pl.String, "carc": pl.String, "rarcs": pl.List(pl.String)},
    )
    out = classify_frame(df, reference=REF)
    expected = [_as_row(classify_adjustment(g, c, r, reference=REF)) for g, c, r in rows]
    assert list(out.select(CLASSIFICATION_COLUMNS).iter_rows()) == expected


def test_frame_accepts_rarcs_as_text():
    df = pl.DataFrame({"group_code": ["CO", "CO"], "carc": ["16", "A1"], "rarcs": ["M999, N382", None]})
    out = classify_frame(df, reference=REF)
    assert out["denial_category"].to_list() == ["registration", "other"]
    assert out["classification_basis"].to_list() == ["rarc_hint:N382", "carc_table"]
