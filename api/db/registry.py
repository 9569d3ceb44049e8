"""Imports every `api/<domain>/models.py` so `Base.metadata` knows all tables.

Discovery instead of a hand-kept list: a new domain package with a `models`
module is picked up by migrations and tests without touching this file.
"""

from __future__ import annotations

import importlib
import pkgutil

import api
from api.db.base import Base


def load_all_models() -> type[Base]:
    for info in pkgutil.iter_modules(api.__path__):
        if not info.ispkg:
            continue
        name = f"api.{info.name}.models"
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return Base
