"""One generated corpus, one operational database and one full pipeline run, shared by the module's tests.

Real things only: the synthetic generator writes the files, a migrated SQLite database holds the
tenant, and the Dagster definitions materialise every asset in-process.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from api.infra.db import migrate
from pipelines.runner import RunSummary, run_pipeline
from pipelines.synthetic import CorpusSpec, generate_corpus

ORGANIZATION_ID = 41
CLIENT_ID = 17
# Every situation of the generator at its default rate, except re-deliveries: a re-delivered file in the
# drop folder is counted twice by the marts until the identity branch is merged (see
# test_pipeline_redelivery_truth.py, which compares them on their own corpus).
CORPUS_SPEC = CorpusSpec(seed=20261121, claims=300, months=6, claims_per_file=120, redelivery_rate=0.0)


@dataclass
class PipelineWorld:
    data_dir: Path
    database_url: str
    corpus_dir: Path
    truth: dict
    summary: RunSummary


def make_operational_db(data_dir: Path) -> str:
    """A migrated SQLite operational database with one organization and one client."""
    url = f"sqlite:///{data_dir / 'platform.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    now = datetime.now(UTC)
    with engine.begin() as conn:
        conn.execute(
            text(
                "insert into organizations (id, name, slug, status, created_at) "
                "values (:id, 'Pipeline Org', 'pipeline-org', 'active', :now)"
            ),
            {"id": ORGANIZATION_ID, "now": now},
        )
        conn.execute(
            text(
                "insert into clients (id, organization_id, name, status, created_at) "
                "values (:id, :org, 'Pipeline Hospital', 'active', :now)"
            ),
            {"id": CLIENT_ID, "org": ORGANIZATION_ID, "now": now},
        )
    engine.dispose()
    return url


def drop_corpus(corpus_dir: Path, data_dir: Path, client_id: int = CLIENT_ID) -> Path:
    """Copy the corpus's loadable files into DATA_DIR/drop/client_<id>/."""
    drop = data_dir / "drop" / f"client_{client_id}"
    drop.mkdir(parents=True, exist_ok=True)
    for path in corpus_dir.iterdir():
        if path.suffix in (".835", ".837", ".csv"):
            (drop / path.name).write_bytes(path.read_bytes())
    return drop


@contextmanager
def measured_after_generated_history() -> Iterator[None]:
    """Build the world's KPIs after its generated history ends, whatever today is.

    The generated history (6 months of service from 2026-01 with the payers' later reprocessing) runs past
    today: the KPIs are measured after its last day, so no remittance is a future-dated finding and the
    ground truth counts every claim (the build-date rule itself is tested with hand files). Every build of
    the shared world (the first and any rebuild a test makes) runs under it, or a rebuild on another day
    measures other months.
    """
    previous = os.environ.get("KPI_BUILD_DATE")
    os.environ["KPI_BUILD_DATE"] = "2099-12-31"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("KPI_BUILD_DATE", None)
        else:
            os.environ["KPI_BUILD_DATE"] = previous


@pytest.fixture(scope="session")
def pipeline_world(tmp_path_factory) -> PipelineWorld:
    corpus_dir = tmp_path_factory.mktemp("corpus")
    generate_corpus(CORPUS_SPEC, corpus_dir)
    data_dir = tmp_path_factory.mktemp("pipeline_data")
    url = make_operational_db(data_dir)
    drop_corpus(corpus_dir, data_dir)
    with measured_after_generated_history():
        summary = run_pipeline(data_dir, url)
    truth = json.loads((corpus_dir / "ground_truth.json").read_text())
    return PipelineWorld(data_dir, url, corpus_dir, truth, summary)
