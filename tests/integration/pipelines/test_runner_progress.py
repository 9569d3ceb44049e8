"""The runner's progress report (`run_pipeline(on_event=...)`, what the `pipeline.run` job logs): every step
of the run is reported once as started and once as finished, in that order, read from the run's persisted
event log while it runs."""

from __future__ import annotations

from pathlib import Path

from api.infra.db import migrate
from pipelines.runner import run_pipeline


def test_each_step_is_reported_once_started_and_once_done(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'platform.db'}"
    migrate.upgrade(database_url)
    seen: list[tuple[str, str]] = []
    summary = run_pipeline(
        tmp_path / "data",
        database_url,
        selection=["extract"],
        persist_runs=True,
        on_event=lambda step, kind: seen.append((step, kind)),
    )
    assert summary.success, summary.errors
    steps = sorted(summary.step_seconds)
    assert steps  # the extract group has steps: the test is not vacuous
    for step in steps:
        assert [kind for name, kind in seen if name == step] == ["STEP_START", "STEP_SUCCESS"], step
    assert sorted({name for name, _ in seen}) == steps
