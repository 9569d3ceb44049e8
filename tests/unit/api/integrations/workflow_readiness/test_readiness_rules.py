"""Which workflows a client can run, from its facts (pure)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from api.integrations.workflow_readiness import rules, schemas
from api.platform.activation_governance.gates import GATE_NAMES

EMPTY = rules.Facts(
    writers=1,
    specialists=0,
    confirmed_remittances=0,
    denial_cases=0,
    contract_terms=0,
    payer_aliases=0,
    activation_blockers=GATE_NAMES,
)
POPULATED = rules.Facts(
    writers=2, specialists=1, confirmed_remittances=3, denial_cases=5, contract_terms=4, payer_aliases=0
)


def _by_name(facts: rules.Facts) -> dict[str, rules.Workflow]:
    return {w.workflow: w for w in rules.assess(facts)}


def _codes(w: rules.Workflow) -> list[str]:
    return [b.code for b in w.blockers]


def test_a_new_client_can_only_upload():
    out = _by_name(EMPTY)
    assert list(out) == list(schemas.WorkflowName.__args__)
    assert out["upload_and_reconcile_remittances"].ready
    assert _codes(out["work_denial_cases"]) == ["no_specialist", "no_confirmed_remittance"]
    assert _codes(out["assemble_appeals"]) == ["no_specialist", "no_confirmed_remittance", "no_payer_rules"]
    assert _codes(out["automation"]) == ["activation_gates_not_passed", "no_confirmed_remittance"]
    assert "data_validated" in out["automation"].blockers[0].sentence
    assert all(w.sentence.startswith("Blocked") for n, w in out.items() if n != "upload_and_reconcile_remittances")


def test_a_populated_client_with_gates_passed_is_ready_everywhere():
    out = _by_name(POPULATED)
    assert all(w.ready and w.sentence.startswith("Ready") for w in out.values())


def test_remittances_without_cases_and_no_writer():
    out = _by_name(replace(POPULATED, denial_cases=0, writers=0))
    assert _codes(out["upload_and_reconcile_remittances"]) == ["no_writer"]
    assert _codes(out["work_denial_cases"]) == ["no_denial_cases"]


def test_payer_aliases_count_as_payer_rules():
    assert _by_name(replace(POPULATED, contract_terms=0, payer_aliases=1))["assemble_appeals"].ready
    assert not _by_name(replace(POPULATED, contract_terms=0))["assemble_appeals"].ready


COUNT = st.integers(min_value=0, max_value=3)


@given(COUNT, COUNT, COUNT, COUNT, COUNT, COUNT, st.lists(st.sampled_from(GATE_NAMES), unique=True))
def test_ready_means_no_blockers_and_every_blocker_has_a_sentence(w, s, r, c, t, a, blocked):
    facts = rules.Facts(w, s, r, c, t, a, tuple(blocked))
    for workflow in rules.assess(facts):
        assert workflow.ready == (not workflow.blockers)
        assert all(b.sentence.endswith(".") for b in workflow.blockers)
    assert _by_name(facts)["automation"].ready == (not blocked and c > 0)
