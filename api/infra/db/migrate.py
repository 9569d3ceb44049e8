"""Alembic migrations run programmatically (the CLI and tests share this)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from api.infra.db.session import normalise_url

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    # ConfigParser interpolation would treat '%' in passwords as syntax.
    cfg.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    cfg.attributes["configure_logging"] = False
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)
