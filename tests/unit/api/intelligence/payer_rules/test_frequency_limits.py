"""Frequency limits (pure): the window of each period, the units counted in it, whether a line exceeds its
limit, which limit applies to a line, and the platform's defaults. Every expected date and count is worked
by hand in the comment beside it.

The months period follows Medicare's count: 42 CFR 410.34 pays a screening mammography "after at least 11
months have passed following the month in which the last screening mammography was performed" (CMS's own
example: one in March 2013, the next from 1 March 2014, since April 2013 .. February 2014 are the 11 months).
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.denials.prior_authorization.service import CodeRange
from api.intelligence.payer_rules import frequency
from api.intelligence.payer_rules.defaults import platform_frequency_limits
from api.intelligence.payer_rules.frequency import EarlierService, FrequencyLimit, LineFacts, ServiceLine

ONE = Decimal(1)


def _limit(
    codes: str = "77067",
    period: str = "months",
    length: int | None = 11,
    units: int = 1,
    **kw: object,
) -> FrequencyLimit:
    low, _dash, high = codes.partition("-")
    values: dict[str, object] = {
        "payer_type": "medicare",
        "codes": CodeRange(low, high or low),
        "max_units": units,
        "period": period,
        "period_length": length,
        "effective_from": date(2000, 1, 1),
        "source": "42 CFR 410.34",
    }
    values.update(kw)
    return FrequencyLimit(**values)  # type: ignore[arg-type]


def _earlier(day: date, code: str = "77067", units: Decimal = ONE, key: str = "PCN-1") -> EarlierService:
    return EarlierService(code, day, units, key)


def _line(day: date, code: str = "77067", units: Decimal = ONE) -> ServiceLine:
    return ServiceLine(code, day, units)


# --- the windows -------------------------------------------------------------------------------------


def test_months_follow_the_cms_mammography_example():
    mammography = _limit()
    march_2013 = [_earlier(date(2013, 3, 20))]
    # 2014-03-01: April 2013 .. February 2014 are 11 full months after March 2013: allowed; the window is the
    # 11 months before March 2014 and March itself: 2013-04-01 .. 2014-03-01
    allowed = frequency.evaluate(mammography, _line(date(2014, 3, 1)), march_2013)
    assert (allowed.window.first, allowed.window.last) == (date(2013, 4, 1), date(2014, 3, 1))
    assert (allowed.used, allowed.exceeds, allowed.counted) == (0, False, ())
    # 2014-02-28: only April 2013 .. January 2014 (10 months) have passed: the window 2013-03-01 .. holds it
    early = frequency.evaluate(mammography, _line(date(2014, 2, 28)), march_2013)
    assert (early.window.first, early.used, early.exceeds) == (date(2013, 3, 1), 1, True)


def test_months_across_a_year_end():
    # a line on 2026-02-03 with N = 11: 11 months before February 2026 is March 2025
    assert frequency.window(_limit(), date(2026, 2, 3)) == frequency.Window(date(2025, 3, 1), date(2026, 2, 3))
    # N = 119 (screening colonoscopy): 119 months = 9 years 11 months before 2026-02 is 2016-03
    assert frequency.window(_limit(length=119), date(2026, 2, 3)).first == date(2016, 3, 1)


def test_rolling_days_are_the_n_days_ending_on_the_date_of_service():
    yearly = _limit(period="rolling_days", length=365)
    # 2025-03-10 .. 2026-03-10 is 365 days (no 29 February between), so the 365 days ending on 2026-03-10
    # start on 2025-03-11
    span = frequency.window(yearly, date(2026, 3, 10))
    assert (span.first, span.last) == (date(2025, 3, 11), date(2026, 3, 10))
    priors = [_earlier(date(2025, 3, 10), key="A"), _earlier(date(2025, 3, 11), key="B")]
    verdict = frequency.evaluate(yearly, _line(date(2026, 3, 10)), priors)
    assert [s.claim_key for s in verdict.counted] == ["B"] and verdict.exceeds
    # one day: the date of service alone
    assert frequency.window(_limit(period="rolling_days", length=1), date(2026, 3, 10)).first == date(2026, 3, 10)


def test_a_calendar_year_counts_only_earlier_services_of_that_year():
    yearly = _limit(period="calendar_year", length=None, units=2)
    priors = [
        _earlier(date(2025, 12, 31), key="last-year"),
        _earlier(date(2026, 1, 1), key="new-year"),
        _earlier(date(2026, 7, 1), key="later"),  # after the line: not an earlier service
    ]
    verdict = frequency.evaluate(yearly, _line(date(2026, 6, 1)), priors)
    assert (verdict.window.first, verdict.window.last) == (date(2026, 1, 1), date(2026, 12, 31))
    # counted: new-year only (1 unit); 1 + this line's 1 = 2, not more than 2
    assert ([s.claim_key for s in verdict.counted], verdict.used, verdict.exceeds) == (["new-year"], 1, False)


def test_a_day_counts_the_same_date_and_units():
    daily = _limit(codes="97110", period="day", length=None, units=2)
    priors = [_earlier(date(2026, 4, 1), "97110", key="day-before"), _earlier(date(2026, 4, 2), "97110", key="same")]
    verdict = frequency.evaluate(daily, _line(date(2026, 4, 2), "97110", Decimal(2)), priors)
    # the same day's 1 unit + this line's 2 = 3 > 2
    assert (verdict.window.first, verdict.used, verdict.units, verdict.exceeds) == (date(2026, 4, 2), 1, 2, True)
    alone = frequency.evaluate(daily, _line(date(2026, 4, 2), "97110", Decimal(2)), priors[:1])
    assert (alone.used, alone.exceeds) == (0, False)  # 0 + 2 = 2, not more than 2


def test_a_lifetime_counts_every_earlier_service():
    once = _limit(codes="G0438", period="lifetime", length=None)
    verdict = frequency.evaluate(once, _line(date(2026, 5, 5), "G0438"), [_earlier(date(2012, 5, 5), "G0438")])
    assert (verdict.window.first, verdict.window.last, verdict.exceeds) == (None, date(2026, 5, 5), True)


def test_a_range_counts_each_of_its_codes_and_only_them():
    awv = _limit(codes="G0438-G0439")
    priors = [
        _earlier(date(2026, 1, 5), "G0438", key="initial"),
        _earlier(date(2026, 1, 5), "99213", key="visit"),  # not in the range
        _earlier(date(2026, 1, 5), "g0439 ", key="lower-case"),  # a code as a claim may hold it
    ]
    verdict = frequency.evaluate(awv, _line(date(2026, 6, 1), "G0439"), priors)
    assert [s.claim_key for s in verdict.counted] == ["initial", "lower-case"] and verdict.used == 2


def test_fractional_units_add_up():
    limit = _limit(codes="J1100", period="day", length=None, units=1)
    priors = [_earlier(date(2026, 4, 2), "J1100", Decimal("0.5"))] * 2
    # 0.5 + 0.5 earlier = 1, + this line's 0.5 = 1.5 > 1
    verdict = frequency.evaluate(limit, _line(date(2026, 4, 2), "J1100", Decimal("0.5")), priors)
    assert (verdict.used, verdict.exceeds) == (Decimal(1), True)


def test_the_explanation_names_dates_and_units_only():
    verdict = frequency.evaluate(
        _limit(codes="G0438-G0439"), _line(date(2026, 6, 1), "G0439"), [_earlier(date(2026, 2, 3), "G0439")]
    )
    assert verdict.explanation("G0439") == (
        "G0439: at most 1 per 11 full months for this patient; 1 earlier on 2026-02-03, this line 1 -> exceeds"
    )
    none = frequency.evaluate(_limit(), _line(date(2026, 6, 1)), [])
    assert none.explanation("77067").endswith("none earlier in the window, this line 1 -> within the limit")
    many = [_earlier(date(2026, 1, d), "97110") for d in range(1, 8)]
    daily = frequency.evaluate(_limit("97110", "calendar_year", None, 99), _line(date(2026, 2, 1), "97110"), many)
    # seven dates: five named, "and 2 more"
    assert "7 earlier on 2026-01-01, 2026-01-02, 2026-01-03, 2026-01-04, 2026-01-05 and 2 more" in (
        daily.explanation("97110")
    )


# --- which limit applies -----------------------------------------------------------------------------


def _facts(code: str, day: date, payer_type: str | None = "medicare", payer_id: str | None = "MCR01") -> LineFacts:
    return LineFacts(payer_type, payer_id, code, day)


def test_the_most_specific_limit_wins_then_the_clients():
    platform = _limit(codes="G0438-G0439")
    narrower = _limit(codes="G0438", period="lifetime", length=None)
    client = _limit(codes="G0438-G0439", units=2, limit_id=7)
    payer = _limit(codes="G0438-G0439", units=3, limit_id=8, payer_id="MCR01")
    on = date(2026, 3, 1)
    assert frequency.limits_for(_facts("G0438", on), [platform, narrower]) == [(narrower, False)]
    assert frequency.limits_for(_facts("G0439", on), [platform, narrower, client]) == [(client, False)]
    assert frequency.limits_for(_facts("G0439", on), [platform, client, payer]) == [(payer, False)]
    # another payer: the payer's own limit does not match, the client's type-wide one does
    assert frequency.limits_for(_facts("G0439", on, payer_id="OTHER"), [platform, payer, client]) == [(client, False)]


def test_no_limit_for_self_pay_a_line_without_a_code_or_another_payer_type_or_date():
    limits = [_limit(effective_from=date(2017, 1, 1))]
    assert frequency.limits_for(_facts("77067", date(2026, 1, 1), payer_type=None), limits) == []
    assert frequency.limits_for(_facts("0450", date(2026, 1, 1)), limits) == []  # a revenue code, no CPT code
    assert frequency.limits_for(_facts("77067", date(2026, 1, 1), payer_type="commercial"), limits) == []
    assert frequency.limits_for(_facts("77067", date(2016, 12, 31)), limits) == []  # before it is in force
    plan = _limit(plan="GOLD", limit_id=3)  # a claim without a plan: only a plan-wide limit matches
    assert frequency.limits_for(_facts("77067", date(2026, 1, 1)), [plan]) == []


def test_a_plans_limit_matches_the_claims_plan_and_wins_over_the_plan_wide_one():
    wide, gold = _limit(), _limit(plan="GOLD", units=2, limit_id=3)
    on = date(2026, 1, 1)
    gold_line = LineFacts("medicare", "MCR01", "77067", on, plan=" gold ")  # compared trimmed, upper-cased
    assert frequency.limits_for(gold_line, [wide, gold]) == [(gold, False)]
    silver_line = LineFacts("medicare", "MCR01", "77067", on, plan="SILVER")
    assert frequency.limits_for(silver_line, [wide, gold]) == [(wide, False)]


def test_an_unknown_payer_type_tries_each_common_type_and_reports_the_exceeding_first():
    medicare = _limit()  # 1 per 11 full months
    commercial = _limit(payer_type="commercial", units=5, limit_id=4)
    facts = _facts("77067", date(2026, 6, 1), payer_type="unknown")
    assert frequency.limits_for(facts, [medicare, commercial]) == [(medicare, True), (commercial, True)]
    priors = [_earlier(date(2026, 1, 1))]
    found = frequency.verdict_for(facts, ONE, priors, [commercial, medicare])
    # commercial: 1 + 1 = 2 <= 5; medicare: 1 + 1 = 2 > 1 -> the exceeding one is answered
    assert found is not None and (found[0].limit, found[0].exceeds, found[1]) == (medicare, True, True)
    assert frequency.verdict_for(facts, ONE, [], [commercial, medicare]) is not None


def test_a_new_version_closes_the_one_before_it():
    first = _limit(units=2, limit_id=1, effective_from=date(2026, 1, 1), effective_to=date(2026, 12, 31))
    second = _limit(units=1, limit_id=2, effective_from=date(2026, 7, 1), effective_to=date(2026, 9, 30))
    closed = frequency.closed([second, first])
    # the second version starts 2026-07-01: the first ends the day before, 2026-06-30 (not its own 12-31)
    assert [(lim.limit_id, lim.effective_to) for lim in closed] == [(2, date(2026, 9, 30)), (1, date(2026, 6, 30))]
    assert frequency.limits_for(_facts("77067", date(2026, 3, 1)), closed)[0][0].limit_id == 1
    assert frequency.limits_for(_facts("77067", date(2026, 8, 1)), closed)[0][0].limit_id == 2
    # after the second ends nothing revives the first
    assert frequency.limits_for(_facts("77067", date(2026, 10, 15)), closed) == []
    # another scope (a payer's own) is not a version of these
    other = _limit(units=4, limit_id=3, payer_id="MCR01", effective_from=date(2026, 8, 1))
    assert frequency.closed([first, other])[0].effective_to == date(2026, 12, 31)


# --- the checks and the platform defaults -------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"period": "weekly"}, "period"),
        ({"period": "months", "period_length": None}, "periodLength"),
        ({"period": "months", "period_length": 0}, "periodLength"),
        ({"period": "rolling_days", "period_length": 3661}, "periodLength"),
        ({"period": "lifetime", "period_length": 3}, "periodLength"),
        ({"max_units": 0}, "maxUnits"),
        ({"max_units": 10_000}, "maxUnits"),
        ({"payer_type": "self_pay"}, "payerType"),
        ({"effective_to": date(1999, 12, 31)}, "effectiveTo"),
        ({"source": " "}, "source"),
    ],
)
def test_a_malformed_limit_is_refused_naming_the_field(change, field):
    with pytest.raises(InvalidInput, match=f"'{field}'"):
        frequency.check(_limit(**change))  # type: ignore[arg-type]


def test_the_platform_defaults_cite_their_sections():
    defaults = platform_frequency_limits()
    rows = [(str(d.codes), d.max_units, d.period, d.period_length) for d in defaults]
    assert rows == [
        ("G0402", 1, "lifetime", None),
        ("G0438", 1, "lifetime", None),
        ("G0438-G0439", 1, "months", 11),
        ("77067", 1, "months", 11),
        ("G0105", 1, "months", 23),
        ("G0121", 1, "months", 119),
    ]
    assert all(d.payer_type == "medicare" and d.source.startswith("42 CFR 410.") for d in defaults)
    assert [d.reference for d in defaults][:2] == [
        "platform/medicare/G0402/frequency",
        "platform/medicare/G0438/frequency",
    ]
    # a subsequent AWV on 2026-06-01 after an initial one on 2026-02-03 (June is not 11 full months after
    # February): the range's limit applies and is exceeded; the initial one's own lifetime limit is narrower
    found = frequency.verdict_for(
        _facts("G0439", date(2026, 6, 1)), ONE, [_earlier(date(2026, 2, 3), "G0438")], platform_frequency_limits()
    )
    assert found is not None and (str(found[0].limit.codes), found[0].exceeds) == ("G0438-G0439", True)


def test_a_malformed_platform_row_names_its_line():
    header = "payer_type,payer_id,plan,procedure_code,max_units,period,period_length,effective_from,effective_to,source"
    good = "medicare,*,*,77067,1,months,11,2017-01-01,,42 CFR 410.34"
    for bad, why in [
        ("medicare,*,*,7706,1,months,11,2017-01-01,,x", "procedure_code"),
        ("medicare,*,*,77067,1,weekly,,2017-01-01,,x", "period"),
        ("medicare,*,*,77067,,months,11,2017-01-01,,x", "max_units"),
        ("medicare,*,*,77067,1,months,11,2017-02-30,,x", "line 3"),
    ]:
        with pytest.raises(frequency.FrequencyError, match="line 3") as refused:
            frequency.parse_platform_limits("\n".join([header, good, bad]))
        assert why in str(refused.value)


# --- properties ----------------------------------------------------------------------------------------

DAYS = st.dates(min_value=date(1950, 1, 1), max_value=date(2150, 12, 31))
PERIOD = st.sampled_from(frequency.PERIODS)
UNITS = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(50), places=3)


def _with_period(period: str, length: int) -> FrequencyLimit:
    return _limit(period=period, length=length if period in frequency.LENGTHS else None, units=3)


@given(period=PERIOD, length=st.integers(1, 1200), served=DAYS, offsets=st.lists(st.integers(0, 20000), max_size=8))
def test_the_window_holds_the_date_of_service_and_every_service_it_counts(period, length, served, offsets):
    limit = _with_period(period, length)
    span = frequency.window(limit, served)
    assert span.holds(served) and (span.first is None or span.first <= span.last)
    priors = [_earlier(served - timedelta(days=o)) for o in offsets]
    verdict = frequency.evaluate(limit, _line(served), priors)
    assert all(span.holds(s.service_date) and s.service_date <= served for s in verdict.counted)
    assert verdict.used == sum((s.units for s in verdict.counted), Decimal(0))


@given(
    period=PERIOD,
    length=st.integers(1, 1200),
    served=DAYS,
    priors=st.lists(st.tuples(st.integers(0, 5000), UNITS), max_size=6),
    more=st.lists(st.tuples(st.integers(0, 5000), UNITS), min_size=1, max_size=4),
    units=UNITS,
)
def test_more_earlier_units_never_turn_an_exceeding_line_into_an_allowed_one(
    period, length, served, priors, more, units
):
    limit = _with_period(period, length)
    line = _line(served, units=units)
    some = [_earlier(served - timedelta(days=o), units=u) for o, u in priors]
    extra = [_earlier(served - timedelta(days=o), units=u) for o, u in more]
    before, after = frequency.evaluate(limit, line, some), frequency.evaluate(limit, line, some + extra)
    assert after.used >= before.used
    assert not before.exceeds or after.exceeds
    # and more units on the line itself never help either
    assert not before.exceeds or frequency.evaluate(limit, _line(served, units=units + 1), some).exceeds


@given(served=DAYS, prior=DAYS, length=st.integers(1, 240))
def test_months_count_a_service_until_n_full_months_have_passed_after_its_month(served, prior, length):
    if prior > served:
        prior, served = served, prior
    verdict = frequency.evaluate(_limit(length=length), _line(served), [_earlier(prior)])
    # the months strictly between the prior's month and the line's month
    passed = (served.year * 12 + served.month) - (prior.year * 12 + prior.month) - 1
    assert verdict.exceeds == (passed < length)


@given(served=DAYS, back=st.integers(0, 4000), length=st.integers(1, 3660))
def test_rolling_days_count_a_service_fewer_than_n_days_back(served, back, length):
    verdict = frequency.evaluate(
        _limit(period="rolling_days", length=length), _line(served), [_earlier(served - timedelta(days=back))]
    )
    assert verdict.exceeds == (back < length)


@given(period=PERIOD, length=st.integers(1, 1200), served=DAYS, offsets=st.lists(st.integers(0, 20000), max_size=8))
def test_a_lifetime_counts_at_least_what_any_period_counts(period, length, served, offsets):
    priors = [_earlier(served - timedelta(days=o)) for o in offsets]
    some = frequency.evaluate(_with_period(period, length), _line(served), priors)
    ever = frequency.evaluate(_with_period("lifetime", 1), _line(served), priors)
    assert ever.used >= some.used and len(ever.counted) == len(priors)
