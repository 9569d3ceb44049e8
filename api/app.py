"""The FastAPI application: the four public entry points on shared services."""

from __future__ import annotations

import importlib
import logging
import pkgutil
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from starlette.routing import Route

import api
from api.auth.oidc import OidcVerifier
from api.db.session import Database
from api.rpc.http import RpcEndpoint
from api.rpc.procedure import Registry, rpc
from api.settings import Settings, get_settings

log = logging.getLogger("api")


@dataclass
class Services:
    """Long-lived collaborators shared by every request."""

    settings: Settings
    database: Database
    oidc_verifier: OidcVerifier | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def close(self) -> None:
        for extra in self.extras.values():
            close = getattr(extra, "close", None)
            if callable(close):
                close()
        self.database.dispose()


def build_services(settings: Settings | None = None) -> Services:
    settings = settings or get_settings()
    verifier = None
    if settings.oidc_issuer and settings.oidc_audience:
        verifier = OidcVerifier(
            settings.oidc_issuer,
            settings.oidc_audience,
            settings.oidc_jwks_url,
            email_claim=settings.oidc_email_claim,
            leeway=settings.oidc_leeway_seconds,
        )
    return Services(settings=settings, database=Database(settings.resolved_database_url), oidc_verifier=verifier)


def load_procedures() -> Registry:
    """Import every `api/<domain>/procedures.py`; declaring is registering."""
    for info in pkgutil.iter_modules(api.__path__):
        if not info.ispkg:
            continue
        name = f"api.{info.name}.procedures"
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return rpc


def install_entry_points(app: FastAPI, services: Services) -> None:
    """Mount the non-RPC entry points each domain exposes (health, JWKS, webhooks)."""
    for info in pkgutil.iter_modules(api.__path__):
        if not info.ispkg:
            continue
        name = f"api.{info.name}.routes"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.install(app, services)


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    services = services or build_services(settings)
    registry = load_procedures()
    app = FastAPI(
        title="Denial-management platform", version=api.__version__, docs_url=None, redoc_url=None,
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.services = services
    app.router.routes.append(
        Route("/api/rpc/{path:path}", RpcEndpoint(registry, services).handle, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    )
    install_entry_points(app, services)
    for hook in services.extras.get("startup_hooks", []):
        hook(app)

    @app.on_event("shutdown")
    def _close() -> None:
        services.close()

    return app
