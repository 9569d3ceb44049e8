"""eligibility.* over the wire (the sandbox payer), on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import random
import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select, update

from api.denials.claims.models import Claim
from api.denials.eligibility import service as eligibility_service
from api.denials.eligibility.buckets import BUCKETS, CheckFact, counts, verdict
from api.denials.eligibility.models import EligibilityCheck
from api.infra.db.base import utcnow
from api.platform.audit.models import AuditEvent
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import collect_pages

TODAY = datetime.now(UTC).date()  # the clients here have no time zone: their day is UTC's
SERVICE = TODAY + timedelta(days=10)


def _check(member, member_id: str, *, patient: str = "pt_a", service: date = SERVICE, **fields):
    payload = {
        "patientRef": patient,
        "payerId": "SBXPAYER",
        "memberId": member_id,
        "serviceDate": service.isoformat(),
        **fields,
    }
    return member.rpc.mutation("eligibility.check", payload)


def test_active_check_round_trip(make_member):
    member = make_member(role="specialist")
    done = _check(member, "SBXACTIVE01", serviceTypeCodes=["30", "98"]).data
    assert (done["status"], done["statusReason"], done["rejectionCodes"]) == ("active", None, [])
    assert (done["planName"], done["groupNumber"], done["planBegin"], done["planEnd"]) == (
        "SANDBOX GOLD PPO",
        "GRP1001",
        "2026-01-01",
        None,
    )
    assert (done["payerName"], done["memberLast4"], done["birthDateSent"]) == ("SANDBOX HEALTH PLAN", "VE01", False)
    assert (done["serviceTypes"], done["providerNpi"], done["transport"]) == (["30", "98"], "1234567893", "sandbox")
    # the sandbox roster's figures (pipelines/synthetic/eligibility_payer.py, SBXACTIVE01)
    assert [(s["kind"], s["timePeriod"], s["amount"], s["percent"], s["inNetwork"]) for s in done["patientShare"]] == [
        ("deductible", "23", "1500.00", None, "Y"),
        ("deductible", "29", "600.00", None, "Y"),
        ("coinsurance", "27", None, "0.2", "Y"),
        ("copayment", "27", "25.00", None, "Y"),
        ("out_of_pocket", "23", "5000.00", None, "Y"),
    ]
    assert done["otherCoverage"] == []
    assert len(done["interchangeControl"]) == 9 and done["responseInterchangeControl"] == done["interchangeControl"]
    assert len(done["requestDigest"]) == 64 and done["requestBytes"] > 300 and done["responseBytes"] > 300
    assert done["checkedOn"] == TODAY.isoformat() and done["checkedByUserId"] == member.user_id
    assert member.rpc.query("eligibility.get", {"id": done["id"]}).data == done


@pytest.mark.parametrize(
    ("member_id", "service", "status", "reason", "codes"),
    [
        ("SBXINACTIVE1", SERVICE, "inactive", "the payer reports the coverage inactive", []),
        ("SBXNOBODY01", SERVICE, "not_found", "AAA 75: subscriber/insured not found", ["75"]),
        ("BAD-ID", SERVICE, "not_found", "AAA 72: invalid/missing subscriber/insured ID", ["72"]),
        ("SBXBUSY42", SERVICE, "rejected", "AAA 42: unable to respond at current time", ["42"]),
        ("SBXMIDYEAR01", date(2026, 7, 1), "inactive", "the payer reports the coverage inactive", []),
    ],
)
def test_each_kind_of_answer(make_member, member_id, service, status, reason, codes):
    member = make_member()
    done = _check(member, member_id, service=service).data
    assert (done["status"], done["statusReason"], done["rejectionCodes"]) == (status, reason, codes)
    assert done["patientShare"] == []


def test_mid_year_plan_and_other_coverage(make_member):
    member = make_member()
    mid = _check(member, "SBXMIDYEAR01", service=date(2026, 6, 30)).data
    assert (mid["status"], mid["planBegin"], mid["planEnd"]) == ("active", "2026-01-01", "2026-06-30")
    other = _check(member, "SBXOTHER001").data
    assert other["status"] == "active"
    assert other["otherCoverage"] == [
        {"payerName": "OTHER MUTUAL INSURANCE", "payerId": "OTHER01", "insuranceType": None}
    ]


def test_birth_date_is_sent_not_stored(make_member):
    member = make_member()
    mismatch = _check(member, "SBXDOB00001", birthDate="1980-03-01").data
    assert (mismatch["status"], mismatch["rejectionCodes"], mismatch["birthDateSent"]) == ("not_found", ["71"], True)
    assert _check(member, "SBXDOB00001", birthDate="1980-02-29").data["status"] == "active"


def test_history_is_the_patients_newest_first_and_paged(make_member):
    member = make_member()
    first = _check(member, "SBXACTIVE01", patient="pt_h").data
    _check(member, "SBXACTIVE01", patient="pt_other")
    second = _check(member, "SBXINACTIVE1", patient="pt_h").data
    third = _check(member, "SBXACTIVE01", patient="pt_h", payerName="SANDBOX").data
    listed = collect_pages(member.rpc, "eligibility.history", {"patientRef": "pt_h"}, limit=2)
    assert [c["id"] for c in listed] == [third["id"], second["id"], first["id"]]
    assert [c["status"] for c in listed] == ["active", "inactive", "active"]
    other_payer = member.rpc.query("eligibility.history", {"patientRef": "pt_h", "payerId": "ELSEWHERE"}).data
    assert other_payer["items"] == []


def test_another_clients_check_is_not_found_and_its_history_empty(make_member):
    a, b = make_member(), make_member()
    done = _check(a, "SBXACTIVE01", patient="pt_shared").data
    assert b.rpc.query("eligibility.get", {"id": done["id"]}).code == "NOT_FOUND"
    assert b.rpc.query("eligibility.history", {"patientRef": "pt_shared"}).data["items"] == []
    assert b.rpc.query("eligibility.denialsByEligibility", {}).data["casesRead"] == 0


def _claim(services, member, patient_ref: str | None) -> str:
    key = f"PCN-{uuid.uuid4().hex[:10]}"
    with services.database.transaction() as db:
        db.add(
            Claim(
                organization_id=member.organization_id,
                client_id=member.client_id,
                claim_key=key,
                total_charge=Decimal("900.00"),
                origin="manual",
                patient_ref=patient_ref,
                state="submitted",
                state_changed_at=utcnow(),
            )
        )
    return key


def _case(services, member, patient_ref, service, category="eligibility"):
    key = _claim(services, member, patient_ref) if patient_ref else f"PCN-{uuid.uuid4().hex[:10]}"
    return make_case(
        services,
        member.organization_id,
        member.client_id,
        claim_key=key,
        service_date=service,
        denial_category=category,
        carc="27",
    )


def test_denials_by_eligibility_buckets(services, make_member):
    member = make_member()
    _check(member, "SBXACTIVE01", patient="pt_1")  # all checked today
    _check(member, "SBXINACTIVE1", patient="pt_2")
    _check(member, "SBXNOBODY01", patient="pt_3")
    with services.database.transaction() as db:  # a check that got no answer, yesterday
        mine = EligibilityCheck.client_id == member.client_id
        row = db.scalars(select(EligibilityCheck).where(mine, EligibilityCheck.patient_ref == "pt_1")).one()
        db.add(
            EligibilityCheck(
                **{c: getattr(row, c) for c in _COPIED},
                patient_ref="pt_6",
                status="error",
                checked_on=TODAY - timedelta(days=1),
            )
        )
    day = timedelta(days=1)
    a1 = _case(services, member, "pt_1", TODAY + 10 * day)  # checked before: active
    a2 = _case(services, member, "pt_1", TODAY - 5 * day)  # the only check came after the service
    b = _case(services, member, "pt_2", TODAY + 3 * day)  # checked before: inactive
    c = _case(services, member, "pt_3", TODAY)  # checked on the day of service: not_found -> inactive bucket
    d = _case(services, member, "pt_4", TODAY + day)  # never checked
    e = _case(services, member, "pt_6", TODAY + day)  # only an error check: counts as none
    f = _case(services, member, None, None)  # no claim, no service date
    _case(services, member, "pt_1", TODAY + day, category="coding")  # not an eligibility denial
    report = member.rpc.query("eligibility.denialsByEligibility", {}).data
    # hand count: no_check d, e; checked_active a1; checked_inactive b, c; after a2; unknown f
    assert report["counts"] == {
        "no_check": 2,
        "checked_active": 1,
        "checked_inactive": 2,
        "checked_after_service": 1,
        "service_date_unknown": 1,
    }
    assert (report["casesRead"], report["truncated"]) == (7, False)
    by_case = {i["caseId"]: i for i in report["items"]}
    assert [i["caseId"] for i in report["items"]] == [f, e, d, c, b, a2, a1]
    assert {k: by_case[k]["bucket"] for k in (a1, a2, b, c, d, e, f)} == {
        a1: "checked_active",
        a2: "checked_after_service",
        b: "checked_inactive",
        c: "checked_inactive",
        d: "no_check",
        e: "no_check",
        f: "service_date_unknown",
    }
    assert by_case[c]["check"]["status"] == "not_found" and by_case[c]["checked"] is True
    assert by_case[d]["check"] is None and by_case[d]["checked"] is False
    assert by_case[a1]["amountAtStake"] == "1250.00" and by_case[a1]["carc"] == "27"
    paged = collect_pages(member.rpc, "eligibility.denialsByEligibility", {}, limit=3)
    assert [i["caseId"] for i in paged] == [f, e, d, c, b, a2, a1]
    only = member.rpc.query("eligibility.denialsByEligibility", {"bucket": "no_check"}).data
    assert [i["caseId"] for i in only["items"]] == [e, d] and only["counts"] == report["counts"]


_COPIED = (
    "payer_id",
    "member_key",
    "member_last4",
    "service_date",
    "service_types",
    "provider_npi",
    "transport",
    "interchange_control",
    "group_control",
    "transaction_control",
    "trace_number",
    "request_digest",
    "request_bytes",
    "checked_at",
    "checked_by_user_id",
    "organization_id",
    "client_id",
)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"memberId": "AB*CD~"}, "memberId"),
        ({"memberId": ""}, "memberId"),
        ({"memberId": "x" * 81}, "memberId"),
        ({"birthDate": "1980-13-01"}, "birthDate"),
        ({"birthDate": "02/29/1980"}, "birthDate"),
        ({"patientRef": "Jane Doe"}, "patientRef"),
        ({"patientRef": "p" * 81}, "patientRef"),
        ({"payerId": "A*B"}, "payerId"),
        ({"payerName": "ACME~X"}, "payerName"),
        ({"serviceTypeCodes": []}, "serviceTypeCodes"),
        ({"serviceTypeCodes": ["30"] * 21}, "serviceTypeCodes"),
        ({"serviceTypeCodes": ["300"]}, "serviceTypeCodes"),
        ({"providerNpi": "123"}, "providerNpi"),
        ({"serviceDate": "tomorrow"}, "serviceDate"),
    ],
)
def test_bad_input_is_bad_request_naming_the_field(make_member, change, field):
    member = make_member()
    result = _check(member, "SBXACTIVE01", **change)
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"]
    for value in change.values():
        if isinstance(value, str) and len(value) > 3:
            assert value not in str(result.body)


def test_refused_checks_store_nothing(make_member, services, monkeypatch):
    member = make_member()
    born_late = _check(member, "SBXACTIVE01", birthDate=(SERVICE + timedelta(days=1)).isoformat())
    assert born_late.code == "BAD_REQUEST" and "birth date is after the service date" in born_late.error["message"]
    bad_npi = _check(member, "SBXACTIVE01", providerNpi="1234567890")
    assert bad_npi.code == "BAD_REQUEST" and "check digit" in bad_npi.error["message"]
    monkeypatch.setattr(services.settings, "eligibility_transport", "clearinghouse")
    refused = _check(member, "SBXACTIVE01")
    assert refused.code == "PRECONDITION_FAILED" and "only sandbox" in refused.error["message"]
    assert member.rpc.query("eligibility.history", {"patientRef": "pt_a"}).data["items"] == []


def test_no_member_id_or_birth_date_in_audit_rows_errors_logs_or_the_table(services, make_member, caplog):
    member = make_member()
    secret_id, secret_dob = "SBXDOB00001", "1980-02-29"
    caplog.set_level(logging.DEBUG)
    done = _check(member, secret_id, birthDate=secret_dob).data
    again = _check(member, "SBXNOBODY99", birthDate="1975-07-04").data
    bad = _check(member, secret_id + "*", birthDate=secret_dob)
    assert bad.code == "BAD_REQUEST"
    with services.database.transaction() as db:
        audits = db.scalars(select(AuditEvent).where(AuditEvent.client_id == member.client_id)).all()
        rows = db.scalars(select(EligibilityCheck).where(EligibilityCheck.id.in_([done["id"], again["id"]]))).all()
        stored = [{c.key: getattr(r, c.key) for c in EligibilityCheck.__table__.columns} for r in rows]
    checks = [a for a in audits if a.procedure == "eligibility.check"]
    assert len(checks) == 2
    # the member id and birth date enter the input digest as "<secret>": two checks that differ only in
    # them have the same input digest
    assert checks[0].input_digest == checks[1].input_digest
    everything = " ".join(
        [str(vars(a)) for a in audits] + [str(s) for s in stored] + [str(bad.body), str(done), caplog.text]
    )
    for needle in (secret_id, "SBXNOBODY99", secret_dob, "19800229", "1975-07-04", "19750704"):
        assert needle not in everything
    assert {s["member_last4"] for s in stored} == {"0001", "DY99"}  # SBXDOB00001, SBXNOBODY99
    assert all(len(s["member_key"]) == 64 for s in stored)


def test_paging_one_case_at_a_time_sees_every_case_once(services, make_member):
    member, other = make_member(), make_member()
    _check(member, "SBXACTIVE01", patient="pt_p1")  # checked today: active
    _check(member, "SBXINACTIVE1", patient="pt_p2")  # checked today: inactive
    day = timedelta(days=1)
    cases = [
        _case(services, member, "pt_p1", TODAY + day),  # checked_active
        _case(services, member, "pt_p2", TODAY + day),  # checked_inactive
        _case(services, member, "pt_p1", TODAY - day),  # checked_after_service
        _case(services, member, "pt_p9", TODAY),  # no_check
        _case(services, member, None, None),  # service_date_unknown
        _case(services, member, "pt_p2", TODAY + 2 * day),  # checked_inactive
    ]
    _case(services, member, "pt_p1", TODAY + day, category="coding")  # not an eligibility denial
    _case(services, other, "pt_p1", TODAY + day)  # another client's
    pages: list[dict] = []
    seen = collect_pages(member.rpc, "eligibility.denialsByEligibility", {}, limit=1, on_page=pages.append)
    assert [i["caseId"] for i in seen] == sorted(cases, reverse=True)  # each case once, newest first
    assert [len(p["items"]) for p in pages] == [1] * 6
    # hand count: active 1 (first), inactive 2 (second, sixth), after 1 (third), none 1 (fourth), unknown 1
    hand = {
        "no_check": 1,
        "checked_active": 1,
        "checked_inactive": 2,
        "checked_after_service": 1,
        "service_date_unknown": 1,
    }
    # the totals are over every case read, the same on every page
    assert [(p["counts"], p["casesRead"], p["truncated"]) for p in pages] == [(hand, 6, False)] * 6
    inactive = collect_pages(member.rpc, "eligibility.denialsByEligibility", {"bucket": "checked_inactive"}, limit=1)
    assert [i["caseId"] for i in inactive] == [cases[5], cases[1]]
    assert other.rpc.query("eligibility.denialsByEligibility", {}).data["casesRead"] == 1


def test_the_buckets_counted_and_paged_agree_with_the_rule_on_many_histories(services, make_member):
    """The bucket and the standing check of every case, as the database works them out, are those of
    `buckets.verdict` over the case's checks (random histories: every status, before, on and after the
    service day, same-day ties, no check, no service date, a service date from the claim only)."""
    member = make_member()
    _check(member, "SBXACTIVE01", patient="pt_seed")
    rng = random.Random(20261129)
    statuses = ("active", "inactive", "not_found", "rejected", "error")
    patients = [f"pt_r{n}" for n in range(12)]
    with services.database.transaction() as db:
        seed = db.scalars(select(EligibilityCheck).where(EligibilityCheck.client_id == member.client_id)).one()
        for patient in patients:
            for _ in range(rng.randint(0, 4)):
                db.add(
                    EligibilityCheck(
                        **{c: getattr(seed, c) for c in _COPIED},
                        patient_ref=patient,
                        status=rng.choice(statuses),
                        checked_on=TODAY + timedelta(days=rng.randint(-3, 3)),
                    )
                )
    cases: dict[int, tuple[str, date | None]] = {}
    for patient in patients:
        for offset in (-2, 0, 2, None):
            service = None if offset is None else TODAY + timedelta(days=offset)
            cases[_case(services, member, patient, service)] = (patient, service)
        key = _claim(services, member, patient)
        with services.database.transaction() as db:  # the case has no service date, its claim has
            db.execute(update(Claim).where(Claim.claim_key == key).values(statement_from=TODAY - timedelta(days=1)))
        case_id = make_case(
            services, member.organization_id, member.client_id, claim_key=key, denial_category="eligibility"
        )
        cases[case_id] = (patient, TODAY - timedelta(days=1))
    with services.database.transaction(write=False) as db:
        facts: dict[str, list[CheckFact]] = defaultdict(list)
        for c in db.scalars(select(EligibilityCheck).where(EligibilityCheck.client_id == member.client_id)):
            facts[c.patient_ref].append(CheckFact(c.id, c.status, c.checked_on))
    expected = {case_id: verdict(service, facts[patient]) for case_id, (patient, service) in cases.items()}

    items = collect_pages(member.rpc, "eligibility.denialsByEligibility", {}, limit=7)
    assert sorted(i["caseId"] for i in items) == sorted(cases)
    found = {i["caseId"]: (i["bucket"], i["check"]["id"] if i["check"] else None) for i in items}
    assert found == {k: (v.bucket, v.check.check_id if v.check else None) for k, v in expected.items()}
    report = member.rpc.query("eligibility.denialsByEligibility", {}).data
    assert report["counts"] == counts([*expected.values()]) and report["casesRead"] == len(cases)
    for bucket in BUCKETS:
        only = collect_pages(member.rpc, "eligibility.denialsByEligibility", {"bucket": bucket}, limit=3)
        assert [i["caseId"] for i in only] == sorted(
            (k for k, v in expected.items() if v.bucket == bucket), reverse=True
        )


def test_only_the_newest_cases_are_read_counted_and_paged(services, make_member, monkeypatch):
    monkeypatch.setattr(eligibility_service, "MAX_DENIAL_CASES", 3)
    member = make_member()
    day = timedelta(days=1)
    cases = [_case(services, member, "pt_n1", TODAY + day) for _ in range(5)]  # never checked
    pages: list[dict] = []
    seen = collect_pages(member.rpc, "eligibility.denialsByEligibility", {}, limit=2, on_page=pages.append)
    assert [i["caseId"] for i in seen] == cases[:1:-1]  # the 3 newest of 5, newest first
    # 3 read, all no_check; the 2 older are left out of the counts too
    assert {(p["casesRead"], p["counts"]["no_check"], p["truncated"]) for p in pages} == {(3, 3, True)}
