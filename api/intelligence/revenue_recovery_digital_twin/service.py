"""revenueRecoveryDigitalTwin: build a twin of the client's recovery process from its case history, backtest it
on the window's last quarter, and run it forward under a change. Never commits.

Rules (issue 28, documented here):

- History: the client's denial cases (``outcomes.service.recovery_history``: opened on the denial's remittance
  date, else the day opened on the platform; each with its first recorded appeal outcome). A case that left the
  work without an outcome (written off, closed) ended on its last state change; one never decided nor ended
  leaves the backlog at its appeal deadline (lost: nobody appealed in time). A missing category is
  ``unclassified``.
- Calibration: ``calibration.calibrate`` over the window (``windowWeeks`` ending ``asOf``); cases opened up to
  half a year before the window are read too, for the backlog and for the specialists' previous decisions.
- The stated error: the same procedure calibrated on the window less its last quarter, run over that quarter
  from the backlog at its start (``BACKTEST_REPLICATIONS`` replications, the build's seed), and compared with
  what happened: the backlog at the quarter's end and the money recovered in it, each with the relative error
  of the forecast's mean and whether the actual fell in its 95% predictive interval.
- Runs start from the backlog at ``asOf`` (stored with the twin) and are capped (``process.check``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.denials.outcomes import service as outcomes
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id
from api.intelligence.revenue_recovery_digital_twin import calibration as cal
from api.intelligence.revenue_recovery_digital_twin import process
from api.intelligence.revenue_recovery_digital_twin.models import RecoveryTwin, RecoveryTwinRun

MAX_CASES = 20_000
MAX_START_BACKLOG = 5_000
LOOKBACK_DAYS = 182
BACKTEST_WEEKS = 13
BACKTEST_REPLICATIONS = 200
MAX_RUNS_SHOWN = 50


def records_of(rows: Sequence[outcomes.RecoveryCase]) -> list[cal.CaseRecord]:
    return [
        cal.CaseRecord(
            opened_on=r.opened_on,
            payer=r.payer,
            category=r.category or cal.NO_CATEGORY,
            amount=float(r.amount_at_stake),
            owner=r.owner_user_id,
            due_on=r.appeal_due_on,
            decided_on=r.decided_on,
            decision=r.decision,
            recovered=float(r.amount_recovered),
            ended_on=r.ended_on,
        )
        for r in rows
    ]


def start_of(records: Sequence[cal.CaseRecord], day: date) -> list[process.Queued]:
    """The backlog at the end of ``day`` as the simulation's starting queue."""
    return [
        process.Queued(
            payer=r.payer,
            category=r.category,
            amount=r.amount,
            age_days=float((day - r.opened_on).days),
            due_in_days=float((r.due_on - day).days) if r.due_on is not None else None,
        )
        for r in cal.backlog_at(records, day)
    ]


def _queued_json(q: process.Queued) -> dict[str, Any]:
    return {
        "payer": q.payer,
        "category": q.category,
        "amount": q.amount,
        "ageDays": q.age_days,
        "dueInDays": q.due_in_days,
    }


def _queued(d: dict[str, Any]) -> process.Queued:
    return process.Queued(d["payer"], d["category"], d["amount"], d["ageDays"], d["dueInDays"])


def _relative(predicted: float, actual: float) -> float:
    return round(abs(predicted - actual) / max(abs(actual), 1.0), 4)


def backtest(records: Sequence[cal.CaseRecord], first: date, as_of: date, seed: int) -> dict[str, Any]:
    """Calibrate on [first, as_of - 13 weeks], forecast the last 13 weeks, compare with what happened."""
    cut = as_of - timedelta(days=7 * BACKTEST_WEEKS)
    base = {"quarterFrom": (cut + timedelta(days=1)).isoformat(), "quarterTo": as_of.isoformat(), "seed": seed}
    try:
        fitted = cal.calibrate(records, first, cut)
    except cal.NotEnoughHistory as exc:
        return {**base, "available": False, "reason": f"before the last quarter: {exc}"}
    start = start_of(records, cut)
    per_run = process.cost(fitted, start, BACKTEST_WEEKS, 1)
    reps = max(1, min(BACKTEST_REPLICATIONS, int(process.MAX_SIMULATED_CASES // max(per_run, 1.0))))
    try:
        got = process.simulate(
            fitted, start, process.Scenario(), horizon_weeks=BACKTEST_WEEKS, replications=reps, seed=seed
        )
    except process.Refused as exc:
        return {**base, "available": False, "reason": str(exc)}
    actual_backlog = len(cal.backlog_at(records, as_of))
    actual_recovered = round(cal.recovered_between(records, cut + timedelta(days=1), as_of), 2)
    b, r = got.final_backlog, got.total_recovered
    return {
        **base,
        "available": True,
        "reason": None,
        "replications": reps,
        "predictedBacklog": b.as_dict(),
        "actualBacklog": actual_backlog,
        "backlogError": _relative(b.mean, actual_backlog),
        "backlogWithinInterval": b.low <= actual_backlog <= b.high,
        "predictedRecovered": r.as_dict(),
        "actualRecovered": actual_recovered,
        "recoveredError": _relative(r.mean, actual_recovered),
        "recoveredWithinInterval": r.low <= actual_recovered <= r.high,
    }


def build(db: Session, *, as_of: date, window_weeks: int, seed: int, user_id: int) -> RecoveryTwin:
    """Calibrate a twin on the window ending ``as_of``, backtest it and store it; PRECONDITION_FAILED when the
    window holds too little history (the message says what)."""
    first = as_of - timedelta(days=7 * window_weeks - 1)
    rows = outcomes.recovery_history(
        db, opened_from=first - timedelta(days=LOOKBACK_DAYS), opened_to=as_of, limit=MAX_CASES + 1
    )
    if len(rows) > MAX_CASES:
        raise InvalidInput(f"Invalid input: the window holds more than {MAX_CASES:,} cases; shorten 'windowWeeks'")
    records = records_of(rows)
    try:
        fitted = cal.calibrate(records, first, as_of)
    except cal.NotEnoughHistory as exc:
        raise PreconditionFailed(f"The twin cannot be calibrated: {exc}") from None
    start = start_of(records, as_of)
    if len(start) > MAX_START_BACKLOG:
        raise PreconditionFailed(
            f"The backlog at asOf holds {len(start):,} cases; the twin models at most {MAX_START_BACKLOG:,}"
        )
    twin = RecoveryTwin(
        built_by=user_id,
        as_of=as_of,
        window_from=first,
        cases=sum(1 for r in records if r.opened_on >= first),
        seed=seed,
        calibration=fitted.as_dict(),
        backtest=backtest(records, first, as_of, seed),
        start_backlog=[_queued_json(q) for q in start],
    )
    db.add(twin)
    db.flush()
    return twin


def get_twin(db: Session, twin_id: int) -> RecoveryTwin:
    """The client's twin, or NOT_FOUND."""
    return get_by_id(db, RecoveryTwin, twin_id, "Digital twin")


def runs_of(db: Session, twin_id: int) -> list[RecoveryTwinRun]:
    """The twin's latest runs, newest first (at most ``MAX_RUNS_SHOWN``)."""
    stmt = (
        select(RecoveryTwinRun)
        .where(RecoveryTwinRun.twin_id == twin_id)
        .order_by(RecoveryTwinRun.id.desc())
        .limit(MAX_RUNS_SHOWN)
    )
    return list(db.scalars(stmt))


@dataclass(frozen=True)
class RunRequest:
    twin_id: int
    scenario: process.Scenario
    horizon_weeks: int
    replications: int
    seed: int


def run(db: Session, request: RunRequest, *, user_id: int) -> RecoveryTwinRun:
    """Run the twin forward from its backlog under the scenario and store the forecast; INVALID_INPUT over a cap
    or for a category the twin does not know."""
    twin = get_twin(db, request.twin_id)
    fitted = cal.from_dict(twin.calibration)
    unknown = sorted(set(request.scenario.skip_categories) - set(fitted.success))
    if unknown:
        raise InvalidInput(
            f"Invalid input: 'skipCategories' names categories the twin does not know: {', '.join(unknown)}"
            f" (known: {', '.join(sorted(fitted.success))})"
        )
    start = [_queued(d) for d in twin.start_backlog]
    try:
        forecast = process.simulate(
            fitted,
            start,
            request.scenario,
            horizon_weeks=request.horizon_weeks,
            replications=request.replications,
            seed=request.seed,
        )
    except process.Refused as exc:
        raise InvalidInput(f"Invalid input: {exc}") from None
    row = RecoveryTwinRun(
        twin_id=twin.id,
        ran_by=user_id,
        seed=request.seed,
        horizon_weeks=request.horizon_weeks,
        replications=request.replications,
        scenario=request.scenario.as_dict(),
        forecast=forecast.as_dict(),
        ran_on=utcnow(),
    )
    db.add(row)
    db.flush()
    return row
