"""Benchmark: the RPC router's per-call overhead against a bare FastAPI route.

One uvicorn server (a subprocess of this script, same settings as `launcher.cli serve`
minus the access log) serves the real app from `api.app.create_app(...)` with
two comparison routes added by this script, not by `api/`:

- `GET /bench/bare-ping`: a plain FastAPI route returning the same JSON as
  `system.ping` (`{"result": {"data": {"pong": true, "time": ...}}}`);
- `GET /bench/raw-ping`: the same through a raw Starlette route (no FastAPI
  dependency/serialisation layer), for reference.

A keep-alive httpx client measures N sequential requests to each, interleaved
in rounds so drift (CPU frequency, GC) hits both alike, and prints p50/p99/mean
and the ratio ours/bare. Goal: `system.ping` within 1.3x of the bare route.

Usage: .venv/bin/python bench/rpc_overhead.py [--requests 2000] [--warmup 300] [--rounds 4]
       .venv/bin/python bench/rpc_overhead.py --profile   # pyinstrument of the router in-process
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_RATIO = 1.3
TARGETS = {
    "system.ping (RPC router)": "/api/rpc/system.ping",
    "bare FastAPI route": "/bench/bare-ping",
    "raw Starlette route": "/bench/raw-ping",
}


def build_bench_app(data_dir: Path):
    """The real app plus the comparison routes (the app object is the product's, unmodified otherwise)."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from api.app import create_app
    from api.core.settings import Settings
    from api.infra.db import migrate

    settings = Settings(data_dir=data_dir, job_worker_enabled=False)
    migrate.upgrade(settings.resolved_database_url)
    app = create_app(settings)

    @app.get("/bench/bare-ping")
    async def bare_ping() -> dict:
        return {"result": {"data": {"pong": True, "time": datetime.now(UTC).isoformat()}}}

    async def raw_ping(request: Request) -> JSONResponse:
        return JSONResponse({"result": {"data": {"pong": True, "time": datetime.now(UTC).isoformat()}}})

    # Ahead of the RPC catch-all route so it is matched first.
    app.router.routes.insert(0, Route("/bench/raw-ping", raw_ping, methods=["GET"]))
    return app


def serve(port: int, data_dir: Path) -> None:
    import uvicorn

    uvicorn.run(build_bench_app(data_dir), host="127.0.0.1", port=port, log_level="warning", access_log=False)


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


def measure(requests: int, warmup: int, rounds: int) -> dict[str, list[float]]:
    import httpx

    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="rpc-bench-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port), "--data-dir", tmp], env=env)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10.0) as client:
                _wait_ready(client, proc)
                for path in TARGETS.values():
                    for _ in range(warmup):
                        assert client.get(path).status_code == 200
                samples: dict[str, list[float]] = {name: [] for name in TARGETS}
                per_round = max(1, requests // rounds)
                for _ in range(rounds):
                    for name, path in TARGETS.items():
                        bucket = samples[name]
                        for _ in range(per_round):
                            started = time.perf_counter()
                            r = client.get(path)
                            bucket.append(time.perf_counter() - started)
                            if r.status_code != 200:
                                raise SystemExit(f"{path} answered {r.status_code}: {r.text[:200]}")
                return samples
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def report(samples: dict[str, list[float]]) -> float:
    print(f"{'target':28} {'n':>6} {'p50 µs':>9} {'p99 µs':>9} {'mean µs':>9}")
    stats = {}
    for name, values in samples.items():
        ordered = sorted(values)
        p50, p99, mean = _pct(ordered, 0.50), _pct(ordered, 0.99), statistics.fmean(values)
        stats[name] = (p50, p99, mean)
        print(f"{name:28} {len(values):6d} {p50 * 1e6:9.0f} {p99 * 1e6:9.0f} {mean * 1e6:9.0f}")
    ours, bare = stats["system.ping (RPC router)"], stats["bare FastAPI route"]
    ratio = ours[0] / bare[0]
    print(
        f"\nratio ours/bare FastAPI: p50 {ratio:.2f}x, p99 {ours[1] / bare[1]:.2f}x, mean {ours[2] / bare[2]:.2f}x "
        f"(goal < {GOAL_RATIO}x at p50: {'met' if ratio < GOAL_RATIO else 'NOT met'})"
    )
    raw = stats["raw Starlette route"]
    print(f"ratio ours/raw Starlette:  p50 {ours[0] / raw[0]:.2f}x")
    return ratio


def profile(calls: int) -> None:
    """Where a `system.ping` call spends its time inside the app (in-process ASGI, no sockets)."""
    import asyncio

    import httpx

    try:
        from pyinstrument import Profiler
    except ImportError:
        raise SystemExit("--profile needs pyinstrument: .venv/bin/pip install 'pyinstrument>=5,<6'") from None

    with tempfile.TemporaryDirectory(prefix="rpc-bench-") as tmp:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000, help="measured requests per target")
    parser.add_argument("--warmup", type=int, default=300, help="unmeasured requests per target first")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds the requests are split into")
    parser.add_argument("--profile", action="store_true", help="profile the router with pyinstrument instead")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.data_dir)
        return
    if args.profile:
        profile(args.requests)
        return
    report(measure(args.requests, args.warmup, args.rounds))


if __name__ == "__main__":
    main()
