"""A team for approval tests: the organization's owner (admin, an approver), an author (specialist)
and a manager (a second approver) on one client, with a denial case; and helpers for drafts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from api.denials.approvals.models import ApprovalRequest
from api.denials.drafts.models import Draft
from api.infra.db.base import utcnow
from tests.support.denial_case_rows import Colleague, add_colleague, make_case

LETTER = "Re: patient Jane Q Doe, DOB 1961-04-02, member W123456789.\nPlease reprocess the claim.\n"


@dataclass
class Team:
    owner: Any  # tests.conftest.Member (admin)
    author: Colleague  # specialist: writes and requests, never approves
    manager: Colleague  # holds "approve"
    case_id: int


def make_team(services: Any, rpc: Any, make_member: Any, amount: str = "1250.00") -> Team:
    owner = make_member()
    author = add_colleague(services, rpc, owner, role="specialist")
    manager = add_colleague(services, rpc, owner, role="manager")
    case_id = make_case(services, owner.organization_id, owner.client_id, amount_at_stake=Decimal(amount))
    return Team(owner, author, manager, case_id)


def new_draft(member_rpc: Any, case_id: int, *, kind: str = "appeal_letter", content: str = LETTER) -> dict[str, Any]:
    return member_rpc.mutation("drafts.create", {"caseId": case_id, "kind": kind, "content": content}).data


def request_approval(member_rpc: Any, draft_id: int) -> dict[str, Any]:
    return member_rpc.mutation("approvals.request", {"subjectType": "draft", "subjectId": draft_id}).data


def expire(services: Any, approval_id: int) -> None:
    """Move an approval's expiry into the past, as if its hours had gone by (so the lock it holds on
    its draft, which ends at the same instant, too)."""
    past = utcnow() - timedelta(minutes=1)
    with services.database.transaction() as db:
        row = db.get(ApprovalRequest, approval_id)
        assert row is not None
        row.expires_at = past
        if row.subject_type == "draft":
            draft = db.get(Draft, row.subject_id)
            if draft is not None and draft.approval_id == approval_id:
                draft.locked_until = past
