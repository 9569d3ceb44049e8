"""Round trip for generated rosters: 270 written -> the sandbox payer -> 271 -> read -> summarised. What
the check says must be what the roster holds (status for the service date, plan, dates, patient share)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.denials.eligibility.summary import summarise
from pipelines.ingest.x12.eligibility.inquiry_270 import Envelope, Inquiry, write_270
from pipelines.ingest.x12.eligibility.response_271 import parse_271
from pipelines.synthetic.eligibility_payer import SandboxMember, respond

NOW = datetime(2026, 3, 15, 9, 30)
money = st.decimals(min_value=Decimal("0"), max_value=Decimal("999999.99"), places=2)
days = st.dates(min_value=date(2020, 1, 1), max_value=date(2030, 12, 31))


@st.composite
def members(draw):
    begin = draw(days)
    end = draw(st.none() | st.integers(0, 800).map(lambda n: begin + timedelta(days=n)))
    return SandboxMember(
        member_id=draw(st.from_regex(r"[A-Z0-9]{6,20}", fullmatch=True)),
        kind=draw(st.sampled_from(["active", "inactive", "other_coverage"])),
        plan_name=draw(st.from_regex(r"[A-Z][A-Z0-9 ]{0,30}[A-Z0-9]", fullmatch=True)),
        group_number=draw(st.from_regex(r"[A-Z0-9-]{1,20}", fullmatch=True)),
        plan_begin=begin,
        plan_end=end,
        deductible=draw(money),
        deductible_remaining=draw(money),
        coinsurance=draw(st.decimals(min_value=Decimal("0"), max_value=Decimal("1"), places=2)),
        copay=draw(money),
        out_of_pocket=draw(money),
    )


def _check(member: SandboxMember, roster: dict[str, SandboxMember], service: date, types: tuple[str, ...]):
    inquiry = Inquiry("SBXPAYER", "SANDBOX", "1234567893", "CLINIC", member.member_id, service, types, "T1", "R1")
    request = write_270(inquiry, Envelope("PLATFORM", "SBXPAYER", 7, 7, 7, NOW))
    response = parse_271(respond(request, now=NOW, roster=roster))
    return response, summarise(response, service)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    roster=st.lists(members(), min_size=1, max_size=5, unique_by=lambda m: m.member_id),
    pick=st.integers(0, 4),
    service=days,
    types=st.lists(st.from_regex(r"[A-Z0-9]{1,2}", fullmatch=True), min_size=1, max_size=5).map(tuple),
)
def test_what_the_check_says_is_what_the_roster_holds(roster, pick, service, types):
    member = roster[pick % len(roster)]
    response, s = _check(member, {m.member_id: m for m in roster}, service, types)
    covered = (
        member.kind != "inactive"
        and member.plan_begin <= service
        and (member.plan_end is None or service <= member.plan_end)
    )
    assert s.status == ("active" if covered else "inactive")
    assert (s.plan_name, s.group_number, s.plan_begin, s.plan_end) == (
        member.plan_name,
        member.group_number,
        member.plan_begin,
        member.plan_end,
    )
    assert response.members[0].benefits[0].service_types == types
    if covered:
        share = {(f.kind, f.time_period): (f.amount, f.percent) for f in s.patient_share}
        assert share == {
            ("deductible", "23"): (member.deductible, None),
            ("deductible", "29"): (member.deductible_remaining, None),
            ("coinsurance", "27"): (None, member.coinsurance),
            ("copayment", "27"): (member.copay, None),
            ("out_of_pocket", "23"): (member.out_of_pocket, None),
        }
        others = [(o.payer_name, o.payer_id) for o in s.other_coverage]
        assert others == ([(member.other_payer_name, member.other_payer_id)] if member.kind == "other_coverage" else [])
    else:
        assert s.patient_share == () and s.other_coverage == ()


@settings(max_examples=50, deadline=None)
@given(
    roster=st.lists(members(), max_size=5, unique_by=lambda m: m.member_id),
    stranger=st.from_regex(r"[A-Z0-9]{6,20}", fullmatch=True),
)
def test_a_member_not_on_the_roster_is_not_found(roster, stranger):
    known = {m.member_id: m for m in roster}
    if stranger in known:
        return
    target = SandboxMember(stranger, "active", "X", "G", date(2026, 1, 1))
    _, s = _check(target, known, date(2026, 3, 20), ("30",))
    assert (s.status, s.rejection_codes) == ("not_found", ("75",))
