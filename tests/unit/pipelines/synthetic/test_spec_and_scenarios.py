"""Spec validation, scenario parsing, the generator's own CARC table and money formatting."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.synthetic import (
    CarcSpike,
    CorpusSpec,
    Intervention,
    SlowPayer,
    SpecError,
    SystematicUnderpayment,
    check_spec,
    generate_corpus,
)
from pipelines.synthetic.carcs import CARC_TABLE, UNKNOWN_CARCS
from pipelines.synthetic.generator import REDELIVERY_SUFFIX
from pipelines.synthetic.money import accounting, dollars, x12_amount
from pipelines.synthetic.scenarios import PRESETS, parse_scenario
from pipelines.synthetic.spec import SITUATION_RATES


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (CorpusSpec(claims=0), "claims"),
        (CorpusSpec(seed=-1), "seed"),
        (CorpusSpec(months=0), "months"),
        (CorpusSpec(payers=1), "payers"),
        (CorpusSpec(payers=9), "payers"),
        (CorpusSpec(facilities=0), "facilities"),
        (CorpusSpec(denial_rate=1.5), "denial_rate"),
        (CorpusSpec(claims_per_file=0), "claims_per_file"),
        (CorpusSpec(scenarios=(CarcSpike("northwind", "45", "99213", 2, 0.5),)), "scenarios[0] (carc_spike).carc"),
        (CorpusSpec(scenarios=(CarcSpike("northwind", "50", "00000", 2, 0.5),)), "scenarios[0] (carc_spike).cpt"),
        (
            CorpusSpec(scenarios=(CarcSpike("northwind", "50", "99213", 7, 0.5),)),
            "scenarios[0] (carc_spike).from_month",
        ),
        (CorpusSpec(scenarios=(CarcSpike("northwind", "50", "99213", 2, 1.5),)), "scenarios[0] (carc_spike).rate"),
        (CorpusSpec(scenarios=(SlowPayer("medicare", -3),)), "scenarios[0] (slow_payer).extra_days"),
        (CorpusSpec(scenarios=(SlowPayer("acme", 3),)), "scenarios[0] (slow_payer).payer"),
        (
            CorpusSpec(scenarios=(SystematicUnderpayment("medicare", "99213", 100.0),)),
            "scenarios[0] (systematic_underpayment).pct_of_contract",
        ),
        (CorpusSpec(scenarios=(Intervention("x", "astrology", 2, 0.5),)), "scenarios[0] (intervention).category"),
        (CorpusSpec(scenarios=(Intervention("", "coding", 2, 0.5),)), "scenarios[0] (intervention).name"),
        (
            CorpusSpec(facilities=2, scenarios=(Intervention("x", "coding", 2, 0.5, facility=3),)),
            "scenarios[0] (intervention).facility",
        ),
        (CorpusSpec(scenarios=("carc-spike",)), "scenarios[0]"),
    ],
)
def test_invalid_specs_name_the_field(spec, field, tmp_path):
    with pytest.raises(SpecError) as err:
        check_spec(spec)
    assert str(err.value).startswith(field), str(err.value)
    with pytest.raises(SpecError):
        generate_corpus(spec, tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_valid_spec_passes():
    check_spec(CorpusSpec(scenarios=PRESETS["demo"]))


def test_parse_scenario_presets_and_overrides():
    assert parse_scenario("slow-payer") == PRESETS["slow-payer"]
    (spike,) = parse_scenario("carc-spike:payer=medicaid,carc=16,cpt=99213,from_month=2,rate=0.25")
    assert spike == CarcSpike(payer="medicaid", carc="16", cpt="99213", from_month=2, rate=0.25)
    assert len(parse_scenario("demo")) == 5


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("nope", "unknown"),
        ("carc-spike:rate", "bad parameter"),
        ("carc-spike:colour=red", "bad parameter"),
        ("slow-payer:extra_days=soon", "not a valid int"),
        ("demo:rate=1", "takes no parameters"),
    ],
)
def test_parse_scenario_errors(text, fragment):
    with pytest.raises(SpecError, match=fragment):
        parse_scenario(text)


def test_the_generator_has_its_own_carc_table():
    """Hand-checked rows of the generator's own table (public CARC list meanings)."""
    assert CARC_TABLE["197"].category == "authorization" and CARC_TABLE["197"].is_denial
    assert CARC_TABLE["16"].category == "missing_information" and CARC_TABLE["16"].is_denial
    for code in ("1", "2", "3", "45", "59", "94", "23", "253", "101", "131"):
        assert not CARC_TABLE[code].is_denial, code
    assert not set(UNKNOWN_CARCS) & set(CARC_TABLE)


def test_the_generator_reads_no_project_seed_and_no_classifier():
    """The ground truth must not come from what it is compared with: no module of the generator
    names the dbt seeds or imports the project's classification."""
    package = Path(generate_corpus.__code__.co_filename).parent
    for path in package.glob("*.py"):
        text = path.read_text()
        for forbidden in ("seeds", "dbt_project", "ingest.classify", "carc_denial_categories"):
            assert forbidden not in text, f"{path.name} mentions {forbidden}"


@given(st.integers(min_value=-(10**14), max_value=10**14))
def test_money_formats_are_exact(cents):
    expected = Decimal(cents).scaleb(-2)
    assert Decimal(x12_amount(cents)) == expected
    plain = dollars(cents).replace("$", "").replace(",", "")
    assert Decimal(plain) == expected
    acct = accounting(cents)
    assert acct.startswith("(") == (cents < 0)
    assert Decimal(acct.strip("()").replace("$", "").replace(",", "")) == abs(expected)


scenario_strategy = st.one_of(
    st.builds(
        CarcSpike,
        payer=st.sampled_from(["medicare", "medicaid"]),
        carc=st.sampled_from(["50", "197", "16"]),
        cpt=st.sampled_from(["99213", "80053", "36415"]),
        from_month=st.integers(1, 3),
        rate=st.floats(0, 1),
    ),
    st.builds(SlowPayer, payer=st.sampled_from(["medicare", "medicaid"]), extra_days=st.integers(0, 60)),
    st.builds(
        SystematicUnderpayment,
        payer=st.sampled_from(["medicare", "medicaid"]),
        cpt=st.sampled_from(["99213", "80053"]),
        pct_of_contract=st.floats(1, 99),
    ),
    st.builds(
        Intervention,
        name=st.just("iv"),
        category=st.sampled_from(["eligibility", "coding"]),
        from_month=st.integers(1, 3),
        effect=st.floats(0, 1),
        facility=st.sampled_from([None, 1, 2]),  # the spec's default 2 facilities
    ),
)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    claims=st.integers(1, 120),
    per_file=st.integers(1, 60),
    denial_rate=st.floats(0, 0.6),
    share=st.floats(0, 1),
    plb=st.floats(0, 1),
    overturn=st.floats(0, 1),
    situation_rate=st.floats(0, 1),
    scenarios=st.lists(scenario_strategy, max_size=3),
    start=st.dates(min_value=date(2020, 1, 1), max_value=date(2030, 12, 31)),
)
def test_any_valid_spec_gives_a_balanced_consistent_corpus(
    seed, claims, per_file, denial_rate, share, plb, overturn, situation_rate, scenarios, start
):
    import json
    import tempfile
    from pathlib import Path

    from .x12_checker import X12Totals, check_file

    spec = CorpusSpec(
        seed=seed,
        claims=claims,
        claims_per_file=per_file,
        denial_rate=denial_rate,
        months=3,
        payers=3,
        institutional_share=share,
        plb_rate=plb,
        overturn_rate=overturn,
        scenarios=tuple(scenarios),
        start=start,
        **dict.fromkeys(SITUATION_RATES, situation_rate),
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate_corpus(spec, out)
        totals = X12Totals()
        for path in sorted(out.glob("*.83[57]")):
            if REDELIVERY_SUFFIX not in path.name:  # a copy of remittances counted once
                check_file(path.read_text(), totals)
        truth = json.loads((out / "ground_truth.json").read_text())
    assert totals.claims_837 == claims
    assert totals.clp04 == Decimal(truth["x12"]["remit_total_paid"]) == Decimal(truth["money"]["total_paid"])
    assert totals.plb == Decimal(truth["x12"]["plb_total"])
    assert totals.bpr >= 0
    assert dict(totals.clp_by_status) == truth["counts"]["clp_by_status"]
