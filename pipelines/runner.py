"""Run the whole pipeline in-process: ``run_pipeline(data_dir, database_url)`` and a CLI.

The API's ``operations.runPipeline`` and the ``make up`` demo call ``run_pipeline``; it
materialises every asset (or a selection) of the code location with the warehouse bound
to ``data_dir`` and returns a summary: run id, status, timings, rows per asset.

    python -m pipelines.runner --data-dir data/local [--database-url sqlite:///...] [--select raw]
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipelines.warehouse.layout import secure_data_dir

if TYPE_CHECKING:  # dagster is imported lazily: the CLI's --help and the API's import stay fast
    import dagster as dg

DAGSTER_YAML = "telemetry:\n  enabled: false\n"


@dataclass
class RunSummary:
    """What one pipeline run did."""

    run_id: str
    status: str  # SUCCESS | FAILURE
    started_at: datetime
    finished_at: datetime
    step_seconds: dict[str, float] = field(default_factory=dict)
    row_counts: dict[str, int] = field(default_factory=dict)
    failed_steps: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    published_snapshot: str | None = None
    check_results: dict[str, bool] = field(default_factory=dict)  # "<asset>:<check>" -> passed

    @property
    def seconds(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()

    @property
    def success(self) -> bool:
        return self.status == "SUCCESS"

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "status": self.status,
            "startedAt": self.started_at.isoformat(),
            "finishedAt": self.finished_at.isoformat(),
            "seconds": round(self.seconds, 3),
            "stepSeconds": self.step_seconds,
            "rowCounts": self.row_counts,
            "failedSteps": self.failed_steps,
            "errors": self.errors,
            "publishedSnapshot": self.published_snapshot,
            "checksPassed": sum(self.check_results.values()),
            "checksFailed": sorted(k for k, ok in self.check_results.items() if not ok),
        }


def ensure_dagster_home(data_dir: str | os.PathLike[str]) -> Path:
    """``DATA_DIR/dagster`` with a ``dagster.yaml`` that switches telemetry off; returns the folder."""
    home = Path(data_dir).resolve() / "dagster"
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(DAGSTER_YAML)
    return home


#: ``on_event(step_key, kind)``: called as steps start and finish (kind: STEP_START, STEP_SUCCESS, ...).
StepListener = Callable[[str, str], None]


def _selection_keys(defs: dg.Definitions, selection: list[str] | None) -> list[dg.AssetKey] | None:
    """Asset keys for ``selection`` items: an asset key ("marts/fct_kpis_monthly") or a group name ("raw")."""
    if not selection:
        return None
    import dagster as dg

    graph = defs.resolve_asset_graph()
    keys = []
    for item in selection:
        key = dg.AssetKey.from_user_string(item)
        if graph.has(key):
            keys.append(key)
            continue
        group = [k for k in graph.get_all_asset_keys() if graph.get(k).group_name == item]
        if not group:
            raise ValueError(f"selection {item!r} is neither an asset key nor an asset group")
        keys.extend(group)
    return sorted(set(keys), key=lambda k: k.to_user_string())


def run_pipeline(
    data_dir: str | os.PathLike[str],
    database_url: str | None = None,
    *,
    selection: list[str] | None = None,
    persist_runs: bool = False,
    parse_workers: int | None = None,
    on_event: StepListener | None = None,
    warehouse_url: str | None = None,
) -> RunSummary:
    """Materialise the pipeline (or ``selection``: asset keys or group names) in this process.

    ``persist_runs`` records the run in ``DATA_DIR/dagster`` (visible in ``dagster dev`` with
    that DAGSTER_HOME); otherwise an ephemeral instance is used. ``on_event(step_key, kind)``
    is called as steps start and finish (the CLI's progress display). ``warehouse_url`` (a PostgreSQL
    URL) builds the marts there instead of in DuckDB (``pipelines.warehouse.pg_export``); the
    published snapshot is DuckDB either way.
    """
    from dagster import DagsterInstance

    from pipelines.definitions import build_definitions
    from pipelines.defs.dbt.project import ensure_manifest
    from pipelines.defs.resources import WarehouseResource, default_database_url
    from pipelines.warehouse.loading import shared_parse_workers

    data_dir = Path(data_dir).resolve()
    secure_data_dir(data_dir)
    database_url = database_url or default_database_url(data_dir)
    ensure_manifest()
    warehouse = WarehouseResource(
        data_dir=str(data_dir), database_url=database_url, parse_workers=parse_workers, warehouse_url=warehouse_url
    )
    defs = build_definitions(warehouse)
    job = defs.resolve_job_def("full_pipeline")
    keys = _selection_keys(defs, selection)
    if persist_runs:
        instance = DagsterInstance.from_config(str(ensure_dagster_home(data_dir)))
    else:
        instance = DagsterInstance.ephemeral()
    run_id = str(uuid.uuid4())
    started = datetime.now(UTC)
    # The raw steps of this run share one pool of parse workers instead of starting one each.
    with shared_parse_workers():
        result = _execute(job, instance, keys, run_id, on_event)
    summary = RunSummary(run_id, "SUCCESS" if result.success else "FAILURE", started, datetime.now(UTC))
    _record_steps(summary, instance.all_logs(run_id))
    _record_materialisations(summary, result)
    for evaluation in result.get_asset_check_evaluations():
        name = f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"
        summary.check_results[name] = bool(evaluation.passed)
    if summary.published_snapshot:
        from pipelines.warehouse.snapshot import read_pointer

        for name, rows in read_pointer(data_dir)["tables"].items():
            summary.row_counts[f"marts/{name}"] = int(rows)
    instance.dispose()
    return summary


#: The run's console shows warnings and errors only: its event log (a thousand DEBUG and INFO step events for
#: one build) stays in the instance, where the Dagster UI and the run summary read it. Progress on a console
#: is the caller's to print, from ``on_event`` (the `pipeline.run` job logs one line per step).
RUN_CONSOLE: dict[str, Any] = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def _execute(
    job: dg.JobDefinition,
    instance: dg.DagsterInstance,
    keys: list[dg.AssetKey] | None,
    run_id: str,
    on_event: StepListener | None,
) -> dg.ExecuteInProcessResult:
    """Run ``job`` in this process, reporting step events to ``on_event`` from a watcher thread."""
    stop = threading.Event()
    watcher = None
    if on_event is not None:
        watcher = threading.Thread(target=_watch, args=(instance, run_id, on_event, stop), daemon=True)
        watcher.start()
    try:
        return job.execute_in_process(
            run_config=RUN_CONSOLE, instance=instance, raise_on_error=False, asset_selection=keys, run_id=run_id
        )
    finally:
        stop.set()
        if watcher is not None:
            watcher.join(timeout=5)


def _record_steps(summary: RunSummary, records: Sequence[dg.EventLogEntry]) -> None:
    """Step durations, failed steps and their error messages, from the run's event log."""
    from dagster import DagsterEventType

    starts: dict[str, float] = {}
    for record in records:
        event = record.dagster_event
        if event is None or event.step_key is None:
            continue
        step = event.step_key
        if event.event_type == DagsterEventType.STEP_START:
            starts[step] = record.timestamp
        elif event.event_type in (DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE) and step in starts:
            summary.step_seconds[step] = round(record.timestamp - starts[step], 3)
        if event.event_type == DagsterEventType.STEP_FAILURE:
            summary.failed_steps.append(step)
            error = event.step_failure_data.error if event.step_failure_data else None
            if error is not None:
                summary.errors.append(f"{step}: {error.message.strip()[:2000]}")


def _record_materialisations(summary: RunSummary, result: dg.ExecuteInProcessResult) -> None:
    """Rows per materialised asset and the snapshot the publish step names."""
    for event in result.get_asset_materialization_events():
        mat = event.step_materialization_data.materialization
        rows = mat.metadata.get("dagster/row_count")
        if rows is not None and isinstance(rows.value, int):
            summary.row_counts[mat.asset_key.to_user_string()] = rows.value
        snapshot = mat.metadata.get("snapshot")
        if snapshot is not None:
            summary.published_snapshot = str(snapshot.value)


#: The step events the progress display reports.
_STEP_EVENTS = ("STEP_START", "STEP_SUCCESS", "STEP_FAILURE", "STEP_SKIPPED")


def _watch(instance: dg.DagsterInstance, run_id: str, on_event: StepListener, stop: threading.Event) -> None:
    """Report step starts and ends from the run's event log while it executes.

    Each pass reads only the step events stored since the last one (a cursor into the event log,
    filtered by type in the storage's query). Reading the whole log on every pass made the watcher's
    cost grow with the square of the run's events (a dbt build stores thousands), competing with the
    run itself for the interpreter."""
    from dagster import DagsterEventType

    kinds = {DagsterEventType(name) for name in _STEP_EVENTS}
    cursor: str | None = None
    while True:
        finished = stop.is_set()  # one more pass after the run ends, for its last events
        try:
            page = instance.get_records_for_run(run_id, cursor=cursor, of_type=kinds)
        except Exception:  # noqa: BLE001 - the run may not be registered yet
            page = None
        if page is not None:
            for record in page.records:
                event = record.event_log_entry.dagster_event
                if event is not None and event.step_key is not None:
                    on_event(event.step_key, event.event_type.value)
            cursor = page.cursor
        if finished:
            return
        time.sleep(0.3)


def main(argv: list[str] | None = None) -> int:
    """The ``python -m pipelines.runner`` command line; returns the exit code."""
    import typer
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
    from rich.table import Table

    app = typer.Typer(add_completion=False)
    exit_code = {"value": 0}

    # typer reads each option from its default (typer.Option), as this function's annotations are strings
    # and typer is imported here, lazily.
    @app.command()
    def run(
        data_dir: Path = typer.Option(  # noqa: B008
            Path(os.environ.get("DATA_DIR", "data/local")),  # noqa: B008
            help="Platform data directory.",
        ),
        database_url: str = typer.Option(
            os.environ.get("DATABASE_URL") or "",
            help="Operational database URL (default: SQLite in DATA_DIR).",
        ),
        select: list[str] = typer.Option(  # noqa: B008
            [], "--select", help="Asset key or group to run (repeatable); default everything."
        ),
        persist: bool = typer.Option(False, help="Record the run in DATA_DIR/dagster for the Dagster UI."),
        warehouse_url: str = typer.Option(
            os.environ.get("WAREHOUSE_URL") or "",
            help="PostgreSQL warehouse URL (default: DuckDB under DATA_DIR).",
        ),
    ) -> None:
        console = Console(file=sys.__stdout__)
        log_path = ensure_dagster_home(data_dir) / "last_run.log"
        progress_display = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console
        )
        # dagster-dbt echoes every dbt event to stdout; keep the terminal for the progress display.
        with (
            log_path.open("w") as log,
            contextlib.redirect_stdout(log),
            contextlib.redirect_stderr(log),
            progress_display as progress,
        ):
            overall = progress.add_task("pipeline", total=None)
            tasks: dict[str, TaskID] = {}

            def on_event(step: str, kind: str) -> None:
                if kind == "STEP_START":
                    tasks[step] = progress.add_task(f"[cyan]{step}", total=None)
                elif step in tasks:
                    mark = {
                        "STEP_SUCCESS": "[green]done",
                        "STEP_FAILURE": "[red]failed",
                        "STEP_SKIPPED": "[yellow]skipped",
                    }[kind]
                    progress.update(tasks[step], description=f"{step} {mark}", total=1, completed=1)

            summary = run_pipeline(
                data_dir,
                database_url or None,
                selection=list(select) or None,
                persist_runs=persist,
                on_event=on_event,
                warehouse_url=warehouse_url or None,
            )
            progress.update(overall, total=1, completed=1)
        table = Table(title=f"run {summary.run_id} - {summary.status} in {summary.seconds:.1f}s")
        table.add_column("asset")
        table.add_column("rows", justify="right")
        for key, rows in sorted(summary.row_counts.items()):
            table.add_row(key, f"{rows:,}")
        console.print(table)
        for error in summary.errors:
            console.print(f"[red]{error}")
        if summary.published_snapshot:
            console.print(f"published: {summary.published_snapshot}")
        console.print(f"dbt and Dagster logs: {log_path}")
        exit_code["value"] = 0 if summary.success else 1

    app(args=argv, standalone_mode=False)
    return exit_code["value"]


if __name__ == "__main__":
    raise SystemExit(main())
