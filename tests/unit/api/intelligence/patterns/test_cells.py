"""Grouped mart rows -> cells and baseline; the months a search covers."""

from __future__ import annotations

from datetime import date

import pytest

from api.intelligence.patterns import cells
from api.intelligence.patterns.cells import Grouped, Window
from api.intelligence.patterns.mining import MAX_CELLS, Cell

JAN, FEB, MAR, APR, MAY, JUN = (date(2026, m, 1) for m in (1, 2, 3, 4, 5, 6))


def test_no_bounds_take_the_last_three_months_present_even_with_a_gap():
    # months present Jan, Feb, Mar, Apr, Jun (May missing): the last three present are Mar, Apr, Jun
    assert cells.window_of([JUN, JAN, FEB, MAR, APR], None, None) == Window(MAR, JUN)


def test_fewer_months_than_three_take_them_all():
    assert cells.window_of([FEB, MAR], None, None) == Window(FEB, MAR)


def test_only_the_last_month_counts_back_three_months_present_up_to_it():
    assert cells.window_of([JAN, FEB, MAR, APR, JUN], None, MAR) == Window(JAN, MAR)


def test_only_the_first_month_runs_to_the_last_month_present():
    assert cells.window_of([JAN, FEB, MAR, APR, JUN], FEB, None) == Window(FEB, JUN)


def test_both_bounds_are_taken_as_given_even_without_data():
    assert cells.window_of([], JAN, FEB) == Window(JAN, FEB)


def test_no_month_present_is_no_window():
    assert cells.window_of([], None, None) is None
    assert cells.window_of([JUN], None, APR) is None  # nothing at or before April
    assert cells.window_of([JAN], FEB, None) is None  # nothing from February on


def grouped(payer, category, carc, line, facility, claims, denied) -> Grouped:
    return Grouped(payer, category, carc, line, facility, claims, denied)


def test_the_all_none_row_is_the_baseline_and_not_a_cell():
    built = cells.window_cells(
        [
            grouped(None, None, None, None, None, 100, 12),
            grouped("ACME", None, None, None, None, 40, 10),
            grouped("ACME", "authorization", "197", None, "MAIN", 40, 7),
        ]
    )
    assert (built.baseline_claims, built.baseline_denied) == (100, 12)
    assert built.cells == [
        Cell("ACME", None, None, None, None, claims=40, denied=10),
        Cell("ACME", "authorization", "197", None, "MAIN", claims=40, denied=7),
    ]


def test_the_rows_naming_only_a_denial_level_are_that_levels_baseline_and_not_cells():
    built = cells.window_cells(
        [
            grouped(None, None, None, None, None, 100, 12),
            grouped(None, "authorization", None, None, None, 100, 3),
            grouped(None, "authorization", "197", None, None, 100, 2),
            grouped("ACME", "authorization", "197", None, None, 40, 2),
        ]
    )
    assert built.level_baselines == {("authorization", None): (100, 3), ("authorization", "197"): (100, 2)}
    assert built.cells == [Cell("ACME", "authorization", "197", None, None, claims=40, denied=2)]


def test_without_the_all_none_row_the_baseline_is_empty():
    built = cells.window_cells([grouped("ACME", None, None, None, None, 4, 1)])
    assert (built.baseline_claims, built.baseline_denied) == (0, 0)


def test_more_than_max_cells_is_refused():
    rows = (grouped(f"P{i}", None, None, None, None, 1, 0) for i in range(MAX_CELLS + 1))
    with pytest.raises(cells.TooManyCells):
        cells.window_cells(rows)


def test_tests_run_counts_the_cells_with_enough_claims():
    built = [Cell("A", None, None, None, None, 29, 3), Cell("B", None, None, None, None, 30, 3)]
    assert cells.tests_run(built, 30) == 1  # only B's 30 claims reach min_claims=30
    assert cells.tests_run(built, 1) == 2


def test_the_run_out_at_the_end_is_not_a_settled_month_but_a_sparse_month_inside_is():
    # busiest 1,000 claims: below 100 at the end is run-out (JUN 99, MAY 12), APR 100 is not; FEB's 5 stays
    volumes = {JAN: 800, FEB: 5, MAR: 1000, APR: 100, MAY: 12, JUN: 99}
    assert cells.settled_months(volumes) == [JAN, FEB, MAR, APR]
    assert cells.window_of(cells.settled_months(volumes), None, None) == Window(FEB, APR)
    assert cells.settled_months({}) == []
