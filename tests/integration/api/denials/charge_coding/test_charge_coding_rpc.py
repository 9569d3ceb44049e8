"""chargeCoding.* over the real wire, on SQLite and PostgreSQL: a claim with planted coding errors validated
and stored, the reference edits of a code, coding denials with hand-counted shares, tenancy, bad input."""

from __future__ import annotations

from sqlalchemy import select

from api.denials.charge_coding.models import CodingValidation
from tests.integration.api.denials.claims.conftest import claim_body
from tests.integration.api.denials.conftest import open_case

DAY = "2026-07-15"


def _line(code: str, *modifiers: str, units: int = 1) -> dict:
    return {
        "procedureCode": code,
        "modifiers": list(modifiers),
        "units": units,
        "charge": "10.00",
        "serviceDateFrom": DAY,
    }


def _claim(member, key: str, lines: list[dict], diagnoses: list[str]) -> int:
    body = claim_body(key, statementFrom=DAY, statementTo=DAY, lines=lines, diagnosisCodes=diagnoses)
    created = member.rpc.mutation("claims.create", body)
    assert created.code is None, created.body
    return created.data["id"]


# The planted errors, each from a shipped row: 0001U/0030U (NCCI PTP v322r0, indicator 1, in force since
# 2018-07-01) on one day without a modifier; 3 units of 0009U (MUE 2, MAI 3); 25 on 0002M (not an E/M
# code); E11.6 (an ICD-10-CM header). M54.50 is billable and J45.909's category is not in the extract.
PLANTED = [_line("0001U"), _line("0030U"), _line("0009U", units=3), _line("0002M", "25")]


def test_a_claim_with_planted_errors_gets_exactly_those_edits_stored(services, member):
    claim_id = _claim(member, "CC-PLANTED-1", PLANTED, ["E116", "M5450", "J45909"])
    answer = member.rpc.mutation("chargeCoding.validateClaimCoding", {"claimId": claim_id})
    assert answer.code is None, answer.body
    found = answer.data
    assert [(e["kind"], e["rule"], e["severity"], e["lines"], e["codes"]) for e in found["edits"]] == [
        ("ptp", "ptp_indicator_1", "error", [1, 2], ["0001U", "0030U"]),
        ("mue", "mue_date_of_service", "warning", [3], ["0009U"]),
        ("modifier", "modifier_25_not_em", "error", [4], ["0002M"]),
        ("diagnosis_not_billable", "diagnosis_header", "error", [], ["E11.6"]),
    ]
    assert (found["errorCount"], found["warningCount"], found["linesChecked"]) == (3, 1, 4)
    assert found["uncheckedDiagnoses"] == ["J45.909"]
    assert found["edits"][0]["source"] == {
        "table": "ncci_ptp_practitioner",
        "version": "v322r0",
        "quarter": "2026Q3",
        "key": "0001U/0030U",
    }
    assert "v322r0" in found["referenceVersion"] and "FY2026-April" in found["referenceVersion"]
    assert found["claimId"] == claim_id and found["createdBy"] == member.user_id
    with services.database.transaction() as db:
        stored = db.scalars(select(CodingValidation).where(CodingValidation.claim_id == claim_id)).all()
        assert [(row.id, row.error_count, len(row.edits), row.reference_version) for row in stored] == [
            (found["id"], 3, 4, found["referenceVersion"])
        ]
        assert stored[0].edits[2]["message"] == found["edits"][2]["message"]
    again = member.rpc.mutation("chargeCoding.validateClaimCoding", {"claimId": claim_id}).data
    assert again["id"] != found["id"] and again["edits"] == found["edits"]


def test_a_clean_claim_has_no_edits(member):
    claim_id = _claim(member, "CC-CLEAN-1", [_line("99213", "25"), _line("84443")], ["E039"])
    found = member.rpc.mutation("chargeCoding.validateClaimCoding", {"claimId": claim_id}).data
    assert (found["edits"], found["errorCount"], found["uncheckedDiagnoses"]) == ([], 0, [])


def test_another_clients_claim_is_not_found_and_bad_input_is_refused(member, make_member):
    claim_id = _claim(member, "CC-TENANT-1", PLANTED, ["E116"])
    other = make_member()
    refused = other.rpc.mutation("chargeCoding.validateClaimCoding", {"claimId": claim_id})
    assert refused.code == "NOT_FOUND", refused.body
    assert "CC-TENANT" not in str(refused.body)
    for bad in ({"claimId": 0}, {"claimId": "x"}, {"claimId": 2**63}, {}, {"claimId": 1, "extra": 1}):
        assert member.rpc.mutation("chargeCoding.validateClaimCoding", bad).code == "BAD_REQUEST", bad
    assert member.rpc.mutation("chargeCoding.validateClaimCoding", {"claimId": 2**62}).code == "NOT_FOUND"


def test_the_reference_edits_of_a_code_paged_with_their_source(member):
    first = member.rpc.query("chargeCoding.edits", {"code": "0001u", "limit": 5}).data
    assert first["code"] == "0001U"
    assert [(r["column1"], r["column2"], r["modifierIndicator"]) for r in first["ptp"]][:3] == [
        ("0001U", "0028U", 1),
        ("0001U", "0029U", 1),
        ("0001U", "0030U", 1),
    ]
    assert first["ptp"][1]["deleted"] == "2026-06-30" and first["ptp"][2]["deleted"] is None
    assert first["mue"] == {
        "table": "practitioner",
        "quarter": "2026Q3",
        "code": "0001U",
        "value": 1,
        "mai": 2,
        "maiDescription": "Date of Service Edit: Policy",
        "rationale": "Code Descriptor / CPT Instruction",
    }
    rest = member.rpc.query("chargeCoding.edits", {"code": "0001U", "limit": 50, "cursor": first["nextCursor"]}).data
    assert len(rest["ptp"]) == 8 and rest["nextCursor"] is None  # 13 rows with 0001U in column 1
    pair = member.rpc.query("chargeCoding.edits", {"code": "36591", "pairWith": "0001A"}).data
    assert [(r["effective"], r["deleted"], r["modifierIndicator"]) for r in pair["ptp"]] == [
        ("2022-01-01", "2023-12-31", 0)
    ]
    tsh = member.rpc.query("chargeCoding.edits", {"code": "84443"}).data
    assert tsh["ncd"]["ncd"] == "190.22" and tsh["ncd"]["diagnoses"] == ["E03.9", "E05.90", "E06.3", "R94.6"]
    assert tsh["reference"]["ptp"] == "practitioner v322r0 (2026Q3)"
    for bad in ({"code": "12"}, {"code": "0001U", "limit": 0}, {"code": "0001U", "limit": 201}, {"code": "0001U!"}):
        assert member.rpc.query("chargeCoding.edits", bad).code == "BAD_REQUEST", bad
    assert member.rpc.query("chargeCoding.edits", {"code": "0001U", "cursor": "nonsense"}).code == "BAD_REQUEST"


def test_coding_denials_with_hand_counted_shares(member, make_member):
    _claim(member, "CC-KA", [_line("0001U"), _line("0030U")], ["M5450"])  # a PTP edit only
    _claim(member, "CC-KB", [_line("99213")], ["E1165"])  # clean
    _claim(member, "CC-KC", [_line("0009U", units=3)], ["M5450"])  # an MUE edit only
    _claim(member, "CC-KD", [_line("99213")], ["E116"])  # a header diagnosis only
    a = open_case(member.rpc, "CC-KA", "10.00", carc="97")  # bundling: PTP expected -> caught
    b = open_case(member.rpc, "CC-KB", "11.00", carc="4")  # modifier expected, claim clean -> not caught
    c = open_case(member.rpc, "CC-KC", "12.00", carc="151")  # units: MUE expected -> caught
    d = open_case(member.rpc, "CC-KD", "13.00", carc="11")  # diagnosis: not billable counts -> caught
    e = open_case(member.rpc, "CC-NO-CLAIM", "14.00", carc="97")  # no such claim -> not caught
    open_case(member.rpc, "CC-KA", "15.00", carc="197")  # authorization: not a coding denial
    g = open_case(member.rpc, "CC-KA", "16.00", carc="16")  # missing information: a PTP edit does not count
    found = member.rpc.query("chargeCoding.codingDenials", {}).data
    # by hand: coding denials a, b, c, d, e, g = 6; caught a, c, d = 3; share 3 / 6 = 0.5
    assert (found["total"], found["caught"], found["share"], found["truncated"]) == (6, 3, 0.5, False)
    assert [i["caseId"] for i in found["items"]] == [g["id"], e["id"], d["id"], c["id"], b["id"], a["id"]]
    assert {k["kind"]: k["cases"] for k in found["byKind"]} == {
        "ptp": 1,
        "mue": 1,
        "modifier": 0,
        "diagnosis_invalid": 0,
        "diagnosis_not_billable": 1,
        "diagnosis_procedure": 0,
    }
    assert [(x["carc"], x["cases"], x["caught"]) for x in found["byCarc"]] == [
        ("11", 1, 1),
        ("151", 1, 1),
        ("16", 1, 0),
        ("4", 1, 0),
        ("97", 2, 1),
    ]
    items = {i["caseId"]: i for i in found["items"]}
    assert items[a["id"]]["caughtBy"] == ["ptp"] and items[a["id"]]["edits"][0]["codes"] == ["0001U", "0030U"]
    assert items[e["id"]]["claimId"] is None and items[e["id"]]["caught"] is False
    assert items[g["id"]]["caught"] is False and [x["kind"] for x in items[g["id"]]["edits"]] == ["ptp"]
    newest = member.rpc.query("chargeCoding.codingDenials", {"limit": 2}).data
    assert (newest["total"], newest["caught"], newest["share"], newest["truncated"]) == (2, 0, 0.0, True)
    nothing = make_member().rpc.query("chargeCoding.codingDenials", {}).data
    assert (nothing["total"], nothing["share"], nothing["items"]) == (0, None, [])
    for bad in ({"limit": 0}, {"limit": 501}, {"limit": "x"}):
        assert member.rpc.query("chargeCoding.codingDenials", bad).code == "BAD_REQUEST", bad
