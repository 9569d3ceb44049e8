"""A list's `cursor` holding an id beyond 64 bits (or not positive) is BAD_REQUEST naming the field,
not a 500 (issue 23, the integer-overflow class of finding 11): the cursor is decoded into an id
that is bound into the page's query, so it is bounded like every id input (DbId, 1..2^63-1)."""

from __future__ import annotations

import base64

import pytest

LISTS = (
    "approvedActions.list",
    "approvals.list",
    "drafts.list",
    "appealAssembly.list",
    "evidenceControl.list",
    "cases.list",
)


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize("number", [2**64, 2**63, -1, 0, -(2**64)])
def test_a_cursor_beyond_the_id_range_is_bad_request(make_member, number):
    member = make_member()
    for proc in LISTS:
        answer = member.rpc.query(proc, {"cursor": _cursor(f"id:{number}")})
        assert answer.code == "BAD_REQUEST", (proc, answer.body)
        assert "'cursor'" in answer.error["message"]
    due = member.rpc.query("deadlines.upcoming", {"cursor": _cursor(f"due:2024-01-01:{number}")})
    assert due.code == "BAD_REQUEST" and "'cursor'" in due.error["message"], due.body


def test_the_largest_id_is_a_cursor_past_everything(make_member):
    member = make_member()
    for proc in LISTS:
        assert member.rpc.query(proc, {"cursor": _cursor(f"id:{2**63 - 1}")}).data["items"] == []
