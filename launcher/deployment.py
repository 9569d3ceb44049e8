"""The deployment past one machine (docs/operations.md): Dagster's instance file and the job worker process.

`dagster_yaml` is the ``dagster.yaml`` every Dagster process of the profile reads (``DAGSTER_HOME``):
run, event-log and schedule storage on PostgreSQL (dagster-postgres; the URL stays in the
environment, ``DAGSTER_PG_URL``, never in the file), the ``QueuedRunCoordinator`` (the daemon
dequeues at most ``DAGSTER_MAX_CONCURRENT_RUNS`` runs at once) and the default run launcher (each run
a process on the daemon's machine). A run's steps go to the multiprocess executor, bounded by
``DAGSTER_MAX_CONCURRENT_STEPS`` (``pipelines.defs.automation.jobs``).

`run_workers` is ``launcher.cli worker``: the API's job worker as a process of its own, several
threads, until SIGTERM or SIGINT; then each thread finishes the job it holds within the grace
period and whatever the jobs started (dbt, parse workers) is ended before the process leaves.
A job still running at the end of the grace period is abandoned: its lock names this process,
which is gone, so the next worker on this machine gives it back at once and any other after the
stale bound (``api.infra.jobs.worker``).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from pathlib import Path
from types import FrameType

from api.app import build_services, load_procedures
from api.core.settings import Settings
from api.infra.jobs.worker import Worker
from api.infra.private_files import PRIVATE_FILE
from launcher.supervisor import descendants, kill_leftovers

log = logging.getLogger("launcher.worker")

DAGSTER_YAML_TEMPLATE = """\
# Written by `python -m launcher.cli dagster-home` (deploy/dagster.yaml is the same file for the compose
# profile). The PostgreSQL URL is read from the environment when Dagster starts: no secret in this file.
telemetry:
  enabled: false
storage:
  postgres:
    postgres_url:
      env: DAGSTER_PG_URL
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config:
    max_concurrent_runs: {max_runs}
run_launcher:
  module: dagster.core.launcher
  class: DefaultRunLauncher
"""


DAGSTER_PG_SCHEME = "postgresql+psycopg2://"


class DeploymentError(RuntimeError):
    """The profile's configuration is incomplete (said in words for the operator)."""


def dagster_yaml(settings: Settings) -> str:
    """The instance file of the profile's Dagster processes."""
    return DAGSTER_YAML_TEMPLATE.format(max_runs=settings.dagster_max_concurrent_runs)


def write_dagster_home(settings: Settings) -> Path:
    """Write ``DATA_DIR/dagster/dagster.yaml`` for PostgreSQL storage; returns the folder (DAGSTER_HOME).

    The API's pipeline runs (``pipelines.runner``, persisted runs) and the daemon both read this folder,
    so every run is in the one PostgreSQL run storage."""
    if not settings.dagster_pg_url:
        raise DeploymentError("DAGSTER_PG_URL is not set: Dagster's PostgreSQL storage needs its URL")
    if not settings.dagster_pg_url.startswith(DAGSTER_PG_SCHEME):
        # dagster-postgres binds NOTIFY's payload as a parameter, which psycopg 3 (SQLAlchemy 2.1's default
        # PostgreSQL driver) sends to the server as $1: a syntax error. Its own driver, psycopg2, is named.
        raise DeploymentError(f"DAGSTER_PG_URL must start with {DAGSTER_PG_SCHEME} (dagster-postgres' driver)")
    home = settings.resolved_data_dir / "dagster"
    home.mkdir(parents=True, exist_ok=True)
    path = home / "dagster.yaml"
    path.write_text(dagster_yaml(settings))
    path.chmod(PRIVATE_FILE)
    return home


def run_workers(settings: Settings, *, threads: int, grace_seconds: float) -> int:
    """Run ``threads`` job workers until SIGTERM/SIGINT; returns the number of leftover processes killed."""
    load_procedures()  # registers every domain's job handlers (the API does it when it builds its app)
    services = build_services(settings.model_copy(update={"job_worker_enabled": True}))
    template = services.job_worker
    assert template is not None  # job_worker_enabled was set just above
    services.job_worker = None
    workers = [template] + [
        Worker(
            template.database,
            poll_seconds=template.poll_seconds,
            audit=template.audit,
            settings=template.settings,
            success_probability=template.success_probability,
        )
        for _ in range(threads - 1)
    ]
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    for worker in workers:
        worker.start()
    log.info("job worker process started: %d threads", len(workers))
    stop.wait()
    log.info("stop requested: finishing the jobs in hand (up to %.0f s)", grace_seconds)
    deadline = time.monotonic() + grace_seconds
    for worker in workers:
        worker.request_stop()  # every thread stops claiming at once; then each is awaited in turn
    for worker in workers:
        worker.stop(timeout=max(0.0, deadline - time.monotonic()))
    tree = descendants()
    killed = kill_leftovers(tree)
    busy = sum(1 for worker in workers if worker.running)
    services.close()
    log.info("job worker process stopped (%d jobs abandoned, %d processes ended)", busy, len(killed))
    return len(killed)
