"""The steps a case's records show as done, and the work days they take off (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.denials.deadline_risk import risk


def test_nothing_recorded_nothing_done():
    assert risk.steps_done(risk.WorkDone()) == frozenset()
    # open: triage 1 + evidence 3 + draft 2 + approval 1 + submission 1
    assert risk.remaining_work_days("open", risk.steps_done(risk.WorkDone())) == 8


def test_each_record_kind():
    assert risk.steps_done(risk.WorkDone(evidence=True)) == {"evidence"}
    assert risk.steps_done(risk.WorkDone(draft=True)) == {"draft"}
    assert risk.steps_done(risk.WorkDone(approved=True)) == {"draft", "approval"}
    assert risk.steps_done(risk.WorkDone(assembled=True)) == {"evidence", "draft"}
    assert risk.steps_done(risk.WorkDone(submitted=True)) == {"evidence", "draft", "approval", "submission"}


def test_work_left_after_evidence_and_a_draft():
    done = risk.steps_done(risk.WorkDone(evidence=True, draft=True))
    # triaged: evidence 3 + draft 2 + approval 1 + submission 1 = 7, less evidence and draft = 2
    assert risk.remaining_work_days("triaged", done) == 2


flags = st.builds(risk.WorkDone, st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())


@given(work=flags, state=st.sampled_from(sorted(risk.WORK_STEPS)))
def test_more_records_never_mean_more_work(work, state):
    done = risk.steps_done(work)
    assert done <= set(risk.STEP_DAYS)
    assert risk.remaining_work_days(state, done) <= risk.remaining_work_days(state)
    more = risk.steps_done(risk.WorkDone(True, True, True, True, True))
    assert risk.remaining_work_days(state, more) <= risk.remaining_work_days(state, done)
