"""Recurring denial root causes: cells of the marts whose denial rate stands above the client's.

A cell is one combination of five dimensions (payer, denial category, CARC, service line, facility;
any of them may be None, meaning "all values"), with the number of adjudicated claims n and the
number denied k. Each cell with at least `min_claims` claims is tested against the client's
baseline denial rate p0 = baseline_denied / baseline_claims:

* One-sided exact binomial test, H0: the cell's denial rate is p0, against "above p0"
  (scipy.stats.binomtest(k, n, p0, alternative="greater")); exact, so it stays valid for the small,
  skewed counts of narrow cells where a normal approximation would not.
  The p-value is P(X >= k) for X ~ Binomial(n, p0). It is computed with scipy.stats.binom.sf(k - 1,
  n, p0), which is exactly what binomtest returns for alternative="greater", vectorised so that the
  cap of 200,000 cells costs milliseconds rather than binomtest's ~75 us per call.
* Benjamini-Hochberg false discovery rate control (Benjamini & Hochberg 1995;
  statsmodels multipletests(method="fdr_bh")) over EVERY cell tested, not only the ones that look
  interesting: mining thousands of cells finds some "significant" ones by chance alone, and the
  q-value is only honest if the family is the whole search.
* A pattern must also matter: its rate must be at least `min_lift` times the baseline. With many
  claims a rate 2% above the baseline is significant and useless.

A cell is compared with the baseline of its own denial level. An any-denial cell (category and CARC
None) is compared with the client's denial rate; a cell naming a category (and a CARC) with the
client's rate of denials of that category (and CARC), `level_baselines[(category, carc)]`: a payer
denying 13 % of its radiology claims with CARC 197 is a root cause when the client's CARC 197 rate
is 1 %, even though 13 % is below the client's 15 % rate of denials of any kind.

The baseline is treated as known. It is the client's overall rate, built from many more claims than
any cell, so its own sampling error is small; when a cell is a large share of the client's claims the
cell pulls the baseline toward itself, which makes the test conservative, not liberal. Cells overlap
(a payer's cell contains its payer x CARC cells), so the p-values are positively dependent; BH stays
valid under positive regression dependence (Benjamini & Yekutieli 2001).

Rates carry a 95% Wilson score interval (Wilson 1927), lifts the same interval divided by the
baseline rate. Patterns are ranked by excess denials, k - n * p0: the number of denials the cell
would not have had at the client's rate, which is what a root-cause fix can win back.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

MAX_CELLS = 200_000
#: A denial level: (category, CARC); (None, None) is any denial, (category, None) any CARC of the category.
DenialLevel = tuple[str | None, str | None]
INTERVAL_LEVEL = 0.95


@dataclass(frozen=True)
class Cell:
    """One combination of the five dimensions (None = all values) and its claim counts."""

    payer_key: str | None
    category: str | None
    carc: str | None
    service_line: str | None
    facility: str | None
    claims: int  # n: adjudicated claims in the cell
    denied: int  # k: of which denied

    def dimensions(self) -> tuple[str | None, str | None, str | None, str | None, str | None]:
        return (self.payer_key, self.category, self.carc, self.service_line, self.facility)


@dataclass(frozen=True)
class Pattern:
    """A cell whose denial rate is both significantly (FDR-controlled) and materially above the baseline."""

    pattern_key: str  # sha256 of the five dimension values, first 16 hex digits
    cell: Cell
    claims: int  # n, the rate's sample size
    denied: int  # k
    rate: float  # k / n
    rate_low: float  # 95% Wilson interval of the rate
    rate_high: float
    baseline_claims: int  # the baseline's sample size
    baseline_denied: int
    baseline_rate: float
    lift: float  # rate / baseline_rate
    lift_low: float  # the rate's Wilson interval over the baseline rate (baseline taken as known)
    lift_high: float
    excess_denials: float  # k - n * baseline_rate
    p_value: float  # one-sided exact binomial, P(X >= k | n, baseline_rate)
    q_value: float  # Benjamini-Hochberg adjusted over all cells tested
    tests_run: int  # cells tested (claims >= min_claims): the size of the BH family


def pattern_key(cell: Cell) -> str:
    """A stable key for the cell's five dimensions: the same combination gets the same key in every run.

    JSON keeps None (null) apart from the string "None" and the order of the dimensions fixed.
    """
    encoded = json.dumps(list(cell.dimensions()), ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("ascii")).hexdigest()[:16]


def mine(
    cells: Sequence[Cell],
    baseline_claims: int,
    baseline_denied: int,
    *,
    min_claims: int = 30,
    min_lift: float = 1.5,
    fdr: float = 0.05,
    level_baselines: Mapping[DenialLevel, tuple[int, int]] | None = None,
) -> list[Pattern]:
    """Test every cell with at least `min_claims` claims and return the patterns, largest excess first.

    `baseline_claims` / `baseline_denied` is the client's any-denial baseline; `level_baselines` maps
    each (category, carc) level of the cells that name one to its (claims, denied) baseline (None: every
    cell is compared with the any-denial baseline, for cells of that level only). A pattern is a tested
    cell with Benjamini-Hochberg q <= `fdr` and rate >= `min_lift` x its level's baseline rate.
    Each pattern carries `tests_run`, the number of cells tested; when nothing is found the caller
    knows that number as the count of cells with claims >= min_claims.
    """
    _check_arguments(cells, baseline_claims, baseline_denied, min_claims, min_lift, fdr)
    baselines = _baselines(cells, baseline_claims, baseline_denied, level_baselines)

    tested = [cell for cell in cells if cell.claims >= min_claims]
    tests_run = len(tested)
    if tests_run == 0:
        return []

    # Imported when used: scipy.stats and statsmodels cost about 1.5 s in every process that imports the API.
    from scipy.stats import binom
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    n = np.array([cell.claims for cell in tested], dtype=np.int64)
    k = np.array([cell.denied for cell in tested], dtype=np.int64)
    of_cell = [baselines[(cell.category, cell.carc)] for cell in tested]
    p0 = np.array([denied / claims for claims, denied in of_cell], dtype=np.float64)
    # P(X >= k) = sf(k - 1): binomtest(k, n, p0, alternative="greater") for every cell at once.
    p_values = np.clip(binom.sf(k - 1, n, p0), 0.0, 1.0)
    q_values = multipletests(p_values, alpha=fdr, method="fdr_bh")[1]
    rates = k / n
    selected = np.flatnonzero((q_values <= fdr) & (rates >= min_lift * p0))
    if selected.size == 0:
        return []

    low, high = proportion_confint(k[selected], n[selected], alpha=1.0 - INTERVAL_LEVEL, method="wilson")
    patterns = [
        _pattern(
            tested[int(index)],
            float(low[position]),
            float(high[position]),
            of_cell[int(index)][0],
            of_cell[int(index)][1],
            float(p0[index]),
            float(p_values[index]),
            float(q_values[index]),
            tests_run,
        )
        for position, index in enumerate(selected)
    ]
    patterns.sort(key=lambda pattern: (-pattern.excess_denials, pattern.pattern_key))
    return patterns


def _pattern(
    cell: Cell,
    rate_low: float,
    rate_high: float,
    baseline_claims: int,
    baseline_denied: int,
    baseline_rate: float,
    p_value: float,
    q_value: float,
    tests_run: int,
) -> Pattern:
    rate = cell.denied / cell.claims
    # Wilson's limits contain the estimate and stay in [0, 1] (the upper one is exactly 1 at k = n); keep
    # rounding from putting them a hair outside.
    rate_low, rate_high = max(0.0, min(rate_low, rate)), min(1.0, max(rate_high, rate))
    return Pattern(
        pattern_key=pattern_key(cell),
        cell=cell,
        claims=cell.claims,
        denied=cell.denied,
        rate=rate,
        rate_low=rate_low,
        rate_high=rate_high,
        baseline_claims=baseline_claims,
        baseline_denied=baseline_denied,
        baseline_rate=baseline_rate,
        lift=rate / baseline_rate,
        lift_low=rate_low / baseline_rate,
        lift_high=rate_high / baseline_rate,
        excess_denials=cell.denied - cell.claims * baseline_rate,
        p_value=p_value,
        q_value=q_value,
        tests_run=tests_run,
    )


def _baselines(
    cells: Sequence[Cell],
    baseline_claims: int,
    baseline_denied: int,
    level_baselines: Mapping[DenialLevel, tuple[int, int]] | None,
) -> dict[DenialLevel, tuple[int, int]]:
    """The (claims, denied) baseline of every denial level the cells use, checked."""
    overall = (baseline_claims, baseline_denied)
    if level_baselines is None:
        return {(cell.category, cell.carc): overall for cell in cells} | {(None, None): overall}
    found: dict[DenialLevel, tuple[int, int]] = {(None, None): overall}
    for level, (claims, denied) in level_baselines.items():
        if level == (None, None):
            continue
        if claims <= 0 or not 0 < denied <= claims:
            raise ValueError(
                f"the baseline of denial level {level} must have claims > 0 and 1 <= denied <= claims,"
                f" got claims={claims}, denied={denied}"
            )
        found[level] = (claims, denied)
    for cell in cells:
        if (cell.category, cell.carc) not in found:
            raise ValueError(
                f"cell {cell.dimensions()} has no baseline for its denial level {(cell.category, cell.carc)}"
            )
    return found


def _check_arguments(
    cells: Sequence[Cell],
    baseline_claims: int,
    baseline_denied: int,
    min_claims: int,
    min_lift: float,
    fdr: float,
) -> None:
    if len(cells) > MAX_CELLS:
        raise ValueError(
            f"mine accepts at most {MAX_CELLS} cells, got {len(cells)}: mine one client (or one payer) at a time"
        )
    if baseline_claims <= 0:
        raise ValueError(f"baseline_claims must be positive (the client's adjudicated claims), got {baseline_claims}")
    if not 0 < baseline_denied <= baseline_claims:
        raise ValueError(
            f"baseline_denied must be between 1 and baseline_claims={baseline_claims}, got {baseline_denied}"
            " (with no denials at all there is no baseline rate to compare against)"
        )
    if min_claims < 1:
        raise ValueError(f"min_claims must be at least 1, got {min_claims}")
    if not (math.isfinite(min_lift) and min_lift > 0):
        raise ValueError(f"min_lift must be a positive finite number, got {min_lift}")
    if not 0 < fdr < 1:
        raise ValueError(f"fdr must be strictly between 0 and 1, got {fdr}")
    seen: set[tuple[str | None, ...]] = set()
    for cell in cells:
        if cell.claims < 0 or cell.denied < 0:
            raise ValueError(
                f"cell {cell.dimensions()} has negative counts: claims={cell.claims}, denied={cell.denied}"
            )
        if cell.denied > cell.claims:
            raise ValueError(
                f"cell {cell.dimensions()} has more denied ({cell.denied}) than adjudicated claims ({cell.claims})"
            )
        if cell.dimensions() in seen:
            raise ValueError(f"cell {cell.dimensions()} appears twice: each combination of dimensions must be unique")
        seen.add(cell.dimensions())
