"""Decided appeals with a planted signal (or pure noise) for the outcome model, and a published snapshot
whose case-ledger guard lists chosen cases (what outcomeLearning.train needs), shared by the tests of
outcomeLearning and of the worklist that ranks by it."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from api.denials.cases.models import DenialCase
from api.denials.outcomes import service as outcomes
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.snapshot.reader import MartReader

PAYERS = ("ACME", "BOLT", "CEDAR", "DELTA")


def signal(i: int, rng: random.Random) -> tuple[str, int, bool]:
    """Row i: payer i mod 4, level 1 or 2 alternating every 4 rows. ACME always wins, BOLT always loses
    (the payer x category prior sees that); CEDAR and DELTA win exactly at level 1 (the prior cannot see
    the level: their cells look like a coin)."""
    payer, level = PAYERS[i % 4], 1 + (i // 4) % 2
    return payer, level, {"ACME": True, "BOLT": False}.get(payer, level == 1)


def noise(i: int, rng: random.Random) -> tuple[str, int, bool]:
    """Success a fair coin, independent of payer and level (the test's own seeded draw)."""
    return PAYERS[i % 4], 1 + (i // 4) % 2, rng.random() < 0.5


def plant(
    services: Any,
    member: Any,
    design: Callable[[int, random.Random], tuple[str, int, bool]],
    n: int,
    *,
    first_day: date,
    seed: int = 0,
    start: int = 0,
    same_day: bool = False,
) -> list[int]:
    """n decided appeals, row i decided on first_day + i days (distinct days: the split is exact), or all
    on first_day;
    every case authorization / CARC 197, $1,000 at stake, remitted 30 days before its decision."""
    rng = random.Random(seed)
    ids = []
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        for i in range(start, start + n):
            payer, level, won = design(i, rng)
            day = first_day if same_day else first_day + timedelta(days=i - start)
            case = DenialCase(
                denial_key=f"learn-{uuid.uuid4().hex}",
                origin="manual",
                event_kind="denial",
                claim_key=f"PCN-L{i}",
                payer=payer,
                payer_class="commercial",
                denial_category="authorization",
                carc="197",
                amount_at_stake=Decimal("1000.00"),
                remittance_date=day - timedelta(days=30),
                state="in_appeal",
                state_changed_at=datetime.now(UTC),
            )
            db.add(case)
            db.flush()
            decision = "won" if won else "lost"
            amount = Decimal("1000.00") if won else Decimal("0")
            data = outcomes.NewOutcome(case.id, decision, day, level=level, amount_recovered=amount)
            outcomes.record(db, data, user_id=member.user_id)
            ids.append(case.id)
    return ids


def publisher(services: Any, warehouse: Path, monkeypatch: Any) -> Any:
    """publish(member, differing_case_ids): a new published snapshot (built now) whose guard lists those
    cases of the member's client. Before the first call there is no snapshot."""
    warehouse.mkdir()
    monkeypatch.setattr(services, "marts", MartReader(warehouse))

    def _publish(member: Any, differing: Any = ()) -> None:
        path = warehouse / f"marts_{uuid.uuid4().hex}.duckdb"
        con = duckdb.connect(str(path))
        con.execute(
            "create table fct_case_ledger_differences"
            " (organization_id bigint, client_id bigint, case_id bigint, difference_kind varchar)"
        )
        for case_id in differing:
            con.execute(
                "insert into fct_case_ledger_differences values (?, ?, ?, 'at_stake_differs')",
                [member.organization_id, member.client_id, case_id],
            )
        con.close()
        built = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        pointer = {"snapshot": str(path), "built_at": built, "run_id": "test", "tables": {}}
        (warehouse / "published.json").write_text(json.dumps(pointer))

    return _publish
