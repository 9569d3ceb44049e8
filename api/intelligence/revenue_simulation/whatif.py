"""What-if effects over historical claim x payer rows (pure, no I/O).

Every scenario's effect is a function of the rows' bootstrap weights ``w`` (how often each row is drawn in
a resample; all ones for the history itself), so the same code gives the point estimate and each bootstrap
replication (``bootstrap.py``). Money is in dollars as floats here; the caller rounds to cents.

The three kinds:

- ``prevention`` (a denial category or CARC, a share s in [0, 1] prevented): the denied money of the
  payer's initial decision that matches (``m``, at most the initial denied amount ``d``) is paid instead,
  less what an overturn already paid back of it (``r`` pro rata): per row  s x min(m, d) x (1 - r / d).
  Prevention removes the denial at its source (HFMA MAP Keys: initial denial rate, denial write-offs).
- ``strategy`` (a payer x denial category; appeal or write off): ``appeal`` appeals every unrecovered
  denial of the cell once more, recovering the cell's historical overturn rate p = k / n (in the sample)
  of its amount at risk, at the cost of one appeal each: sum over them of p x at_risk - c;
  ``write_off`` stops appealing: every overturn's recovery is forgone and its appeal cost saved:
  sum over the overturned of c - r. The effect is net of the appeal cost (recovery minus cost of work).
- ``rule`` (a payer's appeal limit shortened to N days): an overturn the payer decided more than N days
  after its initial decision is taken as lost (the appeal would have come too late): minus its recovery.

ASSUMPTIONS (stated in the answer): the history repeats; a prevented denial would have been paid in full;
an extra appeal wins at the cell's historical rate; the days from denial to overturn stand in for the
days to the appeal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Kind = Literal["prevention", "strategy", "rule"]
Action = Literal["appeal", "write_off"]
Floats = NDArray[np.float64]
Effect = Callable[[Floats], float]


@dataclass(frozen=True, slots=True)
class Row:
    """One claim x payer of the history (what the effects read)."""

    payer_key: str
    paid: float  # what the payer paid on the claim to date (the baseline revenue)
    denied: float  # the initial decision's denied amount
    recovered: float  # paid back by an overturn
    overturned: bool
    category: str | None  # the initial denial's category (most denied money)
    matched: float = 0.0  # the initial decision's denied money matching the prevention target
    days_to_recovery: int | None = None  # initial decision -> overturn decision


@dataclass(frozen=True, slots=True)
class Prevention:
    share: float


@dataclass(frozen=True, slots=True)
class Strategy:
    payer_key: str
    category: str
    action: Action
    cost_per_appeal: float


@dataclass(frozen=True, slots=True)
class Rule:
    payer_key: str
    days: int


Scenario = Prevention | Strategy | Rule


@dataclass(frozen=True, slots=True)
class Columns:
    """The rows as arrays (one entry per row)."""

    paid: Floats
    denied: Floats
    recovered: Floats
    overturned: NDArray[np.bool_]
    matched: Floats
    payer: NDArray[np.str_]
    category: NDArray[np.str_]
    days: Floats  # NaN when not overturned

    @property
    def size(self) -> int:
        return int(self.paid.shape[0])


def columns(rows: list[Row]) -> Columns:
    def floats(values: list[float]) -> Floats:
        return np.asarray(values, dtype=np.float64)

    return Columns(
        paid=floats([r.paid for r in rows]),
        denied=floats([r.denied for r in rows]),
        recovered=floats([r.recovered for r in rows]),
        overturned=np.asarray([r.overturned for r in rows], dtype=np.bool_),
        matched=floats([r.matched for r in rows]),
        payer=np.asarray([r.payer_key.upper() for r in rows], dtype=np.str_),
        category=np.asarray([r.category or "" for r in rows], dtype=np.str_),
        days=floats([np.nan if r.days_to_recovery is None else float(r.days_to_recovery) for r in rows]),
    )


def days_between(first: date | None, last: date | None) -> int | None:
    return None if first is None or last is None else (last - first).days


def prevention_gain(c: Columns, share: float) -> Floats:
    """Per row: s x min(m, d) x (1 - r / d); 0 where nothing was denied."""
    if not 0.0 <= share <= 1.0:
        raise ValueError("the prevented share must be between 0 and 1")
    denied = np.where(c.denied > 0, c.denied, 1.0)
    unrecovered = np.where(c.denied > 0, np.clip(1.0 - c.recovered / denied, 0.0, 1.0), 0.0)
    return share * np.minimum(c.matched, c.denied).clip(min=0.0) * unrecovered


def rule_loss(c: Columns, payer_key: str, days: int) -> Floats:
    """Per row: minus the recovery of an overturn of the payer decided more than `days` after the denial."""
    late = c.overturned & (c.payer == payer_key.upper()) & (np.nan_to_num(c.days, nan=-1.0) > days)
    return np.where(late, -c.recovered, 0.0)


def _strategy_effect(c: Columns, s: Strategy) -> Effect:
    cell = (c.payer == s.payer_key.upper()) & (c.category == s.category) & (c.denied > 0)
    won = (cell & c.overturned).astype(np.float64)
    lost = (cell & ~c.overturned).astype(np.float64)
    at_risk = np.clip(c.denied - c.recovered, 0.0, None)
    if s.action == "write_off":
        per_row = won * (s.cost_per_appeal - c.recovered)
        return lambda w: float(w @ per_row)

    def appeal(w: Floats) -> float:
        n = float(w @ cell.astype(np.float64))
        if n == 0:
            return 0.0
        rate = float(w @ won) / n
        return float(w @ (lost * (rate * at_risk - s.cost_per_appeal)))

    return appeal


def effect_of(c: Columns, scenario: Scenario) -> Effect:
    """The scenario's total effect on revenue as a function of the rows' bootstrap weights."""
    if isinstance(scenario, Strategy):
        return _strategy_effect(c, scenario)
    if isinstance(scenario, Prevention):
        per_row = prevention_gain(c, scenario.share)
    else:
        per_row = rule_loss(c, scenario.payer_key, scenario.days)
    return lambda w: float(w @ per_row)


def baseline(c: Columns) -> float:
    """The history's revenue: what the payers paid on the rows."""
    return float(c.paid.sum())
