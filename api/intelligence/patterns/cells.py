"""From the denial-cell mart's grouped rows to `mining.Cell`s, and the months a search covers (pure).

The mart `fct_denial_cells_monthly` holds, per month, the claim x payer initial adjudications of each
(payer, service line, facility, denial category, CARC), with category 'none' for those not denied.
`queries.CELLS_SQL` groups one window of it by every subset of (payer, service line, facility) crossed
with the denial level (any denial / a category / a category and a CARC). A row here is one such group:
its dimensions (None = all values), its n (every claim of its (payer, service line, facility) slice,
denied or not) and its k (the slice's claims denied at that level).

The rows whose payer, service line and facility are all None are the whole window: they are the
baselines (every claim of the client, and its denials at one level: any, a category, a category and a
CARC), not hypotheses, so they are not cells tested. Each cell is compared with its level's baseline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from api.intelligence.patterns.mining import MAX_CELLS, Cell, DenialLevel

#: Months searched when the caller names none: the last three settled adjudication months the client has
#: (`settled_months`).
DEFAULT_MONTHS = 3


@dataclass(frozen=True)
class Window:
    """The inclusive months searched (first days of months)."""

    first: date
    last: date


@dataclass(frozen=True)
class Grouped:
    """One cell of the window before testing: its dimensions and counts, as the grouped SQL returns it."""

    payer_key: str | None
    category: str | None
    carc: str | None
    service_line: str | None
    facility: str | None
    claims: int
    denied: int


@dataclass(frozen=True)
class WindowCells:
    """The cells of one window and the client's baseline over the same window."""

    cells: list[Cell]
    baseline_claims: int  # the any-denial baseline: every claim of the window, and those denied
    baseline_denied: int
    level_baselines: dict[DenialLevel, tuple[int, int]]  # (category, carc) -> (claims, denied) of the window


class TooManyCells(ValueError):
    """The window holds more cells than `mining.MAX_CELLS`."""


#: A month with fewer claims than this share of the busiest month's, at the end of the history, is run-out:
#: the late decisions (reprocessing, appeals, secondary payers) on claims of earlier months, months or years
#: after them. Ending the default window there would search a handful of claims.
RUN_OUT_SHARE = 0.1


def settled_months(volumes: Mapping[date, int]) -> list[date]:
    """The months present, oldest first, without the run-out at the end: the trailing months whose claims
    are below `RUN_OUT_SHARE` of the busiest month's (a sparse month in the middle stays)."""
    months = sorted(volumes)
    if not months:
        return []
    floor = RUN_OUT_SHARE * max(volumes.values())
    while months and volumes[months[-1]] < floor:
        months.pop()
    return months


def window_of(present: Sequence[date], first: date | None, last: date | None) -> Window | None:
    """The months to search: the caller's bounds where given; otherwise the last month present (at or
    before `last`) and the `DEFAULT_MONTHS` most recent months present up to it. None when the client
    has no month to search (no data, or none at or before `last`)."""
    if first is not None and last is not None:
        return Window(first, last)
    months = sorted({m for m in present if (last is None or m <= last) and (first is None or m >= first)})
    if not months:
        return None
    end = last or months[-1]
    start = first or months[-DEFAULT_MONTHS:][0]
    return Window(start, end)


def window_cells(rows: Iterable[Grouped]) -> WindowCells:
    """The cells of the grouped rows and the baselines (the rows naming no payer, service line or
    facility; the any-denial one has zero claims when absent).

    Refuses (TooManyCells) more than `mining.MAX_CELLS` cells, the most `mining.mine` tests at once.
    """
    cells: list[Cell] = []
    baseline_claims = baseline_denied = 0
    levels: dict[DenialLevel, tuple[int, int]] = {}
    for row in rows:
        if row.payer_key is None and row.service_line is None and row.facility is None:
            if row.category is None and row.carc is None:
                baseline_claims, baseline_denied = row.claims, row.denied
            else:
                levels[(row.category, row.carc)] = (row.claims, row.denied)
            continue
        if len(cells) == MAX_CELLS:
            raise TooManyCells(f"more than {MAX_CELLS} cells")
        dims = (row.payer_key, row.category, row.carc, row.service_line, row.facility)
        cells.append(Cell(*dims, claims=row.claims, denied=row.denied))
    return WindowCells(cells, baseline_claims, baseline_denied, levels)


def tests_run(cells: Sequence[Cell], min_claims: int) -> int:
    """The size of the Benjamini-Hochberg family: cells with at least `min_claims` claims (as `mine`)."""
    return sum(1 for cell in cells if cell.claims >= min_claims)
