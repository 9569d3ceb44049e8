"""Imports every namespace's `models` module so `Base.metadata` knows all tables."""

from __future__ import annotations

from api.infra.db.base import Base
from api.infra.discovery.namespaces import modules_named


def load_all_models() -> type[Base]:
    modules_named("models")
    return Base
