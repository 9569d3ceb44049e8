"""`GET /api/health`: database and queue checks, 200 or 503."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from api.infra.health.checks import health

if TYPE_CHECKING:  # types only: api.core.services itself refers to infrastructure types
    from api.core.services import Services


def install(app: FastAPI, services: Services) -> None:
    """Mount the health endpoint on `app`."""

    @app.get("/api/health", include_in_schema=False)
    async def get_health() -> JSONResponse:
        body, status = await run_in_threadpool(
            health, services.database, worker_enabled=services.settings.job_worker_enabled
        )
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
