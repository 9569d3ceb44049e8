"""BAI2 -> deposits CSV: hand-written files with hand-worked deposits, properties, hostile input.

The expected numbers below were worked out by hand from the fixture files (BAI2 v2: amounts in
cents, 49-01 = the 03 and 16 amounts of the account, 98-01 = the 49-01s, 99-01 = the 98-01s).
"""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.integrations.integration_control import bai2_deposits
from api.integrations.integration_control.bai2_deposits import to_deposits_csv
from pipelines.ingest.tabular.read import read_tabular

FIXTURES = Path(__file__).parents[4] / "fixtures" / "bai2"


def _rows(csv_bytes: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(csv_bytes.decode("utf-8"))))


def test_multi_group_file_gives_the_hand_worked_deposits() -> None:
    out, summary = to_deposits_csv((FIXTURES / "multi_group.bai2").read_bytes())
    rows = _rows(out)
    # Group 1 (as of 2026-11-19): account ...9012 has a 165 ACH credit of 125050 cents whose text
    # carries TRN*1*EFT20261119A, a 475 check paid (debit) and a 399 miscellaneous credit (not a
    # deposit); account ...7777 has a 115 lockbox deposit of 98765 with customer reference
    # CHK556677, a zero 165 and an unknown 921. Group 2 (2026-11-20, currency blank = USD): a 165 of
    # 250000 whose TRN arrives in an 88 continuation, a 195 wire of 10001 with only a bank reference.
    assert [(r["deposit_date"], r["amount"], r["trace_number"], r["account_last4"]) for r in rows] == [
        ("2026-11-19", "1250.50", "EFT20261119A", "9012"),
        ("2026-11-19", "987.65", "CHK556677", "7777"),
        ("2026-11-20", "2500.00", "EFT20261120B", "2222"),
        ("2026-11-20", "100.01", "BR0008", "2222"),
    ]
    assert rows[2]["description"].startswith("Preauthorized ACH Credit ACME HEALTH PLAN HCCLAIMPMT")
    assert summary.groups == 2
    assert summary.accounts == 3
    assert summary.details == 8
    assert summary.deposits == 4
    assert summary.deposit_cents == 125050 + 98765 + 250000 + 10001 == 483816
    assert (summary.debits, summary.debit_cents) == (1, 30000)
    assert (summary.other_credits, summary.other_credit_cents) == (1, 777)
    assert summary.zero_amount == 1
    assert summary.unknown_type_codes == {"921": 1}
    assert summary.trace_sources == {"trn": 2, "customer_reference": 1, "bank_reference": 1}


def test_the_csv_is_read_by_the_pipeline_as_a_deposit_export() -> None:
    out, _ = to_deposits_csv((FIXTURES / "multi_group.bai2").read_bytes())
    result = read_tabular(out, filename="bank_2026-11-20.csv")
    assert result.entity == "deposit"
    assert result.invalid_count == 0
    assert result.unmapped_columns == ()
    assert [str(a) for a in result.rows["amount"].to_list()] == ["1250.50", "987.65", "2500.00", "100.01"]
    assert result.rows["trace_number"].to_list() == ["EFT20261119A", "CHK556677", "EFT20261120B", "BR0008"]


def test_a_control_total_off_by_one_cent_refuses_the_whole_file_naming_the_record() -> None:
    # bad_account_total.bai2 is multi_group.bai2 with account ...7777's 49-01 (and, so that only
    # that check can fail, the 98-01 and 99-01 above it) one cent higher.
    with pytest.raises(InvalidInput, match=r"49 account trailer.*expected 102966, found 102965"):
        to_deposits_csv((FIXTURES / "bad_account_total.bai2").read_bytes())


def test_a_truncated_file_is_refused() -> None:
    with pytest.raises(InvalidInput, match="99 file trailer"):
        to_deposits_csv((FIXTURES / "truncated.bai2").read_bytes())


def _replace_line(start: str, new: str) -> bytes:
    text = (FIXTURES / "multi_group.bai2").read_text()
    lines = [new if line.startswith(start) else line for line in text.splitlines()]
    return "\n".join(lines).encode()


@pytest.mark.parametrize(
    ("start", "new", "match"),
    [
        ("98,260001", "98,260001,1,8/", r"number of records in a 98 group trailer: expected 8, found 7"),
        ("99,", "99,1018793,3,21/", r"number of groups"),
        ("99,", "99,1018792,2,21/", r"99 file trailer"),
        ("98,758792", "98,758791,2,12/", r"98 group trailer"),
        ("02,HOSPRCVR,BANKSNDR,1,261120", "02,HOSPRCVR,BANKSNDR,1,261120,2400,CAD,2/", "not USD"),
        ("02,HOSPRCVR,BANKSNDR,1,261120", "02,HOSPRCVR,BANKSNDR,1,261340,2400,,2/", "malformed"),
        ("16,195", "16,195,1O001,0,BR0008,,WIRE", "malformed"),
        ("16,195", "16,19X,10001,0,BR0008,,WIRE", "type code"),
        ("01,", "01,BANKSNDR,HOSPRCVR,261120,0800,1,80,,3/", "not supported"),
    ],
)
def test_broken_records_are_refused_with_a_domain_error(start: str, new: str, match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        to_deposits_csv(_replace_line(start, new))


def test_errors_never_quote_account_numbers() -> None:
    with pytest.raises(InvalidInput) as caught:
        to_deposits_csv(_replace_line("03,555566667777", "03,555566667777,USD,010,ABC,,/"))
    assert "555566667777" not in str(caught.value)


def test_attacker_sizes_are_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidInput, match="at most"):
        to_deposits_csv(b"01," + b"9" * bai2_deposits.MAX_BAI2_BYTES)
    monkeypatch.setattr(bai2_deposits, "MAX_BAI2_LINES", 10)
    with pytest.raises(InvalidInput, match="records; at most 10"):
        to_deposits_csv((FIXTURES / "multi_group.bai2").read_bytes())


def _file(details: list[tuple[str, int]], *, continuation_every: int = 0) -> bytes:
    """One group, one account, the given (type code, cents) details; totals computed here the way
    BAI2 defines them (not by the code under test)."""
    body = ["03,000099998888,USD,/"]
    for n, (code, cents) in enumerate(details):
        if continuation_every and n % continuation_every == 0:
            body += [f"16,{code},{cents},0,B{n},", f"88,C{n},TEXT {n}"]
        else:
            body.append(f"16,{code},{cents},0,B{n},C{n},TEXT {n}")
    total = sum(c for _, c in details)
    body.append(f"49,{total},{len(body) + 1}/")
    lines = [
        "01,S,R,261120,0800,1,80,,2/",
        "02,R,S,1,261120,2400,USD,2/",
        *body,
        f"98,{total},1,{len(body) + 2}/",
        f"99,{total},1,{len(body) + 4}/",
    ]
    return "\n".join(lines).encode()


_CODES = st.sampled_from(["115", "142", "165", "169", "175", "195", "301", "399", "354", "475", "451", "921", "890"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_CODES, st.integers(0, 10**12)), min_size=1, max_size=30), st.integers(0, 4))
def test_deposits_add_up_to_the_qualifying_credits(details: list[tuple[str, int]], every: int) -> None:
    out, summary = to_deposits_csv(_file(details, continuation_every=every))
    qualifying = [c for code, c in details if code in bai2_deposits.DEPOSIT_TYPE_CODES and c > 0]
    rows = _rows(out)
    assert len(rows) == len(qualifying) == summary.deposits
    assert sum(int(r["amount"].replace(".", "")) for r in rows) == sum(qualifying) == summary.deposit_cents
    assert summary.details == len(details)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_the_domain_error(data: bytes) -> None:
    with contextlib.suppress(InvalidInput):
        to_deposits_csv(data)


_VALID = (FIXTURES / "multi_group.bai2").read_bytes()


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(_VALID) - 1), st.binary(min_size=0, max_size=8), st.integers(0, 8))
def test_mutated_files_raise_only_the_domain_error(at: int, insert: bytes, cut: int) -> None:
    with contextlib.suppress(InvalidInput):
        to_deposits_csv(_VALID[:at] + insert + _VALID[at + cut :])


def test_a_large_file_is_read_in_one_pass() -> None:
    # 50,000 details (a few MB): linear in the records; a quadratic step would not finish here.
    details = [("165", 100 + n) for n in range(50_000)]
    _, summary = to_deposits_csv(_file(details, continuation_every=7))
    assert summary.deposits == 50_000
    assert summary.deposit_cents == sum(100 + n for n in range(50_000))
