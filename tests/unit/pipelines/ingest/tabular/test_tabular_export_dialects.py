"""Every header dialect the synthetic generator writes is read as the right entity with every column
mapped (synonyms data only), and bank deposit files are a first-class entity."""

from __future__ import annotations

import csv
import json
from decimal import Decimal

import pytest

from pipelines.ingest.tabular import TabularFileError, builtin_profile, detect_header, read_tabular
from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.csv_exports import (
    CLAIMS_COLUMNS,
    DENIALS_COLUMNS,
    DEPOSITS_COLUMNS,
    PAYMENTS_COLUMNS,
    headers,
)

FILES = {
    "claims_export.csv": ("claim", CLAIMS_COLUMNS),
    "payments_export.csv": ("payment", PAYMENTS_COLUMNS),
    "denials_worklist.csv": ("denial", DENIALS_COLUMNS),
    "deposits.csv": ("deposit", DEPOSITS_COLUMNS),
}
DIALECTS = range(len(CLAIMS_COLUMNS[0][1]))
# The generator's canonical names that the reader calls differently.
EXPECTED_FIELD = {
    "account": "patient_account_number",
    "payer": "payer_name",
    "service_from": "service_from",
    "billed": "billed_amount",
    "check_number": "check_number",
    "payment_date": "payment_date",
    "paid": "paid_amount",
    "denial_date": "denial_date",
    "denied_amount": "denied_amount",
    "denial_code": "carc",
    "deposit_date": "deposit_date",
    "amount": "amount",
    "trace_number": "trace_number",
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(FILES))
def test_every_dialect_header_is_detected_with_every_column_mapped(name, dialect):
    entity, columns = FILES[name]
    row = headers(columns, dialect)
    match = detect_header([row])
    assert match.entity == entity
    assert sorted(match.columns) == list(range(len(row))), (
        f"unmapped: {[h for i, h in enumerate(row) if i not in match.columns]}"
    )
    by_key = {key: match.columns[pos] for pos, (key, _) in enumerate(columns)}
    for key, field in EXPECTED_FIELD.items():
        if key in by_key:
            assert by_key[key] == field, (name, dialect, key)


@pytest.fixture(scope="module", params=[7, 8, 9])
def corpus(request, tmp_path_factory):
    """Seeds 7, 8, 9 cover the three dialects (seed % 3)."""
    out = tmp_path_factory.mktemp(f"dialect_seed_{request.param}")
    generate_corpus(CorpusSpec(seed=request.param, claims=60, payers=3, months=2, claims_per_file=60), out)
    return out, json.loads((out / "ground_truth.json").read_text())


def test_generated_files_of_each_seed_read_without_a_bad_row(corpus):
    out, truth = corpus
    for name, (entity, _columns) in FILES.items():
        result = read_tabular((out / name).read_bytes(), filename=name)
        assert result.entity == entity, name
        assert result.unmapped_columns == (), name
        assert result.invalid_count == 0, (name, result.errors_summary)
        with (out / name).open(newline="") as fh:
            assert result.rows.height == sum(1 for _ in csv.DictReader(fh)), name
    deposits = read_tabular((out / "deposits.csv").read_bytes(), filename="deposits.csv").rows
    assert deposits.height == truth["money"]["deposits"]
    assert deposits["amount"].sum() == Decimal(truth["money"]["deposits_total"])
    assert deposits["trace_number"].null_count() == 0 and deposits["deposit_date"].null_count() == 0
    payments = read_tabular((out / "payments_export.csv").read_bytes(), filename="payments_export.csv").rows
    assert payments["paid_amount"].sum() == Decimal(truth["x12"]["remit_total_paid"])


def test_deposit_rows_are_validated_with_reasons_naming_the_field():
    data = (
        b"Deposit Date,Amount,Trace Number,Description\n"
        b'01/05/2026,"1,234.56",1512345678000000001,MEDICARE HCCLAIMPMT\n'
        b"02/30/2026,10.00,TRACE2,X\n"
        b"01/06/2026,12x.00,TRACE3,X\n"
        b"01/07/2026,5.00,,X\n"
    )
    result = read_tabular(data, filename="bank.csv")
    assert result.entity == "deposit"
    rows = result.rows.to_dicts()
    assert rows[0]["amount"] == Decimal("1234.56") and rows[0]["row_status"] == "valid"
    assert rows[0]["trace_number"] == "1512345678000000001"
    assert rows[1]["row_errors"] == ["deposit_date: '02/30/2026' is not a date"]
    assert rows[2]["row_errors"] == ["amount: '12x.00' is not a money amount"]
    assert rows[3]["row_errors"] == ["trace_number: required value missing"]
    assert result.errors_summary == {"amount": 1, "deposit_date": 1, "trace_number": 1}


def test_a_deposit_file_without_a_trace_column_is_refused_naming_it():
    with pytest.raises(TabularFileError, match="trace_number") as err:
        read_tabular(b"Deposit Date,Amount,Memo\n01/05/2026,10.00,x\n", filename="bank.csv")
    assert "line 1" in str(err.value)


def test_generic_bank_deposits_profile_reads_its_columns():
    profile = builtin_profile("generic_bank_deposits")
    assert profile.entity == "deposit"
    data = b"Deposit Date,Amount,Trace Number,Account Last 4,Payer,Description\n2026-01-05,($5.00),T1,0042,ACME,x\n"
    result = read_tabular(data, filename="bank.csv", profile=profile)
    row = result.rows.to_dicts()[0]
    assert result.profile_used == "generic_bank_deposits" and result.unmapped_columns == ()
    assert (row["amount"], row["account_last4"], row["payer_name"]) == (Decimal("-5.00"), "0042", "ACME")


def test_scoped_synonyms_mean_different_fields_per_entity():
    # "Remit Date" is a payment date in a payment export and the denial date in a denial work list.
    assert detect_header([["Account", "Remit Date", "Paid Amount", "Check Number"]]).columns[1] == "payment_date"
    denial = detect_header([["Account", "Remit Date", "Denied Amount", "CARC"]])
    assert denial.entity == "denial" and denial.columns[1] == "denial_date"
    # A payment export with a trace column stays a payment export.
    assert detect_header([["Account", "Posting Date", "Paid Amount", "Trace Number"]]).entity == "payment"
