"""Queue rules that need no database: backoff and what a failure records."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.infra.jobs.handlers import HandlerRegistry
from api.infra.jobs.queue import JobError, PermanentJobError, backoff_seconds, describe_error


def test_backoff_doubles_from_the_base_and_is_capped():
    assert [backoff_seconds(n, 5.0) for n in (1, 2, 3, 4)] == [5.0, 10.0, 20.0, 40.0]
    assert backoff_seconds(50, 5.0, cap=3600) == 3600
    with pytest.raises(ValueError):
        backoff_seconds(0)


@given(attempt=st.integers(1, 10_000), base=st.floats(0.001, 100))
def test_property_backoff_is_monotonic_and_bounded(attempt, base):
    assert 0 < backoff_seconds(attempt, base) <= backoff_seconds(attempt + 1, base) <= 3600


def test_only_platform_written_messages_are_recorded():
    assert describe_error(JobError("batch 12 has no rows")) == "JobError: batch 12 has no rows"
    assert describe_error(PermanentJobError("gone")) == "PermanentJobError: gone"
    # An arbitrary exception may quote data (a patient name): only its type is kept.
    assert describe_error(ValueError("Jane Roe 123-45-6789")) == "ValueError"


def test_a_kind_is_registered_once():
    registry = HandlerRegistry()

    @registry.register("a.kind")
    def first(ctx):
        return None

    with pytest.raises(ValueError):
        registry.register("a.kind")(lambda ctx: None)
    assert registry.get("a.kind") is first and registry.kinds() == ["a.kind"]
