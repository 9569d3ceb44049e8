"""Go-live gates: the latest recording wins, blockers in declared order (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.platform.activation_governance import gates, schemas

GATE = st.sampled_from(gates.GATE_NAMES)


def test_the_five_gates_are_declared_in_order():
    assert gates.GATE_NAMES == (
        "data_validated",
        "payer_rules_reviewed",
        "users_trained",
        "integrations_tested",
        "pipeline_dry_run_clean",
    )
    assert set(schemas.Gate.__args__) == set(gates.GATE_NAMES)
    assert all(gates.GATES[g] for g in gates.GATE_NAMES)


def test_nothing_recorded_blocks_on_every_gate():
    assert gates.blockers({}) == list(gates.GATE_NAMES)
    assert gates.state_of({}, "users_trained") == "not_recorded"


def test_the_latest_recording_wins():
    recordings = [
        ("users_trained", True),
        ("users_trained", False),
        ("data_validated", False),
        ("data_validated", True),
    ]
    latest = gates.latest(recordings)
    assert latest == {"users_trained": False, "data_validated": True}
    assert gates.state_of(latest, "users_trained") == "failed"
    assert gates.state_of(latest, "data_validated") == "passed"
    assert gates.blockers(latest) == [g for g in gates.GATE_NAMES if g != "data_validated"]


def test_all_passed_means_no_blockers_and_unknown_gates_are_ignored():
    latest = gates.latest([(g, True) for g in gates.GATE_NAMES] + [("not_a_gate", False)])
    assert gates.blockers(latest) == []


@given(st.lists(st.tuples(GATE, st.booleans()), max_size=40))
def test_blockers_are_exactly_the_gates_whose_last_recording_did_not_pass(recordings):
    last: dict[str, bool] = {}
    for gate, passed in recordings:
        last[gate] = passed
    blocked = gates.blockers(gates.latest(recordings))
    assert blocked == [g for g in gates.GATE_NAMES if not last.get(g, False)]
    assert (blocked == []) == all(last.get(g, False) for g in gates.GATE_NAMES)
