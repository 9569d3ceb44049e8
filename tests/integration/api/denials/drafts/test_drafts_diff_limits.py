"""drafts.diff under attack, over the wire on SQLite and PostgreSQL (issue 23): two 48 KB versions cost
12 s of CPU and two of 150 KB over 5 minutes with difflib, for anyone with read permission. The diff
answered now rebuilds the new version from the old one; a version over DRAFT_DIFF_MAX_CHARS is
BAD_REQUEST naming the cap."""

from __future__ import annotations

import pytest

from tests.support.approval_team import make_team, new_draft
from tests.support.unified_patch import apply_unified


@pytest.fixture
def team(services, rpc, make_member):
    return make_team(services, rpc, make_member)


def _cyclic(chars: int, step: int) -> str:
    """101 short lines, each just under difflib's 1 % 'popular line' threshold, reordered between
    the versions: the shape that made difflib's longest-match recursion take seconds to minutes."""
    return "".join(f"{(i * step) % 101:03d}\n" for i in range(chars // 4))


def _two_versions(member_rpc, case_id: int, old: str, new: str) -> int:
    draft = new_draft(member_rpc, case_id, content=old)
    member_rpc.mutation("drafts.update", {"id": draft["id"], "content": new, "expectedVersion": 1}).data
    return draft["id"]


@pytest.mark.parametrize("chars", [48_000, 150_000])
def test_two_reordered_versions_answer_a_diff_that_rebuilds_the_new_one(team, chars):
    old, new = _cyclic(chars, 1), _cyclic(chars, 7)
    draft_id = _two_versions(team.author.rpc, team.case_id, old, new)
    # Read permission is all the attack needed: the manager (not the author) asks.
    got = team.manager.rpc.query("drafts.diff", {"id": draft_id, "fromVersion": 1, "toVersion": 2}).data
    assert apply_unified(old, got["diff"]) == new
    back = team.manager.rpc.query("drafts.diff", {"id": draft_id, "fromVersion": 2, "toVersion": 1, "context": 50})
    assert apply_unified(new, back.data["diff"]) == old


def test_two_unrelated_150_kb_versions_and_one_long_line_answer_correct_diffs(team):
    old = "".join(f"Line {i} of the first letter.\n" for i in range(150_000 // 29))
    new = "".join(f"Row {i} of another letter!\n" for i in range(150_000 // 27))
    draft_id = _two_versions(team.author.rpc, team.case_id, old, new)
    got = team.author.rpc.query("drafts.diff", {"id": draft_id, "fromVersion": 1, "toVersion": 2}).data
    assert apply_unified(old, got["diff"]) == new
    long_old, long_new = "w" * 150_000, "w" * 75_000 + "x" + "w" * 74_999
    draft_id = _two_versions(team.author.rpc, team.case_id, long_old, long_new)
    got = team.author.rpc.query("drafts.diff", {"id": draft_id, "fromVersion": 1, "toVersion": 2}).data
    assert (
        got["diff"]
        == f"--- v1\n+++ v2\n@@ -1 +1 @@\n-{long_old}\n\\ No newline at end of file\n+{long_new}\n\\ No newline at end of file\n"
    )


def test_a_version_over_the_diff_cap_is_refused_naming_it(services, team, monkeypatch):
    old, new = _cyclic(150_000, 1), _cyclic(150_000, 7)
    draft_id = _two_versions(team.author.rpc, team.case_id, old, new)
    monkeypatch.setattr(services.settings, "draft_diff_max_chars", 100_000)
    refused = team.author.rpc.query("drafts.diff", {"id": draft_id, "fromVersion": 1, "toVersion": 2})
    assert refused.code == "BAD_REQUEST"
    assert "DRAFT_DIFF_MAX_CHARS" in refused.error["message"] and "100000" in refused.error["message"]
    assert "Version 1" in refused.error["message"]
