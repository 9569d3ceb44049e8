"""The bounded line diff behind drafts.diff (issue 23): always a correct diff, minimal while the
changes are within the cap, and the shapes that made difflib take seconds to minutes answer a diff
that rebuilds the new version (the time is measured in bench/, never asserted here)."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.drafts import content, line_diff
from tests.support.unified_patch import apply_unified

LINES = st.lists(st.sampled_from(["a", "b", "c", "", "a b", "Dear payer,"]), max_size=12)


def _rebuild(a: list[str], b: list[str], codes: list[line_diff.Opcode]) -> list[str]:
    """b from a and the opcodes, checking they tile both sides and that 'equal' runs are equal."""
    out: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j) and tag in ("equal", "replace", "delete", "insert")
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2] and i2 > i1
            out += a[i1:i2]
        else:
            out += b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    return out


def _changed(codes: list[line_diff.Opcode]) -> int:
    return sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in codes if tag != "equal")


def _minimal_changes(a: list[str], b: list[str]) -> int:
    """n + m - 2 * LCS, by the textbook dynamic programme."""
    lcs = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if a[i] == b[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    return len(a) + len(b) - 2 * lcs[0][0]


@given(LINES, LINES)
def test_within_the_cap_the_opcodes_rebuild_b_with_the_fewest_changes(a, b):
    codes = line_diff.opcodes(a, b, max_changes=100)
    assert _rebuild(a, b, codes) == b
    assert _changed(codes) == _minimal_changes(a, b)


@given(LINES, LINES, st.integers(min_value=0, max_value=3))
def test_over_the_cap_the_opcodes_still_rebuild_b(a, b, cap):
    codes = line_diff.opcodes(a, b, max_changes=cap)
    assert _rebuild(a, b, codes) == b


@given(LINES, LINES, st.booleans(), st.booleans(), st.integers(min_value=0, max_value=4), st.integers(0, 3))
def test_applying_the_unified_diff_to_the_old_version_gives_the_new_one(a, b, end_a, end_b, context, cap):
    old, new = "\n".join(a) + ("\n" if end_a else ""), "\n".join(b) + ("\n" if end_b else "")
    diff = content.unified_diff(old, new, "v1", "v2", context=context, max_changes=cap)
    assert (diff == "") == (old == new)
    assert apply_unified(old, diff) == new


def test_a_typical_edit_prints_as_difflib_prints_it():
    old = "".join(f"Paragraph {i} of the letter.\n" for i in range(40))
    new = old.replace("Paragraph 7 ", "Paragraph seven ").replace("Paragraph 30 of", "Paragraph 30, revised, of")
    new += "Sincerely,\n"
    for context in (0, 3, 10):
        expected = "".join(
            difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), "v1", "v2", n=context)
        )
        assert content.unified_diff(old, new, "v1", "v2", context=context) == expected


def _cyclic(chars: int, step: int) -> str:
    """101 short lines, each just under difflib's 1 % 'popular' threshold, in another order in
    each version: difflib's longest-match recursion then costs seconds (48 KB) to minutes (150 KB)."""
    lines = chars // 4
    return "".join(f"{(i * step) % 101:03d}\n" for i in range(lines))


@pytest.mark.parametrize("chars", [48_000, 150_000])
def test_the_attack_shapes_answer_a_diff_that_rebuilds_the_new_version(chars):
    pairs = [
        (_cyclic(chars, 1), _cyclic(chars, 7)),  # the same lines, reordered
        (
            "".join(f"old line {i}\n" for i in range(chars // 14)),
            "".join(f"new text {i}\n" for i in range(chars // 14)),
        ),
        ("x" * chars, "y" * chars),  # one long line each
        ("a\n" * (chars // 2), "a\nb\n" * (chars // 4)),  # one repeated token against two
    ]
    for old, new in pairs:
        diff = content.unified_diff(old, new, "v1", "v2")
        assert apply_unified(old, diff) == new
        assert len(diff) <= 3 * (len(old) + len(new))  # the answer is linear in the versions too


def test_past_the_cap_the_differing_stretch_is_replaced_whole_between_the_common_ends():
    old = "Dear payer,\n" + "".join(f"{i % 3}\n" for i in range(1, 31)) + "Sincerely,\n"
    new = "Dear payer,\n" + "".join(f"{i % 5}\n" for i in range(2, 32)) + "Sincerely,\n"
    a, b = old.splitlines(), new.splitlines()
    assert _changed(line_diff.opcodes(a, b, max_changes=100)) < 60  # a search finds common lines
    assert line_diff.opcodes(a, b, max_changes=2) == [
        ("equal", 0, 1, 0, 1),
        ("replace", 1, 31, 1, 31),
        ("equal", 31, 32, 31, 32),
    ]
