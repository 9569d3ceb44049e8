"""Publishing under load: readers keep their snapshot, new readers get the published one, never a half-built mart.

Runs a second full build in a thread while readers read continuously, then checks the
re-run produced the same raw files and the same numbers (idempotency).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from pipelines.runner import run_pipeline
from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.snapshot import open_published, read_pointer
from tests.integration.pipelines.conftest import measured_after_generated_history

pytestmark = pytest.mark.slow

TOTALS_SQL = (
    "select count(*), sum(paid_amount), sum(patient_responsibility), sum(initial_denied_amount) "
    "from fct_claim_reconciliation"
)


def raw_files(data_dir: Path) -> dict[str, int]:
    raw = WarehouseLayout.at(data_dir).raw_dir
    return {str(p.relative_to(raw)): p.stat().st_mtime_ns for p in raw.rglob("*.parquet")}


def test_readers_during_a_build_and_an_idempotent_rerun(pipeline_world):
    data_dir = pipeline_world.data_dir
    before_pointer = read_pointer(data_dir)
    before_files = raw_files(data_dir)
    holder = open_published(data_dir)
    expected_totals = holder.connection.execute(TOTALS_SQL).fetchone()

    outcome: dict = {}

    def build() -> None:
        with measured_after_generated_history():
            outcome["summary"] = run_pipeline(data_dir, pipeline_world.database_url)

    thread = threading.Thread(target=build)
    thread.start()
    snapshots_seen: set[str] = set()
    reads = 0
    try:
        while thread.is_alive():
            with open_published(data_dir) as snap:
                snapshots_seen.add(snap.path.name)
                # A reader sees whole marts: every table has the row count its pointer promised,
                # and the money is the same as in the snapshot published before the build.
                for name, rows in snap.tables.items():
                    assert snap.connection.execute(f"select count(*) from {name}").fetchone()[0] == rows
                assert snap.connection.execute(TOTALS_SQL).fetchone() == expected_totals
            # The reader that opened before the build keeps reading its snapshot.
            assert holder.connection.execute(TOTALS_SQL).fetchone() == expected_totals
            reads += 1
            time.sleep(0.05)
    finally:
        thread.join()
    summary = outcome["summary"]
    assert summary.success, summary.errors

    after_pointer = read_pointer(data_dir)
    old_name = Path(before_pointer["snapshot"]).name
    assert reads > 0
    assert old_name in snapshots_seen, "readers during the build get the previously published snapshot"
    assert after_pointer["snapshot"] != before_pointer["snapshot"], "the pointer switched to the new snapshot"
    assert Path(before_pointer["snapshot"]).is_file(), "the previous snapshot is kept for readers still using it"
    assert holder.connection.execute(TOTALS_SQL).fetchone() == expected_totals
    holder.close()

    # Idempotency: the second run parsed nothing again and built the same numbers.
    assert raw_files(data_dir) == before_files
    assert summary.row_counts["raw/remittance_claims"] == pipeline_world.summary.row_counts["raw/remittance_claims"]
    with open_published(data_dir) as snap:
        assert snap.connection.execute(TOTALS_SQL).fetchone() == expected_totals
        assert snap.tables == before_pointer["tables"]


def test_an_unbalanced_payer_file_warns_but_still_publishes(tmp_path):
    """A remittance that does not balance is the payer's data, not our bug: the balance check
    fails visibly (a warning asset check) but every tenant still gets a fresh snapshot."""
    from pipelines.synthetic import CorpusSpec, generate_corpus
    from tests.integration.pipelines.conftest import drop_corpus, make_operational_db

    corpus = tmp_path / "corpus"
    generate_corpus(CorpusSpec(seed=9, claims=30, months=2, write_csv=False), corpus)
    remit = sorted(corpus.glob("remits_*.835"))[0]
    segments = remit.read_text().split("~")
    at = next(i for i, seg in enumerate(segments) if seg.strip().startswith("CLP*") and seg.split("*")[2] == "1")
    fields = segments[at].split("*")
    fields[4] = f"{float(fields[4]) + 1:.2f}"  # CLP04 one dollar more than the adjustments allow
    segments[at] = "*".join(fields)
    remit.write_text("~".join(segments))
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    url = make_operational_db(data_dir)
    drop_corpus(corpus, data_dir)

    summary = run_pipeline(data_dir, url)
    assert summary.success, summary.errors
    assert WarehouseLayout.at(data_dir).published_pointer.exists()
    failed_checks = [name for name, passed in summary.check_results.items() if not passed]
    assert any("money_balances_fct_remittance_claims" in name for name in failed_checks), failed_checks


def test_two_concurrent_runs_on_one_data_dir_both_succeed(tmp_path):
    """A sensor's run and an API-requested run may overlap: each builds its own database, and
    the pointer always names a complete snapshot."""
    import threading

    from pipelines.synthetic import CorpusSpec, generate_corpus
    from pipelines.warehouse.snapshot import open_published
    from tests.integration.pipelines.conftest import drop_corpus, make_operational_db

    corpus = tmp_path / "corpus"
    generate_corpus(CorpusSpec(seed=11, claims=40, months=2, write_csv=False), corpus)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    url = make_operational_db(data_dir)
    drop_corpus(corpus, data_dir)

    summaries = []
    threads = [threading.Thread(target=lambda: summaries.append(run_pipeline(data_dir, url))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert len(summaries) == 2 and all(s.success for s in summaries), [s.errors for s in summaries]
    assert len({s.run_id for s in summaries}) == 2
    with open_published(data_dir) as snapshot:
        claims = snapshot.connection.execute("select count(*) from fct_claim_reconciliation").fetchone()[0]
    assert claims == 40
