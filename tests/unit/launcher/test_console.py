"""`up`'s console: a pipeline run's printed output goes to the run log, the rest stays on the console."""

from __future__ import annotations

import io
import logging
import threading

from launcher.console import DagsterInfoToRunLog, RoutedStdout


def _write_from(thread_name: str, stream: RoutedStdout, text: str) -> None:
    worker = threading.Thread(target=stream.write, args=(text,), name=thread_name)
    worker.start()
    worker.join()


def test_a_job_worker_s_writes_go_to_the_run_log_and_every_other_thread_s_to_the_console():
    console, run_log = io.StringIO(), io.StringIO()
    stream = RoutedStdout(console, run_log)
    stream.write("launcher line\n")
    _write_from("job-worker-1", stream, "12 of 243 PASS not_null_x\n")
    _write_from("demo-loader", stream, "demo: 3 files\n")
    stream.flush()
    assert console.getvalue() == "launcher line\ndemo: 3 files\n"
    assert run_log.getvalue() == "12 of 243 PASS not_null_x\n"


def _record(name: str, level: int) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, "message", None, None)


def test_dagster_s_info_lines_leave_the_console_its_warnings_and_our_lines_stay():
    keep = DagsterInfoToRunLog().filter
    assert not keep(_record("dagster.builtin", logging.INFO))
    assert not keep(_record("dagster", logging.DEBUG))
    assert keep(_record("dagster.builtin", logging.WARNING))
    assert keep(_record("api.integrations.operations", logging.INFO))  # the job's one line per step
