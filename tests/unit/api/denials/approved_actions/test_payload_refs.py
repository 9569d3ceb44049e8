"""What an approved action's payload reference may hold and when its payload may run (pure): ids in
payloadRef bounded like DbId (issue 23, finding 11), the payload's case bound to the action's
(finding 4), and the refusal naming both references by id only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from api.denials.approved_actions.models import ApprovedAction
from api.denials.approved_actions.payloads import other_case_message
from api.denials.approved_actions.schemas import RequestActionIn
from api.denials.approved_actions.service import PayloadChanged, payload_problem

DIGEST = "a" * 64
MAX = 2**63 - 1


@dataclass(frozen=True)
class Facts:
    digest: str = DIGEST
    case_id: int = 7
    description: str = "appeal packet 12"
    authors: Mapping[int, str] = field(default_factory=dict)


def _ref(value: object) -> str:
    return RequestActionIn.model_validate({"caseId": 1, "kind": "portal_message", "payloadRef": value}).payload_ref


@given(st.integers(min_value=1, max_value=MAX), st.sampled_from(["{}", "draft:{}", "ns:{}/v1.2", "x/{}"]))
def test_ids_within_the_bigint_range_are_accepted(ident, shape):
    ref = shape.format(ident)
    assert _ref(ref) == ref


@given(
    st.one_of(st.integers(max_value=0), st.integers(min_value=MAX + 1, max_value=10**150)),
    st.sampled_from(["draft:{}", "ns:{}/v1", "x/{}"]),
)
def test_an_id_outside_the_range_is_refused_naming_the_field(number, shape):
    with pytest.raises(ValidationError) as refused:
        _ref(shape.format(number))
    assert refused.value.errors()[0]["loc"] == ("payloadRef",)


@pytest.mark.parametrize("value", [str(2**64), str(2**63), "-1", "0", 2**64, -1, "9" * 200])
def test_the_reported_values_are_refused(value):
    with pytest.raises(ValidationError):
        _ref(value)


def test_words_and_versions_are_not_ids():
    assert _ref("draft:12") == "draft:12" and _ref("portal/v1.2-beta") == "portal/v1.2-beta"


def _action(case_id: int = 7, digest: str = DIGEST) -> ApprovedAction:
    return ApprovedAction(id=3, case_id=case_id, payload_ref="12", payload_digest=digest)


def test_a_payload_runs_only_on_its_own_case_with_its_approved_digest():
    assert payload_problem(_action(), Facts()) is None
    assert payload_problem(_action(), None) == "the payload is gone"
    assert payload_problem(_action(), Facts(digest="b" * 64)) == "the payload changed after approval"
    assert payload_problem(_action(case_id=8), Facts()) == "the payload belongs to case 7"
    # another case wins over another digest: the case is what makes it the wrong payload
    assert payload_problem(_action(case_id=8), Facts(digest="b" * 64)) == "the payload belongs to case 7"


def test_the_refusals_name_both_references_by_id():
    message = other_case_message("12", "appeal packet 12", 7, 8)
    assert message.startswith("payloadRef '12' is appeal packet 12 of case 7, not of case 8 (caseId)")
    assert "request it on case 7" in message
    other = str(PayloadChanged(_action(case_id=8), Facts()))
    assert "of case 7, not of case 8" in other and other.endswith("the action is void")
    assert "changed after approval" in str(PayloadChanged(_action(), None))
