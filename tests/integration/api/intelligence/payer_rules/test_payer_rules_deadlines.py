"""Deadlines from payer data through upload -> confirm -> case -> deadlines, on SQLite and PostgreSQL.

Hand-written 835s (tests/fixtures/x12/hand/deadlines_*.835; README there): each remittance is dated
2026-03-02 (a Monday), the claim's service 2026-02-10, a CO denial of 80.00 on a 200.00 claim. Every
date below is counted by hand in the comment next to it (March has 31 days, April 30, May 31).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select

from api.denials.cases.models import DenialCase
from api.denials.deadlines.facts import client_today
from api.denials.deadlines.service import RESCHEDULE_JOB_KIND, later_level, schedule_case
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.platform.organizations.models import Client
from tests.integration.api.denials.conftest import HAND, by_claim, confirm, post
from tests.integration.api.money.ingestion.conftest import upload_json
from tests.support.jobs import queued, run_queued
from tests.support.tenancy import join

AS_OF = "2026-03-10"


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _approver(member, services):
    """A second manager of `member`'s organization (invited by the platform: independent of `member`)."""
    _user_id, _email, _password, token = join(services, member.rpc, member.organization_id, "manager")
    return member.rpc.as_(token, member.client_id)


def _set_rule(member, services, body: dict, approver=None) -> dict:
    """A rule changes only through approval: `member` proposes it (payerRules.upsert), a second manager
    approves it (payerRules.decide); the decision's answer."""
    proposed = member.rpc.mutation("payerRules.upsert", body)
    assert proposed.status == 200, proposed.error
    approver = approver or _approver(member, services)
    decision = {"id": proposed.data["change"]["id"], "decision": "approve", "reason": "checked against the contract"}
    decided = approver.mutation("payerRules.decide", decision)
    assert decided.status == 200, decided.error
    return decided.data


def _open(member, fixture: str, claim: str) -> dict:
    post(member.rpc, fixture)
    return by_claim(member.rpc)[claim]


def _deadlines(member, case_id: int) -> dict:
    return member.rpc.query("deadlines.forCase", {"caseId": case_id, "asOf": AS_OF}).data


def _rows(out: dict) -> list[tuple]:
    return [(d["level"], d["dueOn"], d["payerType"], d["assumed"]) for d in out["items"]]


def test_medicare_advantage_gets_the_65_day_reconsideration_not_medicare_redetermination(member):
    case = _open(member, "deadlines_medicare_advantage.835", "MA-1")
    assert case["payerClass"] == "medicare"  # CLP06 16 is Medicare coverage; its appeal rules are MA's
    out = _deadlines(member, case["id"])
    # notice 2026-03-02 + 65 calendar days (42 CFR 422.582(b), no receipt presumption, no roll):
    # Mar 3..31 = 29, April 30 -> 59, +6 = 2026-05-06 (traditional Medicare would be 2026-07-06)
    # timely filing (a contract default): service 2026-02-10 + 365 = 2027-02-10
    assert _rows(out) == [
        ("reconsideration", "2026-05-06", "medicare_advantage", False),
        ("timely_filing", "2027-02-10", "medicare_advantage", False),
    ]
    assert "42 CFR 422.582" in out["items"][0]["ruleSource"]
    assert out["appealDueOn"] == "2026-05-06" and out["assumed"] is False
    assert member.rpc.query("cases.get", {"id": case["id"]}).data["case"]["appealDueOn"] == "2026-05-06"


def test_tricare_gets_its_90_day_reconsideration(member):
    case = _open(member, "deadlines_tricare.835", "TRC-1")
    out = _deadlines(member, case["id"])
    # 2026-03-02 + 90: Mar 29 -> 29, April 30 -> 59, May 31 -> 90 = 2026-05-31 (32 CFR 199.10)
    # timely filing one year (32 CFR 199.7(d)): 2026-02-10 + 365 = 2027-02-10
    assert _rows(out) == [
        ("reconsideration", "2026-05-31", "tricare", False),
        ("timely_filing", "2027-02-10", "tricare", False),
    ]
    assert "32 CFR 199.10" in out["items"][0]["ruleSource"]


def test_an_unknown_payer_gets_the_shortest_common_window_and_says_it_was_assumed(member):
    case = _open(member, "deadlines_unknown_payer.835", "UNK-1")
    assert case["payerClass"] is None  # no CLP06, no 837
    out = _deadlines(member, case["id"])
    # appeal: Medicaid's default 60 days is the shortest: 2026-03-02 + 60 = Mar 29, Apr 59, +1 = 2026-05-01
    #   (MA 2026-05-06, TRICARE 05-31, Medicare 07-06, commercial 08-29)
    # timely filing: commercial's default 90 days: 2026-02-10 + 90 = Feb 18, Mar 49, Apr 79, +11 = 2026-05-11
    assert _rows(out) == [
        ("first_level_appeal", "2026-05-01", "medicaid", True),
        ("timely_filing", "2026-05-11", "commercial", True),
    ]
    assert out["assumed"] is True and out["appealDueOn"] == "2026-05-01"
    shown = member.rpc.query("cases.get", {"id": case["id"]}).data["case"]
    assert (shown["deadlineAssumed"], shown["appealDueOn"]) == (True, "2026-05-01")
    why = member.rpc.query("payerRules.evaluate", {"caseId": case["id"], "asOf": AS_OF}).data
    assert (why["payerType"], why["assumed"]) == ("unknown", True)
    assert "unknown" in why["why"]
    # Mar 10 -> May 1: 21 + 30 + 1
    assert [(i["level"], i["daysLeft"]) for i in why["items"]] == [("first_level_appeal", 52), ("timely_filing", 62)]


def test_a_soft_denial_gets_the_corrected_claims_timely_filing_not_an_appeal(member):
    case = _open(member, "deadlines_soft_denial.835", "SFT-1")
    assert (case["carc"], case["hardOrSoft"]) == ("16", "soft")
    out = _deadlines(member, case["id"])
    # Medicare timely filing: 2026-02-10 + 365 = 2027-02-10, a Wednesday (no roll needed); no redetermination
    assert _rows(out) == [("timely_filing", "2027-02-10", "medicare", False)]
    assert out["appealDueOn"] == "2027-02-10"  # the case is ranked by the corrected claim's deadline
    why = member.rpc.query("payerRules.evaluate", {"caseId": case["id"]}).data
    assert why["softDenial"] is True and [i["kind"] for i in why["items"]] == ["timely_filing"]


def test_a_clients_rule_overrides_the_default_from_its_effective_date(member, services):
    case = _open(member, "deadlines_medicare_advantage.835", "MA-1")
    payer_id = case["payerId"]
    assert payer_id == "MAP01"
    body = {
        "payerType": "medicare_advantage",
        "payerId": payer_id,
        "level": "reconsideration",
        "days": 60,
        "effectiveFrom": "2026-01-01",
        "source": "Provider agreement section 4.2",
    }
    approver = _approver(member, services)
    out = _set_rule(member, services, body, approver)
    assert out["created"] is True and out["rescheduled"] == 1
    # committed with a job, not recomputed in the rule's transaction: the deadline moves once it ran
    assert _deadlines(member, case["id"])["items"][0]["dueOn"] == "2026-05-06"
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == [
        {"clientId": member.client_id, "payerIds": ["MAP01"]}
    ]
    assert run_queued(services, RESCHEDULE_JOB_KIND, member.client_id) == 1
    assert (out["rule"]["origin"], out["rule"]["basis"], out["rule"]["reference"]) == (
        "client",
        "date_of_denial",
        f"payer_rules/{out['rule']['id']}",
    )
    # 2026-03-02 + 60 = 2026-05-01
    first = _deadlines(member, case["id"])["items"][0]
    assert (first["level"], first["dueOn"], first["ruleSource"]) == (
        "reconsideration",
        "2026-05-01",
        "Provider agreement section 4.2",
    )
    # a rule effective after the notice date does not apply to this denial
    later = {**body, "days": 30, "effectiveFrom": "2026-04-01", "source": "Amendment 2"}
    assert _set_rule(member, services, later, approver)["created"] is True
    assert run_queued(services, RESCHEDULE_JOB_KIND, member.client_id) == 1
    assert _deadlines(member, case["id"])["items"][0]["dueOn"] == "2026-05-01"
    # the same key again updates the rule (audited twice more: three upserts in all)
    again = _set_rule(member, services, {**body, "days": 45}, approver)
    assert again["created"] is False and again["rule"]["days"] == 45
    assert run_queued(services, RESCHEDULE_JOB_KIND, member.client_id) == 1
    # 2026-03-02 + 45 = Mar 29, +16 = 2026-04-16
    assert _deadlines(member, case["id"])["items"][0]["dueOn"] == "2026-04-16"
    events = member.rpc.query("audit.list", {"procedure": "payerRules.upsert"}).data["items"]
    assert len(events) == 3 and {e["targetType"] for e in events} == {"payer_rule_change"}
    decisions = member.rpc.query("audit.list", {"procedure": "payerRules.decide"}).data["items"]
    assert len(decisions) == 3 and {e["targetType"] for e in decisions} == {"payer_rule_change"}
    listed = member.rpc.query("payerRules.list", {"payerType": "medicare_advantage"}).data
    # the history: the version from 2026-01-01 is in force until the day before 2026-04-01's
    assert [(i["days"], i["effectiveFrom"], i["effectiveTo"]) for i in listed["items"]] == [
        (30, "2026-04-01", None),
        (45, "2026-01-01", "2026-03-31"),
    ]
    assert any(d["payerType"] == "tricare" and "32 CFR 199.10" in d["source"] for d in listed["defaults"])


def test_an_alias_gives_the_unknown_payer_its_class(member, services):
    case = _open(member, "deadlines_unknown_payer.835", "UNK-1")
    body = {"aliasKind": "payer_id", "alias": "unk01", "canonicalPayerKey": "STATE MEDICAID", "payerClass": "medicaid"}
    out = member.rpc.mutation("payerRules.upsertAlias", body).data
    assert (out["alias"], out["created"], out["rescheduled"]) == ("UNK01", True, 1)
    assert run_queued(services, RESCHEDULE_JOB_KIND, member.client_id) == 1
    # Medicaid's defaults, no longer assumed: appeal 2026-05-01 (as above), timely filing 365 days
    # from 2026-02-10 = 2027-02-10
    assert _rows(_deadlines(member, case["id"])) == [
        ("first_level_appeal", "2026-05-01", "medicaid", False),
        ("timely_filing", "2027-02-10", "medicaid", False),
    ]
    assert member.rpc.query("cases.get", {"id": case["id"]}).data["case"]["deadlineAssumed"] is False
    assert member.rpc.mutation("payerRules.upsertAlias", {**body, "payerClass": None}).data["created"] is False
    events = member.rpc.query("audit.list", {"procedure": "payerRules.upsertAlias"}).data["items"]
    assert len(events) == 2 and events[0]["targetType"] == "payer_alias"


def test_the_hospitals_stated_deadline_is_the_appeal_deadline(member, services):
    case = _open(member, "deadlines_medicare_advantage.835", "MA-1")
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        row = db.scalar(select(DenialCase).where(DenialCase.id == case["id"]))
        row.stated_appeal_deadline = date(2026, 4, 20)
        schedule_case(db, row, as_of=date(2026, 3, 10))
    out = _deadlines(member, case["id"])
    first = out["items"][0]
    assert (first["level"], first["dueOn"], first["ruleSource"]) == (
        "reconsideration",
        "2026-04-20",
        "the hospital's export",
    )
    assert out["appealDueOn"] == "2026-04-20"
    shown = member.rpc.query("cases.get", {"id": case["id"]}).data["case"]
    assert (shown["statedAppealDeadline"], shown["deadlineAssumed"]) == ("2026-04-20", False)


def test_writes_need_a_manager_and_bad_input_is_refused(make_member):
    admin = make_member(role="admin")
    rule = {
        "payerType": "tricare",
        "level": "reconsideration",
        "days": 60,
        "effectiveFrom": "2026-01-01",
        "source": "contract",
    }
    alias = {"aliasKind": "payer_id", "alias": "X1", "canonicalPayerKey": "X"}
    for role in ("specialist", "analyst", "auditor"):
        other = make_member(role=role)
        assert other.rpc.mutation("payerRules.upsert", rule).code == "FORBIDDEN"
        assert other.rpc.mutation("payerRules.upsertAlias", alias).code == "FORBIDDEN"
        assert other.rpc.query("payerRules.list", {}).data["defaults"]
    manager = make_member(role="manager")
    proposed = manager.rpc.mutation("payerRules.upsert", rule).data
    assert (proposed["created"], proposed["rescheduled"], proposed["change"]["state"]) == (True, 0, "proposed")
    r = admin.rpc.mutation("payerRules.upsert", {**rule, "level": "redetermination"})
    assert r.code == "BAD_REQUEST" and "level" in r.error["message"] and "reconsideration" in r.error["message"]
    assert admin.rpc.mutation("payerRules.upsert", {**rule, "days": 0}).code == "BAD_REQUEST"
    assert admin.rpc.mutation("payerRules.upsert", {**rule, "payerType": "martian"}).code == "BAD_REQUEST"
    assert admin.rpc.mutation("payerRules.upsert", {**rule, "source": ""}).code == "BAD_REQUEST"
    assert admin.rpc.mutation("payerRules.upsertAlias", {**alias, "aliasKind": "npi"}).code == "BAD_REQUEST"
    assert admin.rpc.query("payerRules.evaluate", {}).code == "BAD_REQUEST"
    both = {"caseId": 1, "claim": {"payerClass": "medicare"}}
    assert admin.rpc.query("payerRules.evaluate", both).code == "BAD_REQUEST"
    assert admin.rpc.query("payerRules.evaluate", {"caseId": 10**12}).code == "NOT_FOUND"
    assert admin.rpc.query("payerRules.list", {"cursor": "nope"}).code == "BAD_REQUEST"
    # a claim described by hand: TRICARE notice 2026-03-02 -> 2026-05-31; the manager's rule is another client's
    claim = {"claim": {"filingIndicator": "CH", "noticeDate": "2026-03-02"}, "asOf": "2026-03-10"}
    found = admin.rpc.query("payerRules.evaluate", claim).data
    assert [(i["level"], i["dueOn"], i["rule"]["origin"]) for i in found["items"]] == [
        ("reconsideration", "2026-05-31", "platform")
    ]


def test_today_is_the_clients_day(member, services):
    at = datetime(2026, 3, 2, 3, 0, tzinfo=UTC)
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        assert client_today(db, at) == date(2026, 3, 2)  # no zone of its own: the default (UTC)
        client = db.scalar(select(Client).where(Client.id == member.client_id))
        client.time_zone = "America/Chicago"
        db.flush()
        # 03:00 UTC is 21:00 the day before in Chicago
        assert client_today(db, at) == date(2026, 3, 1)


def _timely_filing(member, claim: str) -> str:
    case = by_claim(member.rpc)[claim]
    return next(d["dueOn"] for d in _deadlines(member, case["id"])["items"] if d["level"] == "timely_filing")


def test_medicare_timely_filing_counts_from_an_institutional_claims_through_date(make_member):
    # deadlines_institutional.835: Medicare Part A (CLP06=MA), INST-1 statement 2026-01-01 to 2026-01-20
    alone = make_member(role="admin")
    post(alone.rpc, "deadlines_institutional.835")
    # no 837: the statement's first date 2026-01-01 + 365 = Friday 2027-01-01, New Year's Day -> Monday 2027-01-04
    assert _timely_filing(alone, "INST-1") == "2027-01-04"
    billed = make_member(role="admin")
    claims = upload_json(
        billed.rpc, (HAND / "deadlines_institutional.837").read_bytes(), "inst.837", "ingestion.uploadUniversal"
    ).data["batch"]
    assert confirm(billed.rpc, claims["id"]).data
    post(billed.rpc, "deadlines_institutional.835")
    # the 837I says institutional: the through date 2026-01-20 + 365 = Wednesday 2027-01-20 (42 CFR 424.44(b))
    assert _timely_filing(billed, "INST-1") == "2027-01-20"


def test_the_837s_filing_indicator_when_the_835_has_none(member):
    # deadlines_unknown_payer_sbr09.837: UNK-1 billed with SBR09 = 16 (Medicare Advantage); its 835 has no CLP06
    claims = upload_json(
        member.rpc, (HAND / "deadlines_unknown_payer_sbr09.837").read_bytes(), "unk.837", "ingestion.uploadUniversal"
    ).data["batch"]
    assert confirm(member.rpc, claims["id"]).data
    case = _open(member, "deadlines_unknown_payer.835", "UNK-1")
    out = _deadlines(member, case["id"])
    # MA's 65 days from 2026-03-02 = 2026-05-06, not assumed; timely filing 2026-02-10 + 365 = 2027-02-10
    assert _rows(out) == [
        ("reconsideration", "2026-05-06", "medicare_advantage", False),
        ("timely_filing", "2027-02-10", "medicare_advantage", False),
    ]
    why = member.rpc.query("payerRules.evaluate", {"caseId": case["id"]}).data
    assert (why["filingIndicator"], why["why"]) == ("16", "claim filing indicator 16")


def test_rule_edits_queue_one_reschedule_per_client_and_a_type_wide_rule_covers_every_payer(member, services):
    """Three edits before the worker runs: one job (coalesced), widened by the type-wide rule to every
    working case; it recomputes both cases once.

    MA-1 (MAP01): the MA type-wide rule of 50 days: 2026-03-02 + 50 = Mar 29, +21 = 2026-04-21.
    TRC-1 (TRICARE): its rule of 60 days: 2026-03-02 + 60 = Mar 29, Apr 30 -> 59, +1 = 2026-05-01."""
    ma = _open(member, "deadlines_medicare_advantage.835", "MA-1")
    tricare = _open(member, "deadlines_tricare.835", "TRC-1")
    base = {"effectiveFrom": "2026-01-01", "source": "Provider agreement"}
    approver = _approver(member, services)
    for body in (
        {"payerType": "medicare_advantage", "payerId": "MAP01", "level": "reconsideration", "days": 40},
        {"payerType": "tricare", "level": "reconsideration", "days": 60},
        {"payerType": "medicare_advantage", "level": "reconsideration", "days": 50},
    ):
        _set_rule(member, services, {**base, **body}, approver)
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == [{"clientId": member.client_id, "payerIds": None}]
    assert _deadlines(member, tricare["id"])["items"][0]["dueOn"] == "2026-05-31"  # not yet recomputed
    assert run_queued(services, RESCHEDULE_JOB_KIND, member.client_id) == 1
    # MAP01's own 40-day rule wins over the type-wide 50: 2026-03-02 + 40 = Mar 29, +11 = 2026-04-11
    assert _deadlines(member, ma["id"])["items"][0]["dueOn"] == "2026-04-11"
    assert _deadlines(member, tricare["id"])["items"][0]["dueOn"] == "2026-05-01"


def test_a_refused_rule_queues_nothing(member, services):
    body = {"payerType": "tricare", "level": "redetermination", "days": 60, "effectiveFrom": "2026-01-01"}
    assert member.rpc.mutation("payerRules.upsert", {**body, "source": "x"}).code == "BAD_REQUEST"
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == []


def _later(services, member, case_id: int, decided: str, on: date):
    with services.database.transaction(write=False) as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return later_level(db, case_id, decided, on)


def test_later_levels_use_the_cases_facts_and_the_clients_rules(make_member, services):
    """The level after a decision, from the case's facts like its first level:

    - INST-1 (Medicare Part A, CLP06 MA): redetermination decided 2026-04-01 -> presumed received 04-06
      -> +180 (42 CFR 405.962): Apr 24, May 55, Jun 85, Jul 116, Aug 147, Sep 177, +3 = Saturday
      2026-10-03 -> Monday 10-05. The client's 150-day rule (from 2026-01-01; as upserted: no receipt
      days, no roll) from the decision date: Apr 29, May 60, Jun 90, Jul 121, +29 = Saturday 2026-08-29.
    - MA-1 (CLP06 16, payer class medicare): MA's reconsideration (42 CFR 422.582) is its last level in
      the limits, so nothing follows it (the class alone would have given Medicare's ALJ hearing)."""
    member = make_member(role="admin")
    inst = _open(member, "deadlines_institutional.835", "INST-1")
    ma = _open(member, "deadlines_medicare_advantage.835", "MA-1")
    found = _later(services, member, inst["id"], "redetermination", date(2026, 4, 1))
    assert found is not None
    assert (found.level, found.deadline.due_on, found.payer_type, found.assumed) == (
        "reconsideration",
        date(2026, 10, 5),
        "medicare",
        False,
    )
    assert "42 CFR 405.962" in found.source
    assert _later(services, member, ma["id"], "reconsideration", date(2026, 4, 1)) is None
    rule = {
        "payerType": "medicare",
        "level": "reconsideration",
        "days": 150,
        "effectiveFrom": "2026-01-01",
        "source": "Client policy 3",
    }
    _set_rule(member, services, rule)
    own = _later(services, member, inst["id"], "redetermination", date(2026, 4, 1))
    assert own is not None and (own.deadline.due_on, own.source) == (date(2026, 8, 29), "Client policy 3")
    assert _later(services, member, inst["id"], "judicial_review", date(2026, 4, 1)) is None


def test_a_rebills_timely_filing_uses_the_cases_facts_and_the_clients_rules(make_member, services):
    """TRC-1 (CLP06 CH, payer class other_government, which the old class mapping sent to commercial's 90
    days: 2026-05-11): TRICARE's one year (32 CFR 199.7(d)): 2026-02-10 + 365 = 2027-02-10. Then the
    client's 180-day TRICARE rule: Feb 18, Mar 49, Apr 79, May 110, Jun 140, Jul 171, +9 = 2026-08-09.
    (An override reason goes with each rebill so the answer does not depend on today's date.)"""
    member = make_member(role="admin")
    case = _open(member, "deadlines_tricare.835", "TRC-1")
    body = {"caseId": case["id"], "kind": "corrected", "frequencyCode": "7", "overrideReason": "test"}
    out = member.rpc.mutation("rebilling.createRebill", body).data
    assert (out["timelyFilingDueOn"], out["timelyFilingDays"], out["timelyFilingRule"]) == (
        "2027-02-10",
        365,
        "payer_appeal_limits/tricare/*/timely_filing",
    )
    rule = {"payerType": "tricare", "level": "timely_filing", "days": 180, "effectiveFrom": "2026-01-01"}
    made = _set_rule(member, services, {**rule, "source": "TRICARE contract"})
    again = member.rpc.mutation("rebilling.createRebill", body).data
    assert (again["timelyFilingDueOn"], again["timelyFilingDays"], again["timelyFilingRule"]) == (
        "2026-08-09",
        180,
        f"payer_rules/{made['rule']['id']}",
    )
