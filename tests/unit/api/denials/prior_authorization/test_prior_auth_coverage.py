"""Whether an approved request covers a claim's lines (code, dates, units drawn in line order), and the
reason a person can act on when none does; units worked out by hand in the comments."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from api.denials.prior_authorization.coverage import Authorization, Line, verdicts
from api.denials.prior_authorization.lifecycle import AUTHORIZATION

D = date
U = Decimal
SERVED, FROM, TO = D(2025, 3, 10), D(2025, 3, 1), D(2025, 5, 31)


def line(n: int = 1, code: str = "64612", units: str = "1", start: date = SERVED, end: date | None = None):
    return Line(n, code, U(units), start, end or start)


def approved(id_: int = 1, code: str = "64612", units: str = "4", start=FROM, end=TO, **kw):
    return Authorization(id_, "approved", code, approved_units=U(units), valid_from=start, valid_to=end, **kw)


def answer(lines, auths):
    return [(v.line_number, v.covered_by, v.missing, v.authorization_id) for v in verdicts(lines, auths)]


def test_an_approval_covering_code_dates_and_units_covers_the_line():
    assert answer([line(units="2")], [approved()]) == [(1, 1, None, None)]


def test_units_are_drawn_in_line_order():
    # 4 approved units: line 1 takes 3 (1 left), line 2 wants 2 > 1 left -> units exceeded; line 3 wants 1 -> fits
    lines = [line(1, units="3"), line(2, units="2"), line(3, units="1")]
    assert answer(lines, [approved(units="4")]) == [
        (1, 1, None, None),
        (2, None, "units_exceeded", 1),
        (3, 1, None, None),
    ]


def test_a_second_approval_takes_over_when_the_first_runs_out():
    # A: 2 units from 03-01, B: 5 units from 03-05; line 1 (2 units) uses A, line 2 (3 units) uses B
    lines = [line(1, units="2"), line(2, units="3")]
    auths = [approved(2, units="5", start=D(2025, 3, 5)), approved(1, units="2")]
    assert answer(lines, auths) == [(1, 1, None, None), (2, 2, None, None)]


def test_dates_must_hold_the_whole_service_span():
    span = line(start=D(2025, 5, 30), end=D(2025, 6, 2))  # runs past 05-31
    assert answer([span], [approved()]) == [(1, None, "dates_not_covered", 1)]
    early = line(start=D(2025, 2, 28))
    assert answer([early], [approved()]) == [(1, None, "dates_not_covered", 1)]
    edges = [line(1, start=D(2025, 3, 1)), line(2, start=D(2025, 5, 31))]  # both ends inclusive
    assert answer(edges, [approved()]) == [(1, 1, None, None), (2, 1, None, None)]


def test_an_approval_that_ended_before_the_service_is_expired():
    assert answer([line(start=D(2025, 6, 1))], [approved()]) == [(1, None, "expired", 1)]


def test_a_pending_request_is_reported_before_an_unusable_approval():
    auths = [approved(1, end=D(2025, 4, 30)), Authorization(2, "pending", "64612")]
    assert answer([line(start=D(2025, 5, 10))], auths) == [(1, None, "pending", 2)]
    assert answer([line()], [Authorization(3, "requested", "64612")]) == [(1, None, "pending", 3)]


def test_denied_withdrawn_other_codes_and_other_lines():
    assert answer([line()], [Authorization(4, "denied", "64612")]) == [(1, None, "denied", 4)]
    assert answer([line()], [Authorization(5, "withdrawn", "64612")]) == [(1, None, "none_requested", None)]
    assert answer([line()], [approved(code="64615")]) == [(1, None, "none_requested", None)]
    assert answer([line(2)], [approved(line_number=1)]) == [(2, None, "none_requested", None)]
    assert answer([line(1)], [approved(line_number=1)]) == [(1, 1, None, None)]
    assert answer([line()], []) == [(1, None, "none_requested", None)]


def test_fractional_units():
    # 1.5 approved: 0.75 + 0.75 fit exactly, a third 0.001 does not
    lines = [line(1, units="0.75"), line(2, units="0.75"), line(3, units="0.001")]
    assert [v[2] for v in answer(lines, [approved(units="1.5")])] == [None, None, "units_exceeded"]


def test_the_lifecycle():
    assert AUTHORIZATION.allowed("requested") == {"pending", "approved", "denied", "withdrawn"}
    assert AUTHORIZATION.allowed("approved") == {"withdrawn"}
    assert AUTHORIZATION.allowed("denied") == {"pending", "withdrawn"}
    assert AUTHORIZATION.allowed("withdrawn") == frozenset()


units = st.integers(min_value=1, max_value=5).map(Decimal)


@given(st.lists(units, min_size=1, max_size=8), st.lists(units, max_size=3))
def test_never_more_units_covered_than_approved(line_units, approved_units):
    lines = [line(n, units=str(u)) for n, u in enumerate(line_units, start=1)]
    auths = [approved(i, units=str(u)) for i, u in enumerate(approved_units, start=1)]
    found = verdicts(lines, auths)
    assert [v.line_number for v in found] == [ln.line_number for ln in lines]
    for auth in auths:
        drawn = sum((ln.units for ln, v in zip(lines, found, strict=True) if v.covered_by == auth.id), Decimal(0))
        assert drawn <= (auth.approved_units or 0)
    for v in found:
        assert (v.covered_by is None) == (v.missing is not None)
        # every approval here holds the dates and the code: only units can be short
        assert v.missing in ((None, "units_exceeded") if auths else ("none_requested",))
