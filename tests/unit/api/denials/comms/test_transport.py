"""The sandbox transport and the message lifecycle it drives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.comms.content import content_digest
from api.denials.comms.lifecycle import FINAL_STATES, MESSAGE
from api.denials.comms.transport import (
    SANDBOX,
    TRANSPORTS,
    OutboundRequest,
    SandboxTransport,
    transport_for,
)


def _request(recipient: str = "8005550142", channel: str = "fax", message_id: int = 7) -> OutboundRequest:
    content = b"Channel: fax\nTo: x\nSubject: s\n\nbody"
    return OutboundRequest(message_id, channel, recipient, content, content_digest(content))


def _walk(reports) -> str:
    state = "queued"
    for report in reports:
        state = transition(MESSAGE, state, report.status)
    return state


def test_the_lifecycle_has_exactly_two_final_states():
    assert {"delivered", "failed"} == FINAL_STATES
    assert MESSAGE.allowed("queued") == {"sent", "failed"}
    assert MESSAGE.allowed("sent") == {"delivered", "failed"}


@pytest.mark.parametrize(("current", "target"), [("queued", "delivered"), ("delivered", "failed"), ("failed", "sent")])
def test_other_moves_are_precondition_failed(current, target):
    with pytest.raises(PreconditionFailed, match=current):
        transition(MESSAGE, current, target)


def test_unknown_status_is_invalid_input():
    with pytest.raises(InvalidInput):
        transition(MESSAGE, "queued", "bounced")


def test_sandbox_accepts_then_delivers():
    result = SandboxTransport().submit(_request())
    assert [r.status for r in result.reports] == ["sent", "delivered"]
    assert result.reference == f"SBX-7-{_request().content_digest[:12]}"
    assert result.response["accepted"] is True and result.response["sandbox"] is True
    assert result.response["contentDigest"] == _request().content_digest


def test_sandbox_reject_recipient_fails_at_submission():
    result = SandboxTransport().submit(_request("sandbox-reject", "portal"))
    assert [r.status for r in result.reports] == ["failed"]
    assert result.reference is None and result.response["accepted"] is False


@pytest.mark.parametrize("recipient", ["0000000000", "Claims\nUndeliverable St\nNowhere"])
def test_undeliverable_recipients_are_sent_then_failed(recipient):
    result = SandboxTransport().submit(_request(recipient))
    assert [r.status for r in result.reports] == ["sent", "failed"]
    assert result.reference is not None


@given(recipient=st.text(max_size=60), message_id=st.integers(min_value=1, max_value=2**63 - 1))
def test_every_sandbox_answer_is_a_legal_path_to_a_final_state_and_deterministic(recipient, message_id):
    request = _request(recipient, message_id=message_id)
    result = SandboxTransport().submit(request)
    assert _walk(result.reports) in FINAL_STATES
    assert SandboxTransport().submit(request) == result
    # the recorded response never carries the content itself
    assert "body" not in str(result.response)


def test_recorded_request_holds_the_digest_and_size_not_the_content():
    request = _request()
    recorded = request.recorded(SANDBOX)
    assert recorded == {
        "transport": "sandbox",
        "messageId": 7,
        "channel": "fax",
        "recipient": "8005550142",
        "contentDigest": request.content_digest,
        "contentBytes": 35,
    }


def test_only_the_sandbox_is_configured():
    assert set(TRANSPORTS) == {SANDBOX}
    assert transport_for("sandbox").name == "sandbox"
    with pytest.raises(PreconditionFailed, match="no live transport is configured; only sandbox"):
        transport_for("live")


def test_a_configured_transport_is_found_by_name():
    class Gateway:
        name = "gateway"

        def submit(self, request):  # pragma: no cover - never called here
            raise AssertionError

    gateway = Gateway()
    assert transport_for("gateway", {"gateway": gateway}) is gateway
