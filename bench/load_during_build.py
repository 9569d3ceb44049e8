"""Benchmark: read latency while a pipeline build runs, against the same reads on an idle machine, and
the per-caller rate limit answering an over-budget token while another is served.

One uvicorn server (a subprocess of this script) serves the real app from `api.app.create_app(...)`
with the DEFAULT rate limit (RPC_RATE_LIMIT_PER_SECOND 20, RPC_RATE_LIMIT_BURST 200): what a
deployment runs. Setup, like `bench/rpc_overhead.py` (whose helpers it reuses): a fresh data directory
with a migrated SQLite database (or `--database-url`), one user owning one organization and client, a
240-claim synthetic corpus uploaded and confirmed through the real procedures, and one pipeline run
(`pipelines.runner.run_pipeline`, in a child process) publishing a snapshot; the setup runs on a
server without a rate limit (one token uploads every file), then the measured server starts.

Phase 1, load: N readers (threads, one keep-alive httpx client and one session token each, from
`auth.login`), each paced at R calls per second (below the per-token budget, so the limit is not what
is measured), cycling through typical reads: `cases.list`, `humanAttention.queue`, `analytics.kpis`,
`deadlines.upcoming`. A call's latency is measured from its scheduled start (a late start counts:
no coordinated omission). First for `--seconds` with the machine otherwise idle (baseline), then for
`--seconds` while a second pipeline build runs in another process (`pipelines.runner`, as the job
queue's `operations.runPipeline` or Dagster would). Printed: p50/p99, error rate and calls/s of both,
and the ratios during/baseline.

Phase 2, rate limit: one token fires `cases.list` unpaced from 4 threads until it has had 20 refusals;
another token, paced at 5 calls/s meanwhile, must be served every time. Printed: how many calls the
first token got before its first 429, the Retry-After and message of that 429, the second token's
answers, and the first token's call after waiting Retry-After.

Usage: .venv/bin/python bench/load_during_build.py [--readers 6] [--rate 8] [--seconds 30]
       .venv/bin/python bench/load_during_build.py --workdir /tmp/load-bench   # keep the prepared data
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.rpc_overhead import (  # noqa: E402 - after the path set-up
    EMAIL,
    PASSWORD,
    _free_port,
    _pct,
    _rpc,
    _wait_ready,
    prepare_database,
    upload_corpus,
)

READS: list[tuple[str, dict[str, Any]]] = [
    ("cases.list", {"limit": 50}),
    ("humanAttention.queue", {"limit": 50}),
    ("analytics.kpis", {}),
    ("deadlines.upcoming", {"limit": 50}),
]


def _settings(data_dir: Path, database_url: str | None, *, unlimited: bool):
    from api.core.settings import Settings

    # The measured server keeps the defaults of the rate limit; the setup server lifts it (one token
    # uploads and confirms every file of the corpus as fast as it can).
    lifted = {"rpc_rate_limit_per_second": 1_000_000, "rpc_rate_limit_burst": 1_000_000} if unlimited else {}
    return Settings(data_dir=data_dir, database_url=database_url, job_worker_enabled=False, **lifted)


def serve(port: int, data_dir: Path, database_url: str | None, unlimited: bool) -> None:
    import uvicorn

    from api.app import create_app

    app = create_app(_settings(data_dir, database_url, unlimited=unlimited))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def build(data_dir: Path, database_url: str | None) -> None:
    """Child process: one pipeline run over the confirmed batches, publishing a snapshot."""
    from pipelines.runner import run_pipeline

    settings = _settings(data_dir, database_url, unlimited=True)
    summary = run_pipeline(settings.resolved_data_dir, settings.resolved_database_url)
    if not summary.success:
        raise SystemExit(f"pipeline failed: {'; '.join(summary.errors) or summary.failed_steps}")


@contextlib.contextmanager
def server(data_dir: Path, database_url: str | None, *, unlimited: bool) -> Iterator[tuple[str, subprocess.Popen]]:
    import httpx

    port = _free_port()
    cmd = [sys.executable, __file__, "--serve", str(port), "--data-dir", str(data_dir)]
    cmd += ["--database-url", database_url] if database_url else []
    cmd += ["--unlimited"] if unlimited else []
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(ROOT)})
    base_url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base_url, timeout=30.0) as client:
            _wait_ready(client, proc)
        yield base_url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def build_process(data_dir: Path, database_url: str | None, log_name: str) -> subprocess.Popen:
    cmd = [sys.executable, __file__, "--build", "--data-dir", str(data_dir)]
    cmd += ["--database-url", database_url] if database_url else []
    log = open(data_dir / log_name, "wb")  # noqa: SIM115 - closed with the process by the caller's wait
    return subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=log, stderr=log)


def prepare(data_dir: Path, database_url: str | None) -> dict[str, int]:
    """The built world: reused from `data_dir/bench.json` when a previous run left it."""
    import httpx

    state = data_dir / "bench.json"
    if state.exists():
        return dict(json.loads(state.read_text()))
    tenant = prepare_database(data_dir, database_url)
    started = time.perf_counter()
    with (
        server(data_dir, database_url, unlimited=True) as (base_url, _),
        httpx.Client(base_url=base_url, timeout=300.0) as client,
    ):
        token = _rpc(client, "auth.login", {"email": EMAIL, "password": PASSWORD}, {})["token"]
        headers = {"authorization": f"Bearer {token}", "x-client-id": str(tenant["client_id"])}
        batches = upload_corpus(client, data_dir, headers)
    first = build_process(data_dir, database_url, "pipeline-setup.log")
    if first.wait() != 0:
        raise SystemExit(f"the setup pipeline run failed: see {data_dir / 'pipeline-setup.log'}")
    state.write_text(json.dumps(tenant))
    print(f"setup: {batches} import batches confirmed, snapshot published in {time.perf_counter() - started:.0f} s")
    return tenant


def sign_in(client: Any) -> str:
    return str(_rpc(client, "auth.login", {"email": EMAIL, "password": PASSWORD}, {})["token"])


@dataclass
class Sample:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, latency: float, status: int) -> None:
        with self.lock:
            self.latencies.append(latency)
            self.statuses[status] += 1


def _get(client: Any, name: str, payload: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.get(f"/api/rpc/{name}", params={"input": json.dumps(payload)}, headers=headers)


def read_load(base_url: str, tokens: list[str], client_id: int, rate: float, seconds: float) -> Sample:
    """Each token a reader paced at `rate` calls/s for `seconds`; latency from the scheduled start."""
    import httpx

    sample = Sample()
    stop_at = time.perf_counter() + seconds

    def reader(index: int, token: str) -> None:
        headers = {"authorization": f"Bearer {token}", "x-client-id": str(client_id)}
        interval = 1.0 / rate
        scheduled = time.perf_counter() + index * interval / len(tokens)  # readers spread over one interval
        call = index
        with httpx.Client(base_url=base_url, timeout=60.0) as client:
            while scheduled < stop_at:
                delay = scheduled - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                name, payload = READS[call % len(READS)]
                try:
                    status = _get(client, name, payload, headers).status_code
                except httpx.HTTPError:
                    status = 0
                sample.add(time.perf_counter() - scheduled, status)
                call += 1
                scheduled += interval

    threads = [threading.Thread(target=reader, args=(i, t)) for i, t in enumerate(tokens)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sample


def summary(sample: Sample, seconds: float) -> tuple[float, float, float, float]:
    ordered = sorted(sample.latencies)
    total = len(ordered)
    errors = total - sample.statuses[200]
    return _pct(ordered, 0.50) * 1000, _pct(ordered, 0.99) * 1000, errors / total, total / seconds


def rate_limit_phase(base_url: str, client_id: int) -> None:
    import httpx

    with httpx.Client(base_url=base_url) as client:
        greedy, polite = sign_in(client), sign_in(client)
    greedy_headers = {"authorization": f"Bearer {greedy}", "x-client-id": str(client_id)}
    polite_headers = {"authorization": f"Bearer {polite}", "x-client-id": str(client_id)}
    order: list[int] = []
    first_429: dict[str, Any] = {}
    lock = threading.Lock()
    done = threading.Event()

    def greedy_thread() -> None:
        with httpx.Client(base_url=base_url, timeout=60.0) as client:
            while not done.is_set():
                r = _get(client, "cases.list", {"limit": 10}, greedy_headers)
                with lock:
                    order.append(r.status_code)
                    if r.status_code == 429 and not first_429:
                        first_429.update(
                            retry_after=r.headers.get("retry-after"),
                            code=r.json()["error"]["data"]["code"],
                            message=r.json()["error"]["message"],
                        )
                    if order.count(429) >= 20:
                        done.set()

    polite_statuses: list[int] = []

    def polite_thread() -> None:
        with httpx.Client(base_url=base_url, timeout=60.0) as client:
            while not done.is_set():
                polite_statuses.append(_get(client, "cases.list", {"limit": 10}, polite_headers).status_code)
                time.sleep(0.2)

    started = time.perf_counter()
    threads = [threading.Thread(target=greedy_thread) for _ in range(4)] + [threading.Thread(target=polite_thread)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    admitted_before = order.index(429) if 429 in order else len(order)
    print("\nPhase 2: the per-token rate limit (defaults: 20 calls/s, burst 200)")
    print(
        f"  greedy token, 4 unpaced threads, {elapsed:.1f} s: {order.count(200)} answered 200 "
        f"({admitted_before} before the first 429), {order.count(429)} answered 429, other {dict(Counter(order))}"
    )
    print(f"  first 429: Retry-After {first_429.get('retry_after')!r}, code {first_429.get('code')}")
    print(f"    message: {first_429.get('message')}")
    print(f"  polite token, 5 calls/s meanwhile: {dict(Counter(polite_statuses))} of {len(polite_statuses)} calls")
    wait = int(first_429.get("retry_after") or 1)
    time.sleep(wait)
    with httpx.Client(base_url=base_url, timeout=60.0) as client:
        after = _get(client, "cases.list", {"limit": 10}, greedy_headers).status_code
    print(f"  greedy token after waiting Retry-After ({wait} s): {after}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readers", type=int, default=6, help="concurrent readers, one session token each")
    parser.add_argument("--rate", type=float, default=8.0, help="calls per second per reader (budget: 20)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measured phase")
    parser.add_argument("--workdir", type=Path, help="keep the prepared data directory here and reuse it")
    parser.add_argument("--database-url", help="operational database (default: SQLite in the data dir)")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--unlimited", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.data_dir, args.database_url, args.unlimited)
        return
    if args.build:
        build(args.data_dir, args.database_url)
        return
    run(args)


def run(args: argparse.Namespace) -> None:
    import httpx

    with contextlib.ExitStack() as stack:
        if args.workdir:
            args.workdir.mkdir(parents=True, exist_ok=True)
            data_dir = args.workdir
        else:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="load-bench-")))
        tenant = prepare(data_dir, args.database_url)
        print(
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, {os.cpu_count()} cores, "
            f"load average {os.getloadavg()[0]:.1f}; {args.readers} readers x {args.rate:g} calls/s, "
            f"{args.seconds:g} s per phase"
        )
        with server(data_dir, args.database_url, unlimited=False) as (base_url, _):
            with httpx.Client(base_url=base_url) as client:
                tokens = [sign_in(client) for _ in range(args.readers)]
            read_load(base_url, tokens, tenant["client_id"], args.rate, 3.0)  # warm-up, not measured
            idle = read_load(base_url, tokens, tenant["client_id"], args.rate, args.seconds)
            builder = build_process(data_dir, args.database_url, "pipeline-during.log")
            time.sleep(2.0)  # past the child's start-up, into the build itself
            build_started = time.perf_counter()
            busy = read_load(base_url, tokens, tenant["client_id"], args.rate, args.seconds)
            overlap = "the whole window" if builder.poll() is None else "ended inside the window"
            builder_rc = builder.wait()
            build_seconds = time.perf_counter() - build_started + 2.0
            report(idle, busy, args.seconds, overlap, builder_rc, build_seconds)
            rate_limit_phase(base_url, tenant["client_id"])


def report(idle: Sample, busy: Sample, seconds: float, overlap: str, rc: int, build_seconds: float) -> None:
    print(f"\nPhase 1: reads ({', '.join(name for name, _ in READS)}), latency from the scheduled start")
    print(f"  {'phase':<28} {'p50 ms':>8} {'p99 ms':>8} {'errors':>8} {'calls/s':>8}  statuses")
    rows = {"idle (baseline)": idle, "during a pipeline build": busy}
    figures = {}
    for label, sample in rows.items():
        p50, p99, errors, rate = figures[label] = summary(sample, seconds)
        print(f"  {label:<28} {p50:8.1f} {p99:8.1f} {errors:8.2%} {rate:8.1f}  {dict(sample.statuses)}")
    (b50, b99, _, brate), (d50, d99, derr, drate) = figures.values()
    print(f"  ratio during/baseline: p50 {d50 / b50:.2f}x, p99 {d99 / b99:.2f}x, calls/s {drate / brate:.2f}x")
    print(f"  build: exit {rc}, about {build_seconds:.0f} s, {overlap} (errors during it: {derr:.2%})")


if __name__ == "__main__":
    main()
