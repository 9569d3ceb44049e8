"""`denial-platform` command line: migrate, bootstrap and serve the API."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import typer
import uvicorn
from rich.console import Console
from rich.panel import Panel

from api.app import build_services
from api.core.settings import get_settings
from api.infra.db import migrate as migrations
from api.infra.db.session import Database
from launcher.bootstrap import BootstrapResult, bootstrap
from launcher.demo import DEMO_CLAIMS, DemoError
from launcher.demo import load as load_demo

REPO_ROOT = Path(__file__).resolve().parents[1]
app = typer.Typer(help="Denial-management platform operations", no_args_is_help=True)
console = Console()


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
    services = build_services(settings.model_copy(update={"job_worker_enabled": False}))
    try:
        with console.status("Loading demo data...") as status:
            result = load_demo(
                services,
                admin,
                claims=claims,
                run_pipeline=pipeline,
                progress=lambda msg: status.update(f"Loading demo data: {msg}"),
            )
    except DemoError as exc:
        console.print(f"[red]Demo data could not be loaded:[/red] {exc}")
        raise typer.Exit(1) from None
    finally:
        services.close()
    console.print(f"[green]Demo data loaded[/green]: {len(result.batches)} files from {result.corpus_dir}")
    if result.pipeline_status:
        console.print(f"Pipeline {result.pipeline_status} in {result.pipeline_seconds:.1f}s; marts published")


@app.command()
def serve(host: str = "127.0.0.1", port: int | None = None, reload: bool = False) -> None:
    """Serve the API with uvicorn on PORT (default 8000)."""
    settings = get_settings()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # access_log=False: uvicorn would log query strings (tRPC inputs); api.infra.access_log logs paths only.
    uvicorn.run(
        "api.main:app", host=host, port=port or settings.port, reload=reload, log_level="info", access_log=False
    )


@app.command()
def up(
    host: str = "127.0.0.1",
    port: int | None = None,
    dagster_port: int = 3000,
    with_demo: bool = typer.Option(True, "--demo/--no-demo", help="Load demo data and build the marts"),
) -> None:
    """Migrate, bootstrap, load demo data, start the Dagster UI and serve the API: one command."""
    settings = get_settings()
    migrate()
    bootstrap_cmd()
    if with_demo:
        try:
            demo(claims=DEMO_CLAIMS, pipeline=True)
        except typer.Exit:
            # The platform is still useful without demo marts: say so and keep going.
            console.print("[yellow]Continuing without demo analytics; see the message above.[/yellow]")
    dagster = _start_dagster_ui(settings, host, dagster_port)
    console.print(
        Panel.fit(
            f"API:       http://{host}:{port or settings.port}/api/rpc/system.ping\n"
            f"Health:    http://{host}:{port or settings.port}/api/health\n"
            f"Dagster:   http://{host}:{dagster_port} (assets, runs, sensors, schedules)",
            title="Denial-management platform",
        )
    )
    try:
        serve(host=host, port=port)
    finally:
        dagster.terminate()
        try:
            dagster.wait(timeout=20)
        except subprocess.TimeoutExpired:
            dagster.kill()


def _start_dagster_ui(settings, host: str, port: int) -> subprocess.Popen:
    """`dagster dev` (webserver + daemon for sensors and schedules) on this DATA_DIR's instance."""
    from pipelines.runner import ensure_dagster_home

    home = ensure_dagster_home(settings.resolved_data_dir)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "DATA_DIR": str(settings.resolved_data_dir),
        "DAGSTER_DISABLE_TELEMETRY": "true",
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    if settings.database_url:
        env["DATABASE_URL"] = settings.database_url
    log = open(settings.resolved_data_dir / "dagster.log", "ab")  # noqa: SIM115 - lives as long as the child
    return subprocess.Popen(
        [sys.executable, "-m", "dagster", "dev", "-w", str(REPO_ROOT / "workspace.yaml"), "-h", host, "-p", str(port)],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


if __name__ == "__main__":
    app()
