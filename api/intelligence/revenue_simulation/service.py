"""revenueSimulation on the operational DB: runs a scenario over the history's rows (``whatif`` and
``bootstrap``, pure) and stores the answer with its seed and snapshot; `get` reads it back. Functions take
the tenant-scoped Session and plain values; they never commit."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from sqlalchemy.orm import Session

from api.infra.db.lookup import get_by_id
from api.intelligence.revenue_simulation import bootstrap, whatif
from api.intelligence.revenue_simulation.models import RevenueSimulation

CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class Figures:
    rows: int
    baseline: Decimal
    effect: Decimal
    low: Decimal
    high: Decimal


def _money(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(CENT, rounding=ROUND_HALF_EVEN) + Decimal("0.00")


def new_seed() -> int:
    """A seed when the caller gave none (stored with the answer, so the run can be repeated)."""
    return secrets.randbelow(bootstrap.MAX_SEED + 1)


def run(rows: list[whatif.Row], scenario: whatif.Scenario, *, seed: int, replications: int) -> Figures:
    """The baseline, the scenario's effect on the history and its bootstrap interval over the rows."""
    cols = whatif.columns(rows)
    found = bootstrap.interval(cols.size, whatif.effect_of(cols, scenario), replications=replications, seed=seed)
    return Figures(
        cols.size, _money(whatif.baseline(cols)), _money(found.estimate), _money(found.low), _money(found.high)
    )


@dataclass(frozen=True, slots=True)
class Ran:
    """What a run is stored with."""

    kind: str
    seed: int
    replications: int
    snapshot_id: str
    snapshot_built_at: datetime
    snapshot_run_id: str | None
    scenario: dict[str, Any]
    result: dict[str, Any]


def store(db: Session, ran: Ran, *, user_id: int) -> RevenueSimulation:
    row = RevenueSimulation(
        created_by=user_id,
        kind=ran.kind,
        seed=ran.seed,
        replications=ran.replications,
        snapshot_id=ran.snapshot_id,
        snapshot_built_at=ran.snapshot_built_at,
        snapshot_run_id=ran.snapshot_run_id,
        scenario=ran.scenario,
        result=ran.result,
    )
    db.add(row)
    db.flush()
    return row


def get(db: Session, simulation_id: int) -> RevenueSimulation:
    """The client's stored simulation (NOT_FOUND otherwise)."""
    return get_by_id(db, RevenueSimulation, simulation_id, "Simulation")
