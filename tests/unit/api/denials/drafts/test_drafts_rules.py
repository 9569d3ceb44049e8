"""The draft lifecycle, its lock, content digests and diffs (pure)."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import PreconditionFailed
from api.core.lifecycle import transition
from api.denials.drafts import content
from api.denials.drafts.lifecycle import DRAFT, LOCKED_STATES, effective_state, lock_message

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)

# Written out by hand from the brief, not derived from the table under test.
ALLOWED = {
    ("editing", "in_approval"),
    ("editing", "discarded"),
    ("in_approval", "approved"),
    ("in_approval", "editing"),
    ("in_approval", "discarded"),
    ("approved", "editing"),
    ("approved", "discarded"),
}


@pytest.mark.parametrize("current", sorted(DRAFT.states))
@pytest.mark.parametrize("target", sorted(DRAFT.states))
def test_every_move_is_exactly_the_table(current, target):
    if (current, target) in ALLOWED:
        assert transition(DRAFT, current, target) == target
    else:
        with pytest.raises(PreconditionFailed, match=f"'{current}'"):
            transition(DRAFT, current, target)


def test_discarded_is_final_and_locked_states_are_the_approval_ones():
    assert DRAFT.allowed("discarded") == frozenset()
    assert {"in_approval", "approved"} == LOCKED_STATES


@pytest.mark.parametrize("state", ["in_approval", "approved"])
def test_a_lock_holds_until_its_approval_expires(state):
    assert effective_state(state, NOW + timedelta(seconds=1), NOW) == state
    assert effective_state(state, NOW, NOW) == "editing"
    assert effective_state(state, NOW - timedelta(hours=1), NOW) == "editing"
    assert "approvals.withdraw" in lock_message(state) and f"'{state}'" in lock_message(state)


@pytest.mark.parametrize("state", ["editing", "discarded"])
def test_unlocked_states_are_unchanged_by_time(state):
    assert effective_state(state, NOW - timedelta(days=1), NOW) == state


def test_the_digest_is_sha256_of_the_normalised_utf8_text():
    assert content.digest("a\r\nb\rc") == hashlib.sha256(b"a\nb\nc").hexdigest()
    assert content.size("é\r\n") == 3


# Without a lone CR in the text: "\r" + "\n" -> "\r\r\n" is two line breaks, another text, not another ending.
@given(st.text().map(lambda text: text.replace("\r", "")))
def test_line_endings_never_change_the_digest(text):
    assert content.digest(text.replace("\n", "\r\n")) == content.digest(text)
    assert content.digest(text.replace("\n", "\r")) == content.digest(text)


def test_diff_is_a_unified_diff_of_lines():
    old = "Dear payer,\nPlease reprocess.\nThanks\n"
    new = "Dear payer,\nPlease reprocess claim 1.\nThanks\n"
    diff = content.unified_diff(old, new, "v1", "v2")
    assert diff.splitlines() == [
        "--- v1",
        "+++ v2",
        "@@ -1,3 +1,3 @@",
        " Dear payer,",
        "-Please reprocess.",
        "+Please reprocess claim 1.",
        " Thanks",
    ]
    assert content.unified_diff(old, old, "v1", "v2") == ""


def test_a_missing_final_newline_is_marked():
    diff = content.unified_diff("a", "b", "v1", "v2")
    assert "-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n" in diff


def _apply(old: str, diff: str) -> str:
    """Apply a context-0 unified diff to `old` (hunks in order, each a replacement of old lines)."""
    lines, out, at = old.splitlines(), [], 0
    for hunk in re.split(r"^@@ ", diff, flags=re.M)[1:]:
        header, *body = hunk.split("\n")
        start, count = re.match(r"-(\d+)(?:,(\d+))?", header).groups()
        first = int(start) - (0 if count == "0" else 1)
        out += lines[at:first]
        out += [line[1:] for line in body if line.startswith("+")]
        at = first + int(count if count is not None else 1)
    return "\n".join(out + lines[at:])


@given(
    st.lists(st.sampled_from(["a", "b", "c", "", "a b"]), max_size=8),
    st.lists(st.sampled_from(["a", "b", "c", "", "d"]), max_size=8),
)
def test_applying_the_diff_to_the_old_version_gives_the_new_one(old_lines, new_lines):
    old, new = "\n".join(old_lines) + "\n", "\n".join(new_lines) + "\n"
    diff = content.unified_diff(old, new, "v1", "v2", context=0)
    assert (diff == "") == (old == new)
    if diff:
        assert diff.startswith("--- v1\n+++ v2\n")
        assert _apply(old, diff) == "\n".join(new_lines)
