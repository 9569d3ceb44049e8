"""Alembic environment: runs against the URL put in the config by api.infra.db.migrate."""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy.engine import Connection

from api.infra.db.registry import load_all_models
from api.infra.db.session import build_engine

config = context.config
target_metadata = load_all_models().metadata


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    # Migrations must not import application types: UtcDateTime is stored as a
    # plain timezone-aware timestamp.
    if type_ == "type" and type(obj).__name__ == "UtcDateTime":
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("no sqlalchemy.url in the Alembic config; run migrations through api.infra.db.migrate")
    engine = build_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        render_item=render_item,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
