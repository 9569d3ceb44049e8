"""Test worker (run as a subprocess): a real `Worker` claims one job of KIND and runs a handler that writes
a marker file and then sleeps, so the parent can SIGKILL the process while the job runs."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from api.infra.db.registry import load_all_models
from api.infra.db.session import Database
from api.infra.jobs.handlers import HandlerRegistry, JobContext
from api.infra.jobs.worker import Worker


def main(url: str, kind: str, marker: str) -> None:
    load_all_models()
    registry = HandlerRegistry()

    @registry.register(kind)
    def running(ctx: JobContext) -> dict[str, int]:
        Path(marker).write_text(str(ctx.job_id))
        time.sleep(120)
        return {"finished": 1}  # never reached when the parent kills us

    Worker(Database(url), registry=registry, kinds=[kind]).run_once()


if __name__ == "__main__":
    main(*sys.argv[1:4])
