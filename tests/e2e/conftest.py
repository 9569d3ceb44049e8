"""A real API server for end-to-end tests: `launcher.cli` migrate, bootstrap, serve under uvicorn.

The server runs as a subprocess on a free port with its own DATA_DIR, once per
backend (SQLite file, fresh PostgreSQL database), and is shared by the e2e
tests of the session. Nothing here reaches into the app in-process: the tests
see exactly what a deployed client sees.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO, create_pg_database, drop_pg_database, require_postgres
from tests.support.per_backend import PerBackend, per_backend

ADMIN_EMAIL = "admin@e2e.test"
ADMIN_PASSWORD = "e2e correct horse battery staple"
# Small enough that a test body can exceed it cheaply, large enough for every ordinary call.
E2E_MAX_BODY_BYTES = 64 * 1024
STARTUP_TIMEOUT_S = 60.0
NODE_DIR = Path(__file__).parent / "node"


def need_tool(tool: str) -> str:
    """The path of a command-line tool; skipped locally, a failure in CI, when it is missing."""
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"`{tool}` is required for the Node end-to-end tests but is not on PATH")
        pytest.skip(f"`{tool}` is not on PATH; the Node end-to-end tests need Node 20+ and npm")
    return path


@pytest.fixture(scope="session")
def node_client_dir() -> Path:
    """tests/e2e/node with its locked dependencies installed (`npm ci` when node_modules is missing)."""
    need_tool("node")
    if not (NODE_DIR / "node_modules" / "@trpc" / "client" / "package.json").exists():
        npm = need_tool("npm")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            pytest.fail(f"`npm ci` in {NODE_DIR} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return NODE_DIR


@dataclass(frozen=True)
class LiveServer:
    base_url: str
    backend: str
    admin_email: str
    admin_password: str
    max_body_bytes: int
    log_path: Path
    database_url: str = ""
    data_dir: Path | None = None  # the server's DATA_DIR: its outbox holds the mail it sent

    def invite_token(self, email: str) -> str:
        """The token of the newest invitation the server mailed to `email` (its outbox files: no SMTP)."""
        from tests.support.outbox import invite_token

        assert self.data_dir is not None
        return invite_token(self.data_dir, email)

    def audit_text(self) -> str:
        """Every audit event of the server's database as one text, for scans (PHI must never be in it)."""
        from sqlalchemy import create_engine, text

        engine = create_engine(self.database_url)
        try:
            with engine.connect() as conn:
                rows = conn.execute(text("select * from audit_events")).all()
        finally:
            engine.dispose()
        return "\n".join(repr(tuple(row)) for row in rows)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server's output, for assertion messages when something goes wrong."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no server log)"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cli(env: dict[str, str], *args: str, log: Path) -> None:
    """Run one `python -m launcher.cli` command to completion; fail with its output if it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "launcher.cli", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=180
    )
    with log.open("a") as fh:
        fh.write(f"$ launcher.cli {' '.join(args)} (exit {done.returncode})\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        pytest.fail(
            f"`launcher.cli {' '.join(args)}` failed with exit {done.returncode}:\n{done.stdout[-3000:]}"
            f"\n{done.stderr[-3000:]}"
        )


def _wait_ready(base_url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited with {proc.returncode} during startup:\n{log.read_text()[-4000:]}")
        try:
            r = httpx.get(f"{base_url}/api/rpc/system.ping", timeout=2.0)
            if r.status_code == 200 and r.json().get("result", {}).get("data", {}).get("pong") is True:
                return
            last_error = f"HTTP {r.status_code}: {r.text[:200]}"
        except httpx.HTTPError as exc:
            last_error = type(exc).__name__
        time.sleep(0.1)
    pytest.fail(
        f"the server did not answer system.ping within {STARTUP_TIMEOUT_S:.0f}s ({last_error}):\n"
        f"{log.read_text()[-4000:]}"
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def start_server(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """Migrate, bootstrap and serve the API under uvicorn on a free port (output to `log`); returns the
    process once it answers, and its base URL. The caller stops it with `_stop`."""
    _cli(env, "migrate", log=log)
    _cli(env, "bootstrap", log=log)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with log.open("a") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "launcher.cli", "serve", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_ready(base_url, proc, log)
    except BaseException:
        _stop(proc)
        raise
    return proc, base_url


def server_env(data_dir: Path, database_url: str | None, **extra: str) -> dict[str, str]:
    """The environment of a server subprocess: everything it needs, nothing from a developer `.env`."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR", "PORT")}
    env.update(
        DATA_DIR=str(data_dir),
        BOOTSTRAP_ADMIN_EMAIL=ADMIN_EMAIL,
        BOOTSTRAP_ADMIN_PASSWORD=ADMIN_PASSWORD,
        RPC_MAX_BODY_BYTES=str(E2E_MAX_BODY_BYTES),
        PYTHONUNBUFFERED="1",
        **extra,
    )
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


@contextmanager
def served(backend: str, tmp_path_factory, label: str) -> Iterator[LiveServer]:
    """The real API under uvicorn, migrated and bootstrapped, on `backend`."""
    data_dir = tmp_path_factory.mktemp(f"{label}-{backend}")
    log = data_dir / "server.log"
    pg_admin = pg_url = None
    if backend == "postgres":
        pg_admin = require_postgres()
        pg_url = create_pg_database(pg_admin).replace("postgresql://", "postgresql+psycopg://", 1)
    proc = None
    try:
        env = server_env(data_dir, pg_url)
        proc, base_url = start_server(env, log)
        database_url = pg_url or f"sqlite:///{data_dir / 'platform.db'}"
        yield LiveServer(
            base_url, backend, ADMIN_EMAIL, ADMIN_PASSWORD, E2E_MAX_BODY_BYTES, log, database_url, data_dir
        )
    finally:
        if proc is not None:
            _stop(proc)
        if pg_url is not None:
            drop_pg_database(pg_admin, pg_url.replace("postgresql+psycopg://", "postgresql://", 1))


@pytest.fixture(scope="session")
def live_servers(tmp_path_factory) -> Iterator[PerBackend[LiveServer]]:
    """Each backend's server, started once per test session (tests/support/per_backend.py)."""
    with per_backend(lambda backend: served(backend, tmp_path_factory, "e2e")) as each:
        yield each


@pytest.fixture(scope="session")
def live_server(backend, live_servers) -> LiveServer:
    """The real API under uvicorn, migrated and bootstrapped; its base URL and admin login."""
    return live_servers[backend]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def private_live_server(request, tmp_path_factory) -> Iterator[LiveServer]:
    """A server of the module's own, for tests that add organizations or data the tests sharing
    `live_server` would otherwise see (they assert the bootstrap admin's memberships)."""
    with served(request.param, tmp_path_factory, "e2e-private") as server:
        yield server
