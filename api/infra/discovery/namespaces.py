"""Finding the namespace packages: `api/<context>/<namespace>/` and the infrastructure.

Discovery instead of hand-kept lists: a new namespace package under one of the
bounded contexts is picked up by the router (`procedures`, `job_handlers`), the
entry points (`routes`) and the migrations (`models`) without editing this
file. See docs/architecture.md, "Adding a namespace".
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

# The seven bounded contexts of NAMESPACES.md, then the infrastructure packages.
CONTEXTS: tuple[str, ...] = (
    "platform",
    "money",
    "denials",
    "evidence",
    "intelligence",
    "automation",
    "integrations",
)
INFRASTRUCTURE = "infra"


def namespace_packages() -> list[str]:
    """Dotted names of every package one level inside a context or the infrastructure."""
    names: list[str] = []
    for group in (*CONTEXTS, INFRASTRUCTURE):
        package = importlib.import_module(f"api.{group}")
        names.extend(f"api.{group}.{info.name}" for info in pkgutil.iter_modules(package.__path__) if info.ispkg)
    return names


def modules_named(name: str) -> list[ModuleType]:
    """Import `<package>.<name>` for every namespace package that has one."""
    modules = []
    for package in namespace_packages():
        qualified = f"{package}.{name}"
        try:
            modules.append(importlib.import_module(qualified))
        except ModuleNotFoundError as exc:
            if exc.name != qualified:
                raise
    return modules
