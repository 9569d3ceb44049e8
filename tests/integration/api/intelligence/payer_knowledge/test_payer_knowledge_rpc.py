"""payerKnowledge over the real app, on SQLite and PostgreSQL: versions, history, search, bounds, tenancy,
and two upserts of one new version at the same time."""

from __future__ import annotations

import contextlib
import threading

import pytest

from api.intelligence.payer_knowledge import service
from tests.support.tenancy import join

PORTAL = {
    "payerKey": "map01",
    "payerName": "Hand Medicare Advantage Plan",
    "kind": "portal",
    "value": "https://providers.map01.example/appeals",
    "source": "Provider manual 2026, section 7.1",
    "effectiveFrom": "2026-01-01",
}


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _fact(rpc, **changes):
    return rpc.mutation("payerKnowledge.upsertFact", {**PORTAL, **changes})


def test_a_new_version_closes_the_previous_and_the_history_keeps_both(member):
    first = _fact(member.rpc).data
    assert (first["created"], first["closed"], first["fact"]["payerKey"]) == (True, [], "MAP01")
    assert first["fact"]["effectiveTo"] is None
    second = _fact(member.rpc, value="https://portal.map01.example", effectiveFrom="2026-03-15").data
    # the portal of 2026-01-01 is closed the day before the new one starts, not deleted
    assert [(f["id"], f["effectiveTo"]) for f in second["closed"]] == [(first["fact"]["id"], "2026-03-14")]
    before = member.rpc.query("payerKnowledge.get", {"payerKey": "MAP01", "asOf": "2026-03-14"}).data
    assert [f["value"] for f in before["facts"]] == ["https://providers.map01.example/appeals"]
    assert before["payerName"] == "Hand Medicare Advantage Plan" and before["history"] == []
    after = member.rpc.query("payerKnowledge.get", {"payerKey": "Map01", "asOf": "2026-03-15", "history": True}).data
    assert [f["value"] for f in after["facts"]] == ["https://portal.map01.example"]
    assert [(f["effectiveFrom"], f["effectiveTo"]) for f in after["history"]] == [
        ("2026-03-15", None),
        ("2026-01-01", "2026-03-14"),
    ]
    assert after["historyTruncated"] is False
    # nothing was in force before the first version
    assert member.rpc.query("payerKnowledge.get", {"payerKey": "MAP01", "asOf": "2025-12-31"}).data["facts"] == []
    events = member.rpc.query("audit.list", {"procedure": "payerKnowledge.upsertFact"}).data["items"]
    assert len(events) == 2 and {e["targetType"] for e in events} == {"payer_fact"}


def test_the_same_version_again_changes_nothing_and_another_value_that_day_conflicts(member):
    first = _fact(member.rpc).data
    again = _fact(member.rpc).data
    assert (again["created"], again["fact"]["id"]) == (False, first["fact"]["id"])
    clash = _fact(member.rpc, value="https://other.example")
    assert clash.code == "CONFLICT" and "2026-01-01" in clash.error["message"]


def test_labels_keep_several_facts_of_one_kind_and_a_backdated_version_ends_before_the_next(member):
    phone = {"kind": "phone", "source": "Card of 2026-01-05"}
    _fact(member.rpc, **phone, label="provider services", value="800-555-0100")
    _fact(member.rpc, **phone, label="appeals", value="800-555-0199")
    _fact(member.rpc, **phone, label="appeals", value="800-555-0142", effectiveFrom="2026-06-01")
    # a correction from 2026-04-01 lands between the two appeals numbers: it ends 2026-05-31
    late = _fact(member.rpc, **phone, label="appeals", value="800-555-0123", effectiveFrom="2026-04-01").data
    assert (late["fact"]["effectiveTo"], [f["effectiveTo"] for f in late["closed"]]) == ("2026-05-31", ["2026-03-31"])
    shown = member.rpc.query("payerKnowledge.get", {"payerKey": "MAP01", "asOf": "2026-05-01"}).data["facts"]
    assert [(f["label"], f["value"]) for f in shown] == [
        ("appeals", "800-555-0123"),
        ("provider services", "800-555-0100"),
    ]


def test_search_matches_percent_and_underscore_as_themselves(member):
    _fact(member.rpc, payerKey="MAP_01", kind="filing_limit", value="Appeals within 100% of the contract window")
    _fact(member.rpc, payerKey="MAPX01", kind="filing_limit", value="Appeals within 1000 days")
    _fact(member.rpc, payerKey="AB/C", kind="other", value="see the manual")

    def found(text: str, **more) -> list[str]:
        body = {"text": text, "asOf": "2026-02-01", **more}
        return sorted(f["payerKey"] for f in member.rpc.query("payerKnowledge.search", body).data["items"])

    assert found("100%") == ["MAP_01"]  # % would otherwise match "1000 days"
    assert found("p_0") == ["MAP_01"]  # _ would otherwise match MAPX01
    assert found("b/c") == ["AB/C"]  # the escape character itself
    assert found("APPEALS") == ["MAPX01", "MAP_01"]  # case-insensitive over the value
    assert found("filing_limit") == ["MAPX01", "MAP_01"]  # the kind
    assert found("appeals", kind="other") == []
    assert found("appeals", asOf="2025-12-31") == []  # not yet in force
    assert found("appeals", history=True, asOf="2025-12-31") == ["MAPX01", "MAP_01"]
    page = member.rpc.query("payerKnowledge.search", {"text": "appeals", "asOf": "2026-02-01", "limit": 1}).data
    rest = member.rpc.query(
        "payerKnowledge.search", {"text": "appeals", "asOf": "2026-02-01", "limit": 1, "cursor": page["nextCursor"]}
    ).data
    assert len(page["items"]) == 1 and len(rest["items"]) == 1 and rest["nextCursor"] is None
    assert page["items"][0]["id"] > rest["items"][0]["id"]


def test_bad_input_is_refused_and_writes_need_a_manager(member, services):
    for changes in (
        {"kind": "email"},
        {"value": ""},
        {"value": "x" * 2001},
        {"source": ""},
        {"source": "s" * 501},
        {"payerKey": ""},
        {"payerKey": "P" * 81},
        {"payerKey": "MAP\n01"},
        {"value": "not an address"},  # a portal is its address
        {"effectiveFrom": "2026-02-30"},
        {"effectiveTo": "2025-12-31"},  # before effectiveFrom
        {"label": "l" * 81},
    ):
        assert _fact(member.rpc, **changes).code == "BAD_REQUEST", changes
    for body in ({"text": ""}, {"text": "t" * 101}, {"text": "a", "limit": 501}, {"text": "a", "cursor": "nope"}):
        assert member.rpc.query("payerKnowledge.search", body).code == "BAD_REQUEST", body
    assert member.rpc.query("payerKnowledge.get", {"payerKey": "K" * 81}).code == "BAD_REQUEST"
    _uid, _e, _p, token = join(services, member.rpc, member.organization_id, "specialist")
    specialist = member.rpc.as_(token, member.client_id)
    assert _fact(specialist).code == "FORBIDDEN"
    assert specialist.query("payerKnowledge.get", {"payerKey": "MAP01"}).status == 200


def test_another_clients_facts_are_not_seen(member, make_member):
    _fact(member.rpc)
    other = make_member(role="admin")
    assert other.rpc.query("payerKnowledge.get", {"payerKey": "MAP01", "history": True}).data["history"] == []
    assert other.rpc.query("payerKnowledge.search", {"text": "map01", "history": True}).data["items"] == []
    # the other client records its own version from the same day: no conflict with the first client's
    assert _fact(other.rpc, value="https://mine.example").data["created"] is True


def _race(services, member, monkeypatch, first: dict, second: dict) -> tuple[list, int]:
    """Two managers upsert at the same time; answers both answers and how often the stored versions were
    read. Each call waits, after reading them, until the other has read them too, so neither sees the
    other's version (PostgreSQL). On SQLite the second call cannot read before the first commits (the
    write lock is taken at BEGIN): the first stops waiting after 3 seconds and the two run one after the
    other."""
    read = threading.Barrier(2)
    reads: list[int] = []
    versions_of = service._versions

    def read_then_wait(*args, **kwargs):
        found = versions_of(*args, **kwargs)
        reads.append(1)
        if len(reads) <= 2:  # the two first reads only (not a call deciding again)
            with contextlib.suppress(threading.BrokenBarrierError):
                read.wait(timeout=3)
        return found

    monkeypatch.setattr(service, "_versions", read_then_wait)
    _uid, _e, _p, token = join(services, member.rpc, member.organization_id, "manager")
    other = member.rpc.as_(token, member.client_id)
    answers: dict[int, object] = {}

    def upsert(i: int, rpc, changes: dict) -> None:
        answers[i] = _fact(rpc, **changes)

    threads = [
        threading.Thread(target=upsert, args=(0, member.rpc, first)),
        threading.Thread(target=upsert, args=(1, other, second)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [answers[0], answers[1]], len(reads)


def _reads_expected(services) -> int:
    # PostgreSQL: both calls read before either inserted, the second one's insert hit the unique constraint
    # and it read the versions again to decide; SQLite: one after the other, two reads
    return 2 if services.database.is_sqlite else 3


def test_the_same_new_version_upserted_twice_at_once_is_recorded_once(member, services, monkeypatch):
    answers, reads = _race(services, member, monkeypatch, {}, {})
    assert [a.code for a in answers] == [None, None], [a.error for a in answers if a.code]
    # one call stored it, the other found it stored: no change, the same row
    assert sorted(a.data["created"] for a in answers) == [False, True]
    assert answers[0].data["fact"]["id"] == answers[1].data["fact"]["id"]
    assert reads == _reads_expected(services)
    history = member.rpc.query("payerKnowledge.get", {"payerKey": "MAP01", "history": True}).data["history"]
    assert len(history) == 1


def test_two_versions_from_one_day_upserted_at_once_conflict(member, services, monkeypatch):
    _fact(member.rpc, effectiveFrom="2025-06-01")  # a version before: both calls close it
    answers, reads = _race(services, member, monkeypatch, {}, {"value": "https://other.example"})
    assert sorted(a.code or "OK" for a in answers) == ["CONFLICT", "OK"], [a.error for a in answers if a.code]
    [clash] = [a for a in answers if a.code]
    assert clash.error["message"] == (
        "A version of this fact already starts on 2026-01-01: record the change from another day "
        "(the day it took effect)"
    )
    assert reads == _reads_expected(services)
    history = member.rpc.query("payerKnowledge.get", {"payerKey": "MAP01", "history": True}).data["history"]
    # the winner from 2026-01-01, open-ended; the version of 2025-06-01 closed the day before, once
    assert [(f["effectiveFrom"], f["effectiveTo"]) for f in history] == [
        ("2026-01-01", None),
        ("2025-06-01", "2025-12-31"),
    ]
