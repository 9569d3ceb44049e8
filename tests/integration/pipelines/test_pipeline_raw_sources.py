"""Raw zone against a real operational database and landing zone: confirmed batches, drops, removal.

Uses the warehouse helpers the raw assets call (no Dagster), on a migrated SQLite database.
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from api.infra.landing.zone import LandingZone
from api.money.ingestion.models import ImportBatch, LandingFile
from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.warehouse.extract import EXTRACT_TABLES, ExtractTable, extract_table, read_table
from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.loading import sync_raw_kind
from pipelines.warehouse.sources import SourceError, current_sources
from tests.integration.pipelines.conftest import CLIENT_ID, ORGANIZATION_ID, make_operational_db


@pytest.fixture
def world(tmp_path):
    corpus = tmp_path / "corpus"
    generate_corpus(CorpusSpec(seed=5, claims=40, months=2, write_csv=False), corpus)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    url = make_operational_db(data_dir)
    engine = create_engine(url)
    yield data_dir, corpus, engine
    engine.dispose()


def confirm_batch(engine, layout: WarehouseLayout, data: bytes, name: str, kind: str = "era_835") -> int:
    stored = LandingZone(layout.landing_dir).store(data)
    with Session(engine) as session:
        landing = LandingFile(
            organization_id=ORGANIZATION_ID,
            client_id=CLIENT_ID,
            content_sha256=stored.sha256,
            size_bytes=stored.size,
            original_filename=name,
        )
        session.add(landing)
        session.flush()
        batch = ImportBatch(
            organization_id=ORGANIZATION_ID,
            client_id=CLIENT_ID,
            landing_file_id=landing.id,
            kind=kind,
            source_filename=name,
            content_sha256=stored.sha256,
            size_bytes=stored.size,
            status="confirmed",
            parser_version="test",
            confirmed_at=datetime.now(UTC),
        )
        session.add(batch)
        session.commit()
        return batch.id


def test_confirmed_batch_files_land_with_their_tenant_and_batch(world):
    data_dir, corpus, engine = world
    layout = WarehouseLayout.at(data_dir)
    remit = sorted(corpus.glob("remits_*.835"))[0]
    batch_id = confirm_batch(engine, layout, remit.read_bytes(), remit.name)
    # The same bytes also dropped in the client's folder count once, as the batch.
    drop = layout.drop_dir / f"client_{CLIENT_ID}"
    drop.mkdir(parents=True)
    (drop / remit.name).write_bytes(remit.read_bytes())

    sources = current_sources(engine, layout)
    assert [(s.batch_id, s.kind) for s in sources] == [(batch_id, "835")]
    result = sync_raw_kind(layout, "835", sources)
    assert result.parsed == [remit.name]
    claims = pl.read_parquet(layout.raw_glob("remittance_claims"))
    assert claims.height == result.tables["remittance_claims"].rows > 0
    assert set(claims["batch_id"].unique()) == {batch_id}
    assert set(claims["organization_id"].unique()) == {ORGANIZATION_ID}
    assert set(claims["client_id"].unique()) == {CLIENT_ID}
    assert set(claims["source_file_sha256"].unique()) == {sources[0].sha256}


def test_files_of_batches_no_longer_confirmed_are_removed(world):
    data_dir, corpus, engine = world
    layout = WarehouseLayout.at(data_dir)
    remit = sorted(corpus.glob("remits_*.835"))[0]
    batch_id = confirm_batch(engine, layout, remit.read_bytes(), remit.name)
    sync_raw_kind(layout, "835", current_sources(engine, layout))
    assert len(list(layout.raw_table_dir("remittance_claims").glob("*_c*.parquet"))) == 1

    with engine.begin() as conn:
        conn.execute(text("update import_batches set status = 'discarded' where id = :id"), {"id": batch_id})
    result = sync_raw_kind(layout, "835", current_sources(engine, layout))
    assert result.removed == [remit.name]
    assert list(layout.raw_table_dir("remittance_claims").glob("*_c*.parquet")) == []
    assert pl.read_parquet(layout.raw_glob("remittance_claims")).height == 0  # only the schema file is left
    assert result.tables["remittance_claims"].rows == 0


def test_a_drop_folder_of_an_unknown_client_is_an_error(world):
    data_dir, _corpus, engine = world
    layout = WarehouseLayout.at(data_dir)
    (layout.drop_dir / "client_999").mkdir(parents=True)
    with pytest.raises(SourceError, match="client_999: client 999 does not exist"):
        current_sources(engine, layout)


def test_a_confirmed_batch_whose_landing_file_is_missing_is_an_error(world):
    data_dir, corpus, engine = world
    layout = WarehouseLayout.at(data_dir)
    remit = sorted(corpus.glob("remits_*.835"))[0]
    batch_id = confirm_batch(engine, layout, remit.read_bytes(), remit.name)
    path = layout.landing_path(next(iter(current_sources(engine, layout))).sha256)
    path.chmod(0o644)
    path.unlink()
    with pytest.raises(SourceError, match=f"import batch {batch_id}: its landing file"):
        current_sources(engine, layout)


def test_extract_is_typed_and_tolerates_a_table_that_does_not_exist_yet(world):
    data_dir, corpus, engine = world
    layout = WarehouseLayout.at(data_dir)
    remit = sorted(corpus.glob("remits_*.835"))[0]
    batch_id = confirm_batch(engine, layout, remit.read_bytes(), remit.name)
    result = extract_table(engine, layout, EXTRACT_TABLES["import_batches"])
    assert (result.rows, result.exists) == (1, True)
    frame = pl.read_parquet(result.path)
    assert frame.schema == pl.Schema(EXTRACT_TABLES["import_batches"].polars_schema())
    assert frame["id"].to_list() == [batch_id]
    assert frame["confirmed_at"].dtype == pl.Datetime("us", "UTC")

    future = ExtractTable(
        "cases",
        {"id": "id", "organization_id": "int", "client_id": "int", "opened_at": "ts", "expected_recovery": "money"},
    )
    frame, exists = read_table(engine, future)
    assert exists is False
    assert frame.height == 0
    assert frame.schema == pl.Schema(future.polars_schema())
