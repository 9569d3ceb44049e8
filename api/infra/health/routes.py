"""`GET /api/health`: database and queue checks, 200 or 503."""

from __future__ import annotations

from typing import Protocol

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from api.core.settings import Settings
from api.infra.db.session import Database
from api.infra.health.checks import health


class Checked(Protocol):
    """What the endpoint needs of the services (the services container imports the packages it
    checks, so it is named by shape here, not imported)."""

    @property
    def database(self) -> Database: ...

    @property
    def settings(self) -> Settings: ...


def install(app: FastAPI, services: Checked) -> None:
    """Mount the health endpoint on `app`."""

    @app.get("/api/health", include_in_schema=False)
    async def get_health() -> JSONResponse:
        body, status = await run_in_threadpool(
            health, services.database, worker_enabled=services.settings.job_worker_enabled
        )
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
