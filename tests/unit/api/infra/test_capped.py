"""The capped child: results come back as JSON, refusals as InvalidInput, every runaway as a reason."""

from __future__ import annotations

import pytest

from api.core.errors import InvalidInput
from api.infra.capped import CappedWorkFailed, run_capped

MiB = 1_048_576
TARGETS = "tests.support.capped_targets"


def test_a_result_comes_back_with_its_params():
    out = run_capped(f"{TARGETS}:echo", b"hello world", {"limit": 3}, memory_bytes=512 * MiB, cpu_seconds=20)
    assert out == {"size": 11, "head": "hello", "params": {"limit": 3}}


def test_a_refusal_is_raised_with_the_functions_message():
    with pytest.raises(InvalidInput, match="the limit is 2"):
        run_capped(f"{TARGETS}:refuse", b"abc", {"limit": 2}, memory_bytes=512 * MiB, cpu_seconds=20)


@pytest.mark.parametrize(
    ("function", "reason", "cpu"),
    [("hog_memory", "memory", 20), ("spin", "time", 1), ("boom", "error", 20), ("die", "crashed", 20)],
)
def test_a_runaway_child_ends_with_a_reason_and_no_data(function, reason, cpu):
    with pytest.raises(CappedWorkFailed) as caught:
        run_capped(f"{TARGETS}:{function}", b"x", memory_bytes=512 * MiB, cpu_seconds=cpu)
    assert caught.value.reason == reason
    assert "private" not in str(caught.value)
