"""read_tabular end to end on real bytes: headers, entities, formats, errors, encodings."""

from __future__ import annotations

import io
import json
from datetime import date
from decimal import Decimal

import polars as pl
import pytest

from pipelines.ingest.tabular import (
    ProfileError,
    TabularFileError,
    builtin_profile,
    list_builtin_profiles,
    normalise_header,
    provision_profile,
    read_tabular,
    validate_profile,
)

CLAIMS = (
    "Monthly claims export - Main Campus\n"
    "Run date: 04/01/2024\n"
    "\n"
    "Patient Acct #,Patient Name,DOB,Member ID,Payer,Date of Service,Total Charges,CPT,Dx\n"
    'A100,"Smith, John",01/02/1960,XZ123,Aetna,03/01/2024,"$1,234.56",99213,E11.9\n'
    "A101,Doe Jane,13/45/1970,XZ124,Aetna,2024-03-02,($10.00),99214,\n"
    "A102,Roe Rick,,XZ125,Cigna,20240303,12x.00,,I10\n"
    ",Poe Pat,,XZ126,Cigna,3/4/24,5,,\n"
)


def test_title_rows_synonyms_and_entity():
    result = read_tabular(CLAIMS.encode(), filename="claims.csv")
    assert (result.entity, result.profile_used, result.header_row) == ("claim", "auto:claim", 4)
    rows = result.rows
    assert rows["row_number"].to_list() == [5, 6, 7, 8]
    assert rows["patient_account_number"].to_list() == ["A100", "A101", "A102", None]
    assert rows["billed_amount"].to_list()[:2] == [Decimal("1234.56"), Decimal("-10.00")]
    assert rows["billed_amount"].dtype == pl.Decimal(18, 2)
    assert rows["service_from"].to_list() == [date(2024, 3, 1), date(2024, 3, 2), date(2024, 3, 3), date(2024, 3, 4)]
    assert rows["diagnosis"].to_list()[0] == ["E11.9"]
    assert rows["row_status"].to_list() == ["valid", "invalid", "invalid", "invalid"]
    errors = rows["row_errors"].to_list()
    assert errors[1] == ["patient_birth_date: not a date"]
    assert errors[2] == ["billed_amount: '12x.00' is not a money amount"]
    assert errors[3] == ["claim_id/patient_account_number: required value missing"]
    assert result.errors_summary == {
        "billed_amount": 1,
        "claim_id/patient_account_number": 1,
        "patient_birth_date": 1,
    }


def test_no_phi_values_in_reasons():
    data = (
        b"Account Number,Patient Name,DOB,Member ID,Dx,Service Date,Billed Amount\n"
        b"A1,Zebediah Quux,99/99/1950,MEMBERSECRET,E11.9,01/01/2024,1.00\n"
    )
    result = read_tabular(data, filename="c.csv")
    reasons = " ".join(result.rows["row_errors"].explode().drop_nulls().to_list())
    assert "patient_birth_date: not a date" in reasons
    for secret in ("Zebediah", "99/99/1950", "MEMBERSECRET", "E11.9"):
        assert secret not in reasons


@pytest.mark.parametrize(
    ("header", "entity"),
    [
        ("Acct No,Billed Amt,DOS", "claim"),
        ("Account Number,Check #,Payment Date,Paid Amount,CARC,RARC", "payment"),
        ("Claim Number,Payer,Denial Date,Denied Amount,Reason Code,Owner", "denial"),
    ],
)
def test_each_entity_detected(header, entity):
    width = header.count(",") + 1
    body = ",".join(["X1"] + ["01/02/2024" if "Date" in h or h == "DOS" else "1.00" for h in header.split(",")[1:]])
    assert width == body.count(",") + 1
    result = read_tabular(f"{header}\n{body}\n".encode(), filename="f.csv")
    assert result.entity == entity


def test_header_normalisation():
    assert normalise_header("Patient Acct #") == "patient acct number"
    assert normalise_header(" Acct. Num ") == "acct number"
    assert normalise_header("CPT/HCPCS") == "cpt hcpcs"


def test_payment_rarc_list_and_negative_trailing_minus():
    data = b"Account Number|Check/EFT #|Payment Date|Paid Amount|Reason Code|Remark Codes\nA1|EFT9|01/05/2024|25.00-|16|N382, MA130\n"
    result = read_tabular(data, filename="p.txt")
    row = result.rows.row(0, named=True)
    assert result.entity == "payment" and row["paid_amount"] == Decimal("-25.00")
    assert row["rarc"] == ["N382", "MA130"] and row["check_number"] == "EFT9"


def test_tsv():
    data = b"Account Number\tService Date\tBilled Amount\nA1\t01/02/2024\t$1,000.00\n"
    result = read_tabular(data, filename="x.tsv")
    assert result.source_format == "tsv" and result.rows["billed_amount"].to_list() == [Decimal("1000.00")]


@pytest.mark.parametrize(
    ("body", "line", "reason"),
    [
        ('A2,"unclosed,01/02/2024,5.00\nA3,x,01/02/2024,5.00\n', 3, "unterminated quote"),
        ("A2,x,01/02/2024,5.00,extra\n", 3, "found 5"),
        ("A2,x\n", 3, "found 2"),
    ],
)
def test_broken_rows_name_the_line(body, line, reason):
    data = (
        "Account Number,Patient Name,Service Date,Billed Amount\nA1,x,01/01/2024,1.00\n"
        + body
        + "A9,x,01/01/2024,1.00\n"
    ).encode()
    with pytest.raises(TabularFileError, match=reason) as info:
        read_tabular(data, filename="bad.csv")
    assert info.value.line == line
    assert "x," not in str(info.value)  # the source line itself is never quoted


def test_missing_required_column_is_a_file_error():
    with pytest.raises(TabularFileError, match="service_from"):
        read_tabular(b"Account Number,Billed Amount\nA1,1.00\n", filename="c.csv")


def test_no_header_found():
    with pytest.raises(TabularFileError, match="no header row"):
        read_tabular(b"a,b,c\n1,2,3\n", filename="c.csv")


def test_encodings_utf16_bom_and_cp1252():
    text = "Account Number,Patient Name,Service Date,Billed Amount\nA1,José Peña,01/02/2024,1.00\n"
    for encoded, expected in (
        (text.encode("utf-16"), "utf-16"),
        (text.encode("cp1252"), "cp1252"),
        (b"\xef\xbb\xbf" + text.encode(), "utf-8"),
    ):
        result = read_tabular(encoded, filename="e.csv")
        assert result.encoding.startswith(expected)
        assert result.rows["patient_name"].to_list() == ["José Peña"]
        assert result.rows["patient_account_number"].to_list() == ["A1"]


def test_multiline_quoted_field_keeps_line_numbers():
    data = b'Account Number,Patient Name,Service Date,Billed Amount\nA1,"two\nlines",01/02/2024,1.00\n\nA2,x,01/03/2024,2.00\n'
    result = read_tabular(data, filename="m.csv")
    assert result.rows["row_number"].to_list() == [2, 5]


def test_xlsx_with_title_row():
    buffer = io.BytesIO()
    frame = pl.DataFrame(
        {
            "A": ["Denials work list", "Claim Number", "C1", "C2"],
            "B": [None, "Denial Date", "2024-01-05", "not a date"],
            "C": [None, "Denied Amount", "100.5", "7"],
            "D": [None, "CARC", "197", "16"],
        }
    )
    frame.write_excel(buffer, include_header=False)
    result = read_tabular(buffer.getvalue(), filename="w.xlsx")
    assert (result.entity, result.source_format, result.header_row) == ("denial", "xlsx", 2)
    assert result.rows["denied_amount"].to_list() == [Decimal("100.50"), Decimal("7.00")]
    assert result.rows["row_number"].to_list() == [3, 4]
    assert result.rows["row_errors"].to_list()[1] == ["denial_date: 'not a date' is not a date"]


def test_xlsx_native_dates_and_numbers():
    buffer = io.BytesIO()
    pl.DataFrame(
        {"Account Number": ["A1"], "Service Date": [date(2024, 2, 29)], "Billed Amount": [1234.5]}
    ).write_excel(buffer)
    result = read_tabular(buffer.getvalue(), filename="n.xlsx")
    assert result.rows.row(0, named=True)["service_from"] == date(2024, 2, 29)
    assert result.rows.row(0, named=True)["billed_amount"] == Decimal("1234.50")


def test_json_array_and_rows_object():
    records = [
        {"Claim Number": "C1", "Denial Date": "01/05/2024", "Denied Amount": 12.5, "CARC": "16", "RARC": ["N382"]}
    ]
    for document in (records, {"rows": records}):
        result = read_tabular(json.dumps(document).encode(), filename="d.json")
        row = result.rows.row(0, named=True)
        assert result.entity == "denial" and row["denied_amount"] == Decimal("12.50") and row["rarc"] == ["N382"]
        assert row["row_number"] == 1


def test_json_bad_shape():
    with pytest.raises(TabularFileError, match="item 2"):
        read_tabular(b'[{"Claim Number": "C1"}, 5]', filename="d.json")


def test_x12_is_refused_with_pointer():
    with pytest.raises(TabularFileError, match="X12"):
        read_tabular(
            b"ISA*00*          *00*          *ZZ*A*ZZ*B*240101*1200*^*00501*1*0*P*:~GS*HP~ST*835*1~", filename="a.835"
        )


def test_builtin_profiles_and_epic_export():
    assert {p.name for p in list_builtin_profiles()} >= {"epic_claims_export", "generic_payments", "generic_denials"}
    data = b'HAR,Payor,Service From,Total Charges,Principal Dx\nH1,Medicare,01/31/2024,"$2,000.00",I10\n'
    result = read_tabular(data, filename="epic.csv", profile=builtin_profile("epic_claims_export"))
    assert result.profile_used == "epic_claims_export"
    assert result.rows.row(0, named=True)["billed_amount"] == Decimal("2000.00")
    assert "HAR" not in result.unmapped_columns


def test_custom_profile_formats():
    profile = provision_profile(
        {
            "name": "legacy_denials",
            "entity": "denial",
            "column_map": {
                "ACCT": "patient_account_number",
                "DENYDT": "denial_date",
                "AMT": "denied_amount",
                "RSN": "carc",
            },
            "delimiter": ";",
            "date_format": "%d.%m.%Y",
            "money_format": "implied_cents",
        }
    )
    data = b"ACCT;DENYDT;AMT;RSN\nA1;31.01.2024;123456;CO16\n"
    row = read_tabular(data, filename="l.txt", profile=profile).rows.row(0, named=True)
    assert row["denial_date"] == date(2024, 1, 31) and row["denied_amount"] == Decimal("1234.56")


def test_invalid_profile_lists_every_problem():
    with pytest.raises(ProfileError) as info:
        validate_profile({"name": "x", "entity": "claim", "column_map": {"A": "nope"}, "date_format": "%H"})
    problems = " | ".join(info.value.problems)
    for expected in ("name:", "'nope' is not a claim field", "service_from", "date_format"):
        assert expected in problems
    with pytest.raises(ProfileError, match="entity"):
        validate_profile({"name": "abc", "entity": "spaceship", "column_map": {}})
    with pytest.raises(ProfileError, match="already exists"):
        provision_profile(builtin_profile("generic_denials").model_dump())


def test_xlsx_skips_a_cover_sheet():
    import xlsxwriter

    buffer = io.BytesIO()
    with xlsxwriter.Workbook(buffer) as workbook:
        pl.DataFrame({"About": ["Exported from the billing system", "Do not edit"]}).write_excel(
            workbook, worksheet="Cover"
        )
        pl.DataFrame(
            {"Account Number": ["A1"], "Date of Service": ["01/02/2024"], "Billed Amt": ["$5.00"]}
        ).write_excel(workbook, worksheet="Claims")
    result = read_tabular(buffer.getvalue(), filename="two.xlsx")
    assert result.entity == "claim" and result.rows["billed_amount"].to_list() == [Decimal("5.00")]


def test_utf16_without_bom():
    text = "Account Number\tService Date\tBilled Amount\nA1\t01/02/2024\t1.00\n"
    result = read_tabular(text.encode("utf-16-le"), filename="u.tsv")
    assert result.encoding == "utf-16-le" and result.rows["patient_account_number"].to_list() == ["A1"]


def test_short_row_after_a_multiline_record_names_the_line():
    # A record spanning two lines disables the line-per-record shortcut, so the strict reader decides.
    data = b'Account Number,Patient Name,Service Date,Billed Amount\nA1,"two\nlines",01/02/2024,1.00\nA2,x\nA3,x,01/03/2024,2.00\n'
    with pytest.raises(TabularFileError, match="found 2") as info:
        read_tabular(data, filename="m.csv")
    assert info.value.line == 4


def test_empty_trailing_values_are_not_short_rows():
    data = b"Account Number,Service Date,Billed Amount,Dx\nA1,01/02/2024,1.00,\nA2,01/03/2024,2.00,I10\n"
    rows = read_tabular(data, filename="e.csv").rows
    assert rows["diagnosis"].to_list() == [None, ["I10"]] and rows["row_status"].to_list() == ["valid", "valid"]


@pytest.mark.parametrize(
    "data", [b"Account Number,Service Date,Billed Amount\n", b"Account Number,Service Date,Billed Amount"]
)
def test_header_only_file_gives_no_rows(data):
    result = read_tabular(data, filename="h.csv")
    assert result.entity == "claim" and result.rows.height == 0 and result.errors_summary == {}


def test_cp1252_byte_after_a_long_ascii_prefix():
    lines = ["Account Number,Patient Name,Service Date,Billed Amount"]
    lines += [f"A{i},Ann,01/02/2024,1.00" for i in range(4000)]  # > 64 KB of ASCII first
    data = ("\n".join(lines) + "\n").encode() + "Z1,José,01/02/2024,1.00\n".encode("cp1252")
    result = read_tabular(data, filename="late.csv")
    assert result.encoding == "cp1252"
    assert result.rows["patient_name"].to_list()[-1] == "José" and result.rows.height == 4001
