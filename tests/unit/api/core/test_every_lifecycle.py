"""Every declared lifecycle of the product, enumerated from the code (a lifecycle added later is covered
without being listed here), walked with random sequences of moves through `api.core.lifecycle.transition`:

- a declared move is accepted and lands exactly on its target;
- any other move is PRECONDITION_FAILED naming the current state (or BAD_REQUEST for a target that is
  not a state at all), and leaves the state where it was;
- no sequence reaches a state the table does not declare.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

import api
from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import StateMachine, transition


def _machines() -> dict[str, StateMachine]:
    found: dict[str, StateMachine] = {}
    for info in pkgutil.walk_packages(api.__path__, "api."):
        if ".migrations" in info.name or info.name.endswith((".app", ".__main__")):
            continue
        if info.name.rsplit(".", 1)[-1] not in ("lifecycle", "partners"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, StateMachine):
                found[value.name] = value
    return found


MACHINES = _machines()


def test_the_lifecycles_are_found():
    # a guard against an empty enumeration: the denial-work lifecycles are among them
    assert {"case", "claim", "partner profile", "rebill", "import batch"} <= set(MACHINES), sorted(MACHINES)


@pytest.mark.parametrize("name", sorted(MACHINES))
@given(data=st.data())
def test_random_walks_stay_inside_the_declared_table(name, data):
    machine = MACHINES[name]
    state = data.draw(st.sampled_from(sorted(machine.states)), label="start")
    for _ in range(data.draw(st.integers(1, 25), label="moves")):
        target = data.draw(st.sampled_from([*sorted(machine.states), "no_such_state"]), label="target")
        if target in machine.allowed(state):
            assert transition(machine, state, target) == target
            state = target
        elif target == "no_such_state":
            with pytest.raises(InvalidInput):
                transition(machine, state, target)
        else:
            with pytest.raises(PreconditionFailed) as refused:
                transition(machine, state, target)
            assert f"'{state}'" in refused.value.message
        assert state in machine.states
