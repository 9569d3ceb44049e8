"""The recovery process as a discrete-event simulation (pure, no I/O; SimPy, Team SimPy, simpy.readthedocs.io).

One replication, in days from the start: the backlog at the start waits in the queue; denials arrive per payer x
category (Poisson counts each week, uniform within it); a pool of specialists (``simpy.PriorityResource``) takes
the queue's head (the oldest first, or by the strategy's order); a case still waiting at its appeal deadline
leaves the queue lost (reneging, as in SimPy's "bank renege" example); a worked case takes an exponential work
time, then succeeds with its category's probability and recovers the category's recovered share of its amount.

Uncertainty: every replication first draws the parameters from their posteriors (arrival rates from the
Jeffreys Gamma(k + 1/2, w) posterior of a Poisson rate, success probabilities from their Jeffreys Beta, the
mean work time from its estimate's normal sampling distribution), then runs the process with those, so the
answer's intervals carry both the estimation error and the process's own randomness. Intervals are the
replications' 2.5th and 97.5th percentiles (95% predictive intervals).

Reproducible: replication i uses ``Generator(PCG64(s_i))`` with s_i the i-th child of ``SeedSequence(seed)``;
the same calibration, start, scenario, horizon, replications and seed give the same answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy
from numpy.random import PCG64, Generator, SeedSequence

from api.intelligence.revenue_recovery_digital_twin.calibration import Calibration, Estimate

MAX_HORIZON_WEEKS = 52
MAX_REPLICATIONS = 500
MAX_STAFF = 200
#: replications x (cases at the start + expected arrivals over the horizon, at the rates' upper bounds):
#: the simulated cases one request may cost (about 7 s on one core); more is refused.
MAX_SIMULATED_CASES = 150_000
ORDERS = ("fifo", "deadline", "amount")
MIN_WORK_DAYS = 0.05


@dataclass(frozen=True)
class Queued:
    """A case in the backlog at the start: how long it has waited and when its deadline comes (days)."""

    payer: str
    category: str
    amount: float
    age_days: float
    due_in_days: float | None


@dataclass(frozen=True)
class Scenario:
    """A change to run the process under: staff added (or removed), the queue's order, categories written
    off on arrival instead of worked, and a factor on every success probability (a new strategy)."""

    staff_delta: int = 0
    order: str = "fifo"  # fifo | deadline (earliest deadline first) | amount (largest first)
    skip_categories: tuple[str, ...] = ()
    success_multiplier: float = 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "staffDelta": self.staff_delta,
            "order": self.order,
            "skipCategories": list(self.skip_categories),
            "successMultiplier": self.success_multiplier,
        }


class Refused(ValueError):
    """A request over a cap or inconsistent with the twin (the message says which and the limit)."""


def cost(cal: Calibration, start: Sequence[Queued], horizon_weeks: int, replications: int) -> float:
    """The simulated cases a request costs (its upper bound, see ``MAX_SIMULATED_CASES``)."""
    weekly = sum(e.high for e in cal.arrivals.values())
    return replications * (len(start) + horizon_weeks * weekly)


def check(cal: Calibration, start: Sequence[Queued], scenario: Scenario, horizon_weeks: int, replications: int) -> int:
    """The scenario's team size, or Refused naming the cap."""
    if not 1 <= horizon_weeks <= MAX_HORIZON_WEEKS:
        raise Refused(f"'horizonWeeks' must be 1..{MAX_HORIZON_WEEKS}")
    if not 1 <= replications <= MAX_REPLICATIONS:
        raise Refused(f"'replications' must be 1..{MAX_REPLICATIONS}")
    if scenario.order not in ORDERS:
        raise Refused(f"'order' must be one of {', '.join(ORDERS)}")
    if not 0 <= scenario.success_multiplier <= 10 or not math.isfinite(scenario.success_multiplier):
        raise Refused("'successMultiplier' must be 0..10")
    staff = cal.team_size + scenario.staff_delta
    if not 1 <= staff <= MAX_STAFF:
        raise Refused(
            f"the team would have {staff} specialists ({cal.team_size} + {scenario.staff_delta}); it needs 1..{MAX_STAFF}"
        )
    spent = cost(cal, start, horizon_weeks, replications)
    if spent > MAX_SIMULATED_CASES:
        raise Refused(
            f"the run would simulate up to {spent:,.0f} cases (limit {MAX_SIMULATED_CASES:,}): "
            "lower 'replications' or 'horizonWeeks'"
        )
    return staff


@dataclass
class _Tally:
    backlog: int
    recovered: np.ndarray  # per week
    weekly_backlog: list[int] = field(default_factory=list)  # at each week's end
    decided: int = 0
    expired: int = 0
    written_off: int = 0


def _beta_draw(rng: Generator, e: Estimate) -> float:
    total = e.n + 1.0  # Jeffreys: a + b = n + 1, a = mean x (n + 1)
    return float(rng.beta(e.value * total, (1 - e.value) * total))


def _work_mean(rng: Generator, e: Estimate) -> float:
    se = (e.high - e.low) / (2 * 1.96)
    return max(float(rng.normal(e.value, se)), MIN_WORK_DAYS)


def _priority(order: str, opened: float, due: float | None, amount: float) -> int:
    """The queue's key (lower first; SimPy breaks ties by request time), in thousandths of a day or cents."""
    if order == "deadline":
        return round(due * 1000) if due is not None else 2**62
    if order == "amount":
        return -round(amount * 100)
    return round(opened * 1000)


def replicate(
    cal: Calibration, start: Sequence[Queued], scenario: Scenario, horizon_weeks: int, staff: int, rng: Generator
) -> _Tally:
    """One run of the process over the horizon."""
    cells = sorted(cal.arrivals)
    rates = {c: float(rng.gamma(cal.arrivals[c].n + 0.5, 1 / cal.weeks)) for c in cells}
    p = {c: min(_beta_draw(rng, e) * scenario.success_multiplier, 1.0) for c, e in sorted(cal.success.items())}
    work_mean = _work_mean(rng, cal.work_days)
    skip = set(scenario.skip_categories)
    env = simpy.Environment()
    team = simpy.PriorityResource(env, capacity=staff)
    tally = _Tally(backlog=0, recovered=np.zeros(horizon_weeks))
    end = horizon_weeks * 7.0

    def case(payer: str, category: str, amount: float, opened: float, due: float | None) -> Any:
        if category in skip:
            tally.written_off += 1
            return
        tally.backlog += 1
        with team.request(priority=_priority(scenario.order, opened, due, amount)) as req:
            if due is not None:
                got = yield req | env.timeout(max(due - env.now, 0.0))
                if req not in got:
                    tally.backlog -= 1
                    tally.expired += 1
                    return
            else:
                yield req
            yield env.timeout(float(rng.exponential(work_mean)))
        tally.backlog -= 1
        tally.decided += 1
        if rng.random() < p.get(category, 0.0):
            week = min(int(env.now // 7), horizon_weeks - 1)
            tally.recovered[week] += amount * cal.recovered_share.get(category, 1.0)

    def arrivals() -> Any:
        draws: list[tuple[float, str, str, float, float | None]] = []
        for week in range(horizon_weeks):
            for cell in cells:
                for _ in range(int(rng.poisson(rates[cell]))):
                    at = 7.0 * (week + float(rng.random()))
                    amount = float(rng.choice(cal.amounts[cell]))
                    days = cal.deadline_days.get(cell)
                    due = at + float(rng.choice(days)) if days else None
                    draws.append((at, cell[0], cell[1], amount, due))
        draws.sort(key=lambda d: d[0])
        for at, payer, category, amount, due in draws:
            yield env.timeout(at - env.now)
            env.process(case(payer, category, amount, at, due))

    def monitor() -> Any:
        for _ in range(horizon_weeks):
            yield env.timeout(7.0)
            tally.weekly_backlog.append(tally.backlog)

    for q in start:
        env.process(case(q.payer, q.category, q.amount, -q.age_days, q.due_in_days))
    env.process(arrivals())
    env.process(monitor())
    env.run(until=end + 1e-9)
    return tally


@dataclass(frozen=True)
class Summary:
    mean: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def summary(values: Sequence[float] | np.ndarray) -> Summary:
    """Mean and the 2.5th..97.5th percentiles of the replications."""
    arr = np.asarray(values, dtype=float)
    low, high = np.percentile(arr, [2.5, 97.5])
    return Summary(round(float(arr.mean()), 4), round(float(low), 4), round(float(high), 4))


@dataclass(frozen=True)
class Forecast:
    """What the replications predict: the backlog at each week's end and the money recovered in it."""

    backlog: list[Summary]  # at the end of week 1..H
    recovered: list[Summary]  # in week 1..H
    final_backlog: Summary
    total_recovered: Summary
    decided: Summary
    expired: Summary
    written_off: Summary
    staff: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "weeks": [
                {"week": i + 1, "backlog": b.as_dict(), "recovered": r.as_dict()}
                for i, (b, r) in enumerate(zip(self.backlog, self.recovered, strict=True))
            ],
            "finalBacklog": self.final_backlog.as_dict(),
            "totalRecovered": self.total_recovered.as_dict(),
            "decided": self.decided.as_dict(),
            "expired": self.expired.as_dict(),
            "writtenOff": self.written_off.as_dict(),
            "staff": self.staff,
        }


def simulate(
    cal: Calibration, start: Sequence[Queued], scenario: Scenario, *, horizon_weeks: int, replications: int, seed: int
) -> Forecast:
    """Run the replications (each its own child seed) and summarise them; Refused over a cap."""
    staff = check(cal, start, scenario, horizon_weeks, replications)
    tallies = [
        replicate(cal, start, scenario, horizon_weeks, staff, Generator(PCG64(child)))
        for child in SeedSequence(seed).spawn(replications)
    ]
    backlog = np.array([t.weekly_backlog for t in tallies], dtype=float)
    recovered = np.array([t.recovered for t in tallies], dtype=float)
    return Forecast(
        backlog=[summary(backlog[:, w]) for w in range(horizon_weeks)],
        recovered=[summary(recovered[:, w]) for w in range(horizon_weeks)],
        final_backlog=summary(backlog[:, -1]),
        total_recovered=summary(recovered.sum(axis=1)),
        decided=summary([t.decided for t in tallies]),
        expired=summary([t.expired for t in tallies]),
        written_off=summary([t.written_off for t in tallies]),
        staff=staff,
    )
