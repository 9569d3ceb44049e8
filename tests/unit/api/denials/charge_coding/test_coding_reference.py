"""The coding reference extracts: every row well-formed, each file's source written down, bad rows refused
naming the file and line."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from api.denials.charge_coding import reference
from api.denials.charge_coding.reference import REFERENCE, CodingDataError

FILES = ("ncci_ptp_practitioner.csv", "ncci_mue_practitioner.csv", "icd10cm_codes.csv", "ncd_lab_diagnoses.csv")


def _text(name: str) -> str:
    return (reference.CODING_DIR / name).read_text(encoding="utf-8")


def _rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(_text(name).splitlines()))


def test_the_shipped_extracts_load_with_their_versions():
    assert (len(REFERENCE.ptp), len(REFERENCE.mue), len(REFERENCE.icd)) == (54, 44, 648)
    assert REFERENCE.versions == {
        "NCCI PTP": "practitioner v322r0 (2026Q3)",
        "NCCI MUE": "practitioner (2026Q3)",
        "ICD-10-CM": "FY2026-April",
        "NCD lab": "190.21, 190.22, 190.23",
    }
    assert "v322r0" in REFERENCE.version and "FY2026-April" in REFERENCE.version


def test_every_row_is_well_formed():
    for row in _rows("ncci_ptp_practitioner.csv"):
        assert re.fullmatch(r"[0-9A-Z]{5}", row["column_1"]) and re.fullmatch(r"[0-9A-Z]{5}", row["column_2"])
        assert row["modifier_indicator"] in {"0", "1", "9"} and row["rationale"]
        assert (row["ncci_table"], row["version"], row["quarter"]) == ("practitioner", "v322r0", "2026Q3")
    for row in _rows("ncci_mue_practitioner.csv"):
        assert row["mai"] in {"1", "2", "3"} and int(row["mue_value"]) >= 0 and row["rationale"]
        assert row["mai_description"].startswith("Date of Service Edit") or row["mai_description"] == "Line Edit"
    for row in _rows("icd10cm_codes.csv"):
        assert re.fullmatch(r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?", row["code"]) and row["billable"] in {"Y", "N"}
        assert row["release"] == "FY2026-April" and row["description"]
    for row in _rows("ncd_lab_diagnoses.csv"):
        assert row["basis"] == "written_from_manual" and row["ncd"].startswith("190.")


def test_known_codes_from_the_public_tables():
    # ICD-10-CM FY2026 tabular: E11 and E11.6 are headers, E11.65 billable; M54.5 a header since FY2022
    icd = REFERENCE.icd
    assert (icd["E11"].billable, icd["E116"].billable, icd["E1165"].billable) == (False, False, True)
    assert (icd["M545"].billable, icd["M5450"].billable, icd["M542"].billable) == (False, True, True)
    # a seventh-character code: E11.37 needs its laterality (E11.37X1 right eye)
    assert (icd["E1137"].billable, icd["E1137X1"].billable) == (False, True)
    # ccipra-v322r0: 0001U/0030U since 2018-07-01, never deleted, indicator 1
    (edit,) = [e for e in REFERENCE.ptp if (e.column_1, e.column_2) == ("0001U", "0030U")]
    assert (edit.effective.isoformat(), edit.deleted, edit.modifier_indicator) == ("2018-07-01", None, 1)
    # MUE 2026 Q3: 0009U 2 units, MAI 3
    assert (REFERENCE.mue["0009U"].value, REFERENCE.mue["0009U"].mai) == (2, 3)


def test_every_category_is_held_whole():
    # every code's parent is in the file and no billable code has a child: the extract can call a code of
    # one of its categories invalid when it is absent
    for code in REFERENCE.icd.values():
        assert code.code[:3] in REFERENCE.icd_categories


def test_the_readme_names_each_file_its_source_and_quarter():
    text = (reference.CODING_DIR / "README.md").read_text(encoding="utf-8")
    for name in FILES:
        assert f"`{name}`" in text
    for fact in ("v322r0", "2026 Q3", "FY2026", "written from the manual", "cms.gov", "190.22"):
        assert fact in text


@pytest.mark.parametrize(
    ("name", "bad", "expected"),
    [
        ("ncci_ptp_practitioner.csv", "practitioner,v322r0,2026Q3,0001U,0030U,N,2018-07-01,,7,x", "modifier_indicator"),
        ("ncci_ptp_practitioner.csv", "practitioner,v322r0,2026Q3,0001U,0030U,N,2018-07-01,,1,x", "duplicate"),
        ("ncci_ptp_practitioner.csv", "practitioner,v322r0,2026Q3,0001U,0030U,N,20180701,,1,x", "date"),
        ("ncci_mue_practitioner.csv", "practitioner,2026Q3,0001U,1,2,x,y", "duplicate"),
        ("ncci_mue_practitioner.csv", "practitioner,2026Q3,ZZZZ9,1,4,x,y", "'mai'"),
        ("icd10cm_codes.csv", "E11.999,Y,FY2026-April,made up", "no parent"),
        ("icd10cm_codes.csv", "E1165,Y,FY2026-April,no dot", "with its dot"),
    ],
)
def test_a_bad_row_is_refused_naming_the_file(name, bad, expected):
    texts = {n: _text(n) for n in FILES}
    texts[name] = texts[name].rstrip("\n") + "\n" + bad + "\n"
    with pytest.raises(CodingDataError, match=re.escape(name)) as refused:
        reference.build(*(texts[n] for n in FILES))
    assert expected in str(refused.value)


def test_an_ncd_row_must_name_a_billable_code_of_the_extract(tmp_path: Path):
    texts = {n: _text(n) for n in FILES}
    texts["ncd_lab_diagnoses.csv"] += "190.22,Thyroid Testing,84443,E11.6,written_from_manual\n"
    with pytest.raises(CodingDataError, match=re.escape("ncd_lab_diagnoses.csv line 13")):
        reference.build(*(texts[n] for n in FILES))
    for name in FILES:
        (tmp_path / name).write_text(_text(name), encoding="utf-8")
    assert reference.load(tmp_path).version == REFERENCE.version
