"""Combined reason codes split into group code and CARC (pipelines/ingest/reason_codes.py), by hand,
and through the tabular reader on the hand-written worklist (tests/fixtures/csv/hand)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.ingest.reason_codes import GROUP_CODES, SplitCode, split_reason_code
from pipelines.ingest.tabular import read_tabular
from tests.support.paths import CSV_FIXTURES


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CO-27", SplitCode("CO", "27")),
        ("CO27", SplitCode("CO", "27")),
        ("CO 27", SplitCode("CO", "27")),
        ("co-27", SplitCode("CO", "27")),
        ("PR-1", SplitCode("PR", "1")),
        ("OA-18", SplitCode("OA", "18")),
        ("PI 16", SplitCode("PI", "16")),
        ("COA1", SplitCode("CO", "A1")),
        ("CO-B7", SplitCode("CO", "B7")),
        ("27", SplitCode(None, "27")),
        ("B7", SplitCode(None, "B7")),
        ("P12", SplitCode(None, "P12")),
        (" 197 ", SplitCode(None, "197")),
        ("XX-27", SplitCode(None, "XX-27", unknown_group="XX")),
        ("MA130", SplitCode(None, "MA130", unknown_group="MA")),
        ("N130", SplitCode(None, "N130")),
        ("CO-", SplitCode(None, "CO-")),
    ],
)
def test_split_by_hand(text, expected):
    assert split_reason_code(text) == expected


carcs = st.one_of(
    st.integers(1, 999).map(str),
    st.tuples(st.sampled_from("ABDPWY"), st.integers(1, 99)).map(lambda t: f"{t[0]}{t[1]}"),
)


@given(st.sampled_from(GROUP_CODES), st.sampled_from(["-", "", " ", " - "]), carcs)
def test_every_known_group_and_carc_splits_back(group, sep, carc):
    assert split_reason_code(f"{group}{sep}{carc}") == SplitCode(group, carc)


@given(carcs)
def test_a_bare_carc_is_left_alone(carc):
    assert split_reason_code(carc) == SplitCode(None, carc)


def test_the_hand_worklist_reads_with_split_codes_and_deadlines():
    name = "denials_worklist_hand.csv"
    rows = read_tabular((CSV_FIXTURES / "hand" / name).read_bytes(), filename=name).rows
    got = {
        r["patient_account_number"]: (r["group_code"], r["carc"], r["appeal_deadline"], r["row_status"])
        for r in rows.iter_rows(named=True)
    }
    assert got == {
        "HW-1": ("CO", "27", dt.date(2026, 8, 29), "valid"),
        "HW-2": ("PR", "1", dt.date(2026, 8, 29), "valid"),
        "HW-3": ("CO", "16", dt.date(2026, 8, 30), "valid"),
        "HW-4": ("CO", "197", None, "valid"),
        "HW-5": ("CO", "45", dt.date(2026, 9, 1), "valid"),
        "HW-6": (None, "B7", dt.date(2026, 9, 1), "valid"),
        "HW-7": (None, "XX-27", dt.date(2026, 9, 2), "invalid"),
    }
    flagged = rows.filter(rows["patient_account_number"] == "HW-7")["row_errors"].to_list()[0]
    assert flagged == ["carc: 'XX-27' starts with the unknown group code 'XX' (expected one of CO, PR, OA, PI, CR)"]


def test_a_due_date_column_is_the_appeal_deadline_and_a_bad_one_flags_its_row():
    name = "denials_due_date_hand.csv"
    rows = read_tabular((CSV_FIXTURES / "hand" / name).read_bytes(), filename=name).rows
    got = {
        r["patient_account_number"]: (r["group_code"], r["carc"], r["appeal_deadline"], r["row_errors"])
        for r in rows.iter_rows(named=True)
    }
    assert got == {
        "HD-1": ("OA", "18", dt.date(2026, 4, 1), []),
        "HD-2": ("CO", "50", None, ["appeal_deadline: '2026-13-40' is not a date"]),
        "HD-3": ("PI", "16", None, []),
    }


def test_a_group_column_that_disagrees_with_the_code_flags_the_row():
    data = b"Account,Payer,Denial Date,Group Code,CARC,Denied Amount\nG-1,P,2026-03-02,PR,CO-27,10.00\n"
    rows = read_tabular(data, filename="g.csv").rows
    row = rows.row(0, named=True)
    assert (row["group_code"], row["carc"], row["row_status"]) == ("PR", "27", "invalid")
    assert row["row_errors"] == ["group_code: 'PR' disagrees with the group of carc 'CO-27'"]
