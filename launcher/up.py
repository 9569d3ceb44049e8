"""`up`: the whole platform from one process, serving as soon as the database is ready.

Order: (migrate, bootstrap: done by the caller) -> Dagster UI and the API ->
in the background, the demo data through the real procedures and a pipeline
run through `operations.runPipeline`, executed by this process's job worker.
SIGINT or SIGTERM stops all of it within `SHUTDOWN_BUDGET_S`: in order when it can, and when something
holds the orderly shutdown up (an API request waiting on the database, which uvicorn cannot cancel), by
SIGKILL to every descendant and an immediate exit at `FORCE_AT_S`. Nothing outlives the launcher
however it ends: the Dagster UI's guard (`launcher.guard`) ends the Dagster tree and every process
carrying this launcher's mark (`supervisor.launcher_marker`: the pipeline run's dbt and parse workers).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType

import uvicorn
from rich.console import Console
from rich.panel import Panel

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.jobs.worker import Worker
from launcher.bootstrap import BootstrapResult
from launcher.console import route_pipeline_output
from launcher.demo import DemoError, request_pipeline_run, wait_for_run
from launcher.demo import load as load_demo
from launcher.supervisor import (
    DAGSTER_GRACE_S,
    KILL_WAIT_S,
    DagsterUi,
    child_environment,
    descendants,
    kill_leftovers,
    launcher_marker,
    start_dagster_ui,
    wait_until,
)

log = logging.getLogger("launcher")
SHUTDOWN_BUDGET_S = 10.0
# The last resort starts early enough for its SIGKILLs and their reaping (<= KILL_WAIT_S) to fit the budget.
FORCE_AT_S = SHUTDOWN_BUDGET_S - KILL_WAIT_S - 0.5
API_GRACE_S = 3  # open HTTP connections get this long to finish after a stop signal
WORKER_JOIN_S = 0.5  # a pipeline job in flight is abandoned, not awaited: it can take minutes
BACKGROUND_THREADS = ("job-worker", "demo-loader")


@dataclass(frozen=True)
class UpOptions:
    host: str
    port: int
    dagster_host: str
    dagster_port: int
    demo: bool
    demo_claims: int


class _ApiServer(uvicorn.Server):
    """uvicorn's server, which also tells the launcher the moment it is asked to exit.

    While it serves, uvicorn owns the SIGINT/SIGTERM handlers; this hook lets Dagster
    start stopping at the same time as the API instead of after it.
    """

    def __init__(self, config: uvicorn.Config, on_exit: threading.Event) -> None:
        super().__init__(config)
        self._on_exit = on_exit

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self._on_exit.set()
        super().handle_exit(sig, frame)


class Platform:
    """The API (in this process), its job worker, the Dagster UI (a process group) and the demo loader."""

    def __init__(self, settings: Settings, admin: BootstrapResult, options: UpOptions, console: Console) -> None:
        self.settings = settings
        self.admin = admin
        self.options = options
        self.console = console
        self.stop_requested = threading.Event()
        self.stopped = threading.Event()  # the orderly shutdown has finished
        self.marker: str | None = None  # set by run(), before any child process starts
        self._stop_started_at: float | None = None
        self.services = build_services(settings)
        # The app's lifespan would join the worker for up to 30 s on shutdown (a pipeline job runs for
        # minutes); the launcher runs it itself and bounds the wait. Health still sees the worker enabled.
        self.worker = self.services.job_worker or Worker(
            self.services.database,
            poll_seconds=settings.job_poll_seconds,
            audit=self.services.audit,
            settings=self.services.settings,
        )
        self.services.job_worker = None
        config = uvicorn.Config(
            create_app(services=self.services),
            host=options.host,
            port=options.port,
            log_level="info",
            access_log=False,  # uvicorn would log query strings (tRPC inputs); api.infra.access_log logs paths only
            timeout_graceful_shutdown=API_GRACE_S,
        )
        self.server = _ApiServer(config, self.stop_requested)
        self.dagster: DagsterUi | None = None

    # -- running -------------------------------------------------------------------------------

    def run(self) -> int:
        """Serve until SIGINT/SIGTERM, then stop everything; returns the exit code once nothing runs.

        The caller should leave with `os._exit(code)`: everything this process started is stopped
        by then, and interpreter exit hooks (process-pool joins, multiprocessing's resource tracker
        relaunching itself) could otherwise hold it well past the shutdown budget.
        """
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        # Before any child: every process started from here on inherits the mark, so the guard finds it.
        self.marker = launcher_marker()
        threading.Thread(target=self._stop_watcher, name="stop-watcher", daemon=True).start()
        code = 0
        try:
            self.dagster = self._start_dagster()
            # The demo's pipeline run prints dbt's events and Dagster's INFO lines: they go to the run log.
            route_pipeline_output(self.dagster.log_path)
            self.worker.start()
            self._print_banner()
            if self.options.demo:
                threading.Thread(target=self._load_demo, name="demo-loader", daemon=True).start()
            self.server.run()
            # Not started without a stop request: uvicorn could not bind, and said why above.
            code = 0 if self.server.started or self.stop_requested.is_set() else 1
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            self.shutdown()
        return code

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Outside uvicorn's serving window (starting up, or after it): same effect as its handler."""
        if self.stop_requested.is_set() and signum == signal.SIGINT:
            self.server.force_exit = True  # a second Ctrl-C: do not wait for open connections
        self.stop_requested.set()
        self.server.should_exit = True

    def _stop_watcher(self) -> None:
        """Starts Dagster's shutdown as soon as a stop is requested, concurrently with the API's, and
        forces the exit if the orderly shutdown has not finished by `FORCE_AT_S`."""
        self.stop_requested.wait()
        self._stop_started_at = self._stop_started_at or time.monotonic()
        if self.dagster is not None:
            self.dagster.interrupt()
        if not self.stopped.wait(wait_until(self._stop_started_at + FORCE_AT_S)):
            self._force_exit()

    def _force_exit(self) -> None:
        """SIGKILL every descendant and leave now: the orderly shutdown is stuck (the promise is 10 s)."""
        busy = sorted(t.name for t in threading.enumerate() if t.is_alive() and t is not threading.current_thread())
        killed = kill_leftovers(descendants())
        # os.write, not the console or logging: the stuck thread may hold their locks.
        note = f"Orderly shutdown not done after {FORCE_AT_S:.1f}s (threads: {', '.join(busy)}); killed {killed}\n"
        with contextlib.suppress(OSError):
            os.write(2, note.encode())
        os._exit(0)  # a stop was asked for and everything is stopped: not a failure

    def _start_dagster(self) -> DagsterUi:
        from pipelines.runner import ensure_dagster_home

        data_dir = self.settings.resolved_data_dir
        overrides = {
            "DAGSTER_HOME": str(ensure_dagster_home(data_dir)),
            "DATA_DIR": str(data_dir),
            "DAGSTER_DISABLE_TELEMETRY": "true",
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        }
        if self.settings.database_url:
            overrides["DATABASE_URL"] = self.settings.database_url
        env = child_environment(os.environ, **overrides)
        log_path = data_dir / "dagster.log"
        ui = start_dagster_ui(env, self.options.dagster_host, self.options.dagster_port, log_path, self.marker)
        threading.Thread(target=self._watch_dagster, args=(ui,), name="dagster-watcher", daemon=True).start()
        return ui

    def _watch_dagster(self, ui: DagsterUi) -> None:
        """Say so when the Dagster UI dies on its own (port taken, broken code location); the API stays up."""
        code = ui.process.wait()
        if not self.stop_requested.is_set():
            self.console.print(
                f"[red]The Dagster UI exited with code {code}[/red]; the API keeps serving. See {ui.log_path}"
            )

    def _print_banner(self) -> None:
        api = f"http://{self.options.host}:{self.options.port}"
        dagster = self.dagster.url if self.dagster else "(not started)"
        log_path = self.dagster.log_path if self.dagster else "-"
        demo = "loading in the background (progress below)" if self.options.demo else "off (--no-demo)"
        self.console.print(
            Panel.fit(
                f"Console:    {api}/ (sign in as the admin above)\n"
                f"API:        {api}/api/rpc/system.ping\n"
                f"Health:     {api}/api/health\n"
                f"Dagster UI: {dagster} (assets, runs, sensors, schedules; log: {log_path})\n"
                f"Demo data:  {demo}\n"
                "Stop:       Ctrl-C",
                title="Denial-management platform",
            )
        )

    # -- demo ------------------------------------------------------------------------------------

    def _load_demo(self) -> None:
        """Upload and confirm the demo files, then run the pipeline as a queued job; never takes the API down."""
        # Corpus generation is CPU-bound Python: let the API finish starting before it competes for the GIL.
        while not self.server.started and not self.stop_requested.wait(0.1):
            pass
        if self.stop_requested.is_set():
            return
        started = time.monotonic()
        try:
            demo = load_demo(
                self.services,
                self.admin,
                claims=self.options.demo_claims,
                progress=lambda msg: self.console.print(f"[dim]demo:[/dim] {msg}"),
            )
            if self.stop_requested.is_set():
                return
            run_id = request_pipeline_run(self.services, demo)
            self.console.print(
                f"Demo data loaded: {len(demo.batches)} files in {time.monotonic() - started:.1f}s; "
                f"pipeline run {run_id} queued (operations.listRuns)"
            )
            run = wait_for_run(self.services, demo, run_id, stop=self.stop_requested)
        except Exception as exc:  # noqa: BLE001 - any failure is reported; the platform keeps serving
            # Our own DemoError messages are written for people; other messages may quote data: type only.
            reason = str(exc) if isinstance(exc, DemoError) else f"an unexpected {type(exc).__name__}"
            self.console.print(
                f"[red]Demo data could not be loaded:[/red] {reason}\n"
                "The API and the Dagster UI keep running without demo analytics."
            )
            return
        self._report_run(run.status, run.id, run.error, time.monotonic() - started)

    def _report_run(self, status: str, run_id: int, error: str | None, elapsed: float) -> None:
        if status == "succeeded":
            where = f"; its steps and events: {self.dagster.url}/runs" if self.dagster else ""
            self.console.print(
                f"[green]Demo ready[/green]: pipeline run {run_id} succeeded; marts published ({elapsed:.1f}s){where}"
            )
        elif status == "failed":
            self.console.print(f"[red]Demo pipeline run {run_id} failed[/red]: {error}. The API keeps serving.")
        elif not self.stop_requested.is_set():
            self.console.print(f"[yellow]Demo pipeline run {run_id} is still {status}[/yellow]; see operations.getRun")

    # -- stopping --------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop Dagster (grace, then SIGKILL of its group), the worker, and any other descendant."""
        self.stop_requested.set()
        started = self._stop_started_at or time.monotonic()
        tree = descendants()  # recorded before anything exits, so orphans re-parented to init are still known
        if self.dagster is not None:
            self.dagster.stop(grace=wait_until(started + DAGSTER_GRACE_S))
        self.worker.stop(timeout=WORKER_JOIN_S)  # an idle worker wakes and exits at once; a busy one does not
        busy = [t.name for t in threading.enumerate() if t.name.startswith(BACKGROUND_THREADS) and t.is_alive()]
        killed = kill_leftovers(tree + descendants())
        self.services.close()
        if killed:
            log.info("killed leftover processes %s", killed)
        if busy:
            self.console.print(f"[yellow]Interrupted background work: {', '.join(sorted(busy))}[/yellow]")
        self.console.print(f"Stopped in {time.monotonic() - started:.1f}s.")
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        self.stopped.set()
