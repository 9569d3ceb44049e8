"""The 837 gives each claim its plan (SBR03 of the subscriber loop 2000B, the insured group or policy
number) beside its CLM05-1 (facility code) and claim type, and each 837P line its SV105 place of service;
figures by hand from the files."""

from __future__ import annotations

from pipelines.ingest.x12 import parse_x12, parse_x12_file
from tests.support.paths import X12_FIXTURES
from tests.unit.pipelines.ingest.x12.test_x12_837 import ISA


def test_the_hand_837p_gives_the_plan_the_claims_place_and_line_2s_own_place() -> None:
    # prior_auth_place_plan.837: SBR*P*18*GOLD-PPO-7******CI, CLM05 11:B:1, SV1 line 2 SV105 22
    result = parse_x12_file(X12_FIXTURES / "hand" / "prior_auth_place_plan.837")
    assert result.quality.height == 0
    claim = result.tables["claims"].row(0, named=True)
    assert (claim["claim_type"], claim["facility_code"], claim["frequency_code"]) == ("837P", "11", "1")
    assert (claim["subscriber_group_number"], claim["filing_indicator"]) == ("GOLD-PPO-7", "CI")
    lines = result.tables["claim_lines"]
    assert lines["procedure_code"].to_list() == ["70551", "70551"]
    assert lines["place_of_service"].to_list() == [None, "22"]


def test_the_public_837p_demo_carries_its_group_number() -> None:
    # lfh_5010_837p_demo.837: SBR*P**2222-SJ******CI
    claim = parse_x12_file(X12_FIXTURES / "lfh_5010_837p_demo.837").tables["claims"].row(0, named=True)
    assert claim["subscriber_group_number"] == "2222-SJ"


def _two_subscribers() -> str:
    segs = [
        ISA,
        "GS*HC*S*R*20260301*1200*7*X*005010X222A1",
        "ST*837*0001*005010X222A1",
        "BHT*0019*00*1*20260301*1200*CH",
        "NM1*41*2*SUBMITTER*****46*1",
        "HL*1**20*1",
        "NM1*85*2*CLINIC*****XX*1234567893",
        "HL*2*1*22*0",
        "SBR*P*18*PLAN-A******CI",
        "NM1*IL*1*DOE*JANE****MI*M1",
        "NM1*PR*2*PAYER*****PI*P1",
        "CLM*A-1*100***11:B:1*Y*A*Y*Y",
        "HI*ABK:R51",
        "SBR*S*18*COB-PLAN******MB",  # 2320, the other subscriber's: not the claim's plan
        "NM1*IL*1*ROE*RICK****MI*M9",
        "LX*1",
        "SV1*HC:99213*100*UN*1***1",
        "DTP*472*D8*20260301",
        "HL*3*1*22*0",
        "SBR*P*18*******CI",  # a new subscriber loop without SBR03: no plan, not PLAN-A
        "NM1*IL*1*POE*PAT****MI*M2",
        "NM1*PR*2*PAYER*****PI*P1",
        "CLM*A-2*50***22:B:1*Y*A*Y*Y",
        "HI*ABK:R51",
        "LX*1",
        "SV1*HC:99213*50*UN*1*11**1",
        "DTP*472*D8*20260302",
    ]
    segs.append(f"SE*{len(segs) - 1}*0001")
    segs += ["GE*1*7", "IEA*1*000000002"]
    return "~\n".join(segs) + "~\n"


def test_the_plan_is_the_subscriber_loops_own_and_resets_with_it() -> None:
    result = parse_x12(_two_subscribers())
    claims = result.tables["claims"]
    assert claims["patient_control_number"].to_list() == ["A-1", "A-2"]
    assert claims["subscriber_group_number"].to_list() == ["PLAN-A", None]
    assert claims["facility_code"].to_list() == ["11", "22"]
    assert result.tables["claim_lines"]["place_of_service"].to_list() == [None, "11"]
