"""From the denial-cell mart's grouped rows to `mining.Cell`s, and the months a search covers (pure).

The mart `fct_denial_cells_monthly` holds, per month, the claim x payer initial adjudications of each
(payer, service line, facility, denial category, CARC), with category 'none' for those not denied.
`queries.CELLS_SQL` groups one window of it by every subset of (payer, service line, facility) crossed
with the denial level (any denial / a category / a category and a CARC). A row here is one such group:
its dimensions (None = all values), its n (every claim of its (payer, service line, facility) slice,
denied or not) and its k (the slice's claims denied at that level).

The row whose five dimensions are all None is the whole window: it is the baseline (every claim and
every denial of the client), not a hypothesis, so it is not a cell tested.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from api.intelligence.patterns.mining import MAX_CELLS, Cell

#: Months searched when the caller names none: the last three adjudication months the client has.
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
    baseline_claims: int
    baseline_denied: int


class TooManyCells(ValueError):
    """The window holds more cells than `mining.MAX_CELLS`."""


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
    """The cells of the grouped rows and the baseline (the all-None row; zero claims when absent).

    Refuses (TooManyCells) more than `mining.MAX_CELLS` cells, the most `mining.mine` tests at once.
    """
    cells: list[Cell] = []
    baseline_claims = baseline_denied = 0
    for row in rows:
        dims = (row.payer_key, row.category, row.carc, row.service_line, row.facility)
        if all(d is None for d in dims):
            baseline_claims, baseline_denied = row.claims, row.denied
            continue
        if len(cells) == MAX_CELLS:
            raise TooManyCells(f"more than {MAX_CELLS} cells")
        cells.append(Cell(*dims, claims=row.claims, denied=row.denied))
    return WindowCells(cells, baseline_claims, baseline_denied)


def tests_run(cells: Sequence[Cell], min_claims: int) -> int:
    """The size of the Benjamini-Hochberg family: cells with at least `min_claims` claims (as `mine`)."""
    return sum(1 for cell in cells if cell.claims >= min_claims)
