"""Reads of fct_denial_cells_monthly for patterns.*: one window's cells, then `mining.mine` over all of them.

The family tested is always every cell of the window (filters given by the caller only narrow the
answer afterwards), so asking for one payer never changes which cells are patterns nor their q-values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from api.core.errors import InvalidInput
from api.infra.snapshot.reader import MartRow, ScopedMarts
from api.intelligence.patterns import cells
from api.intelligence.patterns.cells import Grouped, Window
from api.intelligence.patterns.mining import MAX_CELLS, Pattern, mine

CELLS_MART = "fct_denial_cells_monthly"

# Every subset of (payer, service line, facility) -- CUBE, 8 slices -- crossed with the denial level --
# ROLLUP(category, carc): any denial, a category, a category and a CARC. n is the whole slice's claims
# (denied or not, category 'none' included), k the slice's claims denied at that level. A slice with no
# denial at all still gets its any-denial cell (k = 0, left join); a category or CARC is a cell of a slice
# only where the slice has it. A missing dimension value is 'UNKNOWN' so that it never reads as "all".
#: The baselines' rows (one per denial level: any, each category, each category x CARC) come on top of the
#: cells; the CARC code list (about 300 codes) keeps them far below this.
MAX_LEVELS = 10_000
CELLS_SQL = f"""
with base as (
    select
        coalesce(payer_key, 'UNKNOWN') as payer_key,
        coalesce(service_line, 'UNKNOWN') as service_line,
        coalesce(facility, 'UNKNOWN') as facility,
        coalesce(denial_category, 'UNKNOWN') as denial_category,
        coalesce(carc, 'UNKNOWN') as carc,
        claims
    from {CELLS_MART}
    where adjudication_month between $first and $last
),
slices as (
    select payer_key, service_line, facility, grouping(payer_key, service_line, facility) as g, sum(claims) as n
    from base
    group by cube (payer_key, service_line, facility)
),
denied as (
    select
        payer_key, service_line, facility, grouping(payer_key, service_line, facility) as g,
        denial_category, carc, sum(claims) as k
    from base
    where denial_category <> 'none'
    group by cube (payer_key, service_line, facility), rollup (denial_category, carc)
)
select
    s.payer_key, d.denial_category as category, d.carc, s.service_line, s.facility,
    cast(s.n as bigint) as claims, cast(coalesce(d.k, 0) as bigint) as denied
from slices as s
left join denied as d
    on s.g = d.g
    and s.payer_key is not distinct from d.payer_key
    and s.service_line is not distinct from d.service_line
    and s.facility is not distinct from d.facility
where s.n > 0
limit {MAX_CELLS + MAX_LEVELS + 1}
"""


class _GroupedRow(MartRow):
    payer_key: str | None
    category: str | None
    carc: str | None
    service_line: str | None
    facility: str | None
    claims: int
    denied: int


class _Month(MartRow):
    month: date
    claims: int


@dataclass(frozen=True)
class Mined:
    """One window's search: the window (None: the client has no month to search), the baseline, how many
    cells were built and tested, and the patterns found (largest excess denials first)."""

    window: Window | None
    baseline_claims: int
    baseline_denied: int
    cells_built: int
    tests_run: int
    patterns: list[Pattern]


def months_present(m: ScopedMarts) -> list[date]:
    """The client's settled adjudication months in the snapshot (`cells.settled_months`: without the run-out
    of late decisions at the end of the history)."""
    rows = m.rows_as(
        _Month,
        f"select adjudication_month as month, cast(sum(claims) as bigint) as claims from {CELLS_MART} group by 1",
    )
    return cells.settled_months({r.month: r.claims for r in rows})


def mine_window(
    m: ScopedMarts, first: date | None, last: date | None, *, min_claims: int, min_lift: float, fdr: float
) -> Mined:
    """Build the window's cells in DuckDB and test every one of them (`mining.mine`)."""
    window = cells.window_of(months_present(m), first, last)
    if window is None:
        return Mined(None, 0, 0, 0, 0, [])
    rows = m.rows_as(_GroupedRow, CELLS_SQL, {"first": window.first, "last": window.last})
    try:
        built = cells.window_cells(Grouped(**row.model_dump()) for row in rows)
    except cells.TooManyCells:
        raise InvalidInput(
            f"Invalid input: the window holds more than {MAX_CELLS} cells to test; "
            "narrow it with 'fromMonth' and 'toMonth'"
        ) from None
    if built.baseline_denied == 0:
        # No denial in the window: there is no baseline rate to stand above, so nothing is tested.
        return Mined(window, built.baseline_claims, 0, len(built.cells), 0, [])
    found = mine(
        built.cells,
        built.baseline_claims,
        built.baseline_denied,
        min_claims=min_claims,
        min_lift=min_lift,
        fdr=fdr,
        level_baselines=built.level_baselines,
    )
    return Mined(
        window,
        built.baseline_claims,
        built.baseline_denied,
        len(built.cells),
        cells.tests_run(built.cells, min_claims),
        found,
    )
