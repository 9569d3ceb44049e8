"""What `up` prints: its own progress on the console; a pipeline run's own output in the run log.

A pipeline run executes in this process, on a job-worker thread. dbt's events (hundreds of lines a build,
written to stdout by dagster-dbt) and the INFO lines of Dagster's own loggers belong to the run's log,
next to what `dagster dev` writes: `$DATA_DIR/dagster.log` (the Dagster UI shows the run's event log
too). The console keeps the API's and the launcher's lines, the pipeline job's one line per step, and
every warning and error, whichever thread raised it.
"""

from __future__ import annotations

import io
import logging
import threading
from pathlib import Path
from typing import IO, Any

#: Threads whose printed output is a pipeline run's (the job worker runs the `pipeline.run` job).
RUN_THREADS = ("job-worker",)


def _in_run_thread() -> bool:
    return threading.current_thread().name.startswith(RUN_THREADS)


class RoutedStdout(io.TextIOBase):
    """sys.stdout for `up`: a run thread's writes go to the run log, every other thread's to the console."""

    def __init__(self, console: IO[str], run_log: IO[str]) -> None:
        super().__init__()
        self.console = console
        self.run_log = run_log
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        if _in_run_thread():
            with self._lock:
                return self.run_log.write(text)
        return self.console.write(text)

    def flush(self) -> None:
        self.console.flush()
        with self._lock:
            self.run_log.flush()

    def isatty(self) -> bool:
        return self.console.isatty()

    def fileno(self) -> int:
        return self.console.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # the console's, as print() expects
        return str(getattr(self.console, "encoding", "utf-8"))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


class DagsterInfoToRunLog(logging.Filter):
    """Keeps Dagster's own INFO and DEBUG lines off the console (they are in the run's event log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name.startswith("dagster") and record.levelno < logging.WARNING)


def route_pipeline_output(run_log_path: Path) -> IO[str]:
    """Install the routing for this process; returns the opened run log (append, line-buffered)."""
    import sys

    run_log = open(run_log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - lives as long as `up`
    sys.stdout = RoutedStdout(sys.stdout, run_log)
    quiet = DagsterInfoToRunLog()
    for handler in logging.getLogger().handlers:
        handler.addFilter(quiet)
    to_file = logging.FileHandler(run_log_path, encoding="utf-8")
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logging.getLogger("dagster").addHandler(to_file)
    return run_log
