"""A Hypothesis state machine over the case service on a real (in-memory SQLite) database: no
sequence of move attempts reaches an undeclared state, every accepted move leaves exactly one
CaseEvent, a refused one leaves none, and a loss or write-off records what was not recovered."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from api.denials.cases.lifecycle import CASE, REOPEN_MOVES
from tests.integration.api.denials.cases.case_db import CaseDb


class CaseMoves(RuleBasedStateMachine):
    """Random move attempts against the service on a real (in-memory) database."""

    def __init__(self) -> None:
        super().__init__()
        self.db = CaseDb()
        self.case_id = self.db.new_case(amount_at_stake=Decimal("100.00"), recovered=Decimal("30.00"))
        self.expected_events = 0

    @rule(to=st.sampled_from(sorted(CASE.states)), reason=st.sampled_from([None, "payer asked for records"]))
    def move(self, to: str, reason: str | None) -> None:
        target = to
        before = self.db.state(self.case_id)
        accepted = self.db.try_transition(self.case_id, target, reason)
        declared = CASE.can(before, target) and ((before, target) not in REOPEN_MOVES or reason is not None)
        assert accepted == declared, (before, target, reason)
        if accepted:
            self.expected_events += 1

    @invariant()
    def only_declared_states_and_one_event_per_move(self) -> None:
        state = self.db.state(self.case_id)
        assert state in CASE.states
        assert self.db.transition_events(self.case_id) == self.expected_events
        written_off = self.db.written_off(self.case_id)
        assert written_off == (Decimal("70.00") if state in ("lost", "written_off") else Decimal("0.00")) or (
            state == "closed"
        )

    def teardown(self) -> None:
        self.db.close()


# Each example builds a tenant and a case; 30 sequences of up to 30 moves reach every state.
CaseMoves.TestCase.settings = settings(max_examples=30, stateful_step_count=30)
TestCaseMoves = CaseMoves.TestCase
