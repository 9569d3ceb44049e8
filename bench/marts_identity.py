"""Proof that a refactoring of the dbt models leaves the marts row-for-row identical.

Two steps, each a subcommand:

``build``: generate a corpus (cached by size and seed), put it in the drop folder of a fresh data
directory with a migrated SQLite operational database holding one tenant and denial cases on a
deterministic share of the generated denied claims (so the case KPIs are exercised too: decided,
closed, reopened, worked by a person or only by the platform), and run ``run_pipeline`` with the
code and dbt project of ``--root`` (a worktree: the one before and the one after the change) at a
fixed ``KPI_BUILD_DATE``. Prints the build's seconds and the path of its warehouse file.

``compare``: for two warehouse files, every table of the ``marts`` schema (in either file): its
columns and types, its row count on each side and ``except all`` both ways. Exits 1 on any
difference.

Usage:
    .venv/bin/python bench/marts_identity.py build --root /work/wt/base --size 10000 --out /tmp/x/base
    .venv/bin/python bench/marts_identity.py build --root . --size 10000 --out /tmp/x/after
    .venv/bin/python bench/marts_identity.py compare /tmp/x/base/warehouse.duckdb /tmp/x/after/warehouse.duckdb
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "true")
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")

ORGANIZATION_ID = 1
CLIENT_ID = 1
USER_ID = 1
#: Case states cycled over the seeded cases: each decided state, a closed case (its decision only in
#: its history), a case reopened after a decision (no decision) and open cases.
CASE_PLAN = (
    ("won", "won"),
    ("partially_won", "partially_won"),
    ("lost", "lost"),
    ("written_off", "written_off"),
    ("closed", "lost"),
    ("closed", "won"),
    ("in_appeal", "lost"),
    ("open", None),
)


def _corpus(size: int, seed: int, cache: Path) -> Path:
    """The generated corpus for ``size`` claims (generated once per size and seed, byte-identical)."""
    from pipelines.synthetic import CorpusSpec, generate_corpus

    corpus = cache / f"corpus_{size}_{seed}"
    if not (corpus / "manifest.json").exists():
        started = time.perf_counter()
        shutil.rmtree(corpus, ignore_errors=True)
        generate_corpus(CorpusSpec(seed=seed, claims=size, months=12), corpus)
        print(f"generated {size:,} claims in {time.perf_counter() - started:.1f}s", flush=True)
    return corpus


def _seed_cases(conn, corpus: Path, share: int) -> int:
    """Insert a denial case (and its history) for every ``share``-th initially denied claim; returns the count."""
    import polars as pl
    from sqlalchemy import text

    truth = pl.read_parquet(
        corpus / "truth_claims.parquet", columns=["claim_id", "payer", "remit_date", "denied_amount"]
    )
    denied = truth.filter(pl.col("denied_amount") > 0).sort("claim_id").gather_every(share)
    cases = []
    events = []
    for number, row in enumerate(denied.iter_rows(named=True), start=1):
        state, decision = CASE_PLAN[number % len(CASE_PLAN)]
        remitted = row["remit_date"] or date(2026, 1, 1)
        opened = datetime.combine(remitted, datetime.min.time(), tzinfo=UTC) + timedelta(days=2)
        decided = opened + timedelta(days=20 + number % 60)
        moved = decided + timedelta(days=15) if state in ("closed", "in_appeal") else decided
        amount = row["denied_amount"]
        # every other case worked by a person (opened by hand), the others only by the platform
        actor = USER_ID if number % 2 else None
        cases.append(
            {
                "id": number,
                "key": f"bench-{number}",
                "claim": row["claim_id"],
                "payer": row["payer"],
                "remitted": remitted,
                "stake": amount,
                "recovered": amount if decision == "won" else (amount / 2 if decision == "partially_won" else 0),
                "written": amount if decision in ("lost", "written_off") else 0,
                "state": state,
                "changed": moved if decision else opened,
                "closed": moved if state == "closed" else None,
                "created": opened,
            }
        )
        events.append((number, "opened", None, "open", actor, opened))
        if decision:
            events.append((number, "transition", "open", decision, actor, decided))
        if state in ("closed", "in_appeal"):
            events.append((number, "transition", decision, state, USER_ID, moved))
    conn.execute(
        text(
            "insert into denial_cases (id, organization_id, client_id, denial_key, origin, event_kind, claim_key,"
            " payer, remittance_date, amount_at_stake, paid_before, recovered_amount, recovered_by_hand,"
            " written_off_amount, state, state_changed_at, escalated, on_hold, rarcs, deadline_assumed,"
            " recovery_plan, closed_at, created_at) values (:id, 1, 1, :key, 'remittance', 'denial', :claim,"
            " :payer, :remitted, :stake, 0, :recovered, 0, :written, :state, :changed, 0, 0, '[]', 0, '{}',"
            " :closed, :created)"
        ),
        [
            {**case, "stake": str(case["stake"]), "recovered": str(case["recovered"]), "written": str(case["written"])}
            for case in cases
        ],
    )
    conn.execute(
        text(
            "insert into denial_case_events (organization_id, client_id, case_id, kind, from_state, to_state,"
            " actor_user_id, details, created_at) values (1, 1, :case, :kind, :from_state, :to_state, :actor,"
            " '{}', :at)"
        ),
        [
            {"case": case, "kind": kind, "from_state": before, "to_state": after, "actor": actor, "at": at}
            for case, kind, before, after, actor, at in events
        ],
    )
    return len(cases)


def build(args: argparse.Namespace) -> int:
    """Build the marts of ``args.root``'s code on the generated corpus; print seconds and the warehouse path."""
    root = Path(args.root).resolve()
    sys.path.insert(0, str(root))
    os.environ["KPI_BUILD_DATE"] = args.build_date
    from sqlalchemy import create_engine, text

    from api.infra.db import migrate
    from pipelines.defs.dbt.project import DBT_PROJECT_DIR, ensure_manifest
    from pipelines.runner import run_pipeline
    from pipelines.warehouse.layout import WarehouseLayout

    assert DBT_PROJECT_DIR.is_relative_to(root), f"{DBT_PROJECT_DIR} is not under {root}"
    args.cache.mkdir(parents=True, exist_ok=True)
    corpus = _corpus(args.size, args.seed, args.cache)
    data_dir = Path(args.out).resolve()
    shutil.rmtree(data_dir, ignore_errors=True)
    drop = data_dir / "drop" / f"client_{CLIENT_ID}"
    drop.mkdir(parents=True)
    for path in corpus.iterdir():
        if path.suffix in (".835", ".837", ".csv"):
            os.link(path, drop / path.name)  # hard link: no copy, same bytes
    url = f"sqlite:///{data_dir / 'platform.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    fixed = datetime(2026, 1, 1, tzinfo=UTC)  # the same rows in both builds
    with engine.begin() as conn:
        conn.execute(
            text(
                "insert into organizations (id, name, slug, status, created_at) values (1, 'Bench', 'bench', 'active', :n)"
            ),
            {"n": fixed},
        )
        conn.execute(
            text(
                "insert into clients (id, organization_id, name, status, created_at) values (1, 1, 'Bench H', 'active', :n)"
            ),
            {"n": fixed},
        )
        seeded = _seed_cases(conn, corpus, args.case_share) if args.case_share else 0
    engine.dispose()
    ensure_manifest()
    started = time.perf_counter()
    summary = run_pipeline(data_dir, url)
    seconds = time.perf_counter() - started
    if not summary.success:
        print(f"build FAILED: {summary.errors}")
        return 1
    warehouse = WarehouseLayout.at(data_dir).latest_complete_build()
    print(
        f"root {root}: {args.size:,} claims, {seeded:,} cases; pipeline {seconds:.1f}s "
        f"(dbt build+tests {summary.step_seconds.get('dbt_models', 0.0):.1f}s); warehouse {warehouse}"
    )
    return 0


def _tables(con, alias: str) -> dict[str, list[tuple[str, str]]]:
    """Table name -> [(column, type)] of the marts schema of the attached database ``alias``."""
    rows = con.execute(
        "select table_name, column_name, data_type from information_schema.columns"
        " where table_catalog = ? and table_schema = 'marts' order by table_name, ordinal_position",
        [alias],
    ).fetchall()
    tables: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        tables.setdefault(table, []).append((column, kind))
    return tables


def compare(args: argparse.Namespace) -> int:
    """Print, per marts table, the rows on each side and the rows of ``except all`` both ways; 1 on any difference."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"attach '{args.before}' as before (read_only)")
    con.execute(f"attach '{args.after}' as after (read_only)")
    before, after = _tables(con, "before"), _tables(con, "after")
    different = 0
    print(f"{'table':<34} {'rows before':>12} {'rows after':>12} {'before-after':>13} {'after-before':>13}")
    for table in sorted(set(before) | set(after)):
        if before.get(table) != after.get(table):
            different += 1
            print(f"{table:<34} COLUMNS DIFFER: before {before.get(table)} after {after.get(table)}")
            continue
        a = f"before.marts.{table}"
        b = f"after.marts.{table}"
        counts = [
            con.execute(f"select count(*) from {a}").fetchone()[0],
            con.execute(f"select count(*) from {b}").fetchone()[0],
        ]
        only_before = con.execute(f"select count(*) from (select * from {a} except all select * from {b})").fetchone()[
            0
        ]
        only_after = con.execute(f"select count(*) from (select * from {b} except all select * from {a})").fetchone()[0]
        different += bool(only_before or only_after or counts[0] != counts[1])
        print(f"{table:<34} {counts[0]:>12,} {counts[1]:>12,} {only_before:>13,} {only_after:>13,}")
    print(f"{len(set(before) | set(after))} tables, {different} different")
    return 1 if different else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="build the marts of one worktree")
    make.add_argument("--root", required=True, help="the worktree whose code and dbt project build")
    make.add_argument("--size", type=int, default=10_000, help="generated claims")
    make.add_argument("--seed", type=int, default=2026)
    make.add_argument("--cache", type=Path, default=Path("/tmp/marts_identity"), help="where corpora are kept")
    make.add_argument("--out", required=True, help="the data directory to (re)create")
    make.add_argument("--build-date", default="2099-12-31", help="KPI_BUILD_DATE of the build")
    make.add_argument("--case-share", type=int, default=3, help="a case on every n-th denied claim (0: none)")
    check = commands.add_parser("compare", help="compare the marts of two warehouse files")
    check.add_argument("before", type=Path)
    check.add_argument("after", type=Path)
    args = parser.parse_args()
    return build(args) if args.command == "build" else compare(args)


if __name__ == "__main__":
    raise SystemExit(main())
