"""The generic lifecycle helper and the ingestion lifecycles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import machine, transition
from api.money.ingestion.lifecycle import ENTRY_REVIEW, IMPORT_BATCH, RECONCILIATION_EXCEPTION

MACHINES = [IMPORT_BATCH, RECONCILIATION_EXCEPTION, ENTRY_REVIEW]


@given(
    st.sampled_from(MACHINES).flatmap(
        lambda m: st.tuples(st.just(m), st.sampled_from(sorted(m.states)), st.sampled_from(sorted(m.states)))
    )
)
def test_a_move_succeeds_exactly_when_the_table_allows_it(case):
    m, current, target = case
    if target in m.moves[current]:
        assert transition(m, current, target) == target
    else:
        with pytest.raises(PreconditionFailed) as err:
            transition(m, current, target)
        assert f"'{current}'" in err.value.message
        assert err.value.details["allowedMoves"] == sorted(m.moves[current])


def test_refusal_names_the_current_state_and_allowed_moves():
    with pytest.raises(PreconditionFailed) as err:
        transition(IMPORT_BATCH, "needs_review", "confirmed")
    assert "needs_review" in err.value.message and "discarded" in err.value.message
    with pytest.raises(PreconditionFailed) as final:
        transition(IMPORT_BATCH, "confirmed", "parsed")
    assert "'confirmed' is final" in final.value.message


def test_unknown_target_is_a_bad_request_and_tables_must_be_closed():
    with pytest.raises(InvalidInput):
        transition(RECONCILIATION_EXCEPTION, "open", "closed")
    with pytest.raises(ValueError, match="undeclared"):
        machine("broken", {"a": {"b"}})


def test_confirmed_and_discarded_batches_are_final():
    assert IMPORT_BATCH.allowed("confirmed") == frozenset() == IMPORT_BATCH.allowed("discarded")
