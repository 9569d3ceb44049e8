"""Sensor cursor logic: a file (or batch) starts a run once; the run key is a content hash."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from pipelines.defs.automation.cursors import ConfirmedBatch, batch_tick, drop_tick

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


NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
LONG_AGO = NOW - timedelta(hours=1)


@given(
    st.lists(
        st.tuples(st.integers(1, 10_000), st.text("0123456789abcdef", min_size=4, max_size=4)),
        unique_by=lambda t: t[0],
        max_size=20,
    ),
    st.integers(0, 10_000),
)
def test_batch_cursor_moves_to_the_highest_new_batch(batches, last):
    confirmed = [ConfirmedBatch(b, sha, LONG_AGO) for b, sha in batches]
    tick = batch_tick(str(last), confirmed, NOW)
    new = sorted(b for b in batches if b[0] > last)
    assert tick.batch_ids == tuple(b for b, _ in new)
    assert int(tick.cursor) == (new[-1][0] if new else last)
    assert (tick.run_key is None) == (not new)
    assert batch_tick(tick.cursor, confirmed, NOW).run_key is None


def test_batches_still_being_confirmed_wait_for_the_last_one_to_settle():
    first = ConfirmedBatch(5, "aaaa", NOW - timedelta(seconds=90))
    second = ConfirmedBatch(6, "bbbb", NOW - timedelta(seconds=20))
    waiting = batch_tick("4", [first, second], NOW)
    assert waiting.run_key is None
    assert waiting.cursor == "4"  # the cursor stays: the next tick sees both
    assert "settling" in waiting.reason
    later = batch_tick(waiting.cursor, [first, second], NOW + timedelta(seconds=41))
    assert later.batch_ids == (5, 6)
    assert later.cursor == "6"
    # One batch, the same content, a minute on: the same run key (Dagster dedupes it).
    assert later.run_key == batch_tick("4", [first, second], NOW + timedelta(hours=2)).run_key


def test_batches_a_requested_run_covers_move_the_cursor_without_a_second_run():
    covered = [ConfirmedBatch(7, "cccc", NOW - timedelta(seconds=5), covered=True)]
    tick = batch_tick("6", covered, NOW)
    assert (tick.run_key, tick.cursor) == (None, "7")
    assert "covered" in tick.reason
    # Mixed: only the batch no run covers is built, and its settling alone delays the run.
    mixed = [*covered, ConfirmedBatch(8, "dddd", NOW - timedelta(seconds=61))]
    tick = batch_tick("6", mixed, NOW)
    assert (tick.batch_ids, tick.cursor) == ((8,), "8")
    assert batch_tick("6", [*covered, ConfirmedBatch(8, "dddd", NOW)], NOW).run_key is None
