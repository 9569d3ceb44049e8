"""Every public sample in tests/fixtures/x12 parses, with the counts ORIGIN.md documents."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import polars as pl
import pytest

from pipelines.ingest.x12 import X12ParseError, parse_x12, parse_x12_file
from tests.support.paths import X12_FIXTURES

FIXTURES = X12_FIXTURES

# Files whose envelope control values are wrong in the published sample, so they
# only parse with strict_envelopes=False (each is proven to fail strictly below).
LENIENT = {
    # IEA02 100000301 != ISA13 100000300
    "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835",
    # masked: SE02 999999999 != ST02
    "oopfactory_4010_large_6st_masked.835",
    # SE01 says 39 but the transaction has 41 segments (two PLBs were added to the example)
    "stupidedi_5010_two_plb_with_preamble.835",
}
BALANCED = [
    "pyx12_5010_denial_cas_lq.835",
    "pyx12_4010_reversal_correction_plb.835",
    "stupidedi_5010_multi_claims_dental_single_check.835",
    "stupidedi_5010_secondary_multi_triplet_cas_modifiers.835",
    "stupidedi_5010_two_plb_with_preamble.835",
    "stupidedi_5010_plus_delims_crlf_preamble.835",
    "oopfactory_4010_reversals_denials_cr_bom_indented.835",
    "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835",
]
ALL_835 = sorted(p.name for p in FIXTURES.glob("*.835"))


def parse(name: str):
    return parse_x12_file(FIXTURES / name, strict_envelopes=name not in LENIENT)


def statuses(result) -> Counter:
    return Counter(result.tables["remittance_claims"]["claim_status_code"].to_list())


@pytest.mark.parametrize("name", ALL_835)
def test_every_835_sample_parses_into_consistent_tables(name: str) -> None:
    result = parse(name)
    tables = result.tables
    assert result.kind == "835"
    assert tables["remittances"].height == result.transactions
    claims = tables["remittance_claims"]
    assert claims["claim_index"].to_list() == list(range(claims.height))
    # Every line, adjustment and remark points at an existing claim.
    for table in ("remittance_service_lines", "remittance_adjustments", "remittance_remarks"):
        assert set(tables[table]["claim_index"].to_list()) <= set(claims["claim_index"].to_list())
    assert tables["remittances"]["claim_count"].sum() == claims.height
    # Parsing bytes in memory gives the same tables as parsing the file.
    again = parse_x12((FIXTURES / name).read_bytes(), source=name, strict_envelopes=name not in LENIENT)
    for key, frame in tables.items():
        assert again.tables[key].equals(frame), key


@pytest.mark.parametrize("name", sorted(LENIENT))
def test_lenient_samples_really_have_bad_envelopes(name: str) -> None:
    with pytest.raises(X12ParseError) as err:
        parse_x12_file(FIXTURES / name)
    assert err.value.segment_id in {"SE", "IEA"}


@pytest.mark.parametrize("name", BALANCED)
def test_balanced_samples_balance_on_every_claim_and_line(name: str) -> None:
    q = parse(name).quality
    claims = q.filter(pl.col("check") == "claim_balance")
    lines = q.filter(pl.col("check") == "line_balance")
    assert claims.height > 0
    assert claims["ok"].all(), claims.filter(~pl.col("ok"))
    assert lines["ok"].all(), lines.filter(~pl.col("ok"))
    assert (claims["difference"] == Decimal("0")).all()


# Transaction-level check BPR02 = sum(CLP04) - sum(PLB). It holds for these samples...
TRANSACTION_BALANCES = {
    "pyx12_5010_denial_cas_lq.835": [True],
    "stupidedi_5010_multi_claims_dental_single_check.835": [True],
    "stupidedi_5010_secondary_multi_triplet_cas_modifiers.835": [True],
    "stupidedi_5010_plus_delims_crlf_preamble.835": [True],
    "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835": [True, True, True],
    # ...and not for these, whose published BPR02 disagrees with their claims:
    # 5950.21 paid vs 467.69 claims+PLB (a test-fixture string, not a real remit)
    "pyx12_4010_reversal_correction_plb.835": [False],
    # BPR02 5.75 vs 7.02: the PLB CV -1.27 is counted the other way by the payer
    "oopfactory_4010_reversals_denials_cr_bom_indented.835": [False],
    # BPR02 1222 vs 1224.54: two PLB CV -1.27 added to the example without changing BPR02
    "stupidedi_5010_two_plb_with_preamble.835": [False],
}


@pytest.mark.parametrize("name", sorted(TRANSACTION_BALANCES))
def test_transaction_balance_results(name: str) -> None:
    q = parse(name).quality.filter(pl.col("check") == "transaction_balance")
    assert q["ok"].to_list() == TRANSACTION_BALANCES[name]


def test_transaction_balance_figures_for_two_plb_file() -> None:
    row = parse("stupidedi_5010_two_plb_with_preamble.835").quality.row(0, named=True)
    assert (row["expected"], row["actual"], row["difference"]) == (
        Decimal("1222.00"),
        Decimal("1224.54"),
        Decimal("-2.54"),
    )


def test_pyx12_denial_with_line_cas_and_lq() -> None:
    result = parse("pyx12_5010_denial_cas_lq.835")
    claims = result.tables["remittance_claims"]
    assert claims["claim_status_code"].to_list() == ["4"]
    assert claims["total_charge"][0] == Decimal("915.39")
    assert claims["paid_amount"][0] == Decimal("0.00")
    assert claims["patient_responsibility"][0] is None
    assert claims["line_adjustment_total"][0] == Decimal("915.39")
    adj = result.tables["remittance_adjustments"]
    assert list(zip(adj["group_code"], adj["carc"], adj["amount"], adj["line_index"], strict=False)) == [
        ("CO", "16", Decimal("500.04"), 0),
        ("OA", "A7", Decimal("127.80"), 1),
        ("OA", "A7", Decimal("287.55"), 2),
    ]
    assert set(adj["level"]) == {"line"}
    lines = result.tables["remittance_service_lines"]
    assert lines["remark_codes"].to_list() == [["N14"], ["N14"], ["N14"]]
    assert lines["units"].to_list() == [Decimal("68"), Decimal("16"), Decimal("36")]
    from datetime import date

    assert lines["service_date_from"].to_list()[0] == date(2003, 11, 29)
    remarks = result.tables["remittance_remarks"]
    assert remarks["source"].to_list() == ["LQ"] * 3 and remarks["code"].to_list() == ["N14"] * 3


def test_pyx12_4010_reversal_then_correction_and_plb() -> None:
    result = parse("pyx12_4010_reversal_correction_plb.835")
    claims = result.tables["remittance_claims"]
    assert claims["claim_status_code"].to_list() == ["22", "1", "22"]
    # The reversal and its correction carry the same patient control number.
    assert claims["patient_control_number"][0] == claims["patient_control_number"][1]
    assert claims["total_charge"].to_list()[:2] == [Decimal("-310.00"), Decimal("300.00")]
    assert claims["paid_amount"][0] == Decimal("-210.00")
    assert claims["covered_amount"].to_list() == [Decimal("580"), Decimal("590"), Decimal("595")]
    lines = result.tables["remittance_service_lines"]
    assert lines["charge_amount"][0] == Decimal("-310.00")
    adj = result.tables["remittance_adjustments"]
    assert adj["group_code"].to_list() == ["CR", "CR"]
    assert adj["amount"].to_list() == [Decimal("-100.00"), Decimal("100.00")]
    plb = result.tables["provider_adjustments"]
    assert plb["pair_index"].to_list() == [0, 1, 2]
    assert plb["reason_code"].to_list() == ["CS", "CS", "CS"]
    assert plb["reference_id"].to_list() == [None, None, None]
    assert plb["amount"].to_list() == [Decimal("-1008.10"), Decimal("24.21"), Decimal("5.95")]
    assert result.tables["remittances"]["plb_total"][0] == Decimal("-977.94")
    assert result.tables["remittances"]["version"][0] == "004010X091A1"


def test_dental_single_check_counts() -> None:
    result = parse("stupidedi_5010_multi_claims_dental_single_check.835")
    assert result.tables["remittance_claims"].height == 9
    lines = result.tables["remittance_service_lines"]
    assert lines.height == 33
    assert set(lines["procedure_qualifier"]) == {"AD"}
    adj = result.tables["remittance_adjustments"]
    assert Counter(zip(adj["group_code"], adj["carc"], strict=False)) == {("CO", "131"): 33, ("PR", "3"): 6}
    remit = result.tables["remittances"].row(0, named=True)
    assert remit["total_paid"] == Decimal("810.80")
    assert remit["payment_method"] == "CHK"
    assert remit["payee_id"] == "999994703"
    assert remit["payer_name"] == "DENTAL OF ABC"


def test_secondary_payment_multi_triplet_cas_and_modifier() -> None:
    result = parse("stupidedi_5010_secondary_multi_triplet_cas_modifiers.835")
    adj = result.tables["remittance_adjustments"]
    multi = adj.filter((pl.col("group_code") == "PR") & (pl.col("carc").is_in(["1", "2"])))
    # Second CAS of the second claim (cas_index counts CAS segments within the claim).
    assert multi.select(
        "claim_index", "line_index", "cas_index", "triplet_index", "carc", "amount", "quantity"
    ).rows() == [
        (1, 1, 1, 0, "1", Decimal("150.00"), None),
        (1, 1, 1, 1, "2", Decimal("70.00"), None),
    ]
    claim_level = adj.filter(pl.col("level") == "claim")
    assert claim_level.select("group_code", "carc", "amount", "line_index").rows() == [
        ("OA", "23", Decimal("9411.64"), None)
    ]
    lines = result.tables["remittance_service_lines"]
    assert lines.select("procedure_qualifier", "procedure_code", "modifier_1").rows() == [
        ("HC", "12345", "26"),
        ("HC", "66543", "26"),
    ]
    assert lines["revenue_code"].to_list() == [None, "220"]
    assert lines["allowed_amount"].to_list() == [Decimal("150"), Decimal("500")]
    assert statuses(result) == {"2": 2}


def test_oopfactory_denials_file_statuses_groups_and_modifiers() -> None:
    result = parse("oopfactory_4010_reversals_denials_cr_bom_indented.835")
    assert statuses(result) == {"1": 2, "2": 1, "4": 3, "22": 2, "25": 1}
    adj = result.tables["remittance_adjustments"]
    assert set(adj["group_code"]) == {"CO", "CR", "OA", "PR", "PI"}
    assert (adj["amount"] < 0).sum() == 1
    assert (adj.group_by("cas_index", "claim_index").len()["len"] > 0).all()
    assert adj.filter(pl.col("triplet_index") > 0).height > 0  # a multi-triplet CAS
    lines = result.tables["remittance_service_lines"]
    first = lines.row(0, named=True)
    assert (first["procedure_code"], first["modifier_1"], first["modifier_2"]) == ("H0005", "HF", "H9")
    assert lines.filter(pl.col("remark_codes").list.len() > 0)["remark_codes"].to_list() == [["MA92"]]
    reversals = result.tables["remittance_claims"].filter(pl.col("claim_status_code") == "22")
    assert (reversals["total_charge"] < 0).all()
    remit = result.tables["remittances"].row(0, named=True)
    assert remit["sender_id"] == "ASHTB" and remit["receiver_id"] == "01017"


def test_three_interchanges_masked_structure() -> None:
    result = parse("oopfactory_5010_three_interchanges_masked.835")
    assert (result.interchanges, result.transactions) == (3, 3)
    assert result.tables["remittance_claims"].height == 56
    assert statuses(result)["4"] == 16
    assert result.tables["remittance_service_lines"].height == 91
    assert result.tables["remittance_remarks"].filter(pl.col("source") == "LQ").height == 98
    assert result.tables["remittances"]["interchange_control_number"].to_list() == [
        "000000031",
        "000000032",
        "000000033",
    ]
    # Masked amounts: only 5 of the 56 claims balance (ORIGIN.md).
    claims_ok = result.quality.filter(pl.col("check") == "claim_balance")["ok"]
    assert claims_ok.sum() == 5


def test_large_masked_4010_counts() -> None:
    result = parse("oopfactory_4010_large_6st_masked.835")
    assert result.segments == 13002
    assert result.transactions == 6
    assert result.tables["remittance_claims"].height == 375
    assert result.tables["remittance_service_lines"].height == 1552
    counts = statuses(result)
    assert counts["19"] == 292 and counts["22"] == 8
    assert result.tables["provider_adjustments"].height == 1
    assert result.tables["remittance_remarks"].filter(pl.col("source") == "LQ").height == 454
    assert result.tables["remittance_adjustments"]["segment_number"].n_unique() == 2405


def test_nevada_medicaid_plb_only_transaction_and_denials() -> None:
    result = parse("nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835")
    remits = result.tables["remittances"]
    assert remits["claim_count"].to_list() == [1, 2, 0]
    plb = result.tables["provider_adjustments"]
    assert plb["transaction_index"].unique().to_list() == [2]
    assert plb["reason_code"].to_list() == ["CT", "CT", "CS", "CS", "CS", "CS"]
    assert plb["amount"].sum() == Decimal("-1812.27")
    assert remits["total_paid"][2] == Decimal("1812.27")
    assert statuses(result) == {"4": 2, "2": 1}
    claims = result.tables["remittance_claims"]
    assert claims["corrected_insured_member_id"].null_count() == 0


def test_plus_delimiters_crlf_with_mia_moa_plb() -> None:
    result = parse("stupidedi_5010_plus_delims_crlf_preamble.835")
    remit = result.tables["remittances"].row(0, named=True)
    assert remit["total_paid"] == Decimal("150000.00")
    assert remit["payer_id"] == "999"  # from REF*2U: N1*PR has no N104
    plb = result.tables["provider_adjustments"].row(0, named=True)
    assert (plb["reason_code"], plb["reference_id"], plb["amount"]) == ("CV", "CP", Decimal("-1.27"))
    claims = result.tables["remittance_claims"]
    assert claims["claim_level_adjustment_total"][0] == Decimal("73348.57")
    assert result.tables["remittance_remarks"]["source"].to_list() == ["MOA"]
