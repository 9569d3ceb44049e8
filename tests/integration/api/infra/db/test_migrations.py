"""Migrations and models agree, on SQLite and PostgreSQL (no create_all in production)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from api.infra.db.registry import load_all_models
from api.infra.db.session import normalise_url


def test_models_match_migrations(database_url):
    engine = create_engine(normalise_url(database_url))
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, load_all_models().metadata)
    finally:
        engine.dispose()
    assert diff == [], f"run `python -m api.infra.db.new_migration` — models and migrations differ: {diff}"
