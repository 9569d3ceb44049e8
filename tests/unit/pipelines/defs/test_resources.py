"""The warehouse resource takes its settings as configuration and the pipelines never import the API."""

from __future__ import annotations

import ast
from pathlib import Path

from sqlalchemy import text

from pipelines.defs.resources import build_engine, default_warehouse, normalise_database_url

PIPELINES_DIR = Path(__file__).resolve().parents[3] / "pipelines"


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, including imports inside functions."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_default_warehouse_reads_data_dir_and_database_url(tmp_path):
    resource = default_warehouse({"DATA_DIR": str(tmp_path), "DATABASE_URL": "postgresql://u@h/db"})
    assert resource.data_dir == str(tmp_path.resolve())
    assert resource.database_url == "postgresql://u@h/db"


def test_default_warehouse_falls_back_to_sqlite_in_data_dir(tmp_path):
    resource = default_warehouse({"DATA_DIR": str(tmp_path)})
    assert resource.database_url == f"sqlite:///{tmp_path.resolve() / 'platform.db'}"


def test_database_urls_are_routed_to_psycopg():
    assert normalise_database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_database_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_engine_reads_a_sqlite_database(tmp_path):
    engine = build_engine(f"sqlite:///{tmp_path / 'ops.db'}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("select 1")).scalar() == 1
    finally:
        engine.dispose()
