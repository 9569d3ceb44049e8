"""Which prior-authorization requirement applies to a service line (the pure rule), by hand and by
Hypothesis: most specific wins, then the client's over the platform's, then the latest in force."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.prior_authorization import requirements as rules
from api.denials.prior_authorization.defaults import platform_requirements

D = date
CITE = "hand-written test requirement"


def req(codes: str = "64612", **kw) -> rules.Requirement:
    base = {"payer_type": "medicare", "codes": rules.parse_code_range(codes), "effective_from": D(2020, 7, 1)}
    return rules.Requirement(**{**base, "source": CITE, **kw})


ON = D(2025, 3, 1)


def facts(code: str = "64612", on: date = ON, **kw) -> rules.ServiceFacts:
    return rules.ServiceFacts(**{"payer_type": "medicare", "procedure_code": code, "service_date": on, **kw})


def chosen(f: rules.ServiceFacts, *reqs: rules.Requirement) -> rules.Requirement | None:
    found = rules.requirement_for(f, tuple(reqs))
    return None if found is None else found.requirement


# --- codes and ranges ---------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["99213", "0001F", "0075T", "0001U", "J0585", "A0425", "g0008", " 70551 "])
def test_codes_of_every_kind_parse(code):
    assert rules.parse_code(code) == code.strip().upper()


@pytest.mark.parametrize("code", ["", "9921", "992133", "W1234", "1234X", "ABCDE", "J058", "99 13", "７０５５１"])
def test_malformed_codes_are_refused_with_what_a_code_looks_like(code):
    with pytest.raises(rules.RequirementError, match="CPT code"):
        rules.parse_code(code)


def test_a_range_holds_its_ends_and_what_is_between_of_the_same_kind():
    mri = rules.parse_code_range("70551-70553")
    assert [mri.contains(c) for c in ("70550", "70551", "70552", "70553", "70554")] == [False, True, True, True, False]
    assert mri.width == 3  # 70551, 70552, 70553
    assert str(mri) == "70551-70553" and str(rules.parse_code_range("64612")) == "64612"
    # a Category III code or a HCPCS code is never inside a numeric range, whatever the string order says
    assert not rules.parse_code_range("00100-99999").contains("0075T")
    assert not rules.parse_code_range("00100-99999").contains("J0585")
    assert rules.parse_code_range("J0585-J0588").contains("J0587")
    assert not rules.parse_code_range("J0585-J0588").contains("K0586")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("70553-70551", "after its last"),
        ("70551-J0585", "same kind"),
        ("0001F-0001T", "same kind"),
        ("70551-", "CPT code"),
        ("70551-70553-70555", "a code or a range"),
    ],
)
def test_bad_ranges_are_refused(text, message):
    with pytest.raises(rules.RequirementError, match=message):
        rules.parse_code_range(text)


def test_parsing_is_bounded_on_an_attackers_sizes():
    huge = "7" * 1_000_000 + "-" + "7" * 1_000_000
    with pytest.raises(rules.RequirementError):
        rules.parse_code_range(huge)
    with pytest.raises(rules.RequirementError):
        rules.parse_code("-" * 1_000_000)
    assert rules.line_code("9" * 1_000_000) is None
    assert rules.revenue_code("0" * 1_000_000) is None
    with pytest.raises(rules.RequirementError):
        rules.parse_platform_requirements("payer_type\n" + "medicare\n" * 10_000)  # a row without its columns


def test_place_of_service_and_revenue_codes():
    assert rules.parse_place_of_service(None) == "*" and rules.parse_place_of_service("22") == "22"
    with pytest.raises(rules.RequirementError, match="placeOfService"):
        rules.parse_place_of_service("2")
    assert rules.parse_revenue_code("450") == "0450" == rules.revenue_code("0450")
    with pytest.raises(rules.RequirementError, match="revenueCode"):
        rules.parse_revenue_code("45")


def test_a_requirement_must_hold_together():
    with pytest.raises(rules.RequirementError, match="effectiveTo"):
        rules.check(req(effective_to=D(2020, 6, 30)))
    with pytest.raises(rules.RequirementError, match="source"):
        rules.check(req(source="  "))
    with pytest.raises(rules.RequirementError, match="payerType"):
        rules.check(req(payer_type="martian"))


# --- the choice, by hand ----------------------------------------------------------------------------------


def test_payer_specific_wins_over_type_wide_and_only_for_its_payer():
    wide = req(source="type-wide")
    own = req(payer_id="MCR01", requires_authorization=False, source="payer MCR01 exempts it")
    assert chosen(facts(payer_id="mcr01"), wide, own) is own  # payer ids compare upper-cased
    assert chosen(facts(payer_id="OTHER"), wide, own) is wide
    assert chosen(facts(), wide, own) is wide  # no payer id on the claim: only the type-wide one fits


def test_plan_pos_and_revenue_specific_rows_win_in_that_order():
    anywhere = req(source="any")
    in_opd = req(place_of_service="22", source="POS 22")
    for_plan = req(plan="GOLD", source="plan GOLD")
    by_revenue = req(revenue_code="0360", source="rev 0360")
    everything = (anywhere, in_opd, for_plan, by_revenue)
    # the plan outranks the place of service, which outranks the revenue code
    assert chosen(facts(plan="GOLD", place_of_service="22", revenue_code="360"), *everything) is for_plan
    assert chosen(facts(place_of_service="22", revenue_code="0360"), *everything) is in_opd
    assert chosen(facts(revenue_code="360"), *everything) is by_revenue
    # a fact the line does not have is matched only by "any"
    assert chosen(facts(), *everything) is anywhere
    assert chosen(facts(place_of_service="11"), *everything) is anywhere


def test_a_single_code_wins_over_a_range_and_a_narrow_range_over_a_wide_one():
    wide = req("64400-64999", source="wide")
    narrow = req("64610-64615", source="narrow")
    single = req("64612", requires_authorization=False, source="single")
    assert chosen(facts(), wide, narrow, single) is single
    assert chosen(facts("64614"), wide, narrow, single) is narrow
    assert chosen(facts("64999"), wide, narrow, single) is wide
    assert chosen(facts("64399"), wide, narrow, single) is None


def test_the_client_wins_at_the_same_specificity_and_the_latest_version_in_force():
    platform = req(source="platform")
    client_2021 = req(requirement_id=7, effective_from=D(2021, 1, 1), source="client 2021")
    client_2024 = req(requirement_id=8, effective_from=D(2024, 1, 1), effective_to=D(2024, 12, 31), source="2024")
    both = (platform, client_2021, client_2024)
    assert chosen(facts(on=D(2020, 12, 31)), *both) is platform  # the client's start later
    assert chosen(facts(on=D(2023, 6, 1)), *both) is client_2021
    assert chosen(facts(on=D(2024, 6, 1)), *both) is client_2024
    assert chosen(facts(on=D(2025, 1, 1)), *both) is client_2021  # the 2024 version ended on 2024-12-31
    again = replace(client_2021, version=2, requirement_id=9, source="v2")
    assert chosen(facts(on=D(2023, 6, 1)), platform, client_2021, again) is again


def test_not_in_force_before_its_date_nor_after_its_end():
    bounded = req(effective_from=D(2023, 7, 1), effective_to=D(2023, 12, 31))
    assert [
        chosen(facts(on=d), bounded) is bounded for d in (D(2023, 6, 30), D(2023, 7, 1), D(2023, 12, 31), D(2024, 1, 1))
    ] == [
        False,
        True,
        True,
        False,
    ]


def test_self_pay_other_types_and_non_codes_get_nothing():
    medicare = req()
    assert rules.requirement_for(facts(payer_type=None), (medicare,)) is None
    assert rules.requirement_for(facts(payer_type="commercial"), (medicare,)) is None
    assert rules.requirement_for(facts(payer_type="medicare_advantage"), (medicare,)) is None
    assert rules.requirement_for(facts(code=None), (medicare,)) is None
    assert rules.requirement_for(facts(code="LOCAL1"), (medicare,)) is None


def test_an_unknown_payer_type_reports_a_common_types_requirement_as_assumed():
    commercial_exempt = req(payer_type="commercial", requires_authorization=False, source="commercial exempt")
    medicaid = req(payer_type="medicaid", source="medicaid requires")
    found = rules.requirement_for(facts(payer_type="unknown"), (commercial_exempt, medicaid))
    assert found is not None and found.assumed and found.requirement is medicaid and found.required
    only_exempt = rules.requirement_for(facts(payer_type="unknown"), (commercial_exempt,))
    assert only_exempt is not None and not only_exempt.required and only_exempt.assumed
    assert rules.requirement_for(facts(payer_type="unknown"), ()) is None


# --- the platform's reference list (Medicare OPD, 42 CFR 419.83), checked against the CMS list by hand ---


@pytest.mark.parametrize(
    ("code", "on", "required"),
    [
        ("15823", D(2020, 7, 1), True),  # blepharoplasty, upper eyelid: from the first day
        ("15823", D(2020, 6, 30), False),  # ... not the day before the program began
        ("64612", D(2022, 1, 3), True),  # botulinum toxin, chemodenervation (blepharospasm)
        ("64615", D(2022, 1, 3), True),
        ("30400", D(2022, 1, 3), True),  # rhinoplasty
        ("36477", D(2022, 1, 3), False),  # not a CPT code: the vein ablation rows skip it
        ("36479", D(2022, 1, 3), True),
        ("22551", D(2021, 6, 30), False),  # cervical fusion: from 2021-07-01
        ("22551", D(2021, 7, 1), True),
        ("64493", D(2023, 6, 30), False),  # facet joint: from 2023-07-01
        ("64495", D(2023, 7, 1), True),
        ("64496", D(2023, 7, 1), False),
        ("99213", D(2025, 1, 1), False),
    ],
)
def test_the_platform_list(code, on, required):
    found = rules.requirement_for(facts(code, on), platform_requirements())
    assert (found is not None and found.required) is required
    if found is not None:
        assert "42 CFR 419.83" in found.requirement.source


def test_every_platform_row_cites_its_source_and_parses():
    rows = platform_requirements()
    assert len(rows) == 29
    assert all(r.source.startswith("42 CFR 419.83") and r.payer_type == "medicare" for r in rows)


def test_a_malformed_platform_row_names_its_line():
    text = "payer_type,payer_id,plan,procedure_code,place_of_service,revenue_code,requires_authorization,effective_from,effective_to,source\n"
    with pytest.raises(rules.RequirementError, match="line 2"):
        rules.parse_platform_requirements(text + "medicare,*,*,6461,*,*,Y,2020-07-01,,x\n")
    with pytest.raises(rules.RequirementError, match="line 3"):
        rules.parse_platform_requirements(
            text + "medicare,*,*,64612,*,*,Y,2020-07-01,,x\nmedicare,*,*,64612,*,*,maybe,2020-07-01,,x\n"
        )


# --- properties ---------------------------------------------------------------------------------------

numeric_codes = st.integers(min_value=10000, max_value=99999).map(str)
days = st.dates(min_value=D(2015, 1, 1), max_value=D(2030, 12, 31))
optional = st.sampled_from(["*", "A"])


@st.composite
def requirements(draw) -> rules.Requirement:
    low = draw(st.integers(min_value=10000, max_value=99999))
    high = draw(st.integers(min_value=low, max_value=min(low + 50, 99999)))
    start = draw(days)
    end = draw(st.one_of(st.none(), st.dates(min_value=start, max_value=D(2031, 1, 1))))
    return rules.Requirement(
        payer_type=draw(st.sampled_from(["medicare", "commercial"])),
        codes=rules.CodeRange(str(low), str(high)),
        effective_from=start,
        effective_to=end,
        source="generated",
        payer_id=draw(st.sampled_from(["*", "P1"])),
        plan=draw(st.sampled_from(["*", "GOLD"])),
        place_of_service=draw(st.sampled_from(["*", "22"])),
        revenue_code=draw(st.sampled_from(["*", "0360"])),
        requires_authorization=draw(st.booleans()),
        version=draw(st.integers(min_value=1, max_value=3)),
        requirement_id=draw(st.one_of(st.none(), st.integers(min_value=1, max_value=10**6))),
    )


@st.composite
def services(draw) -> rules.ServiceFacts:
    return rules.ServiceFacts(
        payer_type=draw(st.sampled_from(["medicare", "commercial"])),
        procedure_code=draw(numeric_codes),
        service_date=draw(days),
        payer_id=draw(st.sampled_from([None, "P1", "p1", "P2"])),
        plan=draw(st.sampled_from([None, "GOLD", "SILVER"])),
        place_of_service=draw(st.sampled_from([None, "22", "11"])),
        revenue_code=draw(st.sampled_from([None, "360", "0450"])),
    )


def _fits(r: rules.Requirement, f: rules.ServiceFacts) -> bool:
    """The match written out field by field (the oracle the rule is held to)."""
    rev = None if f.revenue_code is None else f.revenue_code.zfill(4)
    return (
        r.payer_type == f.payer_type
        and r.payer_id in ("*", (f.payer_id or "").upper())
        and r.plan in ("*", f.plan)
        and r.place_of_service in ("*", f.place_of_service)
        and r.revenue_code in ("*", rev)
        and int(r.codes.low) <= int(str(f.procedure_code)) <= int(r.codes.high)
        and r.effective_from <= f.service_date
        and (r.effective_to is None or f.service_date <= r.effective_to)
    )


@given(st.lists(requirements(), max_size=12), services())
def test_the_chosen_requirement_fits_and_none_fitting_is_more_specific(reqs, f):
    found = rules.requirement_for(f, tuple(reqs))
    fitting = [r for r in reqs if _fits(r, f)]
    if not fitting:
        assert found is None
        return
    assert found is not None and not found.assumed and _fits(found.requirement, f)
    assert all(rules.specificity(r) <= rules.specificity(found.requirement) for r in fitting)


def _key(found: rules.Decision | None) -> tuple[object, ...] | None:
    return None if found is None else rules.specificity(found.requirement)


@given(st.lists(requirements(), max_size=12), services())
def test_the_choice_does_not_depend_on_the_order_of_the_rows(reqs, f):
    forward = rules.requirement_for(f, tuple(reqs))
    backward = rules.requirement_for(f, tuple(reversed(reqs)))
    assert _key(forward) == _key(backward)


@given(st.lists(requirements(), max_size=8), services(), requirements())
def test_adding_a_more_specific_fitting_requirement_makes_it_the_answer(reqs, f, extra):
    top = replace(
        extra,
        payer_type=str(f.payer_type),
        payer_id=(f.payer_id or "*").upper(),
        plan=f.plan or "*",
        place_of_service=f.place_of_service or "*",
        revenue_code="*" if f.revenue_code is None else f.revenue_code.zfill(4),
        codes=rules.CodeRange(str(f.procedure_code), str(f.procedure_code)),
        effective_from=f.service_date,
        effective_to=None,
        requirement_id=10**7,
        version=9,
    )
    found = rules.requirement_for(f, (*reqs, top))
    assert found is not None and found.requirement is top
