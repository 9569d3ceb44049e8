"""Benchmark: `humanAttention.queue` over real HTTP against a bare FastAPI + SQLAlchemy route, at 100k cases.

The goal of issue 24: the worklist's p50 at most 1.5x a bare FastAPI + SQLAlchemy route that does the same
token lookup, tenant check and query and returns the same rows, both served by uvicorn over real HTTP in
one run (not a test client); p99 under 100 ms with 8 concurrent clients at 100k cases.

Setup (before anything is timed): a fresh database (SQLite file, or `--database-url`), one client with
`--cases` denial cases and `--outcomes` decisions built by `bench/worklist.py`'s `populate` (bulk insert,
then every case scored once by the product's `rescore`). One uvicorn server (a subprocess) serves the real
app from `api.app.create_app(...)` plus one comparison route added by this script, not by `api/`:

- `GET /bench/bare-queue`: bearer token -> SHA-256 digest -> session row -> user; client from
  `X-Client-Id` -> its organization's membership of the user; then one SQLAlchemy statement with the
  queue's WHERE (working state, not on hold, not snoozed, scored, rank's deadline not past, the filter),
  ORDER BY and LIMIT, each row turned into the same item fields (score, urgency, days left from the same
  pure formulas) and answered in the same envelope by FastAPI's own serialisation.

Lines, interleaved call by call so machine drift hits both alike, for three queue shapes (the whole client,
one owner, one category): p50/p99 ms and the p50 ratio, goal <= 1.5x. Then 8 concurrent keep-alive clients
(threads) call each path for `--seconds`, in 5 slices alternating the two paths: requests/s and p50/p99
of every call, goal p99 < 100 ms for ours.
The ids of each shape are checked equal on both paths before timing.

    .venv/bin/python bench/worklist_http.py                      # 100k cases, SQLite
    .venv/bin/python bench/worklist_http.py --cases 20000 --calls 200 --seconds 5
    .venv/bin/python bench/worklist_http.py --database-url postgresql://postgres@127.0.0.1:5432/bench_wl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

GOAL_P50_RATIO = 1.5
GOAL_P99_MS = 100.0
CONCURRENCY = 8
LOAD_SLICES = 5  # the concurrent phase alternates the two paths this many times each
OURS = "/api/rpc/humanAttention.queue"
BARE = "/bench/bare-queue"


def _settings(data_dir: Path, database_url: str):
    from api.core.settings import Settings

    # The bench's one token measures the router, not its rate limit (bench/load_during_build.py shows that).
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        job_worker_enabled=False,
        rpc_rate_limit_per_second=1_000_000,
        rpc_rate_limit_burst=1_000_000,
    )


def build_bench_app(data_dir: Path, database_url: str):
    """The real app plus the bare comparison route (the product's app object, otherwise unmodified)."""
    from fastapi import Header, Query
    from rpc_overhead import bare_client
    from sqlalchemy import or_, select
    from sqlalchemy.orm import sessionmaker

    from api.app import create_app
    from api.denials.cases.models import DenialCase
    from api.denials.human_attention import priority
    from api.infra.db.base import utcnow

    app = create_app(_settings(data_dir, database_url))
    # A plain session factory on the app's own engine: same database, same connection pool.
    bare_sessions = sessionmaker(app.state.services.database.engine, expire_on_commit=False)
    working = ("open", "triaged", "in_appeal", "awaiting_payer")

    @app.get(BARE)
    def bare_queue(
        authorization: str = Header(),
        x_client_id: int = Header(),
        owner: int | None = Query(default=None),
        category: str | None = Query(default=None),
        limit: int = Query(default=50, ge=1, le=200),
    ) -> dict:
        # What a hand-written FastAPI + SQLAlchemy endpoint would do, with the same checks (bare_client).
        now = utcnow()
        today = now.date()
        with bare_sessions() as db:
            client = bare_client(db, authorization, x_client_id)
            stmt = select(
                DenialCase.id,
                DenialCase.payer,
                DenialCase.denial_category,
                DenialCase.carc,
                DenialCase.state,
                DenialCase.owner_user_id,
                DenialCase.amount_at_stake,
                DenialCase.overturn_probability,
                DenialCase.expected_recovery,
                DenialCase.priority_score,
                DenialCase.priority_due_on,
                DenialCase.appeal_due_on,
            ).where(
                DenialCase.organization_id == client.organization_id,
                DenialCase.client_id == client.id,
                DenialCase.priority_score.is_not(None),
                DenialCase.priority_due_on >= today,
                DenialCase.state.in_(working),
                DenialCase.on_hold.is_(False),
                or_(DenialCase.snoozed_until.is_(None), DenialCase.snoozed_until <= now),
            )
            if owner is not None:
                stmt = stmt.where(DenialCase.owner_user_id == owner)
            if category is not None:
                stmt = stmt.where(DenialCase.denial_category == category)
            rows = db.execute(
                stmt.order_by(DenialCase.priority_score.desc(), DenialCase.id.desc()).limit(limit + 1)
            ).all()
        items = []
        for r in rows[:limit]:
            days_left = (r.priority_due_on - today).days
            items.append(
                {
                    "caseId": r.id,
                    "rankKey": r.priority_score,
                    "score": priority.score_on(r.priority_score, today),
                    "payer": r.payer,
                    "denialCategory": r.denial_category,
                    "carc": r.carc,
                    "state": r.state,
                    "ownerUserId": r.owner_user_id,
                    "amountAtStake": f"{r.amount_at_stake:.2f}",
                    "overturnProbability": r.overturn_probability,
                    "expectedRecovery": f"{r.expected_recovery:.2f}",
                    "effortHours": priority.effort_hours(r.denial_category),
                    "dueOn": r.priority_due_on.isoformat(),
                    "deadlineAssumed": r.appeal_due_on is None,
                    "daysLeft": days_left,
                    "urgency": priority.urgency(days_left),
                }
            )
        cursor = f"{rows[limit - 1].id}" if len(rows) > limit else None
        return {"result": {"data": {"items": items, "nextCursor": cursor, "asOf": today.isoformat()}}}

    return app


def serve(port: int, data_dir: Path, database_url: str) -> None:
    import uvicorn

    app = build_bench_app(data_dir, database_url)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(client: Any, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"bench server exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if client.get("/api/rpc/system.ping").status_code == 200:
                return
        time.sleep(0.1)
    raise SystemExit("bench server did not become ready")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _requests(shape: dict[str, Any], limit: int) -> dict[str, dict[str, str]]:
    """The query parameters of each path for one queue shape."""
    bare = {k: str(v) for k, v in shape.items()}
    bare["limit"] = str(limit)
    return {OURS: {"input": json.dumps({**shape, "limit": limit})}, BARE: bare}


def _ids(client: Any, path: str, params: dict[str, str], headers: dict[str, str]) -> list[int]:
    r = client.get(path, params=params, headers=headers)
    if r.status_code != 200:
        raise SystemExit(f"{path} answered {r.status_code}: {r.text[:300]}")
    return [item["caseId"] for item in r.json()["result"]["data"]["items"]]


def concurrent(
    base_url: str, path: str, params: dict[str, str], headers: dict[str, str], seconds: float
) -> tuple[float, list[float]]:
    """Requests/s and every call's latency (ms) from CONCURRENCY keep-alive clients hammering `path`."""
    import httpx

    latencies: list[list[float]] = [[] for _ in range(CONCURRENCY)]
    stop = threading.Event()
    start = threading.Barrier(CONCURRENCY + 1)

    def worker(i: int) -> None:
        with httpx.Client(base_url=base_url, timeout=30.0) as c:
            c.get(path, params=params, headers=headers)
            start.wait()
            while not stop.is_set():
                began = time.perf_counter()
                r = c.get(path, params=params, headers=headers)
                latencies[i].append((time.perf_counter() - began) * 1000)
                if r.status_code != 200:
                    raise SystemExit(f"{path} answered {r.status_code} under load")

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(CONCURRENCY)]
    for t in threads:
        t.start()
    start.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    flat = [x for per in latencies for x in per]
    return len(flat) / (time.perf_counter() - began), flat


def loaded_interleaved(
    base_url: str, requests: dict[str, dict[str, str]], headers: dict[str, str], seconds: float
) -> dict[str, tuple[float, list[float]]]:
    """`concurrent` on each path in LOAD_SLICES alternating slices of `seconds` / LOAD_SLICES each, so a
    swing in the shared machine's load hits both paths alike: requests/s and every call's latency."""
    calls = dict.fromkeys(requests, 0.0)
    latencies: dict[str, list[float]] = {path: [] for path in requests}
    for _ in range(LOAD_SLICES):
        for path, params in requests.items():
            rate, flat = concurrent(base_url, path, params, headers, seconds / LOAD_SLICES)
            calls[path] += rate * seconds / LOAD_SLICES
            latencies[path] += flat
    return {path: (calls[path] / seconds, latencies[path]) for path in requests}


def _fresh_database(args: argparse.Namespace, workdir: Path) -> tuple[str, Any]:
    if args.database_url:
        return args.database_url, lambda: None
    from worklist import fresh_database

    return fresh_database("sqlite", workdir)


def measure(args: argparse.Namespace, workdir: Path) -> None:
    import httpx
    from worklist import EMAIL, PASSWORD, populate

    from api.app import build_services
    from api.infra.db import migrate

    url, drop = _fresh_database(args, workdir)
    data_dir = workdir / "data"
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    try:
        started = time.perf_counter()
        migrate.upgrade(url)
        services = build_services(_settings(data_dir, url))
        tenant = populate(services, args.cases, args.outcomes, args.seed)
        services.close()
        if url.startswith("postgresql"):
            import psycopg

            with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
                conn.execute("ANALYZE")
        print(
            f"setup: {args.cases:,} cases, {args.outcomes:,} outcomes, {tenant['scored']:,} scored "
            f"in {time.perf_counter() - started:.1f} s ({url.split(':', 1)[0]})",
            flush=True,
        )
        port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        server_cmd = [sys.executable, __file__, "--serve", str(port), "--data-dir", str(data_dir), "--url", url]
        proc = subprocess.Popen(server_cmd, env=env)
        base_url = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base_url, timeout=30.0) as client:
                _wait_ready(client, proc)
                login = client.post("/api/rpc/auth.login", json={"email": EMAIL, "password": PASSWORD}).json()
                headers = {
                    "authorization": f"Bearer {login['result']['data']['token']}",
                    "x-client-id": str(tenant["client_id"]),
                }
                shapes = {
                    "client": {},
                    "owner": {"owner": tenant["owners"][3]},
                    "category": {"category": "medical_necessity"},
                }
                for name, shape in shapes.items():
                    requests = _requests(shape, args.limit)
                    ours, bare = (_ids(client, p, requests[p], headers) for p in (OURS, BARE))
                    if ours != bare or len(ours) != args.limit:
                        raise SystemExit(f"{name}: the two paths answer different rows")
                samples: dict[str, dict[str, list[float]]] = {s: {OURS: [], BARE: []} for s in shapes}
                for round_ in range(args.warmup + args.calls):
                    for name, shape in shapes.items():
                        for path, params in _requests(shape, args.limit).items():
                            began = time.perf_counter()
                            client.get(path, params=params, headers=headers)
                            if round_ >= args.warmup:
                                samples[name][path].append((time.perf_counter() - began) * 1000)
                report_latency(samples, args)
                report_load(loaded_interleaved(base_url, _requests({}, args.limit), headers, args.seconds))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    finally:
        drop()


def report_latency(samples: dict[str, dict[str, list[float]]], args: argparse.Namespace) -> None:
    print(f"\nms per call over HTTP (p50 / p99), limit {args.limit}, {args.calls} calls per path and shape")
    print(f"{'shape':<10} {'humanAttention.queue':>22} {'bare FastAPI+SQLAlchemy':>24} {'p50 ratio':>10}")
    for name, paths in samples.items():
        ours, bare = paths[OURS], paths[BARE]
        ratio = statistics.median(ours) / statistics.median(bare)
        verdict = "ok" if ratio <= GOAL_P50_RATIO else f"above the {GOAL_P50_RATIO}x goal"
        print(
            f"{name:<10} {statistics.median(ours):10.2f} / {_pct(ours, 0.99):8.2f} "
            f"{statistics.median(bare):12.2f} / {_pct(bare, 0.99):8.2f} {ratio:9.2f}x  {verdict}"
        )


def report_load(loaded: dict[str, tuple[float, list[float]]]) -> None:
    print(f"\n{CONCURRENCY} concurrent keep-alive clients, the whole client's queue")
    for path, (rate, latencies) in loaded.items():
        p99 = _pct(latencies, 0.99)
        verdict = ""
        if path == OURS:
            verdict = "ok" if p99 < GOAL_P99_MS else f"above the {GOAL_P99_MS:.0f} ms goal"
        print(f"{path:<32} {rate:8.1f} req/s  p50 {statistics.median(latencies):7.2f} ms  p99 {p99:7.2f} ms  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--outcomes", type=int, default=5_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--database-url", default=None, help="an empty database (default: a fresh SQLite file)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--url", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.data_dir, args.url)
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="worklist-http-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"date {date.today().isoformat()} {datetime.now(UTC):%H:%M} UTC, workdir {workdir}")
    measure(args, workdir)


if __name__ == "__main__":
    main()
