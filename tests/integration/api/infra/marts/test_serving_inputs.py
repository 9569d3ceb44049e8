"""The shared serving helpers without a pipeline: filters, cursors, money, the missing snapshot."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from api.core.errors import InvalidInput, PreconditionFailed
from api.infra.marts.inputs import (
    DateRange,
    MartPageInput,
    MonthRange,
    decode_offset,
    encode_offset,
    month_label,
    month_start,
    page_as,
    payer_filter,
)
from api.infra.marts.serving import MartAnswer, Money, snapshot_of, to_money
from api.infra.snapshot.reader import MartReader, MartRow


@given(st.integers(min_value=0, max_value=10**12))
def test_offset_cursors_round_trip(offset):
    assert decode_offset(encode_offset(offset)) == offset


@pytest.mark.parametrize("offset", [2**62 + 1, 2**63, 2**64, 10**40])
def test_an_offset_beyond_64_bits_is_a_bad_request_not_a_database_error(offset):
    with pytest.raises(InvalidInput, match="'cursor'"):
        decode_offset(encode_offset(offset))


@given(st.text(max_size=30))
def test_any_other_cursor_is_a_bad_request(text):
    try:
        value = decode_offset(text)
    except InvalidInput as exc:
        assert "cursor" in exc.message
    else:  # only the empty cursor or a genuine offset cursor decodes, to a non-negative offset
        assert isinstance(value, int) and value >= 0


@given(st.integers(min_value=1900, max_value=2200), st.integers(min_value=1, max_value=12))
def test_months_parse_to_their_first_day(year, month):
    label = f"{year:04d}-{month:02d}"
    assert month_label(month_start(label)) == label
    assert MonthRange(from_month=label, to_month=label).from_month == label


@pytest.mark.parametrize("bad", ["2026-00", "2026-13", "26-01", "2026/01", "2026-1", ""])
def test_malformed_months_are_refused_by_field(bad):
    with pytest.raises(ValidationError) as err:
        MonthRange.model_validate({"fromMonth": bad})
    assert err.value.errors()[0]["loc"] == ("fromMonth",)


def test_ranges_must_be_ordered_and_bounded():
    with pytest.raises(ValidationError, match="fromMonth must not be after toMonth"):
        MonthRange(from_month="2026-05", to_month="2026-04")
    with pytest.raises(ValidationError, match="at most 120 months"):
        MonthRange(from_month="2000-01", to_month="2026-04")
    with pytest.raises(ValidationError, match="fromDate must not be after toDate"):
        DateRange(from_date="2026-05-02", to_date="2026-05-01")
    where, params = MonthRange(from_month="2026-01").month_params("month")
    assert where == "month >= $from_month" and params == {"from_month": month_start("2026-01")}
    assert MonthRange().month_params("month") == ("true", {})


def test_money_is_exact_two_places_and_refuses_floats():
    assert to_money(Decimal("1.005")) == Decimal("1.01")
    assert to_money(None) == Decimal("0.00")
    assert to_money(3) == Decimal("3.00")
    with pytest.raises(TypeError):
        to_money(0.1)

    class Out(MartAnswer):
        amount: Money

    snap = {"built_at": datetime(2026, 1, 1, tzinfo=UTC), "age_seconds": 1.0}
    assert json.loads(Out(snapshot=snap, amount=Decimal("12.3")).model_dump_json(by_alias=True))["amount"] == "12.30"


def test_without_a_snapshot_the_reader_says_run_the_pipeline(tmp_path):
    reader = MartReader(tmp_path)
    with pytest.raises(PreconditionFailed) as err, reader.scoped(1, 1):
        pass
    assert "operations.runPipeline" in err.value.message


def test_snapshot_descriptor_and_tenant_views(tmp_path):
    db = tmp_path / "marts_x.duckdb"
    con = duckdb.connect(str(db))
    con.execute(
        "create table fct_x as select * from (values (1, 1, 10), (1, 2, 20), (2, 3, 30)) t(organization_id, client_id, v)"
    )
    con.close()
    (tmp_path / "published.json").write_text(
        json.dumps({"snapshot": str(db), "built_at": "2026-01-01T00:00:00Z", "run_id": "r1", "tables": {"fct_x": 3}})
    )
    reader = MartReader(tmp_path)
    with reader.scoped(1, 2) as m:
        assert m.rows("select v from fct_x") == [{"v": 20}]
        snap = snapshot_of(m, now=datetime(2026, 1, 1, 0, 1, tzinfo=UTC))
        assert snap.run_id == "r1" and snap.age_seconds == 60.0
    with reader.scoped(1, None) as m:
        assert sorted(r["v"] for r in m.rows("select v from fct_x")) == [10, 20]


def test_the_reader_follows_the_schema_the_pointer_names(tmp_path):
    db = tmp_path / "marts_y.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create schema marts")
    con.execute(
        "create table marts.fct_y as select * from (values (1, 1, 5), (9, 9, 99)) t(organization_id, client_id, v)"
    )
    con.close()
    (tmp_path / "published.json").write_text(
        json.dumps({"snapshot": str(db), "schema": "marts", "built_at": "2026-01-01T00:00:00Z"})
    )
    with MartReader(tmp_path).scoped(1, 1) as m:
        assert m.has("fct_y") and m.rows("select v from fct_y") == [{"v": 5}]
        with pytest.raises(RuntimeError, match="unqualified"):
            m.rows("select v from snap.marts.fct_y")


def test_one_is_for_aggregates_one_or_none_for_lookups_and_rows_validate_into_models(tmp_path):
    db = tmp_path / "marts_z.duckdb"
    con = duckdb.connect(str(db))
    con.execute(
        "create table fct_z as select * from (values (1, 1, 'a', 7), (1, 2, 'b', 8)) t(organization_id, client_id, k, v)"
    )
    con.close()
    (tmp_path / "published.json").write_text(json.dumps({"snapshot": str(db), "built_at": "2026-01-01T00:00:00Z"}))

    class Row(MartRow):
        k: str
        v: int

    with MartReader(tmp_path).scoped(1, 1) as m:
        assert m.one("select count(*) as n from fct_z where k = 'b'") == {"n": 0}
        with pytest.raises(LookupError):
            m.one("select v from fct_z where k = 'b'")
        assert m.one_or_none("select v from fct_z where k = 'b'") is None
        assert m.one_or_none("select v from fct_z where k = 'a'") == {"v": 7}
        assert m.rows_as(Row, "select * from fct_z") == [Row(k="a", v=7)]
        assert m.one_as(Row, "select k, v from fct_z") == Row(k="a", v=7)
        with pytest.raises(ValidationError):
            m.one_as(Row, "select 'x' as k, 'not a number' as v")
        rows, cursor = page_as(m, Row, "select k, v from fct_z order by k", {}, MartPageInput(limit=1))
        assert rows == [Row(k="a", v=7)] and cursor is None


def test_payer_filter_narrows_only_when_a_payer_is_given():
    params: dict = {}
    assert payer_filter("true", params, None) == "true" and params == {}
    assert payer_filter("true", params, "ACME") == "true and upper(payer_key) = $payer"
    assert params == {"payer": "ACME"}
