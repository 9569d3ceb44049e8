"""The coding edit engine on hand-made claims, each expected edit worked out by hand from the shipped rows
(quoted in the comments), and its properties under Hypothesis."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from api.denials.charge_coding import reference
from api.denials.charge_coding.edits import Edit, Line, check_claim
from api.denials.charge_coding.reference import REFERENCE

D = date(2026, 7, 15)


def line(number: int, code: str, *modifiers: str, units: int = 1, day: date = D) -> Line:
    return Line(number, code, tuple(modifiers), Decimal(units), day)


def fired(lines, diagnoses=(), ref=REFERENCE) -> list[tuple[str, str, tuple[int, ...], tuple[str, ...]]]:
    return [(e.kind, e.rule, e.lines, e.codes) for e in check_claim(lines, diagnoses, ref).edits]


# --- PTP -------------------------------------------------------------------------------------------
# ccipra-v322r0 rows used: 0001U/0030U 2018-07-01..(none) MI 1; 0001U/0029U 2018-07-01..2026-06-30 MI 1;
# 0001A/36591 2022-01-01..2023-12-31 MI 0; 0001A/90473 2022-01-01..2022-01-01 MI 9


def test_an_indicator_1_pair_on_one_day_fires_unless_column_2_has_an_ncci_modifier():
    assert fired([line(1, "0001U"), line(2, "0030U")]) == [("ptp", "ptp_indicator_1", (1, 2), ("0001U", "0030U"))]
    for modifier in ("XU", "XS", "59", "91", "RT"):
        assert fired([line(1, "0001U"), line(2, "0030U", modifier)]) == [], modifier
    # on the column 1 line the modifier does not bypass the edit; 26 is no NCCI-associated modifier
    assert fired([line(1, "0001U", "XU"), line(2, "0030U")])[0][1] == "ptp_indicator_1"
    assert fired([line(1, "0001U"), line(2, "0030U", "26")])[0][1] == "ptp_indicator_1"


def test_the_pair_fires_in_either_line_order_and_only_on_the_same_day():
    assert fired([line(1, "0030U"), line(2, "0001U")]) == [("ptp", "ptp_indicator_1", (1, 2), ("0001U", "0030U"))]
    assert fired([line(1, "0001U"), line(2, "0030U", day=date(2026, 7, 16))]) == []


def test_indicator_0_fires_whatever_the_modifier_and_only_while_in_force():
    pair = [line(1, "0001A", day=date(2023, 6, 1)), line(2, "36591", "XU", "59", day=date(2023, 6, 1))]
    kinds = fired(pair)
    assert ("ptp", "ptp_indicator_0", (1, 2), ("0001A", "36591")) in kinds
    last_day = [line(1, "0001A", day=date(2023, 12, 31)), line(2, "36591", day=date(2023, 12, 31))]
    assert fired(last_day) == [("ptp", "ptp_indicator_0", (1, 2), ("0001A", "36591"))]  # deletion date included
    after = [line(1, "0001A", day=date(2024, 1, 2)), line(2, "36591", day=date(2024, 1, 2))]
    assert fired(after) == []
    before = [line(1, "0001A", day=date(2021, 12, 31)), line(2, "36591", day=date(2021, 12, 31))]
    assert fired(before) == []


def test_indicator_9_and_a_deleted_edit_never_fire():
    assert fired([line(1, "0001A", day=date(2022, 1, 1)), line(2, "90473", day=date(2022, 1, 1))]) == []
    june_30, july_1 = date(2026, 6, 30), date(2026, 7, 1)
    assert fired([line(1, "0001U", day=june_30), line(2, "0029U", day=june_30)])[0][3] == ("0001U", "0029U")
    assert fired([line(1, "0001U", day=july_1), line(2, "0029U", day=july_1)]) == []


def test_many_lines_of_one_pair_make_one_edit_naming_the_unmodified_column_2_lines():
    lines = [line(1, "0001U"), line(2, "0030U", "XS"), line(3, "0030U"), line(4, "0001U")]
    # (two units of each code on the day are also over their MUE of 1: MUE edits beside this one)
    (edit,) = [e for e in check_claim(lines, (), REFERENCE).edits if e.kind == "ptp"]
    assert (edit.rule, edit.lines) == ("ptp_indicator_1", (1, 3, 4))  # line 2 is distinct (XS)
    assert "0001U (line 1, 4) and 0030U (line 3)" in edit.message
    assert (edit.source.table, edit.source.version, edit.source.quarter, edit.source.key) == (
        "ncci_ptp_practitioner",
        "v322r0",
        "2026Q3",
        "0001U/0030U",
    )


# --- MUE -------------------------------------------------------------------------------------------
# 2026 Q3 practitioner MUE rows used: 0009U value 2, MAI 3; 0001U value 1, MAI 2; 0030U value 1, MAI 2


def test_mai_3_sums_the_day_and_is_a_warning():
    # 1 + 2 = 3 units of 0009U on 2026-07-15 > 2
    (edit,) = check_claim([line(1, "0009U"), line(2, "0009U", units=2)], (), REFERENCE).edits
    assert (edit.kind, edit.rule, edit.severity, edit.lines) == ("mue", "mue_date_of_service", "warning", (1, 2))
    assert "3 units on 2026-07-15" in edit.message and "MUE of 2" in edit.message
    assert (edit.source.table, edit.source.quarter) == ("ncci_mue_practitioner", "2026Q3")
    # 2 units on each of two days: never more than 2 on one day
    assert fired([line(1, "0009U", units=2), line(2, "0009U", units=2, day=date(2026, 7, 16))]) == []


def test_mai_2_is_an_error():
    (edit,) = check_claim([line(1, "0001U", units=2)], (), REFERENCE).edits
    assert (edit.rule, edit.severity, edit.codes) == ("mue_date_of_service", "error", ("0001U",))


def _with_mue_row(row: str) -> reference.CodingReference:
    """The shipped reference with its MUE table replaced by one row built for the test: the shipped extract
    has no MAI 1 (line edit) row, so the per-line rule is tested on a table made here."""
    texts = [(reference.CODING_DIR / n).read_text(encoding="utf-8") for n in reference_files()]
    texts[1] = "ncci_table,quarter,code,mue_value,mai,mai_description,rationale\n" + row + "\n"
    return reference.build(*texts)


def reference_files() -> tuple[str, ...]:
    return ("ncci_ptp_practitioner.csv", "ncci_mue_practitioner.csv", "icd10cm_codes.csv", "ncd_lab_diagnoses.csv")


def test_mai_1_counts_each_line_alone():
    ref = _with_mue_row("test,TEST,0009U,2,1,Line Edit,built for this test")
    # lines of 2 and 2 units: each within 2 (a date-of-service MUE would sum 4); a line of 3 units exceeds
    assert fired([line(1, "0009U", units=2), line(2, "0009U", units=2)], ref=ref) == []
    assert fired([line(1, "0009U", units=3), line(2, "0009U", units=1)], ref=ref) == [
        ("mue", "mue_line", (1,), ("0009U",))
    ]


# --- modifiers -------------------------------------------------------------------------------------


def test_modifier_rules():
    assert fired([line(1, "99213", "25")]) == []  # 99213 is in 99202-99499
    assert fired([line(1, "0002M", "25")]) == [("modifier", "modifier_25_not_em", (1,), ("0002M",))]
    assert fired([line(1, "99499", "25")]) == [] and fired([line(1, "99500", "25")])[0][1] == "modifier_25_not_em"
    assert fired([line(1, "71046", "59", "XS")]) == [("modifier", "modifier_59_with_x", (1,), ("71046",))]
    assert fired([line(1, "71046", "26", "TC")]) == [("modifier", "modifier_26_with_tc", (1,), ("71046",))]
    assert fired([line(1, "71046", "8")]) == [("modifier", "modifier_format", (1,), ("71046",))]
    assert fired([line(1, "71046", "88")]) == [("modifier", "modifier_unknown", (1,), ("71046",))]
    assert fired([line(1, "71046", "26"), line(2, "71046", "TC"), line(3, "71046", "XS", "q6")]) == []


# --- diagnoses -------------------------------------------------------------------------------------


def test_diagnosis_rules():
    assert fired([], ["E1165", "e11.65", "M54.50"]) == []
    assert fired([], ["E11.6"]) == [("diagnosis_not_billable", "diagnosis_header", (), ("E11.6",))]
    assert fired([], ["E11"]) == [("diagnosis_not_billable", "diagnosis_header", (), ("E11",))]
    assert fired([], ["M545"]) == [("diagnosis_not_billable", "diagnosis_header", (), ("M54.5",))]
    # E11.99 is no ICD-10-CM code, and the extract holds category E11 whole
    assert fired([], ["E11.99"]) == [("diagnosis_invalid", "diagnosis_unknown", (), ("E11.99",))]
    assert fired([], ["1234"]) == [("diagnosis_invalid", "diagnosis_format", (), ("1234",))]
    result = check_claim([], ["Q99.9", "J45.909"], REFERENCE)
    assert result.edits == () and result.unchecked_diagnoses == ("J45.909", "Q99.9")  # categories not held


def test_ncd_lab_tests_need_a_listed_diagnosis():
    # NCD 190.22 rows: 84443 with E03.9, E05.90, E06.3, R94.6; 190.23: 80061 with E78.00, E78.2, E78.5, I25.10
    assert fired([line(1, "84443")], ["E03.9"]) == []
    assert fired([line(1, "84443")], ["Z13.220"]) == [
        ("diagnosis_procedure", "ncd_no_supporting_diagnosis", (1,), ("84443",))
    ]
    assert fired([line(1, "80061"), line(2, "80061", day=date(2026, 7, 16))], []) == [
        ("diagnosis_procedure", "ncd_no_supporting_diagnosis", (1, 2), ("80061",))
    ]
    assert fired([line(1, "80061")], ["I25.10"]) == []


def test_a_claim_with_one_of_each_gets_exactly_those_edits():
    lines = [line(1, "0001U"), line(2, "0030U"), line(3, "0009U", units=3), line(4, "0002M", "25")]
    assert fired(lines, ["E11.6", "M54.50"]) == [
        ("ptp", "ptp_indicator_1", (1, 2), ("0001U", "0030U")),
        ("mue", "mue_date_of_service", (3,), ("0009U",)),
        ("modifier", "modifier_25_not_em", (4,), ("0002M",)),
        ("diagnosis_not_billable", "diagnosis_header", (), ("E11.6",)),
    ]


def test_an_attackers_claim_is_answered_in_one_pass():
    # 20,000 lines of one pair on one day: one PTP edit (not 10,000 x 10,000), one MUE edit per code
    lines = [line(n, "0001U" if n % 2 else "0030U") for n in range(1, 20_001)]
    edits = check_claim(lines, ["E11.6"] * 5_000, REFERENCE).edits
    assert [(e.kind, len(e.lines)) for e in edits] == [
        ("ptp", 20_000),
        ("mue", 10_000),
        ("mue", 10_000),
        ("diagnosis_not_billable", 0),
    ]


# --- properties ------------------------------------------------------------------------------------

CODES = ["0001U", "0030U", "0029U", "0009U", "0001A", "36591", "99213", "84443", "80061", "0002M", "71046"]
MODIFIERS = ["XU", "XS", "59", "25", "26", "TC", "RT", "88", "LT"]
DAYS = [date(2023, 6, 1), date(2026, 6, 30), date(2026, 7, 15)]
DIAGNOSES = ["E11.6", "E11.65", "E03.9", "E11.99", "Q99.9", "I25.10", "M54.5"]


@st.composite
def claims(draw, unique_codes_per_day: bool = False):
    keys = st.tuples(st.sampled_from(CODES), st.sampled_from(DAYS))
    drawn = draw(st.lists(keys, max_size=10, unique=unique_codes_per_day))
    lines = [
        Line(
            n + 1,
            code,
            tuple(draw(st.lists(st.sampled_from(MODIFIERS), max_size=3, unique=True))),
            Decimal(draw(st.integers(1, 4))),
            day,
        )
        for n, (code, day) in enumerate(drawn)
    ]
    return lines, draw(st.lists(st.sampled_from(DIAGNOSES), max_size=4))


@settings(max_examples=200, deadline=None)
@given(claims(), st.randoms(use_true_random=False))
def test_the_order_of_lines_and_diagnoses_never_changes_the_edits(claim, random):
    lines, diagnoses = claim
    before = check_claim(lines, diagnoses, REFERENCE)
    shuffled_lines, shuffled_dx = list(lines), list(diagnoses)
    random.shuffle(shuffled_lines)
    random.shuffle(shuffled_dx)
    assert check_claim(shuffled_lines, shuffled_dx, REFERENCE) == before


def _with_modifier(lines: list[Line], number: int, modifier: str) -> list[Line]:
    return [
        Line(x.number, x.procedure_code, (*x.modifiers, modifier), x.units, x.service_date) if x.number == number else x
        for x in lines
    ]


@settings(max_examples=200, deadline=None)
@given(claims(unique_codes_per_day=True))
def test_an_ncci_modifier_on_the_column_2_line_removes_exactly_its_indicator_1_edits(claim):
    lines, diagnoses = claim
    before = check_claim(lines, diagnoses, REFERENCE).edits
    for target in lines:
        if "59" in target.modifiers:  # XS beside 59 is a modifier edit of its own
            continue
        after = check_claim(_with_modifier(lines, target.number, "XS"), diagnoses, REFERENCE).edits

        def bypassed(edit: Edit, target: Line = target) -> bool:
            # one line per code and day: the edit's column 2 line is the target
            return (
                edit.rule == "ptp_indicator_1"
                and edit.codes[1] == target.procedure_code
                and target.number in edit.lines
            )

        assert list(after) == [e for e in before if not bypassed(e)]


@settings(max_examples=200, deadline=None)
@given(claims())
def test_every_edit_names_lines_of_the_claim_and_a_source_when_it_has_one(claim):
    lines, diagnoses = claim
    numbers = {x.number for x in lines}
    for edit in check_claim(lines, diagnoses, REFERENCE).edits:
        assert set(edit.lines) <= numbers and edit.severity in {"error", "warning"} and edit.message
        if edit.kind in {"ptp", "mue", "diagnosis_procedure", "diagnosis_not_billable"}:
            assert edit.source is not None and edit.source.table and edit.source.quarter
