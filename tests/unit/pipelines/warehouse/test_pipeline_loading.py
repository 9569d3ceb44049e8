"""Parsing dropped files into the raw zone: once per content, atomically, removable, errors named."""

from __future__ import annotations

import json
import multiprocessing

import polars as pl
import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.warehouse import loading
from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.loading import RawLoadError, sync_raw_kind
from pipelines.warehouse.sources import drop_files

ORGS = {5: 50}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus")
    generate_corpus(CorpusSpec(seed=11, claims=60, months=2, claims_per_file=30), out)
    return out


@pytest.fixture
def layout(tmp_path, corpus):
    layout = WarehouseLayout.at(tmp_path)
    drop = layout.drop_dir / "client_5"
    drop.mkdir(parents=True)
    for path in corpus.iterdir():
        if path.suffix in (".835", ".837", ".csv"):
            (drop / path.name).write_bytes(path.read_bytes())
    return layout


def mtimes(layout: WarehouseLayout) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in layout.raw_dir.rglob("*.parquet")}


def test_each_file_is_parsed_once_and_rerunning_changes_nothing(layout, corpus):
    sources = drop_files(layout, ORGS)
    first = sync_raw_kind(layout, "835", sources)
    assert sorted(first.parsed) == sorted(p.name for p in corpus.glob("remits_*.835"))
    truth = json.loads((corpus / "ground_truth.json").read_text())
    assert str(first.tables["remittance_claims"].totals["paid_amount"]) == truth["x12"]["remit_total_paid"]
    assert str(first.tables["provider_adjustments"].totals["amount"]) == truth["x12"]["plb_total"]
    before = mtimes(layout)
    second = sync_raw_kind(layout, "835", drop_files(layout, ORGS))
    assert second.parsed == []
    assert sorted(second.kept) == sorted(first.parsed)
    assert mtimes(layout) == before
    assert second.tables["remittance_claims"].rows == first.tables["remittance_claims"].rows
    frame = pl.read_parquet(layout.raw_glob("remittance_claims"))
    assert frame.height == first.tables["remittance_claims"].rows
    assert set(frame["organization_id"]) == {50} and set(frame["client_id"]) == {5}
    assert frame["batch_id"].null_count() == frame.height


def test_a_new_parser_version_reparses(layout, monkeypatch):
    sync_raw_kind(layout, "837", drop_files(layout, ORGS))
    monkeypatch.setattr(loading, "RAW_PARSER_VERSION", "raw-next")
    again = sync_raw_kind(layout, "837", drop_files(layout, ORGS))
    assert len(again.parsed) == len(list((layout.drop_dir / "client_5").glob("*.837")))


def test_a_removed_file_leaves_the_raw_zone(layout):
    sync_raw_kind(layout, "837", drop_files(layout, ORGS))
    victim = sorted((layout.drop_dir / "client_5").glob("*.837"))[0]
    victim.unlink()
    result = sync_raw_kind(layout, "837", drop_files(layout, ORGS))
    assert result.removed == [victim.name]
    names = {p.name for p in layout.raw_table_dir("claims").glob("*.parquet")}
    assert all(victim.name not in n for n in names)


def test_a_broken_x12_file_fails_naming_the_file_and_segment_without_phi(layout, corpus):
    remit = sorted((layout.drop_dir / "client_5").glob("*.835"))[0]
    text = remit.read_text()
    segments = [seg.strip() for seg in text.split("~")]
    clp = next(seg for seg in segments if seg.startswith("CLP*"))
    fields = clp.split("*")
    broken = "*".join([*fields[:4], "12.3X", *fields[5:]])
    nm1 = next(seg for seg in segments[segments.index(clp) :] if seg.startswith("NM1*QC"))
    patient_last_name = nm1.split("*")[3]
    remit.write_text(text.replace(clp, broken, 1))
    with pytest.raises(RawLoadError) as caught:
        sync_raw_kind(layout, "835", drop_files(layout, ORGS))
    message = str(caught.value)
    assert remit.name in message
    assert "segment" in message
    assert patient_last_name not in message
    state = list(layout.raw_state_dir.glob("*.json")) if layout.raw_state_dir.exists() else []
    assert all(json.loads(p.read_text())["name"] != remit.name for p in state)


def test_a_csv_that_is_no_known_export_is_skipped_with_the_reason(layout):
    (layout.drop_dir / "client_5" / "notes.csv").write_text("colour,shape\nred,round\n")
    result = sync_raw_kind(layout, "csv", drop_files(layout, ORGS))
    assert "notes.csv" in result.skipped
    assert "header" in result.skipped["notes.csv"]
    assert "claims_export.csv" in result.parsed


@pytest.mark.slow
def test_parallel_parsing_writes_the_same_tables(layout, tmp_path, monkeypatch):
    sequential = sync_raw_kind(layout, "835", drop_files(layout, ORGS), workers=1)
    other = WarehouseLayout.at(tmp_path / "other")
    (other.drop_dir).mkdir(parents=True)
    (layout.drop_dir / "client_5").rename(other.drop_dir / "client_5")
    monkeypatch.setattr(loading, "_PARALLEL_MIN_BYTES", 0)
    parallel = sync_raw_kind(other, "835", drop_files(other, ORGS), workers=2)
    assert sorted(parallel.parsed) == sorted(sequential.parsed)
    for table, stats in sequential.tables.items():
        assert parallel.tables[table].rows == stats.rows
        assert parallel.tables[table].totals == stats.totals


@pytest.mark.slow
def test_the_raw_steps_of_one_run_share_their_parse_workers_and_stop_them(layout, monkeypatch):
    monkeypatch.setattr(loading, "_PARALLEL_MIN_BYTES", 0)
    assert multiprocessing.active_children() == []
    with loading.shared_parse_workers():
        remittances = sync_raw_kind(layout, "835", drop_files(layout, ORGS), workers=2)
        after_835 = {child.pid for child in multiprocessing.active_children()}
        claims = sync_raw_kind(layout, "837", drop_files(layout, ORGS), workers=2)
        after_837 = {child.pid for child in multiprocessing.active_children()}
    assert len(remittances.parsed) >= 2 and len(claims.parsed) >= 2
    # the 837 step ran in the very processes the 835 step started, and none outlives the run
    assert len(after_835) == 2
    assert after_837 == after_835
    assert multiprocessing.active_children() == []
