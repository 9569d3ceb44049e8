"""`denial-platform` command line: migrate, bootstrap and serve the API."""

from __future__ import annotations

import logging

import typer
import uvicorn
from rich.console import Console
from rich.panel import Panel

from api.bootstrap import bootstrap
from api.db import migrate as migrations
from api.db.session import Database
from api.settings import get_settings

app = typer.Typer(help="Denial-management platform operations", no_args_is_help=True)
console = Console()


@app.command()
def migrate() -> None:
    """Apply the database migrations (Alembic) to DATABASE_URL (default: SQLite under DATA_DIR)."""
    settings = get_settings()
    migrations.upgrade(settings.resolved_database_url)
    console.print(f"[green]Database at head[/green] ({Database(settings.resolved_database_url).engine.dialect.name})")


@app.command("bootstrap")
def bootstrap_cmd() -> None:
    """Create the demo organization, client and platform admin if they are missing."""
    settings = get_settings()
    result = bootstrap(settings, Database(settings.resolved_database_url))
    password = result.password or "(unchanged: set BOOTSTRAP_ADMIN_PASSWORD to the one you chose)"
    console.print(Panel.fit(
        f"email:     [bold]{result.email}[/bold]\npassword:  [bold]{password}[/bold]\n"
        f"org id:    {result.organization_id}\nclient id: {result.client_id}",
        title="Sign in with auth.login",
    ))


@app.command()
def serve(host: str = "127.0.0.1", port: int | None = None, reload: bool = False) -> None:
    """Serve the API with uvicorn on PORT (default 8000)."""
    settings = get_settings()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    uvicorn.run("api.main:app", host=host, port=port or settings.port, reload=reload, log_level="info")


@app.command()
def up(host: str = "127.0.0.1", port: int | None = None) -> None:
    """Migrate, bootstrap and serve: the embedded default in one command."""
    migrate()
    bootstrap_cmd()
    serve(host=host, port=port)


if __name__ == "__main__":
    app()
