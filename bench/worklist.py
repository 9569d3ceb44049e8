"""Benchmark: humanAttention.queue over 100k open denial cases vs a bare SQL query of the same rows.

For each backend (a fresh SQLite file and a fresh PostgreSQL database, both migrated with
api.infra.db.migrate), the script builds one client with `--cases` denial cases (about 85 % in a working
state; 3 % snoozed, 1 % on hold, some past their deadline; 8 payers, 6 categories, 20 owners) and
`--outcomes` recorded appeal decisions, scores every case once (`human_attention.service.rescore`,
timed), then measures, interleaved call by call so all see the same machine load:

- **rpc**: `GET /api/rpc/humanAttention.queue` through the real app (TestClient: routing, session-token
  and tenant resolution, validation, the service, output validation, JSON);
- **service**: `human_attention.service.queue` in a tenant-scoped session (no HTTP, no auth);
- **bare**: the same rows with one hand-written SQL statement (same WHERE, ORDER BY, LIMIT) on a raw
  DBAPI connection, fetched as tuples.

Three queue shapes: the whole client, one owner ("me"-style `owner`), one category. Each call's ids
are checked equal across the three paths once before timing. Prints p50/p99 (ms) and the ratios.

    .venv/bin/python bench/worklist.py                       # 100k cases, both backends
    .venv/bin/python bench/worklist.py --cases 20000 --backends sqlite --calls 200
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG_ADMIN_URL = os.environ.get("PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
EMAIL, PASSWORD = "bench@example.test", "correct horse battery"
PAYERS = [f"PAYER {c}" for c in "ABCDEFGH"]
CATEGORIES = ["authorization", "coding", "medical_necessity", "eligibility", "bundling", "duplicate"]
CARCS = ["16", "50", "197", "27", "97", "18", "4", "15"]
STATES = ["open"] * 30 + ["triaged"] * 20 + ["in_appeal"] * 20 + ["awaiting_payer"] * 15 + ["won", "lost", "closed"] * 5


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def fresh_database(backend: str, workdir: Path) -> tuple[str, Any]:
    """A new empty database URL and a cleanup function."""
    if backend == "sqlite":
        path = workdir / f"worklist-{uuid.uuid4().hex[:8]}.db"
        return f"sqlite:///{path}", lambda: path.unlink(missing_ok=True)
    import psycopg

    name = f"bench_worklist_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}", drop


def populate(services: Any, cases: int, outcomes: int, seed: int) -> dict[str, Any]:
    """One organization and client, `cases` denial cases and `outcomes` decisions, by bulk insert."""
    from sqlalchemy import insert

    from api.denials.cases.models import DenialCase
    from api.denials.human_attention.service import rescore
    from api.denials.outcomes.models import AppealOutcome
    from api.infra.db.tenant_filter import TenantScope, set_scope
    from api.platform.auth import service as auth_service
    from api.platform.auth.secrets import hash_password
    from api.platform.organizations import service as org_service

    rng = random.Random(seed)
    with services.database.transaction() as db:
        user = auth_service.create_user(db, EMAIL, None)
        user.password_hash = hash_password(PASSWORD)
        org, client = org_service.create_organization(db, "Bench Health", None, user.id, "Bench Hospital", None)
        owners = [user.id] + [
            auth_service.create_user(db, f"o{i}-{uuid.uuid4().hex[:6]}@x.test", None).id for i in range(19)
        ]
        tenant = {"organization_id": org.id, "client_id": client.id, "user_id": user.id, "owners": owners}
    now = datetime.now(UTC)
    today = now.date()
    rows = []
    for i in range(cases):
        state = rng.choice(STATES)
        rows.append(
            {
                "organization_id": tenant["organization_id"],
                "client_id": tenant["client_id"],
                "denial_key": f"k{i}",
                "origin": "remittance",
                "event_kind": "denial",
                "claim_key": f"PCN{i:08d}",
                "payer": rng.choice(PAYERS),
                "denial_category": rng.choice(CATEGORIES),
                "carc": rng.choice(CARCS),
                "rarcs": [],
                "amount_at_stake": Decimal(rng.randint(2000, 2_500_000)) / 100,
                "paid_before": Decimal("0"),
                "recovered_amount": Decimal("0"),
                "written_off_amount": Decimal("0"),
                "state": state,
                "state_changed_at": now,
                "owner_user_id": rng.choice(owners) if rng.random() < 0.9 else None,
                "escalated": False,
                "on_hold": rng.random() < 0.01,
                "appeal_due_on": today + timedelta(days=rng.randint(-15, 170)) if rng.random() < 0.9 else None,
                "remittance_date": today - timedelta(days=rng.randint(0, 120)),
                "snoozed_until": now + timedelta(days=3) if rng.random() < 0.03 else None,
                "recovery_plan": {},
                "created_at": now,
            }
        )
    with services.database.transaction() as db:
        for start in range(0, len(rows), 5000):
            db.execute(insert(DenialCase), rows[start : start + 5000])
    decisions = ["won", "partially_won", "lost", "lost", "withdrawn"]
    outcome_rows = []
    for _ in range(outcomes):
        index = rng.randrange(len(rows))
        case = rows[index]
        outcome_rows.append(
            {
                "organization_id": tenant["organization_id"],
                "client_id": tenant["client_id"],
                "case_id": index + 1,  # ids are 1..cases in a fresh database
                "level": 1,
                "decision": rng.choice(decisions),
                "amount_recovered": Decimal("0"),
                "decided_on": today - timedelta(days=rng.randint(1, 300)),
                "recorded_by_user_id": tenant["user_id"],
                "case_state_before": "awaiting_payer",
                "case_state_after": "won",
                "payer": case["payer"],
                "denial_category": case["denial_category"],
                "carc": case["carc"],
                "created_at": now,
            }
        )
    with services.database.transaction() as db:
        for start in range(0, len(outcome_rows), 5000):
            db.execute(insert(AppealOutcome), outcome_rows[start : start + 5000])
    started = time.perf_counter()
    with services.database.transaction() as db:
        set_scope(db, TenantScope(tenant["organization_id"], tenant["client_id"]))
        scored = rescore(db)
    tenant["rescore_seconds"] = time.perf_counter() - started
    tenant["scored"] = scored
    return tenant


BARE_SQL = """
SELECT id, payer, denial_category, carc, state, owner_user_id, amount_at_stake, overturn_probability,
       expected_recovery, priority_score, priority_due_on, appeal_due_on
FROM denial_cases
WHERE client_id = {p}
  AND priority_score IS NOT NULL AND priority_due_on >= {p}
  AND state IN ('awaiting_payer', 'in_appeal', 'open', 'triaged')
  AND on_hold = {false}
  AND (snoozed_until IS NULL OR snoozed_until <= {p})
  {extra}
ORDER BY priority_score DESC, id DESC
LIMIT {limit}
"""


class Bare:
    """The same rows by one SQL statement on a raw DBAPI connection."""

    def __init__(self, url: str, client_id: int, limit: int):
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            import sqlite3

            self.conn: Any = sqlite3.connect(url.removeprefix("sqlite:///"), check_same_thread=False)
        else:
            import psycopg

            self.conn = psycopg.connect(url, autocommit=True)
        self.client_id, self.limit = client_id, limit

    def __call__(self, shape: dict[str, Any]) -> list[int]:
        p, false = ("?", "0") if self.sqlite else ("%s", "false")
        extra, params = "", []
        if "owner" in shape:
            extra, params = f"AND owner_user_id = {p}", [shape["owner"]]
        if "category" in shape:
            extra, params = f"AND denial_category = {p}", [shape["category"]]
        now = datetime.now(UTC)
        today = now.date()
        sql = BARE_SQL.format(p=p, false=false, extra=extra, limit=self.limit + 1)
        args: list[Any] = [
            self.client_id,
            today.isoformat() if self.sqlite else today,
            now.strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else now,
            *params,
        ]
        rows = self.conn.execute(sql, args).fetchall()
        return [r[0] for r in rows[: self.limit]]


def measure(backend: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from api.app import build_services, create_app
    from api.core.settings import Settings
    from api.denials.human_attention import service as ha
    from api.infra.db import migrate
    from api.infra.db.tenant_filter import TenantScope, set_scope

    url, drop = fresh_database(backend, workdir)
    data_dir = workdir / f"data-{backend}"
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    try:
        t0 = time.perf_counter()
        migrate.upgrade(url)
        # One token, thousands of calls: the bench measures the queue, not the rate limit.
        settings = Settings(
            data_dir=data_dir,
            database_url=url,
            job_worker_enabled=False,
            rpc_rate_limit_per_second=1_000_000,
            rpc_rate_limit_burst=1_000_000,
        )
        services = build_services(settings)
        tenant = populate(services, args.cases, args.outcomes, args.seed)
        print(
            f"[{backend}] {args.cases:,} cases, {args.outcomes:,} outcomes built in {time.perf_counter() - t0:.1f} s; "
            f"rescore of {tenant['scored']:,} cases {tenant['rescore_seconds']:.2f} s",
            flush=True,
        )
        if backend == "postgres":
            import psycopg

            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("ANALYZE")
        app = create_app(services=services)
        bare = Bare(url, tenant["client_id"], args.limit)
        shapes = {
            "client": {},
            "owner": {"owner": tenant["owners"][3]},
            "category": {"category": "medical_necessity"},
        }
        samples: dict[str, dict[str, list[float]]] = {s: {"rpc": [], "service": [], "bare": []} for s in shapes}
        with TestClient(app) as http:
            token = http.post("/api/rpc/auth.login", json={"email": EMAIL, "password": PASSWORD}).json()
            headers = {
                "Authorization": f"Bearer {token['result']['data']['token']}",
                "X-Client-Id": str(tenant["client_id"]),
            }

            def rpc(shape: dict[str, Any]) -> list[int]:
                body = http.get(
                    "/api/rpc/humanAttention.queue",
                    params={"input": json.dumps({**shape, "limit": args.limit})},
                    headers=headers,
                ).json()
                return [i["caseId"] for i in body["result"]["data"]["items"]]

            def direct(shape: dict[str, Any]) -> list[int]:
                filters = ha.QueueFilters(
                    owners=(shape["owner"],) if "owner" in shape else None, category=shape.get("category")
                )
                with services.database.transaction(write=False) as db:
                    set_scope(db, TenantScope(tenant["organization_id"], tenant["client_id"]))
                    page = ha.queue(db, filters, limit=args.limit, cursor=None)
                    return [r.case.id for r in page.items]

            paths = {"rpc": rpc, "service": direct, "bare": bare}
            for name, shape in shapes.items():
                results = {p: fn(shape) for p, fn in paths.items()}
                assert results["rpc"] == results["service"] == results["bare"], f"{name}: the paths disagree"
                assert len(results["bare"]) == args.limit, f"{name}: fewer rows than the limit"
            for _ in range(args.warmup):
                for shape in shapes.values():
                    for fn in paths.values():
                        fn(shape)
            for _ in range(args.calls):
                for name, shape in shapes.items():
                    for path, fn in paths.items():
                        started = time.perf_counter()
                        fn(shape)
                        samples[name][path].append((time.perf_counter() - started) * 1000)
        bare.conn.close()
        services.close()
        return {"samples": samples, "rescore_seconds": tenant["rescore_seconds"], "scored": tenant["scored"]}
    finally:
        drop()


def report(backend: str, result: dict[str, Any], args: argparse.Namespace) -> None:
    print(f"\n{backend}: ms per call (p50 / p99), limit {args.limit}, {args.calls} calls per path and shape")
    print(f"{'shape':<10} {'rpc':>16} {'service':>16} {'bare SQL':>16} {'rpc/bare p50':>13} {'service/bare p50':>17}")
    for name, paths in result["samples"].items():
        cells = {p: (statistics.median(v), _pct(v, 0.99)) for p, v in paths.items()}
        print(
            f"{name:<10} "
            + " ".join(f"{cells[p][0]:7.2f} / {cells[p][1]:6.2f}" for p in ("rpc", "service", "bare"))
            + f" {cells['rpc'][0] / cells['bare'][0]:12.2f}x {cells['service'][0] / cells['bare'][0]:16.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--outcomes", type=int, default=5_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="worklist-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"date {date.today().isoformat()}, workdir {workdir}")
    for backend in args.backends.split(","):
        report(backend, measure(backend, args, workdir), args)


if __name__ == "__main__":
    main()
