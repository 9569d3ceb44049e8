"""drafts.* over the wire, on SQLite and PostgreSQL: versions, diffs, the approval lock, discard,
tenancy, and content kept out of the audit log."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select

from api.platform.audit.models import AuditEvent
from tests.support.approval_team import LETTER, expire, make_team, new_draft, request_approval

EDITED = LETTER.replace("reprocess the claim", "reprocess claim 4471 with modifier 25")


@pytest.fixture
def team(services, rpc, make_member):
    return make_team(services, rpc, make_member)


def test_every_save_is_a_version_with_its_digest_and_author(team):
    author, manager = team.author, team.manager
    created = new_draft(author.rpc, team.case_id)
    assert (created["state"], created["currentVersion"], created["kind"]) == ("editing", 1, "appeal_letter")
    assert (
        created["currentDigest"] == hashlib.sha256(LETTER.encode()).hexdigest() == created["version"]["contentDigest"]
    )
    assert created["content"] == LETTER and created["version"]["authorUserId"] == author.user_id
    updated = manager.rpc.mutation("drafts.update", {"id": created["id"], "content": EDITED, "expectedVersion": 1}).data
    assert updated["currentVersion"] == 2 and updated["version"]["authorUserId"] == manager.user_id
    assert updated["currentDigest"] == hashlib.sha256(EDITED.encode()).hexdigest()
    first = author.rpc.query("drafts.get", {"id": created["id"], "version": 1}).data
    assert first["content"] == LETTER and first["currentVersion"] == 2
    versions = author.rpc.query("drafts.versions", {"id": created["id"]}).data["items"]
    assert [(v["version"], v["authorUserId"]) for v in versions] == [(2, manager.user_id), (1, author.user_id)]
    assert all("content" not in v for v in versions)
    diff = author.rpc.query("drafts.diff", {"id": created["id"], "fromVersion": 1, "toVersion": 2}).data
    assert "-Please reprocess the claim.\n+Please reprocess claim 4471 with modifier 25.\n" in diff["diff"]
    assert diff["fromVersion"]["contentDigest"] == created["currentDigest"]
    listed = author.rpc.query("drafts.list", {"caseId": team.case_id}).data["items"]
    assert [d["id"] for d in listed] == [created["id"]] and "content" not in listed[0]


def test_a_stale_edit_conflicts_and_a_missing_version_is_not_found(team):
    draft = new_draft(team.author.rpc, team.case_id)
    team.author.rpc.mutation("drafts.update", {"id": draft["id"], "content": EDITED}).data
    stale = team.author.rpc.mutation("drafts.update", {"id": draft["id"], "content": "x", "expectedVersion": 1})
    assert stale.code == "CONFLICT" and "version 2" in stale.error["message"]
    assert team.author.rpc.query("drafts.get", {"id": draft["id"], "version": 9}).code == "NOT_FOUND"
    same = team.author.rpc.query("drafts.diff", {"id": draft["id"], "fromVersion": 1, "toVersion": 1})
    assert same.code == "BAD_REQUEST"


def test_a_draft_is_locked_while_its_approval_is_pending_or_granted(team):
    author, manager = team.author, team.manager
    draft = new_draft(author.rpc, team.case_id)
    approval = request_approval(author.rpc, draft["id"])
    assert author.rpc.query("drafts.get", {"id": draft["id"]}).data["state"] == "in_approval"
    pending = author.rpc.mutation("drafts.update", {"id": draft["id"], "content": EDITED})
    assert pending.code == "PRECONDITION_FAILED" and "'in_approval'" in pending.error["message"]
    manager.rpc.mutation("approvals.decide", {"id": approval["id"], "decision": "approve", "reason": "ok"}).data
    granted = author.rpc.mutation("drafts.update", {"id": draft["id"], "content": EDITED})
    assert granted.code == "PRECONDITION_FAILED" and "'approved'" in granted.error["message"]
    assert author.rpc.query("drafts.get", {"id": draft["id"]}).data["currentVersion"] == 1
    # the documented way back: the author withdraws the approval, then edits
    withdrawn = author.rpc.mutation("approvals.withdraw", {"id": approval["id"], "reason": "payer asked for more"}).data
    assert withdrawn["state"] == "withdrawn" and not withdrawn["valid"]
    edited = author.rpc.mutation("drafts.update", {"id": draft["id"], "content": EDITED}).data
    assert (edited["state"], edited["currentVersion"]) == ("editing", 2)


def test_a_rejected_or_expired_approval_unlocks_the_draft(services, team):
    author, manager = team.author, team.manager
    draft = new_draft(author.rpc, team.case_id)
    rejected = request_approval(author.rpc, draft["id"])
    manager.rpc.mutation("approvals.decide", {"id": rejected["id"], "decision": "reject", "reason": "cite the LCD"})
    assert author.rpc.mutation("drafts.update", {"id": draft["id"], "content": EDITED}).data["state"] == "editing"
    lapsing = request_approval(author.rpc, draft["id"])
    expire(services, lapsing["id"])
    assert author.rpc.query("drafts.get", {"id": draft["id"]}).data["state"] == "editing"  # computed at read
    assert author.rpc.mutation("drafts.update", {"id": draft["id"], "content": LETTER}).data["currentVersion"] == 3
    assert author.rpc.query("approvals.get", {"id": lapsing["id"]}).data["state"] == "expired"


def test_discarding_voids_the_approval_on_it(team):
    author, manager = team.author, team.manager
    draft = new_draft(author.rpc, team.case_id)
    approval = request_approval(author.rpc, draft["id"])
    discarded = author.rpc.mutation("drafts.discard", {"id": draft["id"], "reason": "superseded"}).data
    assert discarded["state"] == "discarded" and discarded["discardReason"] == "superseded"
    voided = author.rpc.query("approvals.get", {"id": approval["id"]}).data
    assert (voided["state"], voided["valid"], voided["stateReason"]) == ("void", False, "the draft was discarded")
    assert author.rpc.query("approvals.list", {"state": "void"}).data["items"][0]["id"] == approval["id"]
    late = manager.rpc.mutation("approvals.decide", {"id": approval["id"], "decision": "approve", "reason": "ok"})
    assert late.code == "PRECONDITION_FAILED" and "'void'" in late.error["message"]
    again = author.rpc.mutation("drafts.update", {"id": draft["id"], "content": EDITED})
    assert again.code == "PRECONDITION_FAILED" and "discarded" in again.error["message"]


def test_other_tenants_drafts_are_not_found(services, team, make_member):
    draft = new_draft(team.author.rpc, team.case_id)
    intruder = make_member()
    assert intruder.rpc.query("drafts.get", {"id": draft["id"]}).code == "NOT_FOUND"
    assert intruder.rpc.query("drafts.versions", {"id": draft["id"]}).code == "NOT_FOUND"
    assert intruder.rpc.query("drafts.diff", {"id": draft["id"], "fromVersion": 1, "toVersion": 2}).code == "NOT_FOUND"
    assert intruder.rpc.mutation("drafts.update", {"id": draft["id"], "content": "mine"}).code == "NOT_FOUND"
    assert intruder.rpc.mutation("drafts.discard", {"id": draft["id"], "reason": "x"}).code == "NOT_FOUND"
    assert intruder.rpc.mutation("drafts.create", {"caseId": team.case_id, "kind": "note", "content": "x"}).code == (
        "NOT_FOUND"
    )
    assert intruder.rpc.query("drafts.list", {}).data["items"] == []
    assert team.author.rpc.query("drafts.get", {"id": draft["id"]}).data["currentVersion"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   \n "}, "content"),
        ({"content": "nul \x00"}, "content"),
        ({"content": "x" * 200_001}, "content"),
        ({"kind": "poem"}, "kind"),
        ({"caseId": 0}, "caseId"),
    ],
)
def test_bad_input_is_bad_request_naming_the_field(team, change, field):
    result = team.author.rpc.mutation(
        "drafts.create", {"caseId": team.case_id, "kind": "note", "content": "x", **change}
    )
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"]


def test_draft_content_never_reaches_the_audit_log_not_even_digested(services, team):
    one = new_draft(team.author.rpc, team.case_id, kind="note", content=LETTER)
    two = new_draft(team.author.rpc, team.case_id, kind="note", content=EDITED)
    team.author.rpc.mutation("drafts.update", {"id": one["id"], "content": EDITED}).data
    team.author.rpc.mutation("drafts.update", {"id": one["id"], "content": LETTER}).data
    with services.database.transaction() as db:
        rows = db.scalars(
            select(AuditEvent).where(AuditEvent.organization_id == team.owner.organization_id).order_by(AuditEvent.seq)
        ).all()
    creates = [r for r in rows if r.procedure == "drafts.create"]
    updates = [r for r in rows if r.procedure == "drafts.update"]
    assert [(r.target_type, r.target_id) for r in creates] == [("draft", str(one["id"])), ("draft", str(two["id"]))]
    # same inputs but for the content: the same input digest, so the content is not in it
    assert creates[0].input_digest == creates[1].input_digest
    assert updates[0].input_digest == updates[1].input_digest
    assert all(r.after_digest for r in creates + updates)
