"""Benchmark: the RPC router's per-call overhead against bare FastAPI routes.

One uvicorn server (a subprocess of this script, same settings as `launcher.cli serve`
minus the access log) serves the real app from `api.app.create_app(...)` with
comparison routes added by this script, not by `api/`:

- `GET /bench/bare-ping`: a plain FastAPI route returning the same JSON as
  `system.ping` (`{"result": {"data": {"pong": true, "time": ...}}}`);
- `GET /bench/raw-ping`: the same through a raw Starlette route (no FastAPI
  dependency/serialisation layer), for reference;
- `GET /bench/bare-batches`: a plain FastAPI + SQLAlchemy route doing what
  `ingestion.listImportBatches` does for a signed-in caller: bearer token ->
  SHA-256 digest -> session row -> user, client from `X-Client-Id` -> membership
  of its organization, then the newest import batches of that client (same
  tables, same engine), answered in the same envelope.

Setup (before the server measures anything): a fresh data directory with a
migrated SQLite database (or `--database-url`), one user owning one
organization and client, a small synthetic corpus uploaded through the real
`ingestion.uploadUniversal` and `ingestion.confirmImportBatch` procedures over
HTTP as that user (signed in with `auth.login`), and one pipeline run
(`pipelines.runner.run_pipeline`, in a child process) that publishes a snapshot.

Lines measured, interleaved in rounds so drift (CPU frequency, GC, other
people's test suites) hits each pair alike, with p50/p99/mean and ratios:

1. `system.ping` against the bare FastAPI route; goal p50 < 1.3x.
2. `ingestion.listImportBatches` (session token, X-Client-Id) against
   `/bench/bare-batches`; goal p50 <= 1.5x.
3. `analytics.kpis` over HTTP against the same DuckDB statements run
   directly on the published snapshot file in this process: the statements
   the product's query function runs, captured once at setup, the tenant
   filter as CTEs, one read-only connection opened once; goal p50 <= 2x.
4. Requests/s with 8 concurrent keep-alive clients (threads) for the tenant
   query, and for the bare tenant route in the same run.

Usage: .venv/bin/python bench/rpc_overhead.py [--requests 2000] [--warmup 300] [--rounds 4]
       .venv/bin/python bench/rpc_overhead.py --profile            # pyinstrument of system.ping in-process
       .venv/bin/python bench/rpc_overhead.py --profile tenant     # ... of listImportBatches (executor, in-process)
       .venv/bin/python bench/rpc_overhead.py --profile kpis       # ... of analytics.kpis (executor, in-process)
       .venv/bin/python bench/rpc_overhead.py --workdir /tmp/rpc-bench   # keep the prepared data, reuse it next time

Latency on a shared box swings with other people's load; the CPU time the server
process spends per request (and this process, for the direct DuckDB line) is
printed next to it and is the steadier figure to compare.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_RATIO = 1.3
GOAL_TENANT = 1.5
GOAL_MART = 2.0
CONCURRENCY = 8
EMAIL = "bench@example.test"
PASSWORD = "bench password 1"
CORPUS = {"seed": 7, "claims": 240, "months": 3, "payers": 3, "claims_per_file": 80}

PING_TARGETS = {
    "system.ping (RPC router)": "/api/rpc/system.ping",
    "bare FastAPI route": "/bench/bare-ping",
    "raw Starlette route": "/bench/raw-ping",
}
TENANT_QUERY = "/api/rpc/ingestion.listImportBatches"
TENANT_TARGETS = {
    "listImportBatches (RPC)": TENANT_QUERY,
    "bare FastAPI+SQLAlchemy": "/bench/bare-batches",
}
KPIS = "/api/rpc/analytics.kpis"
DIRECT_KPIS = "DuckDB direct (in-process)"

# The "DuckDB direct" baseline runs the very statements `analytics.kpis` runs, captured from the product's
# own query function (`api.intelligence.analytics.queries.kpis`) once at setup, each with the tenant
# filter the scoped views apply written as a CTE of the same name (a CTE shadows the table), on a
# read-only connection to the snapshot file. A hand-copied list of statements goes stale as the KPIs grow.


def _settings(data_dir: Path, database_url: str | None):
    from api.core.settings import Settings

    # The bench's one token measures the router, not its rate limit (bench/load_during_build.py shows that).
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        job_worker_enabled=False,
        rpc_rate_limit_per_second=1_000_000,
        rpc_rate_limit_burst=1_000_000,
    )


def bare_client(db, authorization: str, client_id: int):
    """What a hand-written FastAPI + SQLAlchemy endpoint does before its query, with the same checks as the
    RPC layer: bearer token -> SHA-256 digest -> live session -> enabled user; the client named by
    `X-Client-Id` active and in an organization the user is a member of. The client, or HTTP 401/403.
    Shared by the bare comparison routes of the benches (`bench/worklist_http.py` too)."""
    from fastapi import HTTPException
    from sqlalchemy import select

    from api.infra.db.base import utcnow
    from api.platform.auth.models import AuthSession, User
    from api.platform.organizations.models import Client, Membership

    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        raise HTTPException(401)
    digest = hashlib.sha256(token.strip().encode()).hexdigest()
    row = db.scalar(select(AuthSession).where(AuthSession.token_hash == digest))
    if row is None or row.revoked_at is not None or row.expires_at <= utcnow():
        raise HTTPException(401)
    user = db.get(User, row.user_id)
    if user is None or user.disabled:
        raise HTTPException(401)
    client = db.get(Client, client_id)
    if client is None or client.status != "active":
        raise HTTPException(403)
    role = db.scalar(
        select(Membership.role).where(
            Membership.user_id == user.id, Membership.organization_id == client.organization_id
        )
    )
    if role is None:
        raise HTTPException(403)
    return client


def build_bench_app(data_dir: Path, database_url: str | None = None):
    """The real app plus the comparison routes (the app object is the product's, unmodified otherwise)."""
    from fastapi import Header
    from sqlalchemy import select
    from sqlalchemy.orm import sessionmaker
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from api.app import create_app
    from api.infra.db import migrate
    from api.money.ingestion.models import ImportBatch

    settings = _settings(data_dir, database_url)
    migrate.upgrade(settings.resolved_database_url)
    app = create_app(settings)
    # A plain session factory on the app's own engine: same database, same connection pool.
    bare_sessions = sessionmaker(app.state.services.database.engine, expire_on_commit=False)
    batch_fields = [
        ("id", "id"), ("kind", "kind"), ("status", "status"), ("source_filename", "sourceFilename"),
        ("source_format", "sourceFormat"), ("profile_name", "profileName"), ("content_sha256", "contentSha256"),
        ("size_bytes", "sizeBytes"), ("parser_version", "parserVersion"), ("error_report", "errorReport"),
        ("row_count", "rowCount"), ("valid_count", "validCount"), ("invalid_count", "invalidCount"),
        ("excluded_count", "excludedCount"), ("totals", "totals"), ("quality", "quality"),
        ("entries_posted", "entriesPosted"), ("created_by", "createdBy"), ("created_at", "createdAt"),
        ("confirmed_by", "confirmedBy"), ("confirmed_at", "confirmedAt"),
    ]  # fmt: skip

    @app.get("/bench/bare-ping")
    async def bare_ping() -> dict:
        return {"result": {"data": {"pong": True, "time": datetime.now(UTC).isoformat()}}}

    async def raw_ping(request: Request) -> JSONResponse:
        return JSONResponse({"result": {"data": {"pong": True, "time": datetime.now(UTC).isoformat()}}})

    @app.get("/bench/bare-batches")
    def bare_batches(authorization: str = Header(), x_client_id: int = Header()) -> dict:
        # What a hand-written FastAPI + SQLAlchemy endpoint would do, with the same checks.
        with bare_sessions() as db:
            client = bare_client(db, authorization, x_client_id)
            batches = db.scalars(
                select(ImportBatch)
                .where(ImportBatch.organization_id == client.organization_id, ImportBatch.client_id == client.id)
                .order_by(ImportBatch.id.desc())
                .limit(51)
            ).all()
            items = [{alias: getattr(b, name) for name, alias in batch_fields} for b in batches[:50]]
        return {"result": {"data": {"items": items, "nextCursor": None}}}

    # Ahead of the RPC catch-all route so it is matched first.
    app.router.routes.insert(0, Route("/bench/raw-ping", raw_ping, methods=["GET"]))
    return app


def serve(port: int, data_dir: Path, database_url: str | None) -> None:
    import uvicorn

    app = build_bench_app(data_dir, database_url)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def publish(data_dir: Path, database_url: str | None) -> None:
    """Child process: one pipeline run over the uploaded batches, publishing a snapshot."""
    from pipelines.runner import run_pipeline

    settings = _settings(data_dir, database_url)
    summary = run_pipeline(settings.resolved_data_dir, settings.resolved_database_url)
    if not summary.success:
        raise SystemExit(f"pipeline failed: {'; '.join(summary.errors) or summary.failed_steps}")


def prepare_database(data_dir: Path, database_url: str | None) -> dict[str, int]:
    """Migrated database with one user owning one organization and client (as `launcher.bootstrap` does)."""
    from api.infra.db import migrate
    from api.infra.db.session import Database
    from api.platform.auth import service as auth_service
    from api.platform.organizations import service as org_service

    settings = _settings(data_dir, database_url)
    migrate.upgrade(settings.resolved_database_url)
    database = Database(settings.resolved_database_url)
    try:
        with database.transaction() as db:
            user = auth_service.create_user(db, EMAIL, PASSWORD, display_name="Bench")
            org, client = org_service.create_organization(db, "Bench Health", None, user.id, "Bench Hospital", None)
            return {"organization_id": org.id, "client_id": client.id}
    finally:
        database.dispose()


def _rpc(client, name: str, payload: Any, headers: dict[str, str], *, mutation: bool = True) -> Any:
    if mutation:
        r = client.post(f"/api/rpc/{name}", json=payload, headers=headers, timeout=300.0)
    else:
        r = client.get(f"/api/rpc/{name}", params={"input": json.dumps(payload)}, headers=headers)
    body = r.json()
    if "error" in body:
        raise SystemExit(f"{name} failed during setup: {body['error']['message']}")
    return body["result"]["data"]


def upload_corpus(client, data_dir: Path, headers: dict[str, str]) -> int:
    """Generate a small corpus and upload + confirm every X12 file through the real procedures."""
    from pipelines.synthetic import CorpusSpec, generate_corpus

    corpus = data_dir / "corpus"
    generate_corpus(CorpusSpec(**CORPUS, write_csv=False, write_deposits=False), corpus)  # type: ignore[arg-type]
    count = 0
    for path in sorted(p for p in corpus.iterdir() if p.suffix in (".835", ".837")):
        payload = {"filename": path.name, "contentBase64": base64.b64encode(path.read_bytes()).decode()}
        batch = _rpc(client, "ingestion.uploadUniversal", payload, headers)["batch"]
        if batch["status"] in ("parsed", "needs_review"):
            rows = _rpc(
                client,
                "ingestion.listImportRows",
                {"batchId": batch["id"], "status": "invalid", "limit": 500},
                headers,
                mutation=False,
            )
            for row in rows["items"]:
                _rpc(client, "ingestion.setImportRowDecision", {"rowId": row["id"], "decision": "exclude"}, headers)
            _rpc(client, "ingestion.confirmImportBatch", {"batchId": batch["id"]}, headers)
        count += 1
    return count


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(client, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"bench server exited with {proc.returncode}")
        try:
            if client.get("/api/rpc/system.ping").status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit("bench server did not become ready")


def _pct(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


class _Recorder:
    """Stands in for `ScopedMarts` while the product's query function runs once: records each statement
    and its parameters and answers it on the direct connection."""

    def __init__(self, direct: DirectKpis):
        self.direct = direct
        self.statements: list[tuple[str, dict[str, Any]]] = []

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self.statements.append((self.direct.scoped(sql), dict(params or {})))
        return self.direct.run(*self.statements[-1])

    def one(self, sql: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.rows(sql, params)[0]

    def one_or_none(self, sql: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None


class DirectKpis:
    """The statements `analytics.kpis` runs, on the published snapshot file: no HTTP, no API code."""

    def __init__(self, data_dir: Path, tenant: dict[str, int]):
        import duckdb

        from api.intelligence.analytics import queries
        from api.intelligence.analytics.schemas import KpisIn

        pointer = json.loads((data_dir / "warehouse" / "published.json").read_text())
        self.conn = duckdb.connect(pointer["snapshot"], read_only=True)
        self.schema = pointer.get("schema") or "main"
        self.tenant = f"organization_id = {int(tenant['organization_id'])} and client_id = {int(tenant['client_id'])}"
        self.marts = queries.KPI_MARTS
        recorder = _Recorder(self)
        queries.kpis(recorder, KpisIn())  # type: ignore[arg-type]
        self.statements = recorder.statements

    def scoped(self, sql: str) -> str:
        ctes = ", ".join(f"{t} as (select * from {self.schema}.{t} where {self.tenant})" for t in self.marts)
        return f"with {ctes} {sql}"

    def run(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def __call__(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for sql, params in self.statements:
            out.extend(self.run(sql, params))
        return out


def _get(client, path: str, headers: dict[str, str] | None = None, params: dict[str, str] | None = None) -> None:
    r = client.get(path, headers=headers, params=params)
    if r.status_code != 200:
        raise SystemExit(f"{path} answered {r.status_code}: {r.text[:300]}")


def concurrent_rate(
    base_url: str, path: str, headers: dict[str, str], params: dict[str, str], seconds: float, server: Any
) -> tuple[float, float]:
    """Requests/s in all from CONCURRENCY keep-alive clients (one thread each) hammering `path`."""
    import httpx

    counts = [0] * CONCURRENCY
    stop = threading.Event()
    start = threading.Barrier(CONCURRENCY + 1)

    def worker(i: int) -> None:
        with httpx.Client(base_url=base_url, timeout=30.0) as c:
            _get(c, path, headers, params)
            start.wait()
            while not stop.is_set():
                _get(c, path, headers, params)
                counts[i] += 1

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(CONCURRENCY)]
    for t in threads:
        t.start()
    start.wait()
    began, cpu_before = time.perf_counter(), _cpu_seconds(server)
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    done = sum(counts)
    return done / (time.perf_counter() - began), (_cpu_seconds(server) - cpu_before) / max(1, done)


def _cpu_seconds(process: Any) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def measure(args) -> tuple[dict[str, list[float]], dict[str, float], dict[str, list[tuple[float, float]]]]:
    import httpx
    import psutil

    port = _free_port()
    with contextlib.ExitStack() as stack:
        if args.workdir:
            args.workdir.mkdir(parents=True, exist_ok=True)
            tmp = str(args.workdir)
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="rpc-bench-"))
        data_dir = Path(tmp)
        state_file = data_dir / "bench.json"
        prepared = state_file.exists()
        if prepared:
            tenant = json.loads(state_file.read_text())
        else:
            tenant = prepare_database(data_dir, args.database_url)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        server_cmd = [sys.executable, __file__, "--serve", str(port), "--data-dir", tmp]
        if args.database_url:
            server_cmd += ["--database-url", args.database_url]
        proc = subprocess.Popen(server_cmd, env=env)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30.0) as client:
                _wait_ready(client, proc)
                token = _rpc(client, "auth.login", {"email": EMAIL, "password": PASSWORD}, {})["token"]
                auth = {"authorization": f"Bearer {token}", "x-client-id": str(tenant["client_id"])}
                if not prepared:
                    started = time.perf_counter()
                    batches = upload_corpus(client, data_dir, auth)
                    publish_cmd = [sys.executable, __file__, "--publish", "--data-dir", tmp]
                    if args.database_url:
                        publish_cmd += ["--database-url", args.database_url]
                    with open(data_dir / "pipeline.log", "wb") as log:
                        subprocess.run(publish_cmd, env=env, check=True, stdout=log, stderr=log)
                    state_file.write_text(json.dumps(tenant))
                    print(f"setup: {batches} import batches uploaded and confirmed, snapshot published "
                          f"in {time.perf_counter() - started:.1f}s")  # fmt: skip
                direct = DirectKpis(data_dir, tenant)

                # name -> one timed call
                def http_call(path: str, headers=None, params=None):
                    def call() -> None:
                        _get(client, path, headers, params)

                    return call

                batches_params = {"input": json.dumps({"limit": 50})}
                calls = {
                    **{name: http_call(path) for name, path in PING_TARGETS.items()},
                    **{name: http_call(path, auth, batches_params) for name, path in TENANT_TARGETS.items()},
                    "analytics.kpis (RPC)": http_call(KPIS, auth, {"input": "{}"}),
                    DIRECT_KPIS: direct,
                }
                for call in calls.values():
                    for _ in range(args.warmup):
                        call()
                samples: dict[str, list[float]] = {name: [] for name in calls}
                cpu: dict[str, float] = dict.fromkeys(calls, 0.0)
                server = psutil.Process(proc.pid)
                per_round = max(1, args.requests // args.rounds)
                for _ in range(args.rounds):
                    for name, call in calls.items():
                        bucket = samples[name]
                        # CPU seconds of the side doing the work: the server process for HTTP
                        # targets, this process for the direct DuckDB queries.
                        clock = time.process_time if name == DIRECT_KPIS else lambda: _cpu_seconds(server)
                        cpu_before = clock()
                        for _ in range(per_round):
                            began = time.perf_counter()
                            call()
                            bucket.append(time.perf_counter() - began)
                        cpu[name] += clock() - cpu_before
                base_url = f"http://127.0.0.1:{port}"
                rates: dict[str, list[tuple[float, float]]] = {name: [] for name in TENANT_TARGETS}
                for _ in range(args.rounds):
                    for name, path in TENANT_TARGETS.items():
                        rates[name].append(concurrent_rate(base_url, path, auth, batches_params, args.seconds, server))
                return samples, {name: cpu[name] / len(samples[name]) for name in cpu}, rates
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _ratio_line(label: str, ours: tuple[float, ...], base: tuple[float, ...], goal: float) -> float:
    ratio = ours[0] / base[0]
    print(
        f"ratio {label}: p50 {ratio:.2f}x, p99 {ours[1] / base[1]:.2f}x, mean {ours[2] / base[2]:.2f}x, "
        f"CPU/req {ours[3] / base[3]:.2f}x (goal <= {goal}x at p50: {'met' if ratio <= goal else 'NOT met'})"
    )
    return ratio


def report(samples: dict[str, list[float]], cpu: dict[str, float], rates: dict[str, list[tuple[float, float]]]) -> None:
    print(f"{'target':32} {'n':>6} {'p50 µs':>9} {'p99 µs':>9} {'mean µs':>9} {'CPU µs/req':>11}")
    stats = {}
    for name, values in samples.items():
        ordered = sorted(values)
        p50, p99, mean = _pct(ordered, 0.50), _pct(ordered, 0.99), statistics.fmean(values)
        stats[name] = (p50, p99, mean, cpu[name])
        print(f"{name:32} {len(values):6d} {p50 * 1e6:9.0f} {p99 * 1e6:9.0f} {mean * 1e6:9.0f} {cpu[name] * 1e6:11.0f}")
    print("(CPU µs/req: the server process's CPU time per request; for the direct DuckDB line, this process's)\n")
    ping = stats["system.ping (RPC router)"]
    _ratio_line("system.ping/bare FastAPI", ping, stats["bare FastAPI route"], GOAL_RATIO)
    print(f"ratio system.ping/raw Starlette: p50 {ping[0] / stats['raw Starlette route'][0]:.2f}x")
    ours_tenant, bare_tenant = (stats[n] for n in TENANT_TARGETS)
    _ratio_line("listImportBatches/bare route", ours_tenant, bare_tenant, GOAL_TENANT)
    _ratio_line("analytics.kpis/DuckDB direct", stats["analytics.kpis (RPC)"], stats[DIRECT_KPIS], GOAL_MART)
    print(f"\n{CONCURRENCY} concurrent clients, tenant query, requests/s in all (per round):")
    medians = {}
    for name, rounds in rates.items():
        per_s = [r for r, _ in rounds]
        cpu_per_req = statistics.median(c for _, c in rounds)
        medians[name] = (statistics.median(per_s), cpu_per_req)
        print(
            f"  {name:30} median {medians[name][0]:7.0f} req/s, server CPU {cpu_per_req * 1e6:6.0f} µs/req"
            f"   ({', '.join(f'{v:.0f}' for v in per_s)})"
        )
    ours, bare = medians.values()
    print(
        f"  ratio bare/ours throughput: {bare[0] / ours[0]:.2f}x, ours/bare CPU per request: {ours[1] / bare[1]:.2f}x"
    )


def profile(target: str, calls: int, database_url: str | None, workdir: Path | None) -> None:
    """Where a call spends its time inside the app, in-process (no sockets).

    `ping` profiles the whole ASGI app; `tenant` and `kpis` profile the executor's
    `execute()` directly (the part that runs in the worker thread), after the same
    setup as the measurement (uploads through the app in-process), or on a prepared `--workdir`.
    """
    import asyncio

    import httpx

    try:
        from pyinstrument import Profiler
    except ImportError:
        raise SystemExit("--profile needs pyinstrument: .venv/bin/pip install 'pyinstrument>=5,<6'") from None

    with tempfile.TemporaryDirectory(prefix="rpc-bench-") as tmp:
        if target == "ping":
            app = build_bench_app(Path(tmp))

            async def run() -> None:
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
                    for _ in range(200):
                        await client.get("/api/rpc/system.ping")
                    profiler = Profiler(interval=0.0001, async_mode="enabled")
                    profiler.start()
                    for _ in range(calls):
                        await client.get("/api/rpc/system.ping")
                    profiler.stop()
                    print(profiler.output_text(unicode=True, color=False, show_all=False))

            asyncio.run(run())
            return

        from fastapi.testclient import TestClient

        from api.rpc.executor import CallMeta, execute
        from api.rpc.procedure import rpc

        data_dir = workdir or Path(tmp)
        state_file = data_dir / "bench.json"
        prepared = state_file.exists()
        tenant = json.loads(state_file.read_text()) if prepared else prepare_database(data_dir, database_url)
        app = build_bench_app(data_dir, database_url)
        with TestClient(app) as client:
            token = _rpc(client, "auth.login", {"email": EMAIL, "password": PASSWORD}, {})["token"]
            auth = {"authorization": f"Bearer {token}", "x-client-id": str(tenant["client_id"])}
            if not prepared:
                upload_corpus(client, data_dir, auth)
            if not prepared and target == "kpis":
                cmd = [sys.executable, __file__, "--publish", "--data-dir", str(data_dir)]
                subprocess.run(cmd, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True, stdout=subprocess.DEVNULL)
            services = app.state.services
            name, raw = ("ingestion.listImportBatches", {"limit": 50}) if target == "tenant" else ("analytics.kpis", {})
            proc = rpc.procedures[name]
            meta = CallMeta(authorization=f"Bearer {token}", client_id_header=str(tenant["client_id"]), client_ip=None)
            for _ in range(200):
                envelope, _status = execute(services, proc, raw, meta)
                assert "result" in envelope, envelope
            profiler = Profiler(interval=0.0001)
            profiler.start()
            for _ in range(calls):
                execute(services, proc, raw, meta)
            profiler.stop()
            print(profiler.output_text(unicode=True, color=False, show_all=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000, help="measured requests per target")
    parser.add_argument("--warmup", type=int, default=300, help="unmeasured requests per target first")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds the requests are split into")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one concurrent-clients round")
    parser.add_argument(
        "--workdir", type=Path, help="keep the prepared data directory here and reuse it on the next run"
    )
    parser.add_argument("--database-url", help="operational database (default: SQLite in the temp data dir)")
    parser.add_argument(
        "--profile", nargs="?", const="ping", choices=["ping", "tenant", "kpis"], help="pyinstrument instead"
    )
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--publish", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.data_dir, args.database_url)
        return
    if args.publish:
        publish(args.data_dir, args.database_url)
        return
    if args.profile:
        profile(args.profile, args.requests, args.database_url, args.workdir)
        return
    report(*measure(args))


if __name__ == "__main__":
    main()
