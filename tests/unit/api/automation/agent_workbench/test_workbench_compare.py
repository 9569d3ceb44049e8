"""agentWorkbench's replay comparison (pure): what differs between the stored run and its replay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.automation.agent_workbench.compare import Change, Run, compare, output_changes

leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=5), st.lists(st.integers(0, 3), max_size=3)
)
outputs = st.recursive(
    st.dictionaries(st.sampled_from("abcd"), leaf, max_size=4),
    lambda inner: st.dictionaries(st.sampled_from("abcd"), st.one_of(leaf, inner), max_size=4),
    max_leaves=12,
)


def run(**changes) -> Run:
    values = {
        "label": "authorization",
        "confidence": 0.95,
        "decision": "queued",
        "reasons": ("suggest_only",),
        "policy_version": 2,
        "output": {"category": "authorization", "basis": "carc"},
        **changes,
    }
    return Run(**values)


@given(outputs)
def test_an_output_never_differs_from_itself(output):
    assert output_changes(output, output) == ()
    assert compare(run(output=output), run(output=output)).any is False


@given(outputs, outputs)
def test_the_changes_go_both_ways_and_name_each_path_once(before, after):
    forward = output_changes(before, after)
    backward = output_changes(after, before)
    assert [c.path for c in forward] == [c.path for c in backward]
    assert [(c.before, c.after) for c in forward] == [(c.after, c.before) for c in backward]
    assert len({c.path for c in forward}) == len(forward)
    assert bool(forward) == (before != after)


def test_nested_keys_are_dotted_and_added_or_removed_ones_show_none():
    before = {"text": "ONE", "knowledge": {"template": 1}, "gone": True}
    after = {"text": "TWO", "knowledge": {"template": 2}, "new": [1]}
    assert output_changes(before, after) == (
        Change("gone", True, None),
        Change("knowledge.template", 1, 2),
        Change("new", None, [1]),
        Change("text", "ONE", "TWO"),
    )


def test_a_refused_run_has_no_output_which_differs_at_the_root():
    out = {"category": "authorization"}
    assert output_changes(out, None) == (Change("", out, None),)
    assert output_changes(None, None) == ()


def test_decision_label_confidence_and_policy_changes_are_each_reported():
    d = compare(run(), run(decision="refused", reasons=("policy_off",), policy_version=1, output=None))
    assert (d.decision_changed, d.reasons_changed, d.policy_version_changed, d.label_changed) == (
        True,
        True,
        True,
        False,
    )
    assert d.any and d.confidence_delta == 0.0
    assert compare(run(), run(confidence=0.5, label="coding")).confidence_delta == -0.45
