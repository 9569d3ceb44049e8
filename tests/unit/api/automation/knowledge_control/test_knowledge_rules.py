"""knowledgeControl's pure rules: the version lifecycle, which version is active, what a person sees,
content checks and separation of duties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.automation.knowledge_control import rules
from api.automation.knowledge_control.lifecycle import KNOWLEDGE_VERSION
from api.core.errors import Forbidden, InvalidInput, PreconditionFailed
from api.core.lifecycle import transition

STORED = ("pending_approval", "approved", "retired")
versions_st = st.lists(st.sampled_from(STORED), max_size=12).map(lambda states: list(enumerate(states, start=1)))


def test_the_lifecycle_approves_pending_only_and_retired_is_final():
    assert transition(KNOWLEDGE_VERSION, "pending_approval", "approved") == "approved"
    assert transition(KNOWLEDGE_VERSION, "pending_approval", "retired") == "retired"
    assert transition(KNOWLEDGE_VERSION, "approved", "retired") == "retired"
    for current, target in [("approved", "approved"), ("retired", "approved"), ("retired", "retired")]:
        with pytest.raises(PreconditionFailed, match=current):
            transition(KNOWLEDGE_VERSION, current, target)
    with pytest.raises(PreconditionFailed):
        transition(KNOWLEDGE_VERSION, "approved", "pending_approval")  # never back to unapproved


@given(versions_st)
def test_active_is_the_highest_approved_version_and_exactly_one_is_shown_active(versions):
    active = rules.active(versions)
    approved = [v for v, s in versions if s == "approved"]
    assert active == (max(approved) if approved else None)
    shown = [rules.shown_state(s, v, active) for v, s in versions]
    assert shown.count("active") == (1 if approved else 0)
    assert shown.count("superseded") == max(len(approved) - 1, 0)
    assert all(
        shown_state == s for (_, s), shown_state in zip(versions, shown, strict=True) if s != "approved"
    )  # pending and retired are shown as stored


@given(versions_st)
def test_retiring_the_active_version_falls_back_to_the_previous_approved_one(versions):
    active = rules.active(versions)
    if active is None:
        return
    after = [(v, "retired" if v == active else s) for v, s in versions]
    earlier = [v for v, s in versions if s == "approved" and v < active]
    assert rules.active(after) == (max(earlier) if earlier else None)


@given(versions_st)
def test_a_new_pending_version_never_changes_what_agents_use(versions):
    before = rules.active(versions)
    assert rules.active([*versions, (len(versions) + 1, "pending_approval")]) == before


def test_the_author_never_approves_their_own_version():
    with pytest.raises(Forbidden, match="Separation of duties"):
        rules.check_can_approve(7, 7)
    rules.check_can_approve(7, 8)
    rules.check_can_approve(None, 8)  # the author's account is gone: anyone else may


def test_appeal_templates_use_only_the_letters_placeholders():
    rules.check_content("appeal_template", "Claim $claim_key at ${payer}: costs $$5")
    with pytest.raises(InvalidInput, match="unknown placeholders \\['patient_name'\\]"):
        rules.check_content("appeal_template", "Dear $patient_name")
    with pytest.raises(InvalidInput, match="malformed"):
        rules.check_content("appeal_template", "costs $5")
    rules.check_content("payer_policy", "costs $5 and $patient_name is just text here")
    with pytest.raises(InvalidInput, match="'content'"):
        rules.check_content("carc_guidance", "  \n ")


def test_keys_are_normalised_like_the_case_fields_they_match():
    assert rules.normalise_key("carc_guidance", " co197 ") == "CO197"
    assert rules.normalise_key("appeal_template", " Authorization ") == "authorization"
    assert rules.normalise_key("payer_policy", " Northwind Health ") == "Northwind Health"
    with pytest.raises(InvalidInput, match="'key'"):
        rules.normalise_key("payer_policy", "   ")


@given(st.text(max_size=200))
def test_the_content_digest_is_the_sha256_of_its_utf8(text):
    digest = rules.content_sha256(text)
    assert len(digest) == 64 and digest == rules.content_sha256(text)
