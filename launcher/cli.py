"""`denial-platform` command line: migrate, bootstrap, load the demo, serve the API, run everything (`up`)."""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer
import uvicorn
from rich.console import Console
from rich.panel import Panel

from api.app import build_services
from api.core.settings import get_settings
from api.infra.db import migrate as migrations
from api.infra.db.session import Database
from api.infra.jobs.worker import Worker
from api.infra.private_files import secure_data_dir
from launcher.backup import BackupError, create_backup, restore_backup
from launcher.bootstrap import BootstrapResult, bootstrap
from launcher.demo import DEMO_CLAIMS, DemoError, request_pipeline_run, wait_for_run
from launcher.demo import load as load_demo
from launcher.deployment import DeploymentError, run_workers, write_dagster_home
from launcher.scaffold import ScaffoldError, new_namespace
from launcher.up import Platform, UpOptions
from launcher.web_console import ConsoleBuildError
from launcher.web_console import build as build_console

app = typer.Typer(help="Denial-management platform operations", no_args_is_help=True)
console = Console()
REPO_ROOT = Path(__file__).resolve().parents[1]


@app.callback()
def _private_data_dir() -> None:
    """Every command writes under DATA_DIR (database, landing zone, keys, warehouse): make it 0700, umask 077."""
    secure_data_dir(get_settings().resolved_data_dir)


@app.command()
def migrate() -> None:
    """Apply the database migrations (Alembic) to DATABASE_URL (default: SQLite under DATA_DIR)."""
    settings = get_settings()
    migrations.upgrade(settings.resolved_database_url)
    console.print(f"[green]Database at head[/green] ({Database(settings.resolved_database_url).engine.dialect.name})")


@app.command("bootstrap")
def bootstrap_cmd() -> BootstrapResult:
    """Create the demo organization, client and platform admin if they are missing."""
    settings = get_settings()
    result = bootstrap(settings, Database(settings.resolved_database_url))
    password = result.password or "(unchanged: set BOOTSTRAP_ADMIN_PASSWORD to the one you chose)"
    console.print(
        Panel.fit(
            f"email:     [bold]{result.email}[/bold]\npassword:  [bold]{password}[/bold]\n"
            f"org id:    {result.organization_id}\nclient id: {result.client_id}",
            title="Sign in with auth.login",
        )
    )
    return result


@app.command()
def demo(
    claims: int = typer.Option(DEMO_CLAIMS, min=10, max=50_000, help="Size of the generated corpus"),
    pipeline: bool = typer.Option(True, help="Run the analytics pipeline after loading"),
) -> None:
    """Load generated demo data through the real upload procedures, confirm it and build the marts."""
    settings = get_settings()
    admin = bootstrap(settings, Database(settings.resolved_database_url))
    services = build_services(settings)
    try:
        with console.status("Loading demo data...") as status:
            result = load_demo(
                services, admin, claims=claims, progress=lambda msg: status.update(f"Loading demo data: {msg}")
            )
            console.print(f"[green]Demo data loaded[/green]: {len(result.batches)} files from {result.corpus_dir}")
            if pipeline:
                # The API's path: a queued `pipeline.run` job, executed here by this process's own worker.
                worker = services.job_worker or Worker(
                    services.database,
                    poll_seconds=settings.job_poll_seconds,
                    audit=services.audit,
                    settings=services.settings,
                )
                services.job_worker = worker
                worker.start()
                status.update("Running the analytics pipeline...")
                run = wait_for_run(services, result, request_pipeline_run(services, result))
    except DemoError as exc:
        console.print(f"[red]Demo data could not be loaded:[/red] {exc}")
        raise typer.Exit(1) from None
    finally:
        services.close()
    if pipeline:
        if run.status != "succeeded":
            console.print(f"[red]Pipeline run {run.id} {run.status}[/red]: {run.error}")
            raise typer.Exit(1)
        console.print(f"Pipeline run {run.id} succeeded in {run.seconds or 0:.1f}s; marts published")


@app.command()
def serve(host: str = "127.0.0.1", port: int | None = None, reload: bool = False) -> None:
    """Serve the API with uvicorn on PORT (default 8000)."""
    settings = get_settings()
    _configure_logging()
    # access_log=False: uvicorn would log query strings (tRPC inputs); api.infra.access_log logs paths only.
    uvicorn.run(
        "api.main:app", host=host, port=port or settings.port, reload=reload, log_level="info", access_log=False
    )


@app.command()
def worker(
    threads: int | None = typer.Option(None, min=1, max=32, help="Worker threads (default: JOB_WORKER_THREADS)"),
    grace: float = typer.Option(30.0, min=0, help="Seconds the jobs in hand get to finish after SIGTERM"),
) -> None:
    """Run the job worker as its own process (the API processes then run with JOB_WORKER_ENABLED=false)
    until SIGTERM or SIGINT. Applies no migration: the `migrate` step of the deployment does."""
    settings = get_settings()
    _configure_logging()
    run_workers(settings, threads=threads or settings.job_worker_threads, grace_seconds=grace)


@app.command("dagster-home")
def dagster_home_cmd() -> None:
    """Write DATA_DIR/dagster/dagster.yaml for the deployment profile: Dagster's storage on DAGSTER_PG_URL,
    the queued run coordinator (DAGSTER_MAX_CONCURRENT_RUNS); point DAGSTER_HOME at the folder printed."""
    try:
        home = write_dagster_home(get_settings())
    except DeploymentError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    console.print(f"[green]DAGSTER_HOME ready[/green]: {home}")


@app.command()
def up(
    *,
    host: str = typer.Option("127.0.0.1", help="Interface the API listens on"),
    port: int | None = typer.Option(None, help="API port (default: PORT, 8000)"),
    dagster_host: str = typer.Option("127.0.0.1", envvar="DAGSTER_HOST", help="Interface the Dagster UI listens on"),
    dagster_port: int = typer.Option(3000, envvar="DAGSTER_PORT", help="Dagster UI port"),
    with_demo: bool = typer.Option(True, "--demo/--no-demo", help="Load demo data and build the marts"),
    demo_claims: int = typer.Option(DEMO_CLAIMS, min=10, max=50_000, help="Size of the generated demo corpus"),
) -> None:
    """Migrate, bootstrap, then serve the API and the Dagster UI; demo data and the first build follow
    in the background. Ctrl-C (or SIGTERM) stops everything."""
    settings = get_settings()
    _configure_logging()
    migrate()
    admin = bootstrap_cmd()
    options = UpOptions(
        host=host,
        port=port or settings.port,
        dagster_host=dagster_host,
        dagster_port=dagster_port,
        demo=with_demo,
        demo_claims=demo_claims,
    )
    code = Platform(settings, admin, options, console).run()
    # Everything `up` started is stopped: leave without the interpreter's exit hooks (see Platform.run).
    os._exit(code)


@app.command("backup")
def backup_cmd(
    destination: Annotated[Path, typer.Argument(help="A folder outside DATA_DIR; the backup is a new folder in it")],
) -> None:
    """Back up the operational database, the keys, the audit checkpoints, the landing zone, evidence, the
    drop folders, the raw zone and the published marts snapshot (docs/operations.md). The API may keep
    running: SQLite is copied with its online backup API, PostgreSQL with pg_dump."""
    try:
        result = create_backup(get_settings(), destination)
    except BackupError as exc:
        console.print(f"[red]Backup failed[/red]: {exc}")
        raise typer.Exit(1) from None
    console.print(
        f"[green]Backup written[/green]: {result.path} ({result.database} database, {result.files} files, "
        f"{result.bytes:,} bytes). It holds the keys and PHI: keep it as private as DATA_DIR."
    )


@app.command("restore")
def restore_cmd(
    source: Annotated[Path, typer.Argument(help="A backup-<UTC> folder written by `backup`")],
) -> None:
    """Restore a backup into an empty DATA_DIR and an empty DATABASE_URL database (same kind as the backup),
    then migrate it to head. Every file is checked against the manifest before anything is written."""
    try:
        manifest = restore_backup(get_settings(), source)
    except BackupError as exc:
        console.print(f"[red]Restore refused[/red]: {exc}")
        raise typer.Exit(1) from None
    console.print(
        f"[green]Restored[/green] the backup of {manifest['created_at']} ({len(manifest['files'])} files); "
        "start the platform as usual."
    )


@app.command("console")
def console_cmd() -> None:
    """Rebuild the web console: its types from the contract, the type check, the bundle (console/dist)."""
    with tempfile.TemporaryDirectory() as work:
        try:
            build_console(Path(work))
        except ConsoleBuildError as exc:
            console.print(f"[red]Console build failed[/red]\n{exc}")
            raise typer.Exit(1) from None
    console.print("[green]Console built[/green]: console/src/gen/contract.ts and console/dist")


@app.command("new-namespace")
def new_namespace_cmd(
    context: Annotated[str, typer.Argument(help="The bounded context: platform, money, denials, evidence, ...")],
    name: Annotated[str, typer.Argument(help="The package name, snake_case (its namespace is the camelCase)")],
    root: Annotated[Path, typer.Option(help="The repository to write into")] = REPO_ROOT,
) -> None:
    """Write the skeleton of a namespace (docs/architecture.md, "Adding a namespace"): package, example
    list and get procedures, mirrored tests. Refuses an unknown context, a bad name, an existing namespace."""
    try:
        written = new_namespace(root, context, name)
    except ScaffoldError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    for path in written:
        console.print(f"  wrote {path.relative_to(root)}")
    console.print(
        f'Next: python -m api.infra.db.new_migration "{name}" (the example table), then the contract snapshot '
        "(docs/architecture.md, Adding a namespace)."
    )


def _configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")


if __name__ == "__main__":
    app()
