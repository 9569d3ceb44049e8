"""The one hook mechanism (api/core/hooks.py): order, errors, results, one function per key."""

from __future__ import annotations

import pytest

from api.core.hooks import Hook, Keyed


def test_listeners_run_in_subscription_order_with_the_emitted_arguments():
    seen: list[tuple[str, int]] = []
    hook: Hook = Hook()
    hook.subscribe(lambda case_id: seen.append(("first", case_id)))
    hook.subscribe(lambda case_id: seen.append(("second", case_id)))
    hook.emit(7)
    assert seen == [("first", 7), ("second", 7)]


def test_a_failing_listener_stops_the_rest_and_its_error_reaches_the_caller():
    # The caller's transaction rolls back on that error: nothing happens without its consequences.
    seen: list[str] = []

    def fails(case_id: int) -> None:
        raise RuntimeError("planted")

    hook: Hook = Hook()
    hook.subscribe(fails)
    hook.subscribe(lambda case_id: seen.append("after"))
    with pytest.raises(RuntimeError, match="planted"):
        hook.emit(1)
    assert seen == []


def test_collect_answers_each_listeners_result_in_order_and_unsubscribe_removes_one():
    hook: Hook = Hook()

    def gates(db: object) -> list[str]:
        return ["gate a"]

    hook.subscribe(gates)
    hook.subscribe(lambda db: ["checklist", "retention"])
    assert hook.collect(None) == [["gate a"], ["checklist", "retention"]]
    hook.unsubscribe(gates)
    assert hook.collect(None) == [["checklist", "retention"]]


def test_keyed_holds_one_function_per_allowed_key():
    keyed: Keyed = Keyed(("a", "b"))

    def one(x: int) -> int:
        return x

    keyed.subscribe("a", one)
    keyed.subscribe("a", one)  # the composition root may run twice: the same function is a no-op
    assert keyed.get("a") is one and keyed.get("b") is None
    with pytest.raises(ValueError, match="already subscribed"):
        keyed.subscribe("a", lambda x: x)
    with pytest.raises(ValueError, match="'c' is not a key"):
        keyed.subscribe("c", one)
    assert Keyed().subscribe("anything", one) is one  # no keys given: any key
