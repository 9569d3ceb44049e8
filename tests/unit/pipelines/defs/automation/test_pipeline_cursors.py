"""Sensor cursor logic: a file (or batch) starts a run once; the run key is a content hash."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pipelines.defs.automation.cursors import batch_tick, drop_tick

keys = st.dictionaries(
    st.text("0123456789abcdef", min_size=8, max_size=8), st.text(min_size=1, max_size=10), max_size=12
)


@given(keys)
def test_a_second_tick_with_the_same_files_requests_nothing(files):
    first = drop_tick(None, files)
    second = drop_tick(first.cursor, files)
    assert second.run_key is None
    assert (first.run_key is None) == (not files)


@given(keys, keys)
def test_only_new_files_are_reported_and_the_key_depends_on_them_only(old, extra):
    new_only = {k: v for k, v in extra.items() if k not in old}
    tick = drop_tick(drop_tick(None, old).cursor, {**old, **extra})
    assert sorted(tick.new_files) == sorted(new_only[k] for k in new_only)
    again = drop_tick(drop_tick(None, {}).cursor, new_only)
    assert tick.run_key == again.run_key  # same new content -> same run key (Dagster dedupes it)


def test_removed_files_leave_the_cursor():
    tick = drop_tick(json.dumps(["a", "b"]), {"b": "b.835"})
    assert json.loads(tick.cursor) == ["b"]
    assert tick.run_key is None
    assert drop_tick(tick.cursor, {"a": "a.835", "b": "b.835"}).new_files == ("a.835",)


@given(
    st.lists(
        st.tuples(st.integers(1, 10_000), st.text("0123456789abcdef", min_size=4, max_size=4)),
        unique_by=lambda t: t[0],
        max_size=20,
    ),
    st.integers(0, 10_000),
)
def test_batch_cursor_moves_to_the_highest_new_batch(batches, last):
    tick = batch_tick(str(last), batches)
    new = sorted(b for b in batches if b[0] > last)
    assert tick.batch_ids == tuple(b for b, _ in new)
    assert int(tick.cursor) == (new[-1][0] if new else last)
    assert (tick.run_key is None) == (not new)
    assert batch_tick(tick.cursor, batches).run_key is None
